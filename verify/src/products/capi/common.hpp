// Shared pieces of the C ABI's files: error capture at the boundary (no exception crosses
// into C), argument parsing, and the JSON form of a comparison's metrics.
#pragma once

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope2d/verify/model/metrics.hpp"

namespace rope2d::verify::capi {

extern thread_local std::string last_error;

char* dup(const std::string& s);  // malloc'd copy, released by rope2d_free
ref::Dtype dtype_arg(int d, const char* what);
Tier tier_arg(const char* t);
nlohmann::json number(double x);
// shape: the arrays' shape, for the mismatch message's indices ((b, s, d) of [batch, seq_len, head_dim]).
nlohmann::json metrics_json(const Metrics& m, Tier gate, const std::string& set, std::span<const std::int64_t> shape);
// A shape argument (rank sizes, each >= 0, their product within int64), or invalid_argument.
std::vector<std::int64_t> shape_arg(const std::int64_t* shape, int rank);

// 0 on success; 2 for bad input (std::invalid_argument), 3 for anything else.
template <class F>
int guarded(F&& f) {
  last_error.clear();
  try {
    f();
    return 0;
  } catch (const std::invalid_argument& e) {
    last_error = e.what();
    return 2;
  } catch (const std::exception& e) {
    last_error = e.what();
    return 3;
  } catch (...) {
    last_error = "unknown error";
    return 3;
  }
}

}  // namespace rope2d::verify::capi
