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
  std::string missing;  // the first entry point the driver lacks ("" when all are there)
};

const DriverApi& driver_api();

}  // namespace rope2d::verify::detail
