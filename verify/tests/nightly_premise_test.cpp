// The nightly's sincosf premise (nightly_premise.hpp) on the CPU: a measurement within the
// premise passes, one over it is incorrect naming the function, the figure and the premise, one
// that does not read is failed naming the file and field; sincosf_ulp stood in for by scripts
// that measure, fail, hang past the time limit, write nothing or contradict themselves, each
// failed naming the program; without a GPU the item is skipped, never passed; a program that
// is not beside the verifier or under its prefix is failed naming where it was looked for.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "products/nightly/nightly_premise.hpp"
#include "products/nightly/nightly_shard.hpp"

using namespace rope2d::verify;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A measurement as sincosf_ulp --json writes it (the H100's of reports/premise/), cosf's
// distance from the correctly rounded value set to cosf_floats.
json measurement(int cosf_floats = 2) {
  json m = {{"schema", "rope2d.sincosf_ulp/1"}, {"source", "sincosf_ulp --json"}, {"date", "2026-12-06T00:03:23Z"},
            {"device", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}, {"cuda_runtime", "13.0"},
            {"cuda_driver", "13.0"}, {"seconds", 0.097}, {"range", "every finite float32 input"}};
  for (const char* f : {"sinf", "sincosf.sin"})
    m["functions"][f] = {{"max_ulp_from_exact", 1.49938822}, {"at_x", "-0x1.8f5c76p+21"}, {"mpfr_recheck_ulp", 1.49938825},
                         {"max_floats_from_correctly_rounded", 1}, {"outside_unit_interval", 0}};
  for (const char* f : {"cosf", "sincosf.cos"})
    m["functions"][f] = {{"max_ulp_from_exact", 1.5109154}, {"at_x", "-0x1.173412p+16"}, {"mpfr_recheck_ulp", 1.51091544},
                         {"max_floats_from_correctly_rounded", 2}, {"outside_unit_interval", 0}};
  m["functions"]["cosf"]["max_floats_from_correctly_rounded"] = cosf_floats;
  return m;
}

class NightPremiseTest : public testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("rope2d_premise_test_" + std::to_string(::getpid()));
    fs::create_directories(dir / "night");
    write(dir / "within.json", measurement(2).dump());
    write(dir / "over.json", measurement(3).dump());
  }
  void TearDown() override { fs::remove_all(dir); }
  static void write(const fs::path& p, const std::string& text, int mode = 0644) {
    std::ofstream(p) << text;
    ::chmod(p.c_str(), static_cast<mode_t>(mode));
  }
  // A stand-in for sincosf_ulp: `sh` with the script; $2 is the --json file.
  std::string program(const std::string& name, const std::string& script) {
    const fs::path p = dir / name;
    write(p, "#!/bin/sh\n" + script + "\n", 0755);
    return p.string();
  }
  std::string night() const { return (dir / "night").string(); }
  fs::path dir;
};

json plan_given(const std::string& measurement) { return nightly_plan(NightlyConfig{}, true, "", {}, measurement); }

}  // namespace

TEST_F(NightPremiseTest, AMeasurementWithinThePremisePasses) {
  const NightPremise p = compare_premise((dir / "within.json").string(), true);
  EXPECT_EQ(p.disposition, Disposition::passed) << p.reason;
  EXPECT_TRUE(p.exceeded.empty());
  ASSERT_EQ(p.functions.size(), 4u);
  EXPECT_EQ(p.functions[1].function, "cosf");
  EXPECT_EQ(p.functions[1].floats, 2);
  EXPECT_EQ(p.k_ulp, 2.0) << "the premise compiled into float32_bound.hpp";
  EXPECT_EQ(p.device, "NVIDIA H100 80GB HBM3");
}

TEST_F(NightPremiseTest, AMeasurementOverThePremiseNamesTheFunctionTheFigureAndThePremise) {
  const NightPremise p = compare_premise((dir / "over.json").string(), true);
  EXPECT_EQ(p.disposition, Disposition::incorrect);
  ASSERT_EQ(p.exceeded.size(), 1u);
  EXPECT_EQ(p.exceeded[0], "cosf measured 3 floats from the correctly rounded value, the premise allows k = 2");
}

TEST_F(NightPremiseTest, AMeasurementThatDoesNotReadIsFailedNamingTheFileAndField) {
  json m = measurement();
  m["functions"]["sinf"]["outside_unit_interval"] = -1;
  write(dir / "bad.json", m.dump());
  const NightPremise p = compare_premise((dir / "bad.json").string(), false);
  EXPECT_EQ(p.disposition, Disposition::failed);
  EXPECT_NE(p.reason.find("bad.json: functions.sinf.outside_unit_interval: expected an integer in [0, "), std::string::npos) << p.reason;
  EXPECT_EQ(compare_premise((dir / "absent.json").string(), true).disposition, Disposition::failed);
}

TEST_F(NightPremiseTest, TheProgramsMeasurementIsWrittenToTheNightsFolderAndCompared) {
  const std::string good = program("good", "cp '" + (dir / "within.json").string() + "' \"$2\"; echo measured");
  NightPremise p = measure_premise(good, night());
  EXPECT_EQ(p.disposition, Disposition::passed) << p.reason;
  EXPECT_EQ(p.program, good);
  EXPECT_EQ(p.file, (dir / "night" / "sincosf_ulp.json").string());
  EXPECT_FALSE(p.given);
  std::ifstream log(dir / "night" / "sincosf_ulp.log");
  std::string line;
  std::getline(log, line);
  EXPECT_EQ(line, "measured") << "its output kept beside the measurement";
  // Exit 1: the program found the premise broken, and the measurement says where.
  p = measure_premise(program("broken", "cp '" + (dir / "over.json").string() + "' \"$2\"; exit 1"), night());
  EXPECT_EQ(p.disposition, Disposition::incorrect) << p.reason;
  ASSERT_EQ(p.exceeded.size(), 1u);
}

TEST_F(NightPremiseTest, AProgramThatFailsHangsOrWritesNothingIsFailedNamingIt) {
  auto reason_of = [&](const std::string& name, const std::string& script, double limit = 60) {
    const std::string prog = program(name, script);
    const NightPremise p = measure_premise(prog, night(), limit);
    EXPECT_EQ(p.disposition, Disposition::failed) << name;
    EXPECT_NE(p.reason.find(prog), std::string::npos) << p.reason;
    EXPECT_NE(p.reason.find("sincosf_ulp.log"), std::string::npos) << p.reason;
    return p.reason;
  };
  const std::string within = "cp '" + (dir / "within.json").string() + "' \"$2\"; ";
  EXPECT_NE(reason_of("crash", within + "exit 3").find("failed (exit 3)"), std::string::npos);
  EXPECT_NE(reason_of("hang", "sleep 30", 0.5).find("did not finish within 0.5 s (killed)"), std::string::npos);
  EXPECT_NE(reason_of("nogpu", "exit 77").find("found no usable GPU (exit 77)"), std::string::npos);
  EXPECT_NE(reason_of("contradicts", within + "exit 1").find("over a measurement within the premise"), std::string::npos);
  // A measurement left by an earlier night never stands in for tonight's.
  write(dir / "night" / "sincosf_ulp.json", measurement().dump());
  EXPECT_NE(reason_of("silent", "exit 0").find("wrote no measurement"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "night" / "sincosf_ulp.json"));
  const NightPremise p = measure_premise((dir / "no-such-program").string(), night());
  EXPECT_EQ(p.disposition, Disposition::failed);
  EXPECT_NE(p.reason.find("no-such-program did not start"), std::string::npos) << p.reason;
}

TEST_F(NightPremiseTest, WithoutAGpuTheItemIsSkippedNeverPassed) {
  const NightPremise p = night_premise(plan_given(""), DeviceInfo{false, "no CUDA device"}, night(), (dir / "bin" / "rope2d").string());
  EXPECT_EQ(p.disposition, Disposition::skipped);
  EXPECT_EQ(p.reason, "no CUDA device: sinf / cosf / sincosf not measured");
  EXPECT_TRUE(p.functions.empty());
  // A measurement given is compared, GPU or not.
  EXPECT_EQ(night_premise(plan_given((dir / "over.json").string()), DeviceInfo{false, "no CUDA device"}, night()).disposition,
            Disposition::incorrect);
}

TEST_F(NightPremiseTest, WithAGpuTheProgramBesideTheVerifierRunsAndAMissingOneIsFailedNamingWhereItWasLookedFor) {
  DeviceInfo gpu;
  gpu.available = true;
  const fs::path self = dir / "bin" / "rope2d";
  NightPremise p = night_premise(plan_given(""), gpu, night(), self.string());
  EXPECT_EQ(p.disposition, Disposition::failed);
  EXPECT_NE(p.reason.find("sincosf_ulp not found (looked at " + (self.parent_path() / "sincosf_ulp").string() + ", "), std::string::npos)
      << p.reason;
  fs::create_directories(self.parent_path());
  const std::string beside = program("bin/sincosf_ulp", "cp '" + (dir / "over.json").string() + "' \"$2\"; exit 1");
  p = night_premise(plan_given(""), gpu, night(), self.string());
  EXPECT_EQ(p.program, beside);
  EXPECT_EQ(p.disposition, Disposition::incorrect) << p.reason;
}
