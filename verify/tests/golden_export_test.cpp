// The committed golden set's SOL-ExecBench export: every exported workload's exact result,
// given as the output, passes the official rules against the exact result and against a
// float32 evaluation as PyTorch makes it; every benchmark-shaped problem left out is listed in
// not_exported.jsonl with a reason, and the reason holds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "rope2d/verify/codec/safetensors.hpp"
#include "rope2d/verify/model/sxb_rules.hpp"

using namespace rope2d::verify;

namespace {

const std::string golden = std::string(ROPE2D_TEST_DIR) + "/../../data/golden-smoke";

std::vector<nlohmann::json> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// bf16 bits to float.
std::vector<float> bf16(const Tensor& t) {
  std::vector<float> v(t.elements());
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint16_t h;
    std::memcpy(&h, t.data.data() + 2 * i, 2);
    const std::uint32_t w = static_cast<std::uint32_t>(h) << 16;
    std::memcpy(&v[i], &w, 4);
  }
  return v;
}

// The definition's reference as PyTorch evaluates it in float32: -gc*sin(t) + gs*cos(t), each
// operation rounded (glibc's sinf and cosf stand in for CUDA's; both within 2 ulp).
std::vector<float> float32_reference(const SafeTensors& st) {
  const std::vector<float> gc = bf16(st.tensors.at("grad_cos")), gs = bf16(st.tensors.at("grad_sin"));
  const std::vector<float> t = as_f32(st.tensors.at("idx_theta"), "idx_theta");
  std::vector<float> r(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    const volatile float a = -gc[i] * std::sin(t[i]);  // volatile: no fused multiply-add
    const volatile float b = gs[i] * std::cos(t[i]);
    r[i] = a + b;
  }
  return r;
}

}  // namespace

TEST(GoldenExport, EveryExportedWorkloadPassesTheOfficialRules) {
  const auto workloads = lines(golden + "/solexecbench/workload.jsonl");
  ASSERT_FALSE(workloads.empty());
  for (const auto& w : workloads) {
    const std::string file = w["inputs"]["grad_cos"]["path"];
    SCOPED_TRACE(file);
    const SafeTensors st = read_safetensors(golden + "/" + file);
    const std::vector<float> exact = as_f32(st.tensors.at("grad_idx_theta"), "grad_idx_theta");
    SxbTolerance tol;
    tol.atol = w["tolerance"]["max_atol"].get<float>();
    tol.rtol = w["tolerance"]["max_rtol"].get<float>();
    EXPECT_FALSE(sxb_error_stats(exact, exact, tol).exceeds);
    const SxbStats s = sxb_error_stats(exact, float32_reference(st), tol);
    EXPECT_FALSE(s.exceeds) << s.over << " over, max abs " << s.max_abs;
  }
}

TEST(GoldenExport, EveryBenchmarkShapedProblemIsExportedOrListedWithItsReason) {
  const auto manifest = nlohmann::json::parse(std::ifstream(golden + "/manifest.json"));
  std::map<std::string, std::string> exported, left_out;
  for (const auto& w : lines(golden + "/solexecbench/workload.jsonl")) exported[w["inputs"]["grad_cos"]["path"]] = w["uuid"];
  for (const auto& x : lines(golden + "/solexecbench/not_exported.jsonl")) {
    const std::string reason = x["reason"];
    EXPECT_FALSE(reason.empty());
    left_out[x["file"]] = reason;
    // The reason holds: the exact result, as the output, is refused or trapped somewhere.
    const SafeTensors st = read_safetensors(golden + "/" + x["file"].get<std::string>());
    const std::vector<float> exact = as_f32(st.tensors.at("grad_idx_theta"), "grad_idx_theta");
    const std::vector<double> scale = [&] {
      const Tensor& t = st.tensors.at("scale");
      std::vector<double> v(t.elements());
      std::memcpy(v.data(), t.data.data(), v.size() * 8);
      return v;
    }();
    EXPECT_EQ(sxb_export_exclusion(exact, scale), reason) << x["file"];
  }
  int benchmark_shaped = 0;
  for (const auto& f : manifest["files"]) {
    const SafeTensors st = read_safetensors(golden + "/" + f["file"].get<std::string>());
    const bool shaped = st.tensors.at("grad_cos").dtype == "BF16" && st.tensors.at("grad_cos").shape.size() == 3 &&
                        st.tensors.at("grad_cos").shape[2] == 128;
    if (!shaped) continue;
    ++benchmark_shaped;
    EXPECT_EQ(exported.count(f["file"]) + left_out.count(f["file"]), 1u) << f["file"];
  }
  EXPECT_EQ(static_cast<std::size_t>(benchmark_shaped), exported.size() + left_out.size());
  // The sets SOL-ExecBench's rules fail even for the exact result are among those left out.
  for (const char* f : {"nonfinite_bf16_1x32.safetensors", "near_overflow_bf16_1x32.safetensors"})
    EXPECT_EQ(left_out.count(f), 1u) << f;
}
