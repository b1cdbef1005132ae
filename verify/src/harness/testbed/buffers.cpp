// The testbed's device memory (buffers.hpp): guarded layouts, uploads, made inputs and the
// integrity reads.
#include "harness/testbed/buffers.hpp"

#include <algorithm>
#include <cstring>

#include "harness/remote_kernel.hpp"
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify::detail {

bool allocate_shared(EdgeAllocation& e, std::size_t bytes) {
  harness::RemoteKernel* r = harness::RemoteKernel::active();
  if (!r) return false;
  std::string why;
  if (!e.allocate(std::max<std::size_t>(bytes, 1), &why, true) || !r->share(e, &why))
    throw CudaError("memory shared with the boxed kernel: " + (why.empty() ? std::string("cuMemCreate failed") : why));
  return true;
}

void unshare(const EdgeAllocation& e) {
  harness::RemoteKernel* r = harness::RemoteKernel::active();
  if (!r) return;
  // The kernel host unmaps its view at once: the judge's streams, which wait for each call's
  // "done", are finished first, so that no call of the host still runs on the range.
  cudaDeviceSynchronize();
  r->unshare(e.begin());
}

DeviceMemory::~DeviceMemory() {
  if (lost) return;
  if (guards_) cudaFreeHost(guards_);
  if (diff_count_) cudaFree(diff_count_);
}

void DeviceMemory::upload(Buffer& b, const void* host, std::size_t n, std::size_t misalign, bool flush) {
  b.layout(n, misalign, flush, stream);
  if (n) check(cudaMemcpyAsync(b.data(), host, n, cudaMemcpyHostToDevice, stream), "upload");
}

void DeviceMemory::make_inputs(const Problem& p, Buffer& bgc, Buffer& bgs, Buffer* btheta, bool placed, Buffer& pos, Buffer& tab) {
  const std::size_t es = ref::size_bytes(p.spec.grad_dtype), n = static_cast<std::size_t>(p.n());
  const auto& o = p.spec.offset;
  const bool flush = placed && p.spec.flush_end;
  bgc.layout(n * es, placed ? o[op_grad_cos] * es : 0, flush, stream);
  bgs.layout(n * es, placed ? o[op_grad_sin] * es : 0, flush, stream);
  if (btheta) btheta->layout(n * 4, placed ? o[op_idx_theta] * 4 : 0, flush, stream);
  const bool layout = !p.positions.empty();
  if (layout && btheta) {
    upload(pos, p.positions.data(), p.positions.size() * 4, 0);
    upload(tab, p.theta_table.data(), p.theta_table.size() * 4, 0);
  }
  detail::launch_counter_fill(bgc.data(), bgs.data(), btheta ? reinterpret_cast<float*>(btheta->data()) : nullptr, p.n(),
                              p.spec.seed, ref::counter::encoding_of(p.spec.grad_dtype),
                              layout ? reinterpret_cast<const std::int32_t*>(pos.data()) : nullptr,
                              layout ? reinterpret_cast<const float*>(tab.data()) : nullptr, p.spec.head_dim, stream);
  check(cudaGetLastError(), "counter fill launch");
}

bool DeviceMemory::guards_intact(const std::vector<const Buffer*>& bufs) {
  std::size_t need = 0;
  for (const Buffer* b : bufs) need += b->head() + b->tail();
  if (need > guards_size_) {
    if (guards_) check(cudaFreeHost(guards_), "cudaFreeHost");
    guards_ = nullptr;
    check(cudaMallocHost(reinterpret_cast<void**>(&guards_), need), "cudaMallocHost");
    guards_size_ = need;
  }
  std::size_t at = 0;
  for (const Buffer* b : bufs) {
    b->read_guards(guards_ + at, stream);
    at += b->head() + b->tail();
  }
  check(cudaStreamSynchronize(stream), "sync");
  return std::all_of(guards_, guards_ + at, [](unsigned char c) { return c == guard_byte; });
}

bool DeviceMemory::same_on_device(const Buffer& a, const Buffer& b) {
  if (a.bytes != b.bytes) return false;
  if (!diff_count_) check(cudaMalloc(reinterpret_cast<void**>(&diff_count_), sizeof *diff_count_), "cudaMalloc");
  return differing_bytes(a.data(), b.data(), static_cast<std::int64_t>(a.bytes), diff_count_, stream) == 0;
}

unsigned long long differing_bytes(const void* a, const void* b, std::int64_t bytes, unsigned long long* counter,
                                   cudaStream_t s) {
  check(cudaMemsetAsync(counter, 0, sizeof *counter, s), "cudaMemset");
  launch_count_differences(a, b, bytes, counter, s);
  check(cudaGetLastError(), "compare launch");
  unsigned long long differ = 0;
  check(cudaMemcpyAsync(&differ, counter, sizeof differ, cudaMemcpyDeviceToHost, s), "copy count");
  check(cudaStreamSynchronize(s), "sync");
  return differ;
}

bool DeviceMemory::unchanged(const Buffer& b, const void* host) {
  back.resize(b.bytes);  // scratch kept across calls: no fresh pages per check
  check(cudaMemcpyAsync(back.data(), b.data(), b.bytes, cudaMemcpyDeviceToHost, stream), "copy back input");
  check(cudaStreamSynchronize(stream), "sync");
  const bool same = b.bytes == 0 || std::memcmp(back.data(), host, b.bytes) == 0;
  if (back.size() > (std::size_t{1} << 30)) back = {};  // a --huge input: not kept
  return same;
}

}  // namespace rope2d::verify::detail
