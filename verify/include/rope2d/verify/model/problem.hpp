// Test problems: the inputs of one kernel call (grads in their dtype's encoding, angles, and
// for layout sets the positions and theta table of the fused path) and their expected results
// from the reference. Generation is seeded and chunked, so it is the same on any thread count.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/dtype.hpp"
#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/regimes.hpp"

namespace rope2d::verify {

// How the angles of a problem are drawn. `special`: element i walks the cross product of
// ref::special_grads (gc, gs) and ref::special_angles, every combination once per period.
enum class AngleSource { randn, layout, regime, special };

// Which device pointer an element offset applies to (ProblemSpec::offset).
enum Operand { op_grad_cos = 0, op_grad_sin = 1, op_idx_theta = 2, op_out = 3 };

struct ProblemSpec {
  std::string set;  // randn, layout, long, a regime name, odd
  AngleSource source = AngleSource::randn;
  ref::Regime regime = ref::Regime::randn;  // for AngleSource::regime
  ref::Dtype grad_dtype = ref::Dtype::bf16;
  std::int64_t batch = 1, seq_len = 1, head_dim = 128;
  std::int64_t elements = -1;  // when >= 0, overrides batch*seq_len*head_dim (odd sizes)
  // Element offset of each device pointer (Operand order) past a 256-byte boundary.
  std::array<int, 4> offset{};
  bool flush_end = false;  // every input ends exactly at the end of its own allocation
  bool light = false;      // one member of a wide sweep: the testbed skips the stream and repeat calls
  std::uint64_t seed = 0;
  // AngleSource::layout: this layout instead of a random one (a file's, read by codec's
  // layout_json.hpp before the spec is made: the model reads nothing).
  std::optional<ref::Layout> layout;

  std::int64_t n() const { return elements >= 0 ? elements : batch * seq_len * head_dim; }
  // [n] for flat problems, else [batch, seq_len, head_dim] as the benchmark shapes its tensors.
  std::vector<std::int64_t> shape() const {
    return elements >= 0 ? std::vector<std::int64_t>{elements} : std::vector<std::int64_t>{batch, seq_len, head_dim};
  }
  // The same problem with fresh inputs for verification round `round` (round 0 is itself):
  // the buffers stay, the values change, so a kernel that caches results is caught.
  ProblemSpec round(int r) const {
    ProblemSpec s = *this;
    s.seed = seed + 1000003ull * static_cast<std::uint64_t>(r);
    return s;
  }
  std::string name() const;  // e.g. randn/bf16/2x773, odd/bf16/n=1001+1, place/fp16/n=67+0,1,2,3

  void set_offsets(int all) { offset = {all, all, all, all}; }
  // "k" when all four offsets are k, else "a,b,c,d" (Operand order); parse_offsets reads both.
  std::string offsets_text() const;
  static std::array<int, 4> parse_offsets(const std::string& text);
};

// A set's seed from its name (FNV-1a, stable across platforms and releases) and the base
// seed: adding or reordering sets changes no other set's inputs.
std::uint64_t name_seed(std::uint64_t base, const std::string& name);

struct Problem {
  ProblemSpec spec;
  std::vector<std::uint8_t> gc, gs;  // grads encoded in spec.grad_dtype
  std::vector<float> theta;          // idx_theta
  std::vector<std::int32_t> positions;  // (y, x) per token, layout sets only
  std::vector<float> theta_table;       // layout sets only
  // Inputs from the counter (ref/counter_random.hpp: randn and layout sources): element i
  // is a pure function of (spec.seed, i) and the positions, so the GPU can make them itself.
  bool counter = false;
  // A counter-based problem whose inputs were not made on the host (make_problem with
  // host_inputs false: the device path makes and judges them on the GPU). gc, gs and theta
  // are empty; element(i) recomputes element i from the counter.
  bool device_only = false;

  std::int64_t n() const { return device_only ? spec.n() : static_cast<std::int64_t>(theta.size()); }
  double gc_at(std::int64_t i) const { return device_only ? element(i).gc : decode(gc, i); }
  double gs_at(std::int64_t i) const { return device_only ? element(i).gs : decode(gs, i); }
  ref::Element element(std::int64_t i) const { return device_only ? counter_element(i) : ref::Element{decode(gc, i), decode(gs, i), theta[i]}; }
  // Element i from the counter (counter problems only), without the host arrays.
  ref::Element counter_element(std::int64_t i) const;

 private:
  double decode(const std::vector<std::uint8_t>& v, std::int64_t i) const;
};

struct Expected {
  std::vector<float> fp32;     // correctly rounded float32 result
  std::vector<double> scale;   // |gc sin t| + |gs cos t|
  std::vector<std::uint16_t> bf16, fp16;  // correctly rounded, encoded (when asked for)
  ref::CertifiedStats stats;
};

Problem make_problem(const ProblemSpec& spec);
Expected compute_expected(const Problem& p, bool all_dtypes = false);
// The same into existing buffers (their capacity kept): the judge reuses one case's buffers
// across rounds and sets, so large sets pay no fresh allocation and page faults each round.
void make_problem(const ProblemSpec& spec, Problem& into);
// The same with host_inputs false: a counter-based spec (counter_source) gets its shape,
// seed and layout only (Problem::device_only); any other spec is made in full.
void make_problem(const ProblemSpec& spec, Problem& into, bool host_inputs);
// True when make_problem draws spec's inputs from the counter (randn and layout sources).
bool counter_source(const ProblemSpec& spec);
void compute_expected(const Problem& p, Expected& into, bool all_dtypes = false);

// A problem with its expected results.
struct Case {
  Problem problem;
  Expected expected;
};
// Round r's case of a set.
using CaseSource = std::function<Case(int round)>;
// Where a set's cases come from when make_problem does not make them (the worst set's lists,
// worst.hpp's suite_sources): the spec's own CaseSource, or an empty one for a generated set.
using CaseSources = std::function<CaseSource(const ProblemSpec&)>;

// Runs fn(begin, end) over [0, n) in chunks on all hardware threads.
void parallel_chunks(std::int64_t n, std::int64_t chunk, const std::function<void(std::int64_t, std::int64_t)>& fn);

}  // namespace rope2d::verify
