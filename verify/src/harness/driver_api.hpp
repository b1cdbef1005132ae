// The CUDA driver entry points the testbed and the kernel host use (virtual memory, shareable
// handles, stream memory operations), reached through the runtime's entry-point query so that
// nothing links libcuda. One table, filled once.
#pragma once

#include <cuda.h>

#include <string>

namespace rope2d::verify::detail {

struct DriverApi {
  decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&cuMemCreate) create = nullptr;
  decltype(&cuMemAddressReserve) reserve = nullptr;
  decltype(&cuMemMap) map = nullptr;
  decltype(&cuMemSetAccess) access = nullptr;
  decltype(&cuMemUnmap) unmap = nullptr;
  decltype(&cuMemRelease) release = nullptr;
  decltype(&cuMemAddressFree) free = nullptr;
  decltype(&cuMemExportToShareableHandle) export_handle = nullptr;
  decltype(&cuMemImportFromShareableHandle) import_handle = nullptr;
  decltype(&cuStreamWaitValue32) wait_value = nullptr;
  decltype(&cuStreamWriteValue32) write_value = nullptr;
  // A context of its own (remote_kernel.cpp's release of the judge's waits): cuCtxCreate as of
  // CUDA 12.0 (flags, device), which the entry-point query gives at that version.
  CUresult (*ctx_create)(CUcontext*, unsigned int, CUdevice) = nullptr;
  decltype(&cuCtxDestroy) ctx_destroy = nullptr;
  decltype(&cuCtxPushCurrent) ctx_push = nullptr;
  decltype(&cuCtxPopCurrent) ctx_pop = nullptr;
  decltype(&cuDeviceGet) device_get = nullptr;
  decltype(&cuStreamCreate) stream_create = nullptr;
  decltype(&cuStreamQuery) stream_query = nullptr;
  std::string missing;  // the first entry point the driver lacks ("" when all are there)
};

const DriverApi& driver_api();

}  // namespace rope2d::verify::detail
