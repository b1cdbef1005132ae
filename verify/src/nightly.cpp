// Nightly regression rules, the nightly config, and the verifier runs as child processes.
#include "rope2d/verify/nightly.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "rope2d/verify/suites.hpp"

extern char** environ;

namespace rope2d::verify {

using nlohmann::json;

std::vector<std::string> nightly_regressions(const json& now, const json& previous) {
  std::vector<std::string> out;
  const json before_verify = previous.value("verify", json::array());
  const json now_verify = now.value("verify", json::array());
  for (const json& cur : now_verify) {
    for (const json& before : before_verify) {
      if (before.value("kernel", "") != cur.value("kernel", "")) continue;
      const std::string kernel = cur.value("kernel", "");
      if (cur.value("seconds", 0.0) > 1.25 * before.value("seconds", 1e9) + 2)
        out.push_back(fmt::format("{}: verify took {:.1f} s, was {:.1f} s", kernel, cur.value("seconds", 0.0),
                                  before.value("seconds", 0.0)));
      const json sets = cur.value("sets", json::object());
      const json before_sets = before.value("sets", json::object());
      for (const auto& [set, r] : sets.items()) {
        if (!before_sets.contains(set)) continue;
        const json& b = before_sets[set];
        if (b.value("disposition", "") == "passed" && r.value("disposition", "") != "passed")
          out.push_back(fmt::format("{} {}: newly {}", kernel, set, r.value("disposition", "?")));
        if (r.contains("max") && b.contains("max") && r["max"].is_number() && b["max"].is_number() &&
            r.value("elements", 0) >= 65536 && r["max"].get<double>() > 1.25 * b["max"].get<double>() + 0.25)
          out.push_back(fmt::format("{} {}: max error {:.3g} (was {:.3g}) x 2^-24 S", kernel, set, r["max"].get<double>(),
                                    b["max"].get<double>()));
      }
    }
  }
  const json ps = previous.value("sweep", json::object()), ns = now.value("sweep", json::object());
  if (ns.value("ran", false) && ps.value("ran", false) &&
      ns.value("max_scaled_error", 0.0) > 1.5 * ps.value("max_scaled_error", 0.0) + 0.5)
    out.push_back(fmt::format("sweep: max error {:.3g}, was {:.3g}", ns.value("max_scaled_error", 0.0),
                              ps.value("max_scaled_error", 0.0)));
  return out;
}

bool valid_run_date(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  const int month = (d[5] - '0') * 10 + (d[6] - '0'), day = (d[8] - '0') * 10 + (d[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::uint64_t nightly_seed(const std::string& date) {
  std::uint64_t seed = 1469598103934665603ull;
  for (char ch : date) seed = (seed ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return seed & 0xffffffff;
}

int run_logged(const std::vector<std::string>& argv, const std::string& log_path) {
  if (argv.empty()) return 127;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

}  // namespace rope2d::verify
