// The flush placement's memory (driver virtual memory API through cudaGetDriverEntryPointByVersion).
#include "testbed/edge_memory.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <type_traits>

namespace rope2d::verify::detail {

namespace {

struct Driver {
  decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&cuMemCreate) create = nullptr;
  decltype(&cuMemAddressReserve) reserve = nullptr;
  decltype(&cuMemMap) map = nullptr;
  decltype(&cuMemSetAccess) access = nullptr;
  decltype(&cuMemUnmap) unmap = nullptr;
  decltype(&cuMemRelease) release = nullptr;
  decltype(&cuMemAddressFree) free = nullptr;
  std::string missing;

  Driver() {
    auto get = [&](const char* name, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult q{};
      if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
          q != cudaDriverEntryPointSuccess || !p) {
        if (missing.empty()) missing = std::string("the driver has no ") + name;
        cudaGetLastError();
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get("cuMemGetAllocationGranularity", granularity);
    get("cuMemCreate", create);
    get("cuMemAddressReserve", reserve);
    get("cuMemMap", map);
    get("cuMemSetAccess", access);
    get("cuMemUnmap", unmap);
    get("cuMemRelease", release);
    get("cuMemAddressFree", free);
  }
};

const Driver& driver() {
  static const Driver d;
  return d;
}

}  // namespace

bool EdgeAllocation::allocate(std::size_t bytes, std::string* why) {
  release();
  const Driver& d = driver();
  if (!d.missing.empty()) {
    if (why) *why = d.missing;
    return false;
  }
  int device = 0;
  cudaGetDevice(&device);
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
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

void EdgeAllocation::release() {
  const Driver& d = driver();
  if (va_ && handle_) d.unmap(va_, mapped_);
  if (handle_) d.release(handle_);
  if (va_) d.free(va_, reserved_);
  va_ = handle_ = 0;
  mapped_ = reserved_ = 0;
}

}  // namespace rope2d::verify::detail
