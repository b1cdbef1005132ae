// The contract checks (CUDA runtime API). Each owns plain device buffers, apart from the
// testbed's, so its calls overlap nothing else.
#include "harness/testbed/contract.hpp"

#include <cuda_runtime_api.h>

#include <bit>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/model/metrics.hpp"
#include "harness/remote_kernel.hpp"
#include "harness/testbed/buffers.hpp"
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify {

namespace {

constexpr std::uint64_t gate_ns = 5'000'000;  // both calls queue behind one 5 ms spin, then start together

std::string err(cudaError_t e) { return std::string(cudaGetErrorName(e)); }

struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void need(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Fail(std::string(what) + ": " + err(e));
}

// The inputs and output of one call, 256-byte aligned.
struct Slot {
  void *gc = nullptr, *gs = nullptr;
  float *theta = nullptr, *out = nullptr;
  std::int64_t n = 0;

  detail::Buffer mem[4]{{.handed = true}, {.handed = true}, {.handed = true}, {.handed = true}};  // buffers.hpp

  explicit Slot(const Problem& p) : n(p.n()) {
    const std::size_t cap = static_cast<std::size_t>(std::max<std::int64_t>(n, 64));
    for (detail::Buffer& b : mem) b.allocate(cap * 4);
    gc = mem[0].base, gs = mem[1].base;
    theta = reinterpret_cast<float*>(mem[2].base), out = reinterpret_cast<float*>(mem[3].base);
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  void upload(const Problem& p, cudaStream_t s) {
    need(cudaMemcpyAsync(gc, p.gc.data(), p.gc.size(), cudaMemcpyHostToDevice, s), "upload");
    need(cudaMemcpyAsync(gs, p.gs.data(), p.gs.size(), cudaMemcpyHostToDevice, s), "upload");
    need(cudaMemcpyAsync(theta, p.theta.data(), p.theta.size() * 4, cudaMemcpyHostToDevice, s), "upload");
    detail::launch_fill32(reinterpret_cast<std::uint32_t*>(out), std::max<std::int64_t>(n, 64), poison_bits, s);
  }
  std::vector<float> download(std::int64_t count, cudaStream_t s) const {
    std::vector<float> host(count);
    need(cudaMemcpyAsync(host.data(), out, count * 4, cudaMemcpyDeviceToHost, s), "copy back");
    need(cudaStreamSynchronize(s), "sync");
    return host;
  }
  int call(BackwardFn fn, ref::Dtype d, std::int64_t count, cudaStream_t s) const {
    return fn(gc, gs, theta, out, count, ref::abi_code(d), reinterpret_cast<CUstream_st*>(s));
  }
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { need(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s); }
};

// What a check found, as the judge reads a call (judge.hpp's CallResult): declined, or a
// broken contract as its one finding; with the outputs of every call it made.
struct Judged {
  CallResult call;
  std::vector<std::pair<const Problem*, std::vector<float>>> outputs;
};

Judged declined() {
  Judged j;
  j.call.declined = true;
  return j;
}

Judged violation(const std::string& what) {
  Judged j;
  j.call.findings.push_back("contract violation: " + what);
  j.call.finding_cause = Cause::contract;
  return j;
}

ProblemSpec contract_spec(const char* check, ref::Dtype d, std::int64_t n, std::uint64_t seed) {
  ProblemSpec s;
  s.set = "contract";
  s.elements = n;
  s.grad_dtype = d;
  s.seed = name_seed(seed, std::string("contract/") + check + "/" + std::string(ref::name(d)));
  return s;
}

// n == 0 on real, poisoned buffers: returns 0, writes nothing, leaves no error.
Judged check_n_zero(BackwardFn fn, ref::Dtype d, std::uint64_t seed) {
  Stream st;
  const Problem p = make_problem(contract_spec("n0", d, 64, seed));
  Slot slot(p);
  slot.upload(p, st.s);
  const int rc = slot.call(fn, d, 0, st.s);
  if (rc == ROPE2D_ERR_UNSUPPORTED_DTYPE) return declined();
  if (rc != 0) return violation("n == 0: the call returned " + std::to_string(rc));
  if (const cudaError_t e = cudaStreamSynchronize(st.s); e != cudaSuccess) return violation("n == 0: " + err(e) + " after the call");
  for (float f : slot.download(64, st.s))
    if (std::bit_cast<std::uint32_t>(f) != poison_bits) return violation("n == 0 wrote to the output");
  return {};
}

// Two calls in flight at once on two streams, released together by one event; from one host
// thread or from two.
Judged check_concurrent(BackwardFn fn, ref::Dtype d, bool threads, const Problem& a, const Problem& b) {
  Judged j;
  Stream gate, s1, s2;
  Slot x(a), y(b);
  x.upload(a, s1.s);
  y.upload(b, s2.s);
  need(cudaStreamSynchronize(s1.s), "sync");
  need(cudaStreamSynchronize(s2.s), "sync");
  cudaEvent_t go;
  need(cudaEventCreateWithFlags(&go, cudaEventDisableTiming), "cudaEventCreate");
  detail::launch_spin(gate_ns, gate.s);
  need(cudaEventRecord(go, gate.s), "event");
  need(cudaStreamWaitEvent(s1.s, go, 0), "wait");
  need(cudaStreamWaitEvent(s2.s, go, 0), "wait");
  int rc1 = 0, rc2 = 0;
  if (threads) {
    std::thread t1([&] { rc1 = x.call(fn, d, a.n(), s1.s); });
    std::thread t2([&] { rc2 = y.call(fn, d, b.n(), s2.s); });
    t1.join();
    t2.join();
  } else {
    rc1 = x.call(fn, d, a.n(), s1.s);
    rc2 = y.call(fn, d, b.n(), s2.s);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  cudaEventDestroy(go);
  if (rc1 == ROPE2D_ERR_UNSUPPORTED_DTYPE || rc2 == ROPE2D_ERR_UNSUPPORTED_DTYPE) return declined();
  if (rc1 || rc2) return violation("two calls in flight: returned " + std::to_string(rc1) + " and " + std::to_string(rc2));
  if (e != cudaSuccess) return violation("two calls in flight: " + err(e));
  j.outputs.push_back({&a, x.download(a.n(), s1.s)});
  j.outputs.push_back({&b, y.download(b.n(), s2.s)});
  return j;
}

// Captured in a CUDA graph (thread-local mode: an unsafe call such as a device-wide
// synchronisation, an allocation or a synchronous copy fails the capture), then replayed on
// fresh inputs in the same buffers: a call that baked data read on the host replays wrong.
Judged check_graph(BackwardFn fn, ref::Dtype d, const Problem& captured, const Problem& replayed) {
  Stream st;
  Slot slot(captured);
  slot.upload(captured, st.s);
  need(cudaStreamSynchronize(st.s), "sync");
  need(cudaStreamBeginCapture(st.s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  const int rc = slot.call(fn, d, captured.n(), st.s);
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(st.s, &graph);
  cudaGetLastError();
  if (rc == ROPE2D_ERR_UNSUPPORTED_DTYPE) {
    if (graph) cudaGraphDestroy(graph);
    return declined();
  }
  if (rc != 0 || end != cudaSuccess || !graph) {
    if (graph) cudaGraphDestroy(graph);
    return violation("not graph-capturable: the call returned " + std::to_string(rc) + ", capture ended with " + err(end) +
                     " (a device-wide synchronisation, allocation or host read inside the call)");
  }
  cudaGraphExec_t exec = nullptr;
  cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (e != cudaSuccess) return violation("not graph-capturable: cudaGraphInstantiate: " + err(e));
  slot.upload(replayed, st.s);
  e = cudaGraphLaunch(exec, st.s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st.s);
  cudaGraphExecDestroy(exec);
  if (e != cudaSuccess) return violation("graph replay failed: " + err(e));
  Judged j;
  j.outputs.push_back({&replayed, slot.download(replayed.n(), st.s)});
  return j;
}

// Expected results by problem: a and b are judged by two checks, computed once.
using ExpectedCache = std::map<const Problem*, Expected>;

// A check's set through the judge's SetTally: each call's outputs one round, judged as the
// suite's are; a call that gives wrong results breaks the contract (the first such finding kept).
// Not through Judge itself: one GPU run here gives the outputs of two calls on two problems.
SetResult judged(const std::string& check, ref::Dtype d, Tier gate, Subnormals subnormals, const Judged& j, const char* wrong,
                 ExpectedCache& cache) {
  SetTally t({"contract/" + check + "/" + std::string(ref::name(d)), "contract", d}, d, gate, subnormals);
  if (!t.outcome(j.call)) return t.finish();
  bool broken = !j.call.findings.empty();
  for (const auto& [p, out] : j.outputs) {
    auto x = cache.find(p);
    if (x == cache.end()) x = cache.emplace(p, compute_expected(*p)).first;
    if (!t.round(*p, x->second, out.data()).passes(gate) && !broken) {
      t.add_finding(std::string("contract violation: ") + wrong, Cause::contract);
      broken = true;
    }
  }
  return t.finish();
}

}  // namespace

std::vector<SetResult> contract_checks(BackwardFn fn, ref::Dtype d, Tier gate, Subnormals subnormals, std::uint64_t seed,
                                       const std::function<void(const std::string&, bool)>& watch) {
  std::vector<SetResult> out;
  // A boxed kernel whose host died or faulted in a check (harness/remote_kernel.hpp): that check
  // failed to run, for the host's reason, and no later check calls it (each would only read
  // "the host is gone" as a broken contract).
  std::string host_lost;
  // n: the elements of the check's call (its trace line's axes, a flat problem).
  auto guarded = [&](const std::string& check, std::int64_t n, auto&& body) {
    const std::string name = "contract/" + check + "/" + std::string(ref::name(d));
    SetResult r{name, "contract", d};
    if (!host_lost.empty()) {
      r.fail("not run: the kernel host was lost earlier (" + host_lost + ")");
    } else {
      try {
        if (watch) watch(name, true);
        r = body();
      } catch (const std::exception& e) {
        r = SetResult{name, "contract", d};
        r.fail(e.what());
        cudaGetLastError();
      }
      if (watch) watch(name, false);
      bool lost = false, late = false;
      const std::string why = harness::settle_remote_call(&lost, &late);
      if (lost) {
        host_lost = why.empty() ? "the kernel host ended" : why;
        r = SetResult{name, "contract", d};
        r.fail(host_lost, late ? Cause::timeout : Cause::runtime);
      }
    }
    r.shape = {n};
    out.push_back(r);
  };
  ExpectedCache cache;
  guarded("n0", 0, [&] { return judged("n0", d, gate, subnormals, check_n_zero(fn, d, seed), "", cache); });
  // Different sizes and data on the two calls: 1M and 1M + 37 elements keep both in flight.
  const Problem a = make_problem(contract_spec("a", d, (1 << 20), seed));
  const Problem b = make_problem(contract_spec("b", d, (1 << 20) + 37, seed));
  for (bool threads : {false, true}) {
    const std::string check = threads ? "threads" : "streams";
    guarded(check, a.n(), [&] {
      return judged(check, d, gate, subnormals, check_concurrent(fn, d, threads, a, b),
                    "two calls in flight at once gave wrong results (not reentrant)", cache);
    });
  }
  const Problem fresh = make_problem(contract_spec("replay", d, (1 << 20), seed));
  guarded("graph", a.n(), [&] {
    return judged("graph", d, gate, subnormals, check_graph(fn, d, a, fresh), "the graph replayed on fresh inputs gave wrong results",
                  cache);
  });
  return out;
}

}  // namespace rope2d::verify
