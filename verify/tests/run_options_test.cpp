// Problem selection and reproduce lines: a fused set's line selects its plain problem, the
// dtype list keeps its order (the quoting itself: ref::shell_quote, validate_test).
#include <gtest/gtest.h>

#include "rope2d/verify/judge/run_options.hpp"

using namespace rope2d::verify;

TEST(RunOptions, FusedSetReproducesItsProblem) {
  RunOptions o;
  o.quick = true;
  o.grad_dtypes = {"bf16", "fp32"};  // layout sets belong to the first dtype
  const std::vector<std::string> a = reproduce_args(o, "fused:layout/bf16/1x773");
  ASSERT_GE(a.size(), 2u);
  EXPECT_EQ(a[a.size() - 2], "--only");
  EXPECT_EQ(a.back(), "layout/bf16/1x773");
  const std::vector<ProblemSpec> s = select_problems(o, "fused:layout/bf16/1x773");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].name(), "layout/bf16/1x773");
  // Same seed as in the whole suite: the selection drops problems, it does not renumber them.
  for (const ProblemSpec& p : select_problems(o)) {
    if (p.name() == s[0].name()) {
      EXPECT_EQ(p.seed, s[0].seed);
    }
  }
  EXPECT_NE(reproduce_line(o, "fused:layout/bf16/1x773").find("--grad-dtypes bf16,fp32"), std::string::npos);
}

TEST(RunOptions, UnknownProblemOrDtypeIsAnError) {
  RunOptions o;
  EXPECT_THROW(select_problems(o, "randn/fp8/1x773"), std::invalid_argument);
  o.grad_dtypes = {"fp8"};
  EXPECT_THROW(select_problems(o), std::invalid_argument);
}
