// The deterministic mutation test: a few thousand mutants of the committed golden files, the
// sample layouts, solutions, nightly configs, shard results, summaries, worst-case lists, host
// records, the Python host's notes, the torch peers' timings and a passing outputs file, each
// run through its reader in this process. Passing means no crash, no hang (20 s per mutant) and, under the
// sanitizer build, no sanitizer report; a crashing mutant is written to mutant-<target>.bin.
//   reader_mutation_test [--mutants N] [--seed S] [--target NAME]    (N per target, default 600; CTest runs 1500)
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "targets.hpp"

namespace {

namespace fs = std::filesystem;

// What is being run, for the crash handler (async-signal-safe: plain globals and write()).
const char* current_target = "";
std::vector<std::uint8_t> current;
long current_index = -1;

extern "C" void on_crash(int sig) {
  char path[128];
  std::snprintf(path, sizeof path, "mutant-%s.bin", current_target);
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    [[maybe_unused]] ssize_t k = ::write(fd, current.data(), current.size());
    ::close(fd);
  }
  char msg[256];
  const int n = std::snprintf(msg, sizeof msg, "\nFAIL %s: mutant %ld %s; its bytes are in %s\n", current_target, current_index,
                              sig == SIGALRM ? "hung (over 20 s)" : "crashed", path);
  [[maybe_unused]] ssize_t k = ::write(2, msg, static_cast<std::size_t>(n));
  ::signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  ::raise(sig == SIGALRM ? SIGABRT : sig);
}

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

// Tokens that readers must refuse or survive: out-of-range numbers, wrong types, deep nesting.
const std::vector<std::string> tokens{"1e400", "-1", "18446744073709551616", "9223372036854775807", "4294967296", "null",
                                      "[]", "{}", "\"\"", "true", "[[[[[[[[[[", "]]]]", "\"I64\"", "\"F64\"", "\"BF16\"",
                                      "0", "-0", "NaN", "\"\\u0000\"", "{\"a\":1,\"a\":2}", ",", ":", "\"../x\"", "1.5"};

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> v, Rng& r) {
  const int ops = 1 + static_cast<int>(r.below(4));
  for (int k = 0; k < ops; ++k) {
    const std::size_t at = r.below(v.size() + 1);
    switch (r.below(7)) {
      case 0:
        if (!v.empty()) v[r.below(v.size())] ^= static_cast<std::uint8_t>(1u << r.below(8));
        break;
      case 1:
        if (!v.empty()) v[r.below(v.size())] = static_cast<std::uint8_t>("\0\xff\"{[]},:-9\x80"[r.below(13)]);
        break;
      case 2: {  // delete a range
        const std::size_t n = std::min(v.size() - std::min(at, v.size()), 1 + r.below(64));
        v.erase(v.begin() + static_cast<long>(at), v.begin() + static_cast<long>(at + n));
        break;
      }
      case 3: {  // duplicate a range
        if (v.empty()) break;
        const std::size_t b = r.below(v.size()), n = std::min(v.size() - b, 1 + r.below(256));
        const std::vector<std::uint8_t> chunk(v.begin() + static_cast<long>(b), v.begin() + static_cast<long>(b + n));
        v.insert(v.begin() + static_cast<long>(at), chunk.begin(), chunk.end());
        break;
      }
      case 4: {  // replace a number or token with one of the hostile tokens
        const std::string& t = tokens[r.below(tokens.size())];
        const std::size_t n = std::min(v.size() - std::min(at, v.size()), r.below(8));
        v.erase(v.begin() + static_cast<long>(at), v.begin() + static_cast<long>(at + n));
        v.insert(v.begin() + static_cast<long>(at), t.begin(), t.end());
        break;
      }
      case 5: {  // an 8-byte little-endian integer over the bytes (safetensors' header length)
        const std::uint64_t vals[] = {0, 1, 7, 8, 0xffffffffffffffffull, 1ull << 32, 100ull << 20, v.size(), v.size() - 8};
        const std::uint64_t x = vals[r.below(9)];
        const std::size_t p = r.below(2) ? 0 : r.below(v.size() + 1);
        for (int i = 0; i < 8 && p + i < v.size(); ++i) v[p + i] = static_cast<std::uint8_t>(x >> (8 * i));
        break;
      }
      default:  // truncate
        v.resize(r.below(v.size() + 1));
    }
  }
  return v;
}

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::map<std::string, std::vector<fs::path>> seeds() {
  const fs::path src(ROPE2D_SOURCE_DIR), g = src / "data" / "golden-smoke", scratch(rope2d::fuzz::scratch());
  auto files = [](const fs::path& dir) {
    std::vector<fs::path> v;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
  };
  return {{"safetensors",
           {g / "odd_bf16_n_7_1.safetensors", g / "odd_fp16_n_129_1.safetensors", g / "odd_fp32_n_7_1.safetensors",
            g / "layout_bf16_1x128.safetensors"}},
          {"manifest", {scratch / "manifest.seed.json"}},
          {"layout", files(src / "verify" / "fuzz" / "corpus" / "layout")},
          {"solution", files(src / "verify" / "tests" / "solutions")},
          {"nightly_config", files(src / "verify" / "fuzz" / "corpus" / "nightly")},
          {"outputs", {scratch / "outputs.seed.safetensors"}},
          {"shard_result", files(src / "verify" / "fuzz" / "corpus" / "shard")},
          {"previous_summary", files(src / "verify" / "fuzz" / "corpus" / "summary")},
          {"worst_list", files(src / "verify" / "fuzz" / "corpus" / "worst")},
          {"host_records", files(src / "verify" / "fuzz" / "corpus" / "host")},
          {"host_notes", files(src / "verify" / "fuzz" / "corpus" / "host_notes")},
          {"bench_torch", files(src / "verify" / "fuzz" / "corpus" / "bench_torch")}};
}

}  // namespace

int main(int argc, char** argv) {
  long per_target = 600;
  std::uint64_t seed = 1;
  std::string only;  // one target (a campaign runs them one at a time)
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--mutants") per_target = std::atol(argv[i + 1]);
    if (std::string(argv[i]) == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::string(argv[i]) == "--target") only = argv[i + 1];
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) ::signal(sig, on_crash);
  const auto all = seeds();
  long total = 0;
  for (const auto& t : rope2d::fuzz::targets()) {
    if (!only.empty() && only != t.name) continue;
    const auto& files = all.at(t.name);
    if (files.empty()) {
      std::fprintf(stderr, "FAIL %s: no seed files\n", t.name);
      return 1;
    }
    current_target = t.name;
    Rng r{seed * 0x9e3779b97f4a7c15ull + std::hash<std::string>{}(t.name) + 1};
    for (const auto& f : files) {  // the seeds themselves first
      current = bytes_of(f);
      alarm(20);
      t.run(current.data(), current.size());
    }
    for (long i = 0; i < per_target; ++i, ++total) {
      current_index = i;
      current = mutate(bytes_of(files[static_cast<std::size_t>(i) % files.size()]), r);
      alarm(20);
      t.run(current.data(), current.size());
    }
    alarm(0);
    std::printf("ok   %s: %ld mutants of %zu seed files, no crash or hang\n", t.name, per_target, files.size());
  }
  std::printf("mutation: %ld mutants over %s\n", total, only.empty() ? "every reader" : only.c_str());
  return 0;
}
