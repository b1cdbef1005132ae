// A library's entry points reached at run time instead of linked: the CUDA driver's through the
// runtime's entry-point query (driver_api.hpp), CUPTI's through dlsym (testbed/kernel_clock.cpp).
// A table derives from EntryPoints and names each entry point once, as a member whose
// initializer looks it up; the first one the library lacks is recorded.
#pragma once

#include <string>
#include <utility>

namespace rope2d::verify::detail {

class EntryPoints {
 public:
  // The address of `name` in the library `context` stands for (dlsym's shape), or null.
  using Find = void* (*)(void* context, const char* name);

  // The first entry point not found, as "LIBRARY has no NAME" ("" when all were found).
  const std::string& missing() const { return missing_; }

  void* find(const char* name) {
    void* p = find_(context_, name);
    if (!p && missing_.empty()) missing_ = library_ + " has no " + name;
    return p;
  }

 protected:
  // library: how `missing` names it ("the driver").
  EntryPoints(Find find, void* context, std::string library)
      : find_(find), context_(context), library_(std::move(library)) {}

 private:
  Find find_;
  void* context_;
  std::string library_, missing_;
};

template <class F>
class EntryPoint;

// One entry point of a table, called as the function it points to (null where not found).
template <class R, class... A>
class EntryPoint<R(A...)> {
 public:
  EntryPoint(EntryPoints& table, const char* name) : fn_(reinterpret_cast<R (*)(A...)>(table.find(name))) {}
  R operator()(A... a) const { return fn_(a...); }
  explicit operator bool() const { return fn_ != nullptr; }

 private:
  R (*fn_)(A...);
};

}  // namespace rope2d::verify::detail
