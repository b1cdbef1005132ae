// Judging output files against golden sets.
#include "rope2d/verify/judge/check.hpp"

#include <cstring>

#include "rope2d/ref/floats.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "codec/validate.hpp"

namespace rope2d::verify {

namespace {

std::string stem(const std::string& file) { return file.substr(0, file.rfind(".safetensors")); }

SetResult result_for(const GoldenProblem& g) {
  SetResult r;
  r.name = g.problem.spec.name();
  r.set = g.problem.spec.set;
  r.dtype = g.problem.spec.grad_dtype;
  r.shape = g.problem.spec.shape();
  return r;
}

}  // namespace

std::string eval_line(const SetResult& r) {
  const std::optional<ElementReport>& w = r.metrics.failures.empty() ? r.metrics.worst : r.metrics.failures.front();
  if (!w) return "";  // every output equal to the reference: nothing to reproduce
  // "--" before the inputs: a negative hex float is a value, not an option.
  return "rope2d eval --grad-dtype " + std::string(dtype_name(r.dtype)) + " -- " + ref::hex(w->in.gc) + " " + ref::hex(w->in.gs) +
         " " + ref::hex(w->in.t) + "  # element " + std::to_string(w->index) + ", got " + ref::hex(w->got);
}

Report check_outputs(const GoldenSet& set, const SafeTensors& outputs, Tier gate, const ProgressFn& progress,
                     Subnormals subnormals) {
  Report rep;
  rep.title = "rope2d check: outputs against golden set " + set.dir;
  rep.gate = gate;
  rep.header = {{"golden set", set.dir}, {"golden command", set.command}, {"reference", "correctly rounded float32 (stored)"}};
  // Nothing passes empty: an outputs file with no tensors, or a set with no problems, is bad input.
  if (outputs.tensors.empty()) bad_input("outputs", "tensors", "one F32 tensor per golden problem", "none");
  if (set.files.empty()) bad_input(set.dir, "files", "at least one problem", "none");
  if (subnormals == Subnormals::ieee) rep.header.push_back({"subnormals", "IEEE demanded (--ieee-subnormals)"});
  Judge judge(gate, 1);  // one stored case per problem: the golden inputs and results
  judge.subnormals = subnormals;
  for (std::size_t k = 0; k < set.files.size(); ++k) {
    const GoldenFile& f = set.files[k];
    if (progress) progress(k, set.files.size(), f.problem);
    GoldenProblem g = load_golden(set, f);
    const Entry entry{"", [&](const Problem& p, int) {
      CallResult c;
      auto it = outputs.tensors.find(f.problem);
      if (it == outputs.tensors.end()) it = outputs.tensors.find(stem(f.file));
      if (it == outputs.tensors.end()) {
        c.error = "no output tensor named '" + f.problem + "' or '" + stem(f.file) + "'";  // nothing produced: runtime
      } else if (it->second.dtype != "F32") {
        c.error = "output dtype: expected F32, found " + it->second.dtype;
        c.error_cause = Cause::dtype;
      } else if (it->second.shape != p.spec.shape() && it->second.shape != std::vector<std::int64_t>{p.n()}) {
        c.error = "output shape: expected " + shape_str(p.spec.shape()) + " or [" + std::to_string(p.n()) + "], found " +
                  shape_str(it->second.shape);
        c.error_cause = Cause::shape;
      } else {
        c.out = as_f32(it->second, f.problem);
      }
      return c;
    }, {}};
    const ProblemSpec spec = g.problem.spec;
    SetResult r = judge.judge(spec, [&](int) { return Case{std::move(g.problem), std::move(g.expected)}; }, {entry}).at(0);
    // No device: the file cannot show integrity, so none is claimed.
    r.integrity.clear();
    r.reproduce = eval_line(r);
    rep.results.push_back(std::move(r));
  }
  return rep;
}

Report check_golden_against_reference(const GoldenSet& set, const ProgressFn& progress) {
  Report rep;
  rep.title = "rope2d check: golden set " + set.dir + " against the reference";
  rep.gate = Tier::float32_bound;
  rep.header = {{"golden set", set.dir}, {"golden command", set.command}};
  if (set.files.empty()) bad_input(set.dir, "files", "at least one problem", "none");
  for (std::size_t k = 0; k < set.files.size(); ++k) {
    const GoldenFile& f = set.files[k];
    if (progress) progress(k, set.files.size(), f.problem);
    const GoldenProblem g = load_golden(set, f);
    SetResult r = result_for(g);
    const Expected x = compute_expected(g.problem, true);
    // The stored float32 result is judged like a kernel's output; bf16 / fp16 must be equal.
    r.metrics = compare(g.problem, x, g.expected.fp32.data(), Tier::float32_bound);
    const bool same_scale = std::memcmp(x.scale.data(), g.expected.scale.data(), x.scale.size() * 8) == 0;
    const bool same16 = x.bf16 == g.expected.bf16 && x.fp16 == g.expected.fp16;
    if (r.metrics.correctly_rounded != r.metrics.count || !same16 || !same_scale)
    {
      r.integrity = "stored results differ from the reference: fp32 " + std::to_string(r.metrics.count - r.metrics.correctly_rounded) +
                    " elements" + (same16 ? "" : ", bf16/fp16 results") + (same_scale ? "" : ", scale");
      r.finding_cause = Cause::numerical;  // the stored results are what is judged here: wrong numbers, not a cheat
    } else
      r.integrity = "ok";
    rep.results.push_back(std::move(r));
  }
  return rep;
}

}  // namespace rope2d::verify
