// The driver entry points (driver_api.hpp) through cudaGetDriverEntryPointByVersion.
#include "harness/driver_api.hpp"

#include <cuda_runtime_api.h>

namespace rope2d::verify::detail {

namespace {

// The entry point as of CUDA 12.0 (the versions the table's types are written for), or null.
void* query_driver(void*, const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

}  // namespace

DriverApi::DriverApi() : EntryPoints(query_driver, nullptr, "the driver") {}

const DriverApi& driver_api() {
  static const DriverApi d;
  return d;
}

}  // namespace rope2d::verify::detail
