// rope2d-kernel-host: the untrusted side of a C ABI submission, run only inside the box
// (sandbox.hpp). It loads the submission's shared object and nothing of the verifier's
// judgement is here: it holds no report, no verdict and no channel to the verifier's parent.
//
//   rope2d-kernel-host probe LIB.so   load it, look up the entry points (no GPU needed);
//                                     exit 0 found, 3 rope2d_backward missing, 4 not loadable
//   rope2d-kernel-host serve LIB.so   (CUDA builds) serve calls on descriptor 3, a socket to
//                                     the judge (host_protocol.hpp): map the judge's memory,
//                                     make each call on the GPU between the judge's flag words
//   rope2d-kernel-host watch FD -- PROG ARGS...
//                                     the box's first program (watch.hpp): install the watch of
//                                     refused writes and connections, hand it to the judge over
//                                     descriptor FD, then become PROG (found on the PATH)
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "harness/watch.hpp"

#include "rope2d/rope2d_backward.h"

#ifdef ROPE2D_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <map>
#include <thread>
#include <vector>

#include "harness/host_protocol.hpp"
#include "harness/driver_api.hpp"
#endif

namespace {

struct Loaded {
  void* handle = nullptr;
  rope2d_backward_fn backward = nullptr;
  rope2d_backward_fused_fn fused = nullptr;
};

// The entry points' names: the submission kind's (harness/kinds.hpp), rope2d_backward and
// rope2d_backward_fused unless the command line names others.
struct Symbols {
  const char* backward = "rope2d_backward";
  const char* fused = "rope2d_backward_fused";
};

// 0 loaded with the backward entry point, 3 without it, 4 not loadable (the message on stderr).
int load(const char* path, const Symbols& names, Loaded& l) {
  l.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!l.handle) {
    std::fprintf(stderr, "cannot load: %s\n", dlerror());
    return 4;
  }
  l.backward = reinterpret_cast<rope2d_backward_fn>(dlsym(l.handle, names.backward));
  l.fused = reinterpret_cast<rope2d_backward_fused_fn>(dlsym(l.handle, names.fused));
  if (!l.backward) {
    std::fprintf(stderr, "missing symbol %s (extern \"C\", see cuda/include/rope2d/rope2d_backward.h)\n", names.backward);
    return 3;
  }
  return 0;
}

#ifdef ROPE2D_HAVE_CUDA
namespace wire = rope2d::verify::harness::wire;
using rope2d::verify::detail::DriverApi;

struct Region {
  CUdeviceptr va = 0;
  std::size_t bytes = 0, reserved = 0;
  CUmemGenericAllocationHandle handle = 0;
};

class Host {
 public:
  Host(int sock, const Loaded& l) : sock_(sock), k_(l), d_(rope2d::verify::detail::driver_api()) {}

  int run() {
    wire::Reply hello;
    hello.stage = wire::Stage::hello;
    hello.seq = 1;
    hello.rc = k_.fused ? 1 : 0;
    if (!wire::send_record(sock_, &hello, sizeof hello)) return 1;
    unsigned char buf[256];
    for (;;) {
      int fd = -1;
      const long k = wire::receive_record(sock_, buf, sizeof buf, &fd);
      if (k <= 0) return 0;  // the judge is gone
      const std::optional<wire::Request> q = wire::parse_request({buf, static_cast<std::size_t>(k)});
      if (!q) {
        std::fprintf(stderr, "kernel host: a record that is not a valid request (%ld bytes)\n", k);
        return 2;
      }
      switch (q->op) {
        case wire::Op::map: map(*q, fd); break;
        case wire::Op::unmap: unmap(q->region); break;
        case wire::Op::call: call(*q); break;
        case wire::Op::bye: return 0;
      }
      if (fd >= 0 && q->op != wire::Op::map) ::close(fd);
    }
  }

 private:
  void reply(wire::Stage stage, std::uint64_t seq, int rc, int cuda_error = 0) {
    wire::Reply r;
    r.stage = stage;
    r.seq = seq;
    r.rc = rc;
    r.cuda_error = cuda_error;
    wire::send_record(sock_, &r, sizeof r);
  }

  void map(const wire::Request& q, int fd) {
    Region r;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t gran = 0;
    CUresult e = fd < 0 || regions_.count(q.region) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    if (!e) e = d_.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (!e && (gran == 0 || q.bytes % gran)) e = CUDA_ERROR_INVALID_VALUE;
    if (!e)
      e = d_.import_handle(&r.handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (fd >= 0) ::close(fd);
    r.bytes = q.bytes;
    r.reserved = q.bytes + gran;  // the granule after stays unmapped here too
    if (!e) e = d_.reserve(&r.va, r.reserved, gran, 0, 0);
    if (!e) e = d_.map(r.va, r.bytes, 0, r.handle, 0);
    CUmemAccessDesc acc{};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (!e) e = d_.access(r.va, r.bytes, &acc, 1);
    if (!e) regions_[q.region] = r;
    reply(wire::Stage::mapped, q.region, static_cast<int>(e));
  }

  void unmap(std::uint32_t id) {
    auto it = regions_.find(id);
    if (it == regions_.end()) return;
    // The calls' streams, not the device: a captured call's graph may still wait for a replay.
    for (const auto& [slot, s] : slots_) cudaStreamSynchronize(s);
    const Region& r = it->second;
    d_.unmap(r.va, r.bytes);
    d_.release(r.handle);
    d_.free(r.va, r.reserved);
    regions_.erase(it);
  }

  // The judge's (region, offset) as this process's pointer; false when it names no mapping.
  bool pointer(const wire::Ref& a, void** p) const {
    if (a.region == 0) return *p = nullptr, true;
    const auto it = regions_.find(a.region);
    if (it == regions_.end() || a.offset > it->second.bytes) return false;
    *p = reinterpret_cast<void*>(it->second.va + a.offset);
    return true;
  }

  cudaStream_t stream(std::uint32_t slot) {
    cudaStream_t& s = slots_[slot];
    if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }

  int invoke(const wire::Request& q, void* const* p, cudaStream_t s) const {
    if (q.entry == static_cast<std::int32_t>(wire::Entry::plain))
      return k_.backward(p[0], p[1], static_cast<const float*>(p[2]), static_cast<float*>(p[3]), q.count, q.grad_dtype, s);
    if (!k_.fused) return cudaErrorInvalidDeviceFunction;
    return k_.fused(p[0], p[1], static_cast<const std::int32_t*>(p[2]), static_cast<const float*>(p[3]), static_cast<float*>(p[4]),
                    q.count, q.head_dim, q.grad_dtype, s);
  }

  void call(const wire::Request& q) {
    const CUdeviceptr flags = regions_.count(wire::flags_region) ? regions_.at(wire::flags_region).va : 0;
    const CUdeviceptr go = flags + 8 * (q.seq % wire::flag_pairs), done = go + 4;
    const auto v = static_cast<std::uint32_t>(q.seq);
    void* p[5];
    bool ok = flags != 0;
    for (int i = 0; i < 5 && ok; ++i) ok = pointer(q.arg[i], &p[i]);
    if (q.capture) return capture(q, ok, p, go, done, v);
    cudaStream_t s = stream(q.slot);
    d_.wait_value(reinterpret_cast<CUstream>(s), go, v, CU_STREAM_WAIT_VALUE_EQ);
    const int rc = ok ? invoke(q, p, s) : cudaErrorInvalidValue;
    d_.write_value(reinterpret_cast<CUstream>(s), done, v, 0);
    reply(wire::Stage::launched, q.seq, rc);
    // The call's work on its stream waited for apart, so the next request is served.
    std::thread([this, s, seq = q.seq] {
      const cudaError_t e = cudaStreamSynchronize(s);
      reply(wire::Stage::finished, seq, 0, static_cast<int>(e));
    }).detach();
  }

  // The judge's stream is capturing: the call is captured here into a graph of its own on a
  // fresh stream (thread-local mode, as the contract check captures), launched once to run
  // when the judge's graph writes its "go".
  void capture(const wire::Request& q, bool ok, void* const* p, CUdeviceptr go, CUdeviceptr done, std::uint32_t v) {
    cudaStream_t cs = nullptr;
    cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
    cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
    d_.wait_value(reinterpret_cast<CUstream>(cs), go, v, CU_STREAM_WAIT_VALUE_EQ);
    int rc = ok ? invoke(q, p, cs) : cudaErrorInvalidValue;
    d_.write_value(reinterpret_cast<CUstream>(cs), done, v, 0);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(cs, &graph);
    cudaGetLastError();
    cudaGraphExec_t exec = nullptr;
    if (rc == 0 && (end != cudaSuccess || !graph)) rc = end != cudaSuccess ? end : cudaErrorStreamCaptureInvalidated;
    if (rc == 0 && cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) rc = cudaErrorStreamCaptureInvalidated;
    if (rc == 0 && cudaGraphLaunch(exec, cs) != cudaSuccess) rc = cudaErrorStreamCaptureInvalidated;
    if (graph) cudaGraphDestroy(graph);
    reply(wire::Stage::launched, q.seq, rc);
  }

  int sock_;
  Loaded k_;
  const DriverApi& d_;
  std::map<std::uint32_t, Region> regions_;
  std::map<std::uint32_t, cudaStream_t> slots_;
};

int serve(const char* path, const Symbols& names) {
  if (cudaSetDevice(0) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "kernel host: no usable CUDA device\n");
    return 5;
  }
  const DriverApi& d = rope2d::verify::detail::driver_api();
  if (!d.missing().empty()) {
    std::fprintf(stderr, "kernel host: %s\n", d.missing().c_str());
    return 5;
  }
  Loaded l;
  if (const int rc = load(path, names, l)) return rc;
  return Host(3, l).run();
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "watch") == 0 && std::strcmp(argv[3], "--") == 0) {
    char* end = nullptr;
    const long fd = std::strtol(argv[2], &end, 10);
    if (*end != '\0' || fd < 3 || fd > 1000) return 2;
    if (const std::string why = rope2d::verify::harness::install_watch(static_cast<int>(fd)); !why.empty())
      std::fprintf(stderr, "watch: %s (refused writes and connections not counted)\n", why.c_str());
    ::execvp(argv[4], argv + 4);
    std::fprintf(stderr, "cannot run %s: %s\n", argv[4], std::strerror(errno));
    return 127;
  }
  // probe|serve LIB [BACKWARD FUSED]: the entry points' names where the kind has its own.
  Symbols names;
  if (argc == 5) names = {argv[3], argv[4]};
  if ((argc == 3 || argc == 5) && std::strcmp(argv[1], "probe") == 0) {
    Loaded l;
    const int rc = load(argv[2], names, l);
    if (rc == 0) std::printf("loaded: %s%s%s\n", names.backward, l.fused ? ", " : "", l.fused ? names.fused : "");
    return rc;
  }
#ifdef ROPE2D_HAVE_CUDA
  if ((argc == 3 || argc == 5) && std::strcmp(argv[1], "serve") == 0) {
    const int rc = serve(argv[2], names);
    std::fflush(stderr);
    ::_exit(rc);  // no destructors of the submission's after the judge said bye
  }
#endif
  std::fprintf(stderr, "usage: rope2d-kernel-host probe|serve LIB.so [BACKWARD FUSED], or watch FD -- PROG ARGS... (run by rope2d verify, inside its box)\n");
  return 2;
}
