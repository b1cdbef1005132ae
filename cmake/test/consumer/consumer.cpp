// A program of a downstream project against the installed package, and the example of
// docs/cpp.md (the blocks between "docs/cpp.md:" markers are quoted there verbatim): the
// reference's two paths agree on elements whose exact results are known or bounded; a kernel's
// output is judged, failing with the mismatch lines and a FAIL line; the installed golden smoke
// set opens with its checksums verified and its stored results pass as outputs. Prints one line
// per check; exit 1 on any failure.
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "rope2d/ref/backward.hpp"
#include "rope2d/verify/judge/check.hpp"
#include "rope2d/verify/codec/golden.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/mismatch.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "rope2d/verify/judge/worst.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  failures += !ok;
}

void reference() {
  using namespace rope2d;
  // cos(0) = 1 exactly: -gc*sin(0) + gs*cos(0) = gs.
  expect(ref::exact_backward({2.0, 3.0, 0.0f}).fp32 == 3.0, "exact_backward at t = 0 returns gs");
  // A transcendental value: the correctly rounded float32 is within half an ulp of the double.
  const ref::Element e{0.75, -1.25, 1.0f};
  const double want = -0.75 * std::sin(1.0) + -1.25 * std::cos(1.0);
  const ref::Rounded exact = ref::exact_backward(e), fast = ref::certified_backward(e);
  expect(std::fabs(exact.fp32 - want) <= 0.5 * std::ldexp(1.0, std::ilogb(want) - 23), "float32 result within 1/2 ulp");
  expect(exact.fp32 == fast.fp32 && exact.bf16 == fast.bf16 && exact.fp16 == fast.fp16,
         "MPFR and certified paths agree in every dtype");
}

void judge_an_output() {
  using namespace rope2d;
  // docs/cpp.md: judge
  // The inputs of one call, [batch 2, seq_len 4, head_dim 128], and the correctly rounded result.
  std::vector<ref::Element> elements;
  for (int i = 0; i < 2 * 4 * 128; ++i) elements.push_back({0.5, -1.5, 0.01f * static_cast<float>(i)});
  const verify::Problem p = verify::problem_of("mine", ref::Dtype::fp32, elements);
  const verify::Expected x = verify::compute_expected(p);

  std::vector<float> out = x.fp32;  // a kernel's output: the reference, one element wrong
  out[700] += 1e-3f;
  const verify::Metrics m = verify::compare(p, x, out.data(), verify::Tier::float32_bound);

  verify::SetResult set;
  set.name = "mine/fp32/2x4";
  set.set = "mine";
  set.dtype = ref::Dtype::fp32;
  set.metrics = m;
  set.shape = {2, 4, 128};
  verify::Report report;
  report.title = "my kernel";
  report.results.push_back(set);
  std::fputs(verify::summary(report).c_str(), stdout);  // mismatch lines, FAIL lines, the verdict
  // docs/cpp.md: end
  expect(!m.passes(verify::Tier::float32_bound) && m.over[static_cast<int>(verify::Tier::float32_bound)] == 1,
         "one element over float32-bound");
  expect(m.worst && verify::index_text(m.worst->index, set.shape) == "(1, 1, 60)", "the worst element at (1, 1, 60)");
  expect(report.verdict() == verify::Disposition::incorrect && report.exit_code() == 1, "verdict incorrect, exit code 1");
  const std::string text = verify::summary(report);
  expect(text.find("Mismatched elements: 1 / 1024 (0.1%)") != std::string::npos &&
             text.find("FAIL mine/fp32/2x4 i=700 ") != std::string::npos,
         "summary: mismatch line and FAIL line");
}

void golden(const char* dir) {
  using namespace rope2d;
  try {
    // docs/cpp.md: golden
    const verify::GoldenSet set = verify::open_golden(dir);  // checksums verified
    verify::SafeTensors outputs;                            // one F32 tensor per problem
    for (const verify::GoldenFile& f : set.files) {
      const verify::GoldenProblem g = verify::load_golden(set, f);
      outputs.tensors[f.problem] = verify::make_tensor("F32", {g.problem.n()}, g.expected.fp32);
    }
    const verify::Report r = verify::check_outputs(set, outputs, verify::Tier::float32_bound);
    // docs/cpp.md: end
    expect(!set.files.empty(), "installed golden set opens, checksums verified");
    expect(r.verdict() == verify::Disposition::passed && r.results.size() == set.files.size(),
           "the golden set's stored results pass as outputs");
    std::printf("golden set %s: %zu files\n", dir, set.files.size());
  } catch (const std::exception& x) {
    expect(false, x.what());
  }
}

}  // namespace

int main() {
  reference();
  judge_an_output();
  golden(ROPE2D_GOLDEN);
  return failures ? 1 : 0;
}
