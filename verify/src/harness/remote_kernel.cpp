// The judge's side of a boxed C ABI submission (remote_kernel.hpp): the host started in the
// box, the shared regions, the calls, and a reader thread that takes the host's replies and,
// when the host dies or reports a fault, writes the "done" words itself so that the judge's
// streams never wait for a host that is gone.
#include "harness/remote_kernel.hpp"

#include <fmt/format.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "harness/host_notes.hpp"
#include "harness/host_protocol.hpp"
#include "harness/driver_api.hpp"
#include "harness/edge_memory.hpp"
#include "codec/plain_text.hpp"

namespace rope2d::verify::harness {

namespace {

std::atomic<RemoteKernel*> current{nullptr};

// cudaErrorLaunchFailure: what a call of a host that is gone returns (the testbed names it).
constexpr int host_gone_rc = 719;

// How long the release of the judge's waits for a host that is gone may take on the GPU: from
// the rescue stream, then from a context of its own (write_done).
constexpr int rescue_wait_s = 2;
constexpr int release_limit_s = 30;

std::string cuda_error_name(int e) {
  const char* n = cudaGetErrorName(static_cast<cudaError_t>(e));
  return n ? n : "error " + std::to_string(e);
}

}  // namespace

struct RemoteKernel::Impl {
  RemoteOptions opt;
  std::unique_ptr<BoxedProcess> box;
  std::optional<BoxResult> ended;  // a host that did not start: its end, kept for finish()
  int sock = -1;
  std::string error;
  bool fused = false;

  std::mutex m;
  std::condition_variable cv;
  bool hello = false, dead = false, faulted = false;
  std::string death;                         // why the host is gone
  bool death_for_time = false;               // killed at a wall-clock limit (a TIMEOUT, not a crash)
  std::map<std::uint64_t, int> launched;     // seq -> rc
  std::map<std::uint32_t, int> mapped;       // region -> rc
  // Replies the judge waits for: any other reply is not the protocol (a host cannot fill the
  // judge's memory with replies, nor answer a call before it is made).
  std::set<std::uint64_t> awaiting_launch;
  std::set<std::uint32_t> awaiting_map;
  std::set<std::uint64_t> unfinished;        // calls whose "finished" has not come
  std::set<std::uint64_t> captured;          // captured calls: done when the judge's graph is replayed
  // Launched and not yet over, since when. A call is over when the judge's own stream has gone
  // past its wait for "done" (its event in `resumed`), not when the host says "finished": a
  // host's record is a claim, and one forged for a call still running would take it off the watch.
  std::map<std::uint64_t, std::chrono::steady_clock::time_point> running;
  std::map<std::uint64_t, cudaEvent_t> resumed;  // recorded on the judge's stream after its wait for "done"
  std::vector<cudaEvent_t> spare_events;
  std::vector<std::string> errors;           // reported since the last settle
  std::vector<wire::HostNote> notes;         // since the last take_notes
  int notes_dropped = 0;
  std::vector<std::int64_t> shape;           // of the next calls (set_shape)
  std::thread reader, watchdog;
  bool stopping = false;

  struct Region {
    std::uint32_t id;
    const unsigned char* begin;
    std::size_t bytes;
  };
  std::vector<Region> regions;
  std::uint32_t next_region = wire::flags_region;
  std::vector<std::uint32_t> free_regions;  // ids the host has unmapped, given out again
  detail::EdgeAllocation flags;
  std::uint64_t seq = 0;
  std::set<std::uint64_t> released;  // calls whose "done" release_waiters wrote
  std::map<cudaStream_t, std::uint32_t> slots;
  cudaStream_t rescue = nullptr;
  CUcontext apart = nullptr;  // a context of its own for writing "done" words (write_done)
  CUstream apart_stream = nullptr;
  int device = 0;

  std::uint32_t* go_word(std::uint64_t s) const {
    return reinterpret_cast<std::uint32_t*>(flags.begin()) + 2 * (s % wire::flag_pairs);
  }
  std::uint32_t* done_word(std::uint64_t s) const { return go_word(s) + 1; }

  // Writes the "done" words of calls the host will not end, so that the judge's streams waiting
  // for them go on. First from the rescue stream, which runs at once where nothing of the
  // judge's is stuck (every release at a host's ordinary end). Where it has not run within
  // rescue_wait_s, from a context of its own, whose write cannot queue behind the very stream
  // that waits for it (streams of one context may share a hardware queue). On an H100, after a
  // host whose kernel never ends was killed, the rescue stream did not run; the context's write
  // did (`rope2d sweep` of forge_finished.cu ended in 14 s). The wait of rescue_wait_s is paid,
  // under the lock, by each release whose rescue write queues behind a stuck stream.
  void write_done(const std::vector<std::uint64_t>& seqs) {
    const detail::DriverApi& d = detail::driver_api();
    cudaSetDevice(device);
    // Polls `done` until it holds or `limit` has passed: true when it held.
    const auto in_time = [](auto done, std::chrono::seconds limit) {
      const auto until = std::chrono::steady_clock::now() + limit;
      while (!done())
        if (std::chrono::steady_clock::now() > until) return false;
        else std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return true;
    };
    // Queues every call's "done" word on `stream`: true when each write was queued.
    const auto queue_done = [&](CUstream stream) {
      bool queued = true;
      for (std::uint64_t s : seqs)
        queued = d.write_value(stream, reinterpret_cast<CUdeviceptr>(done_word(s)), static_cast<std::uint32_t>(s), 0) == CUDA_SUCCESS && queued;
      return queued;
    };
    // Done only when every write was queued and the stream has run them all: a write refused
    // leaves an empty stream, which would look done.
    const bool queued = queue_done(reinterpret_cast<CUstream>(rescue));
    cudaError_t rescued = cudaErrorNotReady;
    in_time([&] { return (rescued = cudaStreamQuery(rescue)) != cudaErrorNotReady; }, std::chrono::seconds(rescue_wait_s));
    if (queued && rescued == cudaSuccess) return;
    const auto asked = std::chrono::steady_clock::now();
    CUdevice dev = 0;
    CUresult made = apart ? CUDA_SUCCESS : d.device_get(&dev, device);
    if (!apart && made == CUDA_SUCCESS && (made = d.ctx_create(&apart, nullptr, 0, 0, dev)) == CUDA_SUCCESS) {
      if (d.stream_create(&apart_stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) apart_stream = nullptr;
      CUcontext popped = nullptr;
      d.ctx_pop(&popped);
    }
    CUresult apart_end = CUDA_ERROR_NOT_READY;
    if (apart && apart_stream && d.ctx_push(apart) == CUDA_SUCCESS) {
      if (queue_done(apart_stream)) in_time([&] { return (apart_end = d.stream_query(apart_stream)) != CUDA_ERROR_NOT_READY; }, std::chrono::seconds(release_limit_s));
      CUcontext popped = nullptr;
      d.ctx_pop(&popped);
    }
    if (apart_end == CUDA_SUCCESS) return;
    // The GPU runs none of this process's work any more: nothing of the judge's can go on, and
    // waiting would be for ever. The run ends here, as a failed submission. Whether any work of
    // the judge's still runs (an event on a stream of its own) is said, for the record.
    const long waited = rescue_wait_s + std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - asked).count();
    cudaStream_t probe = nullptr;
    cudaEvent_t mark = nullptr;
    const bool probed = cudaStreamCreateWithFlags(&probe, cudaStreamNonBlocking) == cudaSuccess &&
                        cudaEventCreateWithFlags(&mark, cudaEventDisableTiming) == cudaSuccess && cudaEventRecord(mark, probe) == cudaSuccess;
    const auto soon = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    cudaError_t ran = cudaErrorNotReady;
    while (probed && (ran = cudaEventQuery(mark)) == cudaErrorNotReady && std::chrono::steady_clock::now() < soon)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::fprintf(stderr, "rope2d: the %s is gone, but the GPU did not run this process's release of its waits within %ld s "
                 "(from the rescue stream: %s; from a context of its own: %s, CUresult %d; an event on a new stream: %s): "
                 "the run stops (the submission failed)\n", opt.name.c_str(), waited,
                 !queued ? "not queued" : rescued == cudaErrorNotReady ? "not done" : cudaGetErrorName(rescued),
                 apart ? "made" : ("not made, CUresult " + std::to_string(static_cast<int>(made))).c_str(), static_cast<int>(apart_end),
                 !probed ? "not recorded" : ran == cudaSuccess ? "ran" : ran == cudaErrorNotReady ? "not run within 2 s" : cudaGetErrorName(ran));
    std::fflush(stderr);
    if (box) ::kill(-box->pid(), SIGKILL);
    remove_scratch_folders_now();
    std::_Exit(3);
  }

  // Writes the done word of every call still waited for (captured ones too, and those the host
  // called finished whose "done" the judge's stream has not seen): the judge's streams and
  // graphs go on. Each call's once: after give_up, the reader's end of file releases nothing
  // more (and waits no second time for a GPU that did not run the first release).
  void release_waiters() {
    std::vector<std::uint64_t> seqs;
    const auto add = [&](std::uint64_t s) {
      if (released.insert(s).second) seqs.push_back(s);
    };
    for (std::uint64_t s : unfinished) add(s);
    for (std::uint64_t s : captured) add(s);
    for (const auto& [s, since] : running) add(s);
    if (!seqs.empty()) write_done(seqs);
  }

  // A call the host has called finished leaves the watch once the judge's stream is past its
  // wait for "done"; true when it has.
  bool retire_if_resumed(std::uint64_t s) {
    const auto it = resumed.find(s);
    if (it != resumed.end()) {
      if (cudaEventQuery(it->second) == cudaErrorNotReady) return false;
      spare_events.push_back(it->second);
      resumed.erase(it);
    }
    running.erase(s);
    return true;
  }

  // Retires every call the host has called finished whose "done" the judge's stream has seen;
  // true when none is left.
  bool retire_resumed() {
    bool all = true;
    for (auto it = running.begin(); it != running.end();) {
      const std::uint64_t s = (it++)->first;
      if (!unfinished.count(s)) all = retire_if_resumed(s) && all;
    }
    return all;
  }

  // A call whose "finished" has not come within the call time limit after its launch (a kernel
  // that never ends, a host that never writes "done"): the host is killed and every wait of the
  // judge's released (give_up). Nothing of the judge's then waits for ever.
  void watch() {
    cudaSetDevice(device);
    std::unique_lock lk(m);
    while (!stopping && !dead) {
      cv.wait_for(lk, std::chrono::milliseconds(200));
      retire_resumed();
      const auto now = std::chrono::steady_clock::now();
      for (const auto& [seq, since] : running)
        if (std::chrono::duration<double>(now - since).count() > opt.call_timeout_s) {
          give_up("a call did not finish within " + std::to_string(static_cast<long>(opt.call_timeout_s)) + " s (killed)", true);
          return;
        }
    }
  }

  // A note is kept (up to 256 between takes) and never awaited: the host's words, no reply.
  // Read here, once, into its typed event; one of no kind the host sends is kept as a BadNote.
  bool keep_note(std::span<const unsigned char> record) {
    std::optional<wire::Note> n = wire::parse_note(record);
    if (!n) return false;
    if (notes.size() < 256) notes.push_back(wire::parse_host_note(*n));
    else ++notes_dropped;
    return true;
  }

  void read_replies() {
    std::vector<unsigned char> buf(sizeof(wire::Reply) + wire::max_note_bytes);
    cudaSetDevice(device);
    for (;;) {
      int fd = -1;
      const long k = wire::receive_record(sock, buf.data(), buf.size(), &fd);
      if (fd >= 0) ::close(fd);  // the host never passes descriptors
      std::unique_lock lk(m);
      if (k > 0 && keep_note({buf.data(), static_cast<std::size_t>(k)})) continue;
      if (k <= 0) {
        dead = true;
        if (death.empty()) death = "the " + opt.name + " closed its socket (it exited or was killed)";
        release_waiters();
        cv.notify_all();
        return;
      }
      std::optional<wire::Reply> r = wire::parse_reply({buf.data(), static_cast<std::size_t>(k)});
      const bool expected =
          r && (r->stage == wire::Stage::hello ? !hello
                : r->stage == wire::Stage::mapped ? awaiting_map.erase(static_cast<std::uint32_t>(r->seq)) > 0
                : r->stage == wire::Stage::launched ? awaiting_launch.erase(r->seq) > 0
                                                    : running.count(r->seq) > 0 && unfinished.count(r->seq) > 0);
      if (!expected) {  // not the protocol: the host is not to be talked to any more, and is killed
        dead = true;
        death = "the " + opt.name + " sent a record that is not a reply the judge awaited (" + std::to_string(k) + " bytes)";
        release_waiters();
        cv.notify_all();
        ::shutdown(sock, SHUT_RDWR);
        if (box) ::kill(-box->pid(), SIGKILL);
        return;
      }
      switch (r->stage) {
        case wire::Stage::hello: hello = true, fused = r->rc == 1; break;
        case wire::Stage::note: break;  // parse_reply never gives one: keep_note took it
        case wire::Stage::mapped: mapped[static_cast<std::uint32_t>(r->seq)] = r->rc; break;
        case wire::Stage::launched:
          launched[r->seq] = r->rc;
          if (unfinished.count(r->seq)) running[r->seq] = std::chrono::steady_clock::now();
          break;
        case wire::Stage::finished:
          unfinished.erase(r->seq);
          if (r->cuda_error) {
            errors.push_back(cuda_error_name(r->cuda_error) + " after the call (reported by the " + opt.name + ")");
            faulted = true;
            // The host's stream is broken: its "done" will never be written.
            write_done({r->seq});
          }
          retire_if_resumed(r->seq);  // else the watchdog retires it, or kills the host at the time limit
          break;
      }
      cv.notify_all();
    }
  }

  // Waits for pred under the lock, at most timeout_s; false on time-out or death.
  template <class Pred>
  bool wait(std::unique_lock<std::mutex>& lk, double timeout_s, Pred pred) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!pred()) {
      if (dead) return false;
      if (cv.wait_until(lk, until) == std::cv_status::timeout && !pred()) return false;
    }
    return true;
  }

  // Kills the host and releases every wait of the judge's at once, under the lock. Not left to
  // the reader's end of file: a host whose kernel never ends may take long to leave the GPU, and
  // its end of the socket closes only then. A kernel of the host's still running may yet write
  // into the shared buffers; the call has failed, and nothing more is called.
  void give_up(const std::string& why, bool for_time) {
    if (death.empty()) death = why, death_for_time = for_time;
    dead = true;
    if (box) ::kill(-box->pid(), SIGKILL);
    release_waiters();
    cv.notify_all();
  }

  wire::Ref ref_of(const void* p) {
    if (!p) return {};
    std::lock_guard lk(m);
    const auto* q = static_cast<const unsigned char*>(p);
    for (const Region& r : regions)
      if (q >= r.begin && q <= r.begin + r.bytes) return {r.id, 0, static_cast<std::uint64_t>(q - r.begin)};
    throw std::runtime_error("verifier error: a pointer handed to the boxed kernel lies in no memory shared with it");
  }

  // The judge's stream gets its "go" and its wait for "done" before the request is sent, so
  // that nothing on the host's side waits for the judge's reply: a host whose first launch
  // synchronises its context (lazy module loading) then waits only for the judge's earlier
  // work. A host that never launches is released by the reader thread (release_waiters).
  int call(wire::Request req, cudaStream_t s) {
    const detail::DriverApi& d = detail::driver_api();
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(s, &capturing);
    std::unique_lock lk(m);
    if (dead || faulted) return host_gone_rc;
    req.seq = ++seq;
    req.capture = capturing == cudaStreamCaptureStatusActive;
    auto slot = slots.find(s);
    if (slot == slots.end()) slot = slots.emplace(s, static_cast<std::uint32_t>(slots.size() % wire::max_slots)).first;
    req.slot = slot->second;
    const std::uint64_t me = req.seq;
    const auto v = static_cast<std::uint32_t>(me);
    d.write_value(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(go_word(me)), v, 0);
    d.wait_value(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(done_word(me)), v, CU_STREAM_WAIT_VALUE_EQ);
    if (!req.capture) {
      cudaEvent_t e = nullptr;
      if (!spare_events.empty()) e = spare_events.back(), spare_events.pop_back();
      else cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
      if (e && cudaEventRecord(e, s) == cudaSuccess) resumed[me] = e;
      else if (e) spare_events.push_back(e);
    }
    (req.capture ? captured : unfinished).insert(me);
    awaiting_launch.insert(me);
    if (!wire::send_record(sock, &req, sizeof req)) {
      dead = true;
      if (death.empty()) death = "the " + opt.name + "'s socket is closed";
      release_waiters();
      return host_gone_rc;
    }
    if (!wait(lk, opt.call_timeout_s, [&] { return launched.count(me) > 0; })) {
      if (!dead) give_up("a call did not return within " + std::to_string(static_cast<long>(opt.call_timeout_s)) + " s (killed)", true);
      return host_gone_rc;
    }
    const int rc = launched[me];
    launched.erase(me);
    return rc;
  }

  bool share_region(const detail::EdgeAllocation& a, std::uint32_t* id, std::string* why) {
    const int fd = a.export_fd();
    if (fd < 0) {
      if (why) *why = "cuMemExportToShareableHandle failed";
      return false;
    }
    std::unique_lock lk(m);
    wire::Request req;
    req.op = wire::Op::map;
    if (free_regions.empty() || next_region == wire::flags_region) {
      req.region = next_region++;
    } else {
      req.region = free_regions.back();
      free_regions.pop_back();
    }
    req.bytes = a.size();
    awaiting_map.insert(req.region);
    const bool sent = !dead && wire::send_record(sock, &req, sizeof req, fd);
    ::close(fd);
    if (!sent || !wait(lk, opt.call_timeout_s, [&] { return mapped.count(req.region) > 0; })) {
      if (why) *why = "the " + opt.name + " did not map the shared memory: " + (death.empty() ? "no reply" : death);
      return false;
    }
    const int rc = mapped[req.region];
    mapped.erase(req.region);
    if (rc != 0) {
      if (why) *why = "the " + opt.name + " could not map the shared memory (CUresult " + std::to_string(rc) + ")";
      return false;
    }
    regions.push_back({req.region, a.begin(), a.size()});
    *id = req.region;
    return true;
  }
};

RemoteKernel::RemoteKernel(const RemoteOptions& o) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opt = o;
  if (current.load()) {
    m.error = "verifier error: a second boxed kernel in one process";
    return;
  }
  const detail::DriverApi& d = detail::driver_api();
  if (!d.missing().empty()) {
    m.error = "cannot share memory with a boxed kernel: " + d.missing();
    return;
  }
  cudaGetDevice(&m.device);
  if (cudaStreamCreateWithFlags(&m.rescue, cudaStreamNonBlocking) != cudaSuccess) {
    m.error = "cudaStreamCreate failed";
    return;
  }
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    m.error = "socketpair failed";
    return;
  }
  BoxPolicy p = o.box;
  p.keep_fds = {sv[1]};
  m.box = std::make_unique<BoxedProcess>(
      o.command.empty() ? std::vector<std::string>{o.host_program, "serve", o.library, o.symbol, o.fused_symbol} : o.command, p);
  ::close(sv[1]);
  m.sock = sv[0];
  // A host that stops reading makes a send fail after the call time limit, never block for ever.
  const timeval limit{static_cast<time_t>(o.call_timeout_s), 0};
  ::setsockopt(m.sock, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  if (!m.box->started()) {
    m.error = "cannot start the " + m.opt.name + ": " + m.box->start_error();
    return;
  }
  m.reader = std::thread([&m] { m.read_replies(); });
  m.watchdog = std::thread([&m] { m.watch(); });
  {
    std::unique_lock lk(m.m);
    if (!m.wait(lk, o.start_timeout_s, [&] { return m.hello; })) {
      const bool late = !m.dead;  // not ended by itself: its start's time ran out
      lk.unlock();
      const BoxResult r = *(m.ended = m.box->finish(1));
      std::lock_guard dead_lk(m.m);
      m.error = "the " + m.opt.name + " did not start" +
                (late ? fmt::format(" within {:g} s (killed; {})", o.start_timeout_s, o.start_option) : std::string()) +
                " (" + (m.death.empty() ? "" : m.death + "; ") + r.exit_text() + "): " + plain_text(r.output.substr(0, 4000));
      return;
    }
  }
  // Region 1: the flag words.
  std::string why;
  std::uint32_t id = 0;
  if (!m.flags.allocate(8 * wire::flag_pairs, &why, true) || !m.share_region(m.flags, &id, &why) || id != wire::flags_region) {
    m.error = "cannot share the flag words with the " + m.opt.name + ": " + why;
    return;
  }
  cudaMemsetAsync(m.flags.begin(), 0, m.flags.size(), m.rescue);
  cudaStreamSynchronize(m.rescue);
  current.store(this);
}

RemoteKernel::~RemoteKernel() {
  if (current.load() == this) current.store(nullptr);
  finish();
}

void RemoteKernel::set_shape(const std::vector<std::int64_t>& shape) {
  std::lock_guard lk(impl_->m);
  impl_->shape = shape;
}

std::vector<wire::HostNote> RemoteKernel::take_notes(int* dropped) {
  std::lock_guard lk(impl_->m);
  if (dropped) *dropped = impl_->notes_dropped;
  impl_->notes_dropped = 0;
  return std::exchange(impl_->notes, {});
}

bool RemoteKernel::ready() const { return impl_->error.empty(); }
const std::string& RemoteKernel::error() const { return impl_->error; }
bool RemoteKernel::has_fused() const { return impl_->fused; }
RemoteKernel* RemoteKernel::active() { return current.load(); }

bool RemoteKernel::share(const detail::EdgeAllocation& a, std::string* why) {
  std::uint32_t id = 0;
  return impl_->share_region(a, &id, why);
}

void RemoteKernel::unshare(const void* begin) {
  Impl& m = *impl_;
  std::lock_guard lk(m.m);
  for (auto it = m.regions.begin(); it != m.regions.end(); ++it)
    if (it->begin == begin) {
      wire::Request req;
      req.op = wire::Op::unmap;
      req.region = it->id;
      if (!m.dead) wire::send_record(m.sock, &req, sizeof req);
      m.free_regions.push_back(it->id);
      m.regions.erase(it);
      return;
    }
}

int RemoteKernel::forward(wire::Entry entry, std::int64_t count, int head_dim, int grad_dtype,
                          std::initializer_list<const void*> args, cudaStream_t stream) {
  RemoteKernel* r = active();
  if (!r) return host_gone_rc;
  Impl& m = *r->impl_;
  wire::Request q;
  q.op = wire::Op::call;
  q.entry = static_cast<std::int32_t>(entry);
  q.grad_dtype = grad_dtype;
  q.count = count;
  q.head_dim = head_dim;
  int k = 0;
  for (const void* a : args) q.arg[k++] = m.ref_of(a);
  {
    std::lock_guard lk(m.m);
    if (entry == wire::Entry::plain && !m.shape.empty() && m.shape.size() <= wire::max_rank) {
      std::int64_t product = 1;
      for (std::int64_t e : m.shape) product *= e;
      if (product == count) {  // a shape of another problem is not sent: the call stays flat
        q.rank = static_cast<std::uint32_t>(m.shape.size());
        std::copy(m.shape.begin(), m.shape.end(), q.shape);
      }
    }
  }
  return m.call(q, stream);
}

int RemoteKernel::backward(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, int grad_dtype,
                           cudaStream_t stream) {
  return forward(wire::Entry::plain, n, 0, grad_dtype, {gc, gs, theta, out}, stream);
}

int RemoteKernel::fused(const void* gc, const void* gs, const std::int32_t* positions, const float* theta, float* out,
                        std::int64_t tokens, int head_dim, int grad_dtype, cudaStream_t stream) {
  return forward(wire::Entry::fused, tokens, head_dim, grad_dtype, {gc, gs, positions, theta, out}, stream);
}

std::string RemoteKernel::settle(bool* timed_out) {
  Impl& m = *impl_;
  std::unique_lock lk(m.m);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(m.opt.call_timeout_s);
  bool in_time = m.wait(lk, m.opt.call_timeout_s, [&] { return m.unfinished.empty(); });
  // The host's "finished" is a claim: the calls are over when the judge's stream is past them.
  while (in_time && !m.dead && !m.retire_resumed()) {
    if (std::chrono::steady_clock::now() > until) in_time = false;
    else m.cv.wait_for(lk, std::chrono::microseconds(100));
  }
  std::string e = m.errors.empty() ? "" : m.errors.front();
  m.errors.clear();
  if (e.empty() && m.dead) {
    e = m.death;
    if (timed_out) *timed_out = m.death_for_time;
  }
  if (e.empty() && !in_time) {
    if (timed_out) *timed_out = true;
    m.give_up("a call did not finish within " + std::to_string(static_cast<long>(m.opt.call_timeout_s)) + " s", true);
    return "a call did not finish within " + std::to_string(static_cast<long>(m.opt.call_timeout_s)) + " s (the " + m.opt.name + " was killed)";
  }
  return e;
}

bool RemoteKernel::lost() const {
  std::lock_guard lk(impl_->m);
  return impl_->dead || impl_->faulted;
}

RemoteKernel::End RemoteKernel::finish() {
  Impl& m = *impl_;
  End e;
  if (!m.box) return e;
  if (!m.ended) e.left_running = std::max(0, m.box->others_in_box() - (m.opt.processes - 1));
  if (m.sock >= 0) {
    wire::Request bye;
    bye.op = wire::Op::bye;
    wire::send_record(m.sock, &bye, sizeof bye);
  }
  {
    std::lock_guard lk(m.m);
    m.stopping = true;
  }
  m.cv.notify_all();
  if (m.watchdog.joinable()) m.watchdog.join();
  // A host that did not start ended in the constructor: its end as seen there, what it refused too.
  e.result = m.ended ? *m.ended : m.box->finish(5);
  if (m.sock >= 0) ::shutdown(m.sock, SHUT_RDWR);
  if (m.reader.joinable()) m.reader.join();
  if (m.sock >= 0) ::close(m.sock);
  m.sock = -1;
  m.box.reset();
  if (m.rescue) cudaStreamDestroy(m.rescue);
  m.rescue = nullptr;
  if (m.apart) detail::driver_api().ctx_destroy(m.apart);  // its stream with it
  m.apart = nullptr, m.apart_stream = nullptr;
  for (const auto& [s, e] : m.resumed) cudaEventDestroy(e);
  for (cudaEvent_t e : m.spare_events) cudaEventDestroy(e);
  m.resumed.clear(), m.spare_events.clear();
  return e;
}

std::string settle_remote_call(bool* lost, bool* timed_out) {
  RemoteKernel* r = RemoteKernel::active();
  if (!r) return "";
  bool late = false;
  std::string e = r->settle(&late);
  if (lost) *lost = r->lost();
  if (timed_out) *timed_out = late;
  return e;
}

}  // namespace rope2d::verify::harness
