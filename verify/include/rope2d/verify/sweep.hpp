// The nightly sweep: every float32 angle in [from, to), with a few fixed grad pairs, run by a
// kernel in chunks on the GPU and judged by the float32-bound tier against the certified reference,
// within a time box.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "rope2d/verify/device.hpp"
#include "rope2d/verify/metrics.hpp"

namespace rope2d::verify {

struct SweepOptions {
  float from = 0.0f, to = 16384.0f;
  std::vector<std::pair<double, double>> grads{{0.75, -1.25}, {1.0, 0.0}, {0.0, 1.0}};  // (gc, gs), fp32
  double budget_s = 600;  // the time box: the result says how far it got
  bool quick = false;     // angles below 4 only
};

struct SweepResult {
  bool ran = false;
  std::string skipped;  // why not, when it did not run
  std::int64_t angles = 0;
  Metrics metrics;
  float reached = 0;
  bool complete = false;  // every angle of every grad pair checked within the time box
  double seconds = 0;
};

// Called after each chunk: elements done of total, and what was checked.
using SweepProgress = std::function<void(std::int64_t done, std::int64_t total, const std::string& what)>;

// Needs a GPU (throws std::runtime_error when a call fails).
SweepResult sweep_angles(BackwardFn fn, const SweepOptions& o, const SweepProgress& progress = {});

}  // namespace rope2d::verify
