// flushing_judge_gpu_test's precondition, built with the flushing judge's flags (-ftz=true):
// one float32 product on the device, so the test sees that this build flushes.
#include <cuda_runtime.h>

namespace {

__global__ void multiply(const float* in, float* out) { out[0] = in[0] * in[1]; }

}  // namespace

float flushing_judge_probe_multiply(float a, float b) {
  float host[2] = {a, b}, r = -1.0f;
  float* d = nullptr;
  if (cudaMalloc(&d, 3 * sizeof(float)) != cudaSuccess) return -1.0f;
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  multiply<<<1, 1>>>(d, d + 2);
  cudaMemcpy(&r, d + 2, sizeof r, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return r;
}
