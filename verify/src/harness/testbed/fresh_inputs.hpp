// A fresh GPU fill of a counter-based problem's inputs, apart from the call's buffers, and what
// is judged against it (private to testbed/): the output hook of the GPU comparison, the inputs
// check of a problem made on the GPU, and the cross-checks of the GPU-made inputs and the GPU
// reference against the CPU's.
#pragma once

#include <functional>
#include <string>

#include "rope2d/verify/judge/gpu_check_types.hpp"  // DeviceArrays
#include "rope2d/verify/model/problem.hpp"
#include "harness/testbed/buffers.hpp"

namespace rope2d::verify::detail {

class FreshInputs {
 public:
  explicit FreshInputs(DeviceMemory& mem) : mem_(mem) {}
  ~FreshInputs();
  FreshInputs(const FreshInputs&) = delete;
  FreshInputs& operator=(const FreshInputs&) = delete;

  // Fills the inputs of p anew (its positions and table too, so a kernel that wrote the fused
  // path's inputs is still caught), once per run: a second make before `forget` keeps the
  // fill, which no kernel is handed and the judge only reads.
  void make(const Problem& p);
  // A new run begins: the next make fills again.
  void forget() { filled_ = nullptr; }
  // Input k (grad_cos, grad_sin, idx_theta) of the last fill; null past those.
  const Buffer* made(std::size_t k) const { return k < 3 ? made_[k] : nullptr; }
  // The output hook of a run for Testbed's `judge`: the output judged against a fresh fill of
  // the inputs, not the call's buffers (a kernel that writes its inputs is judged on what it
  // was given, as the CPU judge is with its host copy; the fused call reads no angles, the
  // fill makes them). Empty when there is no judge. (`judge` is a Testbed::OutputJudge.)
  using Judge = std::function<void(const DeviceArrays&, void* stream)>;
  std::function<void(const float*)> judging(const Problem& p, const Judge& judge);
  // "" when the GPU's counter-based inputs of p equal the CPU's bit for bit, else the first
  // difference in words.
  std::string counter_mismatch(const Problem& p);
  // The sample cross-check (Testbed::cross_check).
  std::string cross_check(const Problem& p, const DeviceArrays& a, int k);

 private:
  DeviceMemory& mem_;
  Buffer gc_, gs_, theta_, positions_, table_;
  const Buffer* made_[3] = {&gc_, &gs_, &theta_};
  unsigned char* sample_ = nullptr;  // device: cross_check's gathered sample
  int sample_capacity_ = 0;
  const Problem* filled_ = nullptr;  // the problem of the fill kept since the run began
};

}  // namespace rope2d::verify::detail
