// Problem selection of a verify run and the reproduce lines that replay one set.
#include "rope2d/verify/judge/run_options.hpp"

#include <stdexcept>

#include "codec/shell_text.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

namespace {

constexpr const char fused_prefix[] = "fused:";

std::string plain_name(const std::string& problem) {
  return problem.rfind(fused_prefix, 0) == 0 ? problem.substr(sizeof fused_prefix - 1) : problem;
}

}  // namespace

std::vector<ProblemSpec> select_problems(const RunOptions& o, const std::string& only) {
  SuiteOptions so;
  so.seed = o.seed;
  so.quick = o.quick;
  so.grad_dtypes = o.grad_dtypes;
  so.worst_dir = o.worst_dir;
  std::vector<ProblemSpec> specs = o.sanitize_set ? sanitize_suite(so) : verification_suite(so);
  if (!only.empty()) {
    const std::string want = plain_name(only);
    std::erase_if(specs, [&](const ProblemSpec& s) { return s.name() != want; });
    if (specs.empty()) throw std::invalid_argument("--only: no problem named '" + only + "' in the suite");
  }
  return specs;
}

std::vector<std::string> reproduce_args(const RunOptions& o, const std::string& problem) {
  std::vector<std::string> a;
  if (!o.submission.empty()) a.push_back(o.submission);
  // The whole dtype list, in its order: the first dtype gets the full sizes.
  for (std::string x : std::initializer_list<std::string>{"--grad-dtypes", grad_dtype_list(o.grad_dtypes), "--tier", std::string(name(o.tier)),
                                                          "--seed", std::to_string(o.seed), "--rounds", std::to_string(o.rounds)})
    a.push_back(std::move(x));
  if (o.quick) a.push_back("--quick");
  if (o.sanitize_set) a.push_back("--sanitize-set");
  if (o.ieee_subnormals) a.push_back("--ieee-subnormals");
  if (o.nvcc != "nvcc") a.push_back("--nvcc=" + o.nvcc);
  for (const auto& f : o.nvcc_flags) a.push_back("--nvcc-flag=" + f);
  a.push_back("--only");
  a.push_back(plain_name(problem));
  return a;
}

std::string reproduce_line(const RunOptions& o, const std::string& problem) {
  std::string s = "rope2d verify";
  for (const auto& x : reproduce_args(o, problem)) s += " " + shell_quote(x);
  return s;
}

}  // namespace rope2d::verify
