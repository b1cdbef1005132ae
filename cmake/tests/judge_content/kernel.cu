// Float arithmetic whose PTX carries .ftz under -ftz=true (mul, fma, rcp, comparisons), for
// judge_content_test.sh.
__global__ void judge_like(const float* a, const float* b, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (fabsf(a[i]) < 0x1p-126f) ? a[i] * b[i] : a[i] / b[i] + b[i];
}
