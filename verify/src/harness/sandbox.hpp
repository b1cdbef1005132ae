// The box every submission runs in: a child process under bubblewrap (Debian's `bwrap`) with no
// network, a read-only root, one writable scratch folder, the report folder, the user's home
// and the golden data hidden, only the GPU device nodes, an unprivileged user when started as
// root, resource limits and a wall-clock limit, and a PID namespace whose end ends every
// process the submission started. It inherits only the descriptors named here.
//
// Nothing here trusts the child: its output is bytes capped in size, its exit is a status.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/watch.hpp"
#include "harness/spawn.hpp"

namespace rope2d::verify::harness {

struct Limits {
  double wall_s = 0;                         // 0: none (the caller watches the time itself)
  std::uint64_t cpu_s = 3600;                // RLIMIT_CPU
  std::uint64_t open_files = 4096;           // RLIMIT_NOFILE
  std::uint64_t processes = 2048;            // RLIMIT_NPROC (threads count too): in a box, its own tasks (set in its
                                             // user namespace; as root, outside too, on the uid that the boxes of one
                                             // process share: box_uid()); else beyond those the user has already
  std::uint64_t file_bytes = 16ull << 30;    // RLIMIT_FSIZE
  std::uint64_t memory_bytes = 0;            // RLIMIT_DATA (the heap and private mappings; device memory is not
                                             // counted); 0: three quarters of the machine's memory
  std::uint64_t tmp_bytes = 4ull << 30;      // the box's /tmp (memory), at most a sixth of the memory limit
};

struct BoxPolicy {
  bool confine = true;  // false: run unconfined (the explicit --no-sandbox), still with the limits
  bool gpu = false;     // the GPU device nodes (/dev/nvidia*) visible
  std::string scratch;  // the one writable folder, and the working directory
  std::vector<std::string> hide;    // folders that look empty inside (the report folder, home, golden data)
  std::vector<std::string> reveal;  // read-only again under a hidden folder (a program, a Python prefix)
  std::vector<int> keep_fds;        // inherited as descriptors 3, 4, ... in this order; nothing else is
  std::vector<std::string> env;     // the child's whole environment, NAME=value
  Limits limits;
  std::size_t output_cap = 1u << 20;  // bytes of stdout+stderr kept; the rest is counted, not kept
  // The program inside the box that installs the watch of refused writes and connections
  // (watch.hpp) before the command starts: a copy of rope2d-kernel-host; "" for none.
  std::string watcher;
};

// Whether the box can be built here: bwrap found and a trial run inside it succeeded.
struct SandboxProbe {
  bool available = false;
  std::string bwrap;   // the program's path
  std::string reason;  // why not, when unavailable
};
const SandboxProbe& probe_sandbox();

// A program's path from the PATH: find_program (harness/spawn.hpp), the one lookup.
using verify::find_program;

// Shows read-only in the box the folder of a program it runs (found on the PATH: bin/PROG's
// grandparent, a venv's, say) where that lies under a hidden folder, unless the folder holds a
// hidden folder itself (a python3 in ~/bin would reveal the whole home). reveal_folder: the
// same for a folder named (an include folder of a build flag).
void reveal_program(BoxPolicy& p, const std::string& program);
void reveal_folder(BoxPolicy& p, const std::string& folder);
// The same for each folder of the library path the box is given (LD_LIBRARY_PATH's absolute
// entries): a library the verifier's own programs need (libelf beside a build, say) stays found.
void reveal_library_path(BoxPolicy& p);
// Whether `folder` (real) may be hidden: never the root, the box's own /tmp, what lies under
// the box's own /dev, /proc and /sys, or a folder that holds the system's programs, libraries
// or configuration (/usr, /lib, /bin, /etc, /opt...), without which nothing runs in the box.
// Such a hide is left out (the report's count is of what was hidden; --hide of one is refused).
bool hideable(const std::string& folder);

// The memory limit when Limits::memory_bytes is 0: three quarters of the machine's memory.
std::uint64_t default_memory_limit();

// The tasks (processes and threads) that `uid` runs now, as RLIMIT_NPROC counts them.
std::uint64_t tasks_of_user(uid_t uid);

// The report's words for what confined (or did not confine) a child run under `p`.
std::string describe(const BoxPolicy& p);

// The unprivileged user the box drops to when started as root: a uid of this process's own, so
// that the process limit set outside the box, which the kernel counts per uid and which binds
// bubblewrap's own PID 1 in the box too, is this process's boxes' alone; no other verify's box
// shares it. The pid's place in a block of 2^22 from 0x70000000 up, chosen at the first call in
// each process (a forked child chooses its own): a range no distribution or container manager
// assigns (systemd's "Users, Groups, UIDs and GIDs on systemd Systems": containers end at
// 0x6FFFFFFF, the foreign range begins at 0x7FFE0000, nothing at 2^31 or above), and unique
// among the live processes of a PID namespace (a pid is below 2^22), whose boxes end with them;
// each PID namespace starts at a block of its own. Where that uid is not mapped in this user
// namespace, has a name (a passwd or group entry) or runs tasks already, the same place in the
// next block; where none is free, shared_box_uid.
uid_t box_uid();

// Whether this process's boxes run as a uid of its own (started as root, and one was free): then
// the process limit outside the box is the box's own, else a cap shared by every box of the
// user (of uid 65534, started as root).
bool own_uid();

// util-linux's prlimit, which sets the box's own process limit inside it, from the system's own
// folders only (a folder on the caller's PATH may be hidden in the box); empty where there is none.
const std::string& prlimit_program();

// The system's nobody: the boxes' uid where no uid of a process's own is free. Boxes that share
// it share the process limit outside too, a cap on all of them together (describe() says which).
inline constexpr uid_t shared_box_uid = 65534;

// The folder scratch folders are made in: TMPDIR where it is an absolute path, else /tmp.
std::string scratch_base();

// A folder only this process knows, under the system's temporary folder, writable by the
// box's user; removed with its contents by the destructor. Its name says nothing of the
// verifier (the box's HOME and working folder: a submission reads them).
// `for_run`: the temporary folder of one whole run instead, made by the process that outlives
// the run (the verify parent) and kept by the verifier: the worker's scratch folders go inside it
// (its TMPDIR), so that they are removed even when the worker had to be killed before its own
// destructors ran. The box's user may pass through it to its scratch folder, never list it.
class Scratch {
 public:
  enum class Use { box, for_run };
  explicit Scratch(Use use = Use::box);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Removes every scratch folder of this process now (each Scratch alive), for a process that
// must end at once (_Exit) and so runs no destructor: remote_kernel.cpp's last resort.
void remove_scratch_folders_now();

// Removes the folder `path` with everything in it, whatever the box left there: a chain of
// folders deeper than any path or table of open descriptors, folders made unreadable (as an
// ordinary user the verifier holds no right to enter those), millions of names. Each folder
// found inside is moved up into `path` before it is emptied, so that two folders at most are
// open at once; links are removed, never followed. False (errno set) when something stayed.
bool remove_tree(const std::string& path);

// Dropping from root, the box's user must search `folder` and every folder above it: a TMPDIR
// it cannot search would fail every submission's build and run there, the environment's fault
// and not theirs. runtime_error naming the closed folder, else nothing.
void require_box_can_search(const std::string& folder);

// A box can be built here (probe_sandbox): where it cannot (no bubblewrap, no user namespaces),
// every submission would fail for the machine's fault, not its own. runtime_error naming why and
// `way_round` (the caller's explicit option, if it has one), else nothing.
void require_sandbox(const std::string& way_round);

// The box hides the caller's home (HOME): one that holds the system's programs and libraries
// (/usr, /lib, /bin, /etc: HOME=/usr, say) would leave nothing that runs in the box, every
// submission failing for the environment's fault. runtime_error naming it, else nothing.
void require_hideable_home(const std::string& home);

// Files this process put in a scratch folder made the box user's (when started as root), so
// that what runs there may write beside them (caches, builds) as it would in its own folder.
void give_to_box(const std::string& path);

struct BoxResult {
  bool started = false;
  std::string start_error;
  int status = -1;  // waitpid status
  bool timed_out = false;
  std::string output;            // stdout and stderr, at most output_cap bytes, as written
  std::uint64_t output_bytes = 0;  // all it wrote
  Refusals refused;                // what the box refused it (with a watcher)
  // The output as text safe to show in a message or a report (plain_text.hpp: no terminal
  // escapes, no malformed UTF-8): the child chose every byte of it.
  std::string text() const;
  std::string exit_text() const;   // "exit 1", "signal 9 (Killed)", "killed after 120 s (time limit)"
  bool ok() const;                 // started, exited 0, in time
};

// A boxed child that runs while the caller talks to it (the kernel host): started, then
// ended by finish() or the destructor, which kill the whole box.
class BoxedProcess {
 public:
  BoxedProcess(const std::vector<std::string>& argv, const BoxPolicy& p);
  ~BoxedProcess();
  BoxedProcess(const BoxedProcess&) = delete;
  BoxedProcess& operator=(const BoxedProcess&) = delete;

  bool started() const { return pid_ > 0; }
  const std::string& start_error() const { return start_error_; }
  // Processes in the box's PID namespace besides its first one (what the child left running).
  int others_in_box() const;
  // Waits up to `grace_s` for the child to exit, then kills the box; its status and output.
  BoxResult finish(double grace_s);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::size_t cap_;
  std::string start_error_;
  // The child's output, drained by a thread of its own (a child that writes much never blocks).
  std::thread drainer_;
  std::atomic<bool> stop_{false};
  std::mutex output_mutex_;
  std::string output_;
  std::uint64_t output_bytes_ = 0;
  std::uint64_t ns_inode_ = 0;  // the box's PID namespace (0: unknown or unconfined)
  pid_t inner_ = -1;            // the box's first process, as bwrap reports it
  std::unique_ptr<Watch> watch_;
};

// Runs argv in the box to its end (or the wall-clock limit), calling on_output with each
// chunk it writes (besides keeping up to the cap).
BoxResult run_boxed(const std::vector<std::string>& argv, const BoxPolicy& p,
                    const std::function<void(const char*, std::size_t)>& on_output = {});

// The environment a boxed child starts from: PATH, LANG, the CUDA device selection, HOME and
// TMPDIR in the scratch folder, USER and LOGNAME; nothing of the verifier's (no ROPE2D_* variable).
std::vector<std::string> box_environment(const std::string& scratch);

}  // namespace rope2d::verify::harness
