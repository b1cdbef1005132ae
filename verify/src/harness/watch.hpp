// What a boxed child tried and the box refused: writes outside its scratch folder and /tmp,
// and network connections. The box itself refuses them (a read-only root, a network
// namespace); this only counts them, from outside, for the report.
//
// How: inside the box, before the child program starts, the watcher (`rope2d-kernel-host
// watch FD -- PROG ARGS...`, which is trusted code) installs a seccomp filter that turns every
// call that may write a file (open for writing, create, remove, rename, link, truncate, make a
// node, change a file's mode, owner, times or extended attributes), every connect or addressed
// send into a notification, refuses io_uring (whose operations no filter sees) outright, hands
// the notification descriptor to the judge over descriptor FD and execs PROG. The judge's Watch
// answers every notification with "carry on" (the kernel then applies the box's own refusal)
// after reading, from the child's memory, the path or the address it named.
// What the child writes in its memory between the notification and the read can make the tally
// wrong, never the box weaker: the tally is a report line, not a verdict.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rope2d::verify::harness {

struct Refusals {
  bool watched = false;  // a watch ran (the filter was installed and its descriptor received)
  std::uint64_t writes = 0, connections = 0;
  std::vector<std::string> write_paths, addresses;  // the first few of each
  // The report's words: what was refused, "nothing (...)", or "not counted (...)".
  std::string words() const;
  void add(const Refusals& other);  // another box's (the build's, the load check's) besides
};

// Inside the box: installs the filter, sends its descriptor over `fd` (SCM_RIGHTS) and closes
// both. Returns "" or why not.
std::string install_watch(int fd);

// The judge's side: receives the notification descriptor from `fd` (taking it over), then
// answers every notification on a thread of its own until finish(). A path under one of
// `writable` (the scratch folder, /tmp, /dev, /proc) is not a refused write.
class Watch {
 public:
  Watch(int fd, std::vector<std::string> writable);
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  Refusals finish();

 private:
  void serve(int fd);
  void note(const std::vector<std::string>& paths);
  void note_address(int pid, std::uint64_t addr, std::uint64_t len);

  std::vector<std::string> writable_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex m_;
  Refusals r_;
};

}  // namespace rope2d::verify::harness
