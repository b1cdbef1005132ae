// The flush placement's memory, and the memory shared with the kernel host (driver virtual
// memory API, driver_api.hpp).
#include "harness/edge_memory.hpp"

#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "harness/driver_api.hpp"

namespace rope2d::verify::detail {

namespace {

const DriverApi& driver() { return driver_api(); }

}  // namespace

bool EdgeAllocation::allocate(std::size_t bytes, std::string* why, bool shareable) {
  release();
  const DriverApi& d = driver();
  if (!d.missing().empty()) {
    if (why) *why = d.missing();
    return false;
  }
  int device = 0;
  cudaGetDevice(&device);
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  if (shareable) prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  std::size_t gran = 0;
  if (d.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || gran == 0) {
    if (why) *why = "cuMemGetAllocationGranularity failed";
    return false;
  }
  mapped_ = (bytes + gran - 1) / gran * gran;
  if (mapped_ == 0) mapped_ = gran;
  reserved_ = mapped_ + gran;  // the granule after the mapping stays unmapped
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = 0;
  CUmemAccessDesc acc{};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (d.reserve(&va, reserved_, gran, 0, 0) != CUDA_SUCCESS) {
    if (why) *why = "cuMemAddressReserve failed";
    return false;
  }
  va_ = va;
  if (d.create(&h, mapped_, &prop, 0) != CUDA_SUCCESS) {
    if (why) *why = "cuMemCreate failed";
    release();
    return false;
  }
  handle_ = h;
  if (d.map(va, mapped_, 0, h, 0) != CUDA_SUCCESS || d.access(va, mapped_, &acc, 1) != CUDA_SUCCESS) {
    if (why) *why = "cuMemMap or cuMemSetAccess failed";
    release();
    return false;
  }
  return true;
}

int EdgeAllocation::export_fd() const {
  int fd = -1;
  const DriverApi& d = driver();
  if (!handle_ || !d.export_handle ||
      d.export_handle(&fd, handle_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS)
    return -1;
  return fd;
}

void EdgeAllocation::release() {
  const DriverApi& d = driver();
  // cuMemUnmap does not wait for the work in flight, as cudaFree does: a kernel still queued on
  // the range (a pre-fill, or a call a declining kernel never made) would fault the context.
  if (va_) cudaDeviceSynchronize();
  if (va_ && handle_) d.unmap(va_, mapped_);
  if (handle_) d.release(handle_);
  if (va_) d.free(va_, reserved_);
  va_ = handle_ = 0;
  mapped_ = reserved_ = 0;
}

}  // namespace rope2d::verify::detail
