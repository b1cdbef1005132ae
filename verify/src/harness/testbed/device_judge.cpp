// Testbed runs as judge entries (device_judge.hpp).
#include "harness/testbed/device_judge.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "rope2d/verify/judge/gpu_check.hpp"

namespace rope2d::verify {

CallResult call_result(DeviceRun run) {
  CallResult c;
  c.error = run.integrity.call_error;
  if (run.integrity.timed_out) c.error_cause = Cause::timeout;
  c.context_lost = run.integrity.context_lost;
  c.declined = run.integrity.declined;
  if (!run.integrity.ok() && c.error.empty()) c.findings.push_back(run.integrity.describe());
  c.out = std::move(run.out);
  c.kernel_ms = run.kernel_ms;
  return c;
}

RunChecks checks_for_round(int round) { return RunChecks{.stream = round == 0, .repeat = true, .inputs = round == 0}; }

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

CallResult judged_on_gpu(Testbed& bed, const Problem& p, const DeviceJudging& how,
                         const std::function<DeviceRun(const Testbed::OutputJudge&)>& run) {
  CheckOptions o;
  o.gate = how.gate;
  o.max_deferred = std::min<std::int64_t>(std::max<std::int64_t>(p.n(), 1), std::int64_t{1} << 22);
  CheckPass pass;
  bool judged = false;
  std::string cross;
  double check_s = 0, cross_s = 0;
  CallResult c = call_result(run([&](const DeviceArrays& a, void* stream) {
    const auto t0 = std::chrono::steady_clock::now();
    pass = gpu_check_device(a, o, stream);
    judged = true;
    check_s = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    cross = bed.cross_check(p, a, how.cross_samples);
    cross_s = seconds_since(t1);
  }));
  c.check_s = check_s;
  c.cross_s = cross_s;
  if (!c.error.empty() || c.context_lost || c.declined || !judged) return c;
  if (!cross.empty()) throw std::runtime_error("verifier error: the GPU comparison's cross-check against the CPU failed: " + cross);
  const auto t2 = std::chrono::steady_clock::now();
  if (pass.deferred_complete && pass.failures_total <= static_cast<std::int64_t>(o.max_records))
    c.metrics = settle(pass, [&](std::int64_t i) { return p.element(i); }, how.gate, how.max_failures, how.subnormals);
  else {  // more came back than the pass keeps: the whole problem on the CPU, from the counter
    c.metrics = compare(p, compute_expected(p), c.out.data(), how.gate, how.max_failures, how.subnormals);
    c.whole_on_cpu = true;
  }
  c.settle_s = seconds_since(t2);
  return c;
}

Entry plain_entry(Testbed& bed, BackwardFn fn, std::optional<DeviceJudging> gpu) {
  return {"", [&bed, fn, gpu](const Problem& p, int round) {
            if (!gpu || !p.device_only) return call_result(bed.run(fn, p, checks_for_round(round)));
            return judged_on_gpu(bed, p, *gpu, [&](const Testbed::OutputJudge& j) { return bed.run(fn, p, checks_for_round(round), j); });
          },
          {}};
}

Entry fused_entry(Testbed& bed, FusedFn fn, std::optional<DeviceJudging> gpu) {
  return {"fused:", [&bed, fn, gpu](const Problem& p, int round) {
            if (!gpu || !p.device_only) return call_result(bed.run_fused(fn, p, checks_for_round(round)));
            return judged_on_gpu(bed, p, *gpu,
                                 [&](const Testbed::OutputJudge& j) { return bed.run_fused(fn, p, checks_for_round(round), j); });
          },
          [](const Problem& p) { return !p.positions.empty(); }};
}

}  // namespace rope2d::verify
