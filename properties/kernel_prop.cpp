// GPU properties of the project's kernel against the reference, over random mixed text-image
// layouts (text runs, images 1x1 to 128x128, markers, varied base and NTK factor, seq_len up
// to 131072), odd sizes and misaligned views, every grad dtype. Exits with the skip code
// (77, SKIPPED in CTest) where no GPU exists (verify/tests/gpu_test_main.cpp).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <cstring>

#include "rope2d/rope2d_backward.h"
#include "rope2d/rope2d_tuning.h"
#include "harness/testbed/device_judge.hpp"
#include "rope2d/verify/judge/judge.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

const BackwardFn own_kernel = &rope2d_backward;
const FusedFn own_fused = &rope2d_backward_fused;

// The tuning configurations as entry points of the submission ABI.
template <int V, int Threads, int Flags>
int configured(const void* gc, const void* gs, const float* t, float* out, std::int64_t n, int dtype, cudaStream_t s) {
  return rope2d_backward_config(gc, gs, t, out, n, dtype, s, V, Threads, Flags);
}
template <int Flags>
int fused_configured(const void* gc, const void* gs, const std::int32_t* pos, const float* table, float* out,
                     std::int64_t tokens, int head_dim, int dtype, cudaStream_t s) {
  return rope2d_backward_fused_config(gc, gs, pos, table, out, tokens, head_dim, dtype, s, Flags);
}
constexpr int plain = ROPE2D_TUNE_PLAIN_CACHE;
const BackwardFn accurate_configs[] = {&configured<2, 256, 0>,
                                       &configured<4, 128, 0>,
                                       &configured<8, 512, 0>,
                                       &configured<16, 256, 0>,
                                       &configured<4, 256, plain>,
                                       &configured<8, 128, plain>,
                                       &configured<2, 512, plain>};
const FusedFn fused_configs[] = {&fused_configured<0>,
                                 &fused_configured<plain>};

Testbed& testbed() {
  static Testbed t;
  return t;
}

rc::Gen<ref::Dtype> dtypes() {
  return rc::gen::elementOf(std::vector<ref::Dtype>(std::begin(ref::grad_dtypes), std::end(ref::grad_dtypes)));
}

// Mostly short sequences, sometimes long ones, now and then the longest the model uses.
rc::Gen<std::int64_t> seq_lens() {
  return rc::gen::weightedOneOf<std::int64_t>({{8, rc::gen::inRange<std::int64_t>(1, 4096)},
                                               {3, rc::gen::inRange<std::int64_t>(4096, 32768)},
                                               {1, rc::gen::just<std::int64_t>(131072)}});
}

// Judged as verify judges a set (one round): every integrity check, the float32-bound tier, and
// every element written. `out` receives the outputs of the plain entry.
void assert_float32_bound(const ProblemSpec& s, BackwardFn fn, std::vector<float>* out = nullptr) {
  Judge judge(Tier::float32_bound, 1);
  Entry e = plain_entry(testbed(), fn);
  if (out) e.call = [fn, out](const Problem& p, int round) {
    CallResult c = call_result(testbed().run(fn, p, checks_for_round(round)));
    *out = c.out;
    return c;
  };
  const SetResult r = judge.judge(s, {e}).at(0);
  for (const auto& f : r.metrics.failures) std::printf("%s\n", f.line(r.name).c_str());
  if (!r.ran()) std::printf("%s: %s\n", r.name.c_str(), r.error.c_str());
  RC_ASSERT(r.ran());
  RC_ASSERT(r.integrity == "ok");
  RC_ASSERT(r.metrics.poisoned == 0);
  RC_ASSERT(r.metrics.passes(Tier::float32_bound));
}

}  // namespace

RC_GTEST_PROP(Kernel, WithinTheStrictBoundOnRandomLayouts, ()) {
  ProblemSpec s;
  s.set = "layout";
  s.source = AngleSource::layout;
  s.grad_dtype = *dtypes();
  s.batch = *rc::gen::inRange(1, 5);
  s.seq_len = *seq_lens();
  s.seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_PRE(s.batch * s.seq_len <= 262144);
  RC_TAG(ref::name(s.grad_dtype), s.seq_len >= 32768 ? "long" : "short");
  std::vector<float> plain;
  assert_float32_bound(s, own_kernel, &plain);
  // The fused path forms the same angles itself: bit for bit the same results.
  const DeviceRun fused = testbed().run_fused(own_fused, make_problem(s));
  RC_ASSERT(fused.integrity.ok());
  RC_ASSERT(fused.out.size() == plain.size());
  RC_ASSERT(std::memcmp(fused.out.data(), plain.data(), plain.size() * 4) == 0);
}

RC_GTEST_PROP(Kernel, OddSizesAndMisalignedViews, ()) {
  ProblemSpec s;
  s.set = "odd";
  s.grad_dtype = *dtypes();
  s.elements = *rc::gen::inRange<std::int64_t>(0, 20000);
  for (int& o : s.offset) o = *rc::gen::inRange(0, 4);  // each pointer on its own
  s.seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_CLASSIFY(s.elements % 8 != 0, "n % 8 != 0");
  const bool misaligned = s.offset[0] || s.offset[1] || s.offset[2] || s.offset[3];
  RC_CLASSIFY(misaligned, "misaligned");
  assert_float32_bound(s, own_kernel);
}

RC_GTEST_PROP(Kernel, HardRegimes, ()) {
  ProblemSpec s;
  s.set = "regime";
  s.source = AngleSource::regime;
  s.regime = *rc::gen::elementOf(std::vector<ref::Regime>(std::begin(ref::all_regimes), std::end(ref::all_regimes)));
  s.grad_dtype = *dtypes();
  s.elements = *rc::gen::inRange<std::int64_t>(1, 50000);
  s.seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_TAG(ref::name(s.regime));
  assert_float32_bound(s, own_kernel);
}

RC_GTEST_PROP(Kernel, SameBitsOnAnotherStream, ()) {
  ProblemSpec s;
  s.set = "layout";
  s.source = AngleSource::layout;
  s.seq_len = *rc::gen::inRange<std::int64_t>(1, 8192);
  s.seed = *rc::gen::arbitrary<std::uint64_t>();
  const Problem p = make_problem(s);
  Testbed other;  // its own non-blocking stream and buffers
  const DeviceRun a = testbed().run(own_kernel, p), b = other.run(own_kernel, p);
  RC_ASSERT(a.integrity.ok() && b.integrity.ok());
  RC_ASSERT(std::memcmp(a.out.data(), b.out.data(), a.out.size() * 4) == 0);
}

// Every accurate configuration (elements per thread, block size, cache hints) computes the
// same bits as the shipped one, so the benchmark may pick any of them without re-verifying.
RC_GTEST_PROP(Kernel, EveryConfigurationGivesTheSameBits, ()) {
  ProblemSpec s;
  s.set = "layout";
  s.source = AngleSource::layout;
  s.grad_dtype = *dtypes();
  s.seq_len = *rc::gen::inRange<std::int64_t>(1, 4096);
  s.seed = *rc::gen::arbitrary<std::uint64_t>();
  const Problem p = make_problem(s);
  const DeviceRun base = testbed().run(own_kernel, p);
  RC_ASSERT(base.integrity.ok());
  const std::size_t bytes = base.out.size() * 4;
  for (BackwardFn fn : accurate_configs) {
    const DeviceRun r = testbed().run(fn, p);
    RC_ASSERT(r.integrity.ok());
    RC_ASSERT(std::memcmp(r.out.data(), base.out.data(), bytes) == 0);
  }
  for (FusedFn fn : fused_configs) {
    const DeviceRun r = testbed().run_fused(fn, p);
    RC_ASSERT(r.integrity.ok());
    RC_ASSERT(std::memcmp(r.out.data(), base.out.data(), bytes) == 0);
  }
}
