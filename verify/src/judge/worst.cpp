// Problems from explicit elements and from the committed worst-case lists (see worst.hpp).
#include "rope2d/verify/judge/worst.hpp"

#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

#include "codec/worst_list.hpp"

namespace rope2d::verify {

Problem problem_of(const std::string& set, ref::Dtype d, const std::vector<ref::Element>& elements) {
  std::vector<ref::Element> kept;
  for (const ref::Element& e : elements)
    if (ref::representable(d, e.gc) && ref::representable(d, e.gs)) kept.push_back(e);
  Problem p;
  p.spec.set = set;
  p.spec.grad_dtype = d;
  p.spec.elements = static_cast<std::int64_t>(kept.size());
  const std::size_t bytes = static_cast<std::size_t>(ref::size_bytes(d));
  p.gc.resize(kept.size() * bytes);
  p.gs.resize(kept.size() * bytes);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const ref::Element& e = kept[i];
    ref::encode(d, e.gc, &p.gc[i * bytes]);
    ref::encode(d, e.gs, &p.gs[i * bytes]);
    p.theta.push_back(e.t);
  }
  return p;
}

Problem worst_problem(const std::string& dir, ref::Dtype d) {
  std::vector<ref::Element> all = ref::worst_elements(read_worst_list(dir + "/near_axis.txt", 1));
  for (const char* name : {"/float32_eval.txt", "/known.txt"}) {
    const auto more = ref::worst_elements(read_worst_list(dir + name, 3));
    all.insert(all.end(), more.begin(), more.end());
  }
  return problem_of("worst", d, all);
}

Problem suite_problem(const ProblemSpec& spec, const std::string& worst_dir) {
  if (spec.set != "worst") return make_problem(spec);
  if (worst_dir.empty()) throw std::invalid_argument(spec.name() + ": the worst set needs the lists' folder (reference/worst)");
  Problem p = worst_problem(worst_dir, spec.grad_dtype);
  if (p.spec.n() != spec.n())
    throw std::invalid_argument(worst_dir + ": worst set " + std::string(ref::name(spec.grad_dtype)) + ": expected " +
                                std::to_string(spec.n()) + " elements, found " + std::to_string(p.spec.n()));
  p.spec = spec;
  return p;
}

CaseSource worst_cases(const ProblemSpec& spec, const std::string& worst_dir) {
  auto made = std::make_shared<std::optional<Case>>();
  return [spec, worst_dir, made](int round) {
    const ProblemSpec s = spec.round(round);
    if (!*made) {
      Case c{suite_problem(s, worst_dir), {}};
      compute_expected(c.problem, c.expected);
      *made = std::move(c);
    }
    Case c = **made;
    c.problem.spec = s;
    return c;
  };
}

CaseSources suite_sources(const std::string& worst_dir) {
  return [worst_dir](const ProblemSpec& s) { return s.set == "worst" ? worst_cases(s, worst_dir) : CaseSource{}; };
}

}  // namespace rope2d::verify
