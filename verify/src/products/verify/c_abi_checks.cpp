// The checks that call a C ABI entry point directly (verify.hpp: CAbiChecks), built with CUDA:
// the call contract (harness/testbed/contract.hpp), the --huge sets (harness/testbed/huge.hpp)
// and the benchmark (products/bench/bench.hpp).
#include "harness/testbed/contract.hpp"
#include "harness/testbed/huge.hpp"
#include "products/bench/bench.hpp"
#include "products/verify/verify.hpp"

namespace rope2d::verify {

namespace {

class OnTheTestbed final : public CAbiChecks {
 public:
  std::vector<SetResult> contract(const harness::CAbi& abi, ref::Dtype d, Tier gate, Subnormals subnormals, std::uint64_t seed,
                                  const Watch& watch) const override {
    return contract_checks(abi.backward, d, gate, subnormals, seed, watch);
  }
  std::vector<SetResult> huge(const harness::CAbi& abi, const SuiteOptions& o, Tier gate, Subnormals subnormals) const override {
    return huge_checks(*abi.bed, abi.backward, o, gate, subnormals);
  }
  AddedSets bench(const harness::CAbi& abi, Tier gate, Subnormals subnormals, std::uint64_t seed) const override {
    BenchSets b = bench_submission(abi.backward, gate, subnormals, seed);
    return {std::move(b.header), std::move(b.results)};
  }
};

}  // namespace

const CAbiChecks& c_abi_checks() {
  static const OnTheTestbed checks;
  return checks;
}

}  // namespace rope2d::verify
