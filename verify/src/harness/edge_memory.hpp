// Device memory that ends at an unmapped page: the testbed's flush placement. A read or write
// one byte past the end faults (cudaErrorIllegalAddress) on the hardware, with or without
// compute-sanitizer. Built on the driver's virtual memory API, reached through the runtime's
// entry-point query so that nothing links libcuda.
#pragma once

#include <cstddef>
#include <string>

namespace rope2d::verify::detail {

class EdgeAllocation {
 public:
  EdgeAllocation() = default;
  ~EdgeAllocation() { release(); }
  EdgeAllocation(const EdgeAllocation&) = delete;
  EdgeAllocation& operator=(const EdgeAllocation&) = delete;

  // Maps at least `bytes` (rounded up to the granularity) followed by one unmapped granule.
  // False, with the reason, where the driver lacks the API; the caller falls back. A
  // shareable allocation can be exported as a POSIX file descriptor (the kernel host maps it).
  bool allocate(std::size_t bytes, std::string* why, bool shareable = false);
  // A new descriptor for the physical memory (the caller closes it); -1 when not shareable.
  int export_fd() const;
  void release();
  unsigned char* begin() const { return reinterpret_cast<unsigned char*>(va_); }
  std::size_t size() const { return mapped_; }  // the mapped bytes; begin() + size() is unmapped

 private:
  unsigned long long va_ = 0, handle_ = 0;
  std::size_t mapped_ = 0, reserved_ = 0;
};

}  // namespace rope2d::verify::detail
