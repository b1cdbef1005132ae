// The driver entry points (driver_api.hpp) through cudaGetDriverEntryPointByVersion.
#include "harness/driver_api.hpp"

#include <cuda_runtime_api.h>

#include <type_traits>

namespace rope2d::verify::detail {

const DriverApi& driver_api() {
  static const DriverApi d = [] {
    DriverApi t;
    auto get = [&](const char* name, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult q{};
      if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
          q != cudaDriverEntryPointSuccess || !p) {
        if (t.missing.empty()) t.missing = std::string("the driver has no ") + name;
        cudaGetLastError();
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get("cuMemGetAllocationGranularity", t.granularity);
    get("cuMemCreate", t.create);
    get("cuMemAddressReserve", t.reserve);
    get("cuMemMap", t.map);
    get("cuMemSetAccess", t.access);
    get("cuMemUnmap", t.unmap);
    get("cuMemRelease", t.release);
    get("cuMemAddressFree", t.free);
    get("cuMemExportToShareableHandle", t.export_handle);
    get("cuMemImportFromShareableHandle", t.import_handle);
    get("cuStreamWaitValue32", t.wait_value);
    get("cuStreamWriteValue32", t.write_value);
    get("cuCtxCreate", t.ctx_create);
    get("cuCtxDestroy", t.ctx_destroy);
    get("cuCtxPushCurrent", t.ctx_push);
    get("cuCtxPopCurrent", t.ctx_pop);
    get("cuDeviceGet", t.device_get);
    get("cuStreamCreate", t.stream_create);
    get("cuStreamQuery", t.stream_query);
    return t;
  }();
  return d;
}

}  // namespace rope2d::verify::detail
