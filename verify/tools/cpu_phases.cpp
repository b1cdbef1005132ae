// The CPU phases of `rope2d verify` per set kind, without a GPU: making inputs, the
// reference and the comparison (of the reference's own result) over every set of the suite,
// two rounds each, in reused buffers as the judge does. Prints wall and CPU seconds per kind
// and a checksum of every input, result and metric (equal before and after a speed change).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <string>

#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/judge/suites.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

double wall() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double cpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Checksum {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  }
  template <class T>
  void add(const std::vector<T>& v) { add(v.data(), v.size() * sizeof(T)); }
};

struct Kind {
  int sets = 0;
  double elements = 0, wall[3] = {}, cpu[3] = {};
};

}  // namespace

int main(int argc, char** argv) {
  SuiteOptions o;
  o.quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  o.grad_dtypes.assign(std::begin(ref::grad_dtypes), std::end(ref::grad_dtypes));
  std::map<std::string, Kind> kinds;
  Checksum sum;
  Problem p;
  Expected x;
  for (const ProblemSpec& s : verification_suite(o)) {
    Kind& k = kinds[s.set + "/" + std::string(ref::name(s.grad_dtype)) + (s.light ? " (light)" : "")];
    ++k.sets;
    for (int r = 0; r < 2; ++r) {
      double w[4], c[4];
      w[0] = wall(), c[0] = cpu();
      make_problem(s.round(r), p);
      w[1] = wall(), c[1] = cpu();
      compute_expected(p, x);
      w[2] = wall(), c[2] = cpu();
      const Metrics m = compare(p, x, x.fp32.data(), Tier::float32_bound);
      w[3] = wall(), c[3] = cpu();
      for (int j = 0; j < 3; ++j) k.wall[j] += w[j + 1] - w[j], k.cpu[j] += c[j + 1] - c[j];
      k.elements += static_cast<double>(p.n());
      sum.add(p.gc), sum.add(p.gs), sum.add(p.theta), sum.add(p.positions), sum.add(x.fp32), sum.add(x.scale);
      sum.add(&m.correctly_rounded, sizeof m.correctly_rounded);
    }
  }
  Kind all;
  std::printf("%-26s %5s %9s | wall: %7s %7s %7s | cpu: %7s %7s %7s\n", "kind", "sets", "M elem", "inputs", "ref", "compare",
              "inputs", "ref", "compare");
  for (const auto& [name, k] : kinds) {
    std::printf("%-26s %5d %9.2f | wall: %7.3f %7.3f %7.3f | cpu: %7.3f %7.3f %7.3f\n", name.c_str(), k.sets, k.elements / 1e6,
                k.wall[0], k.wall[1], k.wall[2], k.cpu[0], k.cpu[1], k.cpu[2]);
    all.sets += k.sets, all.elements += k.elements;
    for (int j = 0; j < 3; ++j) all.wall[j] += k.wall[j], all.cpu[j] += k.cpu[j];
  }
  std::printf("%-26s %5d %9.2f | wall: %7.3f %7.3f %7.3f | cpu: %7.3f %7.3f %7.3f\nchecksum %016llx\n", "all", all.sets,
              all.elements / 1e6, all.wall[0], all.wall[1], all.wall[2], all.cpu[0], all.cpu[1], all.cpu[2],
              static_cast<unsigned long long>(sum.h));
  return 0;
}
