// Problem selection and reproduce lines: a fused set's line selects its plain problem, the
// dtype list keeps its order (the quoting itself: verify::shell_quote, validate_test).
#include <gtest/gtest.h>

#include <algorithm>

#include "rope2d/verify/judge/run_options.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/model/tolerance.hpp"

using namespace rope2d::verify;

TEST(RunOptions, FusedSetReproducesItsProblem) {
  RunOptions o;
  o.quick = true;
  o.grad_dtypes = {rope2d::ref::Dtype::bf16, rope2d::ref::Dtype::fp32};  // layout sets belong to the first dtype
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

TEST(RunOptions, UnknownProblemIsAnError) {
  RunOptions o;
  EXPECT_THROW(select_problems(o, "randn/fp8/1x773"), std::invalid_argument);
}

// --grad-dtypes is read once, where it is given: an unknown name is refused there, naming it,
// and the dtypes' names written back (reproduce lines, a child's command line) read the same.
TEST(RunOptions, GradDtypesAreReadOnceAndWrittenBack) {
  try {
    parse_grad_dtypes({"bf16", "fp8"}, "--grad-dtypes");
    ADD_FAILURE() << "fp8 was read as a grad dtype";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--grad-dtypes: expected bf16, fp16 or fp32, found 'fp8'");
  }
  EXPECT_THROW(parse_grad_dtypes({}, "--grad-dtypes"), std::invalid_argument);
  const std::vector<rope2d::ref::Dtype> d = parse_grad_dtypes({"fp32", "bfloat16"}, "--grad-dtypes");
  EXPECT_EQ(grad_dtype_list(d), "fp32,bf16");
  EXPECT_EQ(grad_dtype_list(d, ", "), "fp32, bf16");
  EXPECT_EQ(parse_grad_dtypes({"fp32", "bf16"}, "--grad-dtypes"), d);
}

// The gate travels as a Tier from --tier's one reading on, and is written back by its name: a
// reproduce line selects the same tier, in today's spelling.
TEST(RunOptions, TierIsWrittenBackByName) {
  RunOptions o;
  EXPECT_EQ(o.tier, Tier::float32_bound);
  o.tier = Tier::bf16_noise;
  const std::vector<std::string> a = reproduce_args(o, "randn/bf16/1x773");
  const auto at = std::find(a.begin(), a.end(), "--tier");
  ASSERT_NE(at, a.end());
  ASSERT_NE(at + 1, a.end());
  EXPECT_EQ(*(at + 1), "bf16-noise");
  EXPECT_EQ(parse_tier(*(at + 1)), o.tier);
}
