// The CUDA driver entry points the testbed and the kernel host use (virtual memory, shareable
// handles, stream memory operations), reached through the runtime's entry-point query so that
// nothing links libcuda. One table, filled once.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <type_traits>

#include "harness/entry_points.hpp"

namespace rope2d::verify::detail {

struct DriverApi : EntryPoints {
  DriverApi();  // every entry point looked up; missing() names the first the driver lacks

  EntryPoint<decltype(cuMemGetAllocationGranularity)> granularity{*this, "cuMemGetAllocationGranularity"};
  EntryPoint<decltype(cuMemCreate)> create{*this, "cuMemCreate"};
  EntryPoint<decltype(cuMemAddressReserve)> reserve{*this, "cuMemAddressReserve"};
  EntryPoint<decltype(cuMemMap)> map{*this, "cuMemMap"};
  EntryPoint<decltype(cuMemSetAccess)> access{*this, "cuMemSetAccess"};
  EntryPoint<decltype(cuMemUnmap)> unmap{*this, "cuMemUnmap"};
  EntryPoint<decltype(cuMemRelease)> release{*this, "cuMemRelease"};
  EntryPoint<decltype(cuMemAddressFree)> free{*this, "cuMemAddressFree"};
  EntryPoint<decltype(cuMemExportToShareableHandle)> export_handle{*this, "cuMemExportToShareableHandle"};
  EntryPoint<decltype(cuMemImportFromShareableHandle)> import_handle{*this, "cuMemImportFromShareableHandle"};
  EntryPoint<decltype(cuStreamWaitValue32)> wait_value{*this, "cuStreamWaitValue32"};
  EntryPoint<decltype(cuStreamWriteValue32)> write_value{*this, "cuStreamWriteValue32"};
  // A context of its own (remote_kernel.cpp's release of the judge's waits): cuCtxCreate in the
  // form the entry-point query gives at 12.0, CUDA 11.4's, with execution-affinity parameters
  // before the flags; not cuda.h's cuCtxCreate, whose form has changed twice since (a query at
  // 12.5 or later would give the form with CUctxCreateParams). Typed from cudaTypedefs.h.
  EntryPoint<std::remove_pointer_t<PFN_cuCtxCreate_v11040>> ctx_create{*this, "cuCtxCreate"};
  EntryPoint<decltype(cuCtxDestroy)> ctx_destroy{*this, "cuCtxDestroy"};
  EntryPoint<decltype(cuCtxPushCurrent)> ctx_push{*this, "cuCtxPushCurrent"};
  EntryPoint<decltype(cuCtxPopCurrent)> ctx_pop{*this, "cuCtxPopCurrent"};
  EntryPoint<decltype(cuDeviceGet)> device_get{*this, "cuDeviceGet"};
  EntryPoint<decltype(cuStreamCreate)> stream_create{*this, "cuStreamCreate"};
  EntryPoint<decltype(cuStreamQuery)> stream_query{*this, "cuStreamQuery"};
};

const DriverApi& driver_api();

}  // namespace rope2d::verify::detail
