// The testbed's device memory (private to testbed/): buffers with guard bands, flush-ended
// where asked; uploads; the integrity reads after a call (guard bands intact, an input equal to
// its host copy or to a fresh GPU fill); and a counter-based problem's inputs made on the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope2d/verify/model/problem.hpp"
#include "harness/edge_memory.hpp"

namespace rope2d::verify::detail {

inline constexpr std::size_t guard_bytes = 4096;
inline constexpr unsigned char guard_byte = 0xA5;

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline std::string fmt_hex(float x) {
  char b[32];
  std::snprintf(b, sizeof b, "%a", static_cast<double>(x));
  return b;
}

inline bool sticky(cudaError_t e) {
  // Errors after which the context is unusable (the kernel faulted).
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorIllegalInstruction ||
         e == cudaErrorMisalignedAddress || e == cudaErrorHardwareStackError || e == cudaErrorInvalidPc ||
         e == cudaErrorAssert || e == cudaErrorLaunchTimeout || e == cudaErrorUnknown;
}

// While a boxed kernel is in use (harness/remote_kernel.hpp), every buffer handed to it is a
// shareable allocation mapped into its host too: `e` allocated for `bytes` and shared, true;
// false when no boxed kernel is in use (the caller allocates as usual). Throws when sharing fails.
bool allocate_shared(EdgeAllocation& e, std::size_t bytes);
// The host's mapping of a shared allocation dropped (before `e` is released).
void unshare(const EdgeAllocation& e);

// One device buffer with guard bands; the data region starts `offset` bytes into it. A flush
// buffer ends exactly where its data ends: at an unmapped page where the driver allows (a read
// past the end faults), else at the end of an exact cudaMalloc (compute-sanitizer sees it).
// A buffer handed to the kernel (`handed`) is shared with a boxed kernel's host where one is
// in use (allocate_shared) and then ends at an unmapped page; every other buffer (the fresh
// fills the judge compares with, its scratch) stays the judge's alone.
struct Buffer {
  unsigned char* base = nullptr;
  std::size_t allocated = 0;  // bytes of the allocation
  std::size_t bytes = 0, offset = 0;
  bool exact = false;         // allocated for one flush layout
  bool handed = false;        // handed to the kernel under test
  detail::EdgeAllocation edge;

  void free_all() {
    if (edge.begin()) unshare(edge), edge.release();
    else if (base) cudaFree(base);
    base = nullptr;
  }
  void allocate(std::size_t total) {
    free_all();
    if (handed && allocate_shared(edge, total)) {
      base = edge.begin(), allocated = edge.size();
      return;
    }
    check(cudaMalloc(reinterpret_cast<void**>(&base), total), "cudaMalloc");
    allocated = total;
  }
  // Lays out `n` bytes starting `misalign` bytes past a 256-byte boundary with guards around,
  // or flush (the start then follows from n).
  void layout(std::size_t n, std::size_t misalign, bool flush, cudaStream_t s) {
    const std::size_t want = guard_bytes + misalign + n + guard_bytes + 64;
    if (flush || exact || !base || want > allocated) {
      if (base) check(cudaStreamSynchronize(s), "sync");  // earlier work may still read it
      exact = flush;
      if (!flush) allocate(want + (1 << 20));
      else if (free_all(); (handed && allocate_shared(edge, guard_bytes + n)) || edge.allocate(guard_bytes + n, nullptr))
        base = edge.begin(), allocated = edge.size();
      else allocate(guard_bytes + std::max<std::size_t>(n, 1));
    }
    bytes = n;
    offset = flush ? allocated - n : guard_bytes + misalign;
    check(cudaMemsetAsync(base, guard_byte, offset, s), "cudaMemset guard");
    // Only the band the check reads: the rest of a large allocation needs no refill per set.
    const std::size_t after = std::min(allocated - offset - n, guard_bytes);
    if (after) check(cudaMemsetAsync(base + offset + n, guard_byte, after, s), "cudaMemset guard");
  }
  unsigned char* data() const { return base + offset; }
  // The guard bands read back: up to two guards' worth before the data, one after.
  std::size_t head() const { return std::min(offset, 2 * guard_bytes); }
  std::size_t tail() const { return std::min(guard_bytes, allocated - offset - bytes); }
  void read_guards(unsigned char* dst, cudaStream_t s) const {
    check(cudaMemcpyAsync(dst, base + offset - head(), head(), cudaMemcpyDeviceToHost, s), "copy guard");
    if (tail()) check(cudaMemcpyAsync(dst + head(), base + offset + bytes, tail(), cudaMemcpyDeviceToHost, s), "copy guard");
  }
  ~Buffer() { free_all(); }
};


// The number of bytes in which device ranges a and b differ, counted on the device into
// `counter` (one device word, cleared here) on stream s and read back.
unsigned long long differing_bytes(const void* a, const void* b, std::int64_t bytes, unsigned long long* counter,
                                   cudaStream_t s);

// The memory side of the testbed on one stream: uploads, layouts of made inputs and the
// integrity reads, with the scratch they reuse across calls.
class DeviceMemory {
 public:
  explicit DeviceMemory(cudaStream_t s) : stream(s) {}
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void upload(Buffer& b, const void* host, std::size_t n, std::size_t misalign, bool flush = false);
  // The inputs of a counter-based problem made here, on the GPU, into gc and gs (and theta when
  // given), laid out as upload() lays them out: guards, misalignment, flush end (`placed`;
  // else at offset 0). A layout problem's positions and theta table go up first into pos and
  // tab (kilobytes), its angles are formed here.
  void make_inputs(const Problem& p, Buffer& bgc, Buffer& bgs, Buffer* btheta, bool placed, Buffer& pos, Buffer& tab);
  // All guard bands of `bufs` read back together (one synchronisation); true when intact.
  bool guards_intact(const std::vector<const Buffer*>& bufs);
  // True when the data of a and b (device) are the same bytes.
  bool same_on_device(const Buffer& a, const Buffer& b);
  // True when b's data equal the host copy it was uploaded from.
  bool unchanged(const Buffer& b, const void* host);

  cudaStream_t stream;
  bool lost = false;                // the context is gone: nothing is freed any more
  std::vector<unsigned char> back;  // a buffer read back (scratch kept across calls)

 private:
  unsigned long long* diff_count_ = nullptr;  // device: bytes that differ (same_on_device)
  unsigned char* guards_ = nullptr;           // pinned: every buffer's guard bands, read in one batch
  std::size_t guards_size_ = 0;
};

}  // namespace rope2d::verify::detail
