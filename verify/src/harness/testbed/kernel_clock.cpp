// CUPTI's activity records through dlopen (kernel_clock.hpp): the programs then start on a
// machine without CUPTI and report the events alone there.
#include "harness/testbed/kernel_clock.hpp"

#include <cupti_activity.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "harness/entry_points.hpp"

namespace rope2d::verify::detail {

namespace {

// The five entry points used, looked up in the opened library.
struct Cupti : EntryPoints {
  explicit Cupti(void* lib) : EntryPoints(dlsym, lib, "the CUPTI library found") {}
  EntryPoint<decltype(cuptiActivityRegisterCallbacks)> register_callbacks{*this, "cuptiActivityRegisterCallbacks"};
  EntryPoint<decltype(cuptiActivityEnable)> enable{*this, "cuptiActivityEnable"};
  EntryPoint<decltype(cuptiActivityFlushAll)> flush_all{*this, "cuptiActivityFlushAll"};
  EntryPoint<decltype(cuptiActivityGetNextRecord)> next_record{*this, "cuptiActivityGetNextRecord"};
  EntryPoint<decltype(cuptiGetResultString)> result_string{*this, "cuptiGetResultString"};
};

// Looked up by the one clock (instance()) before it registers the callbacks, and never freed,
// like the library: CUPTI may call back until the process ends.
const Cupti* api = nullptr;
std::mutex records_mutex;
std::vector<KernelRecord> records;  // filled by CUPTI's thread or by a forced flush

constexpr std::size_t buffer_bytes = 8u << 20;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, buffer_bytes));
  *size = *buffer ? buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  {
    const std::lock_guard lock(records_mutex);
    while (api->next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
      // start, end and name sit at the same offsets in kernel record versions 4 to 10 (the
      // CUDA 13 headers' newest), whichever the loaded library writes.
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      records.push_back({k->name ? k->name : "", k->start, k->end});
    }
  }
  std::free(buffer);
}

}  // namespace

KernelClock& KernelClock::instance() {
  static KernelClock clock;
  return clock;
}

KernelClock::KernelClock() {
  // ROPE2D_CUPTI names the library; else the loader's search path, then the toolkit's usual places.
  std::vector<std::string> names;
  if (const char* env = std::getenv("ROPE2D_CUPTI")) names.push_back(env);
  for (const char* n : {"libcupti.so", "libcupti.so.13", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                        "/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so"})
    names.push_back(n);
  void* lib = nullptr;
  for (const std::string& n : names)
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) {
    reason_ = "CUPTI not found (set ROPE2D_CUPTI to libcupti.so)";
    return;
  }
  api = new Cupti(lib);
  if (!api->missing().empty()) {
    reason_ = api->missing();
    return;
  }
  auto failed = [&](CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return false;
    const char* text = nullptr;
    api->result_string(r, &text);
    reason_ = std::string(what) + ": " + (text ? text : "CUPTI error " + std::to_string(r));
    return true;
  };
  if (failed(api->register_callbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks") ||
      failed(api->enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable(CONCURRENT_KERNEL)"))
    return;
  available_ = true;
}

std::vector<KernelRecord> KernelClock::take() {
  if (!available_) return {};
  api->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<KernelRecord> out;
  {
    const std::lock_guard lock(records_mutex);
    out.swap(records);
  }
  std::sort(out.begin(), out.end(), [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace rope2d::verify::detail
