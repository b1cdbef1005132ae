// sincosf_ulp: measures CUDA's sinf, cosf and sincosf over all 2^32 float32 inputs against the
// exact value, as evidence beside the float32 bound's premise (reference/FLOAT32_BOUND.md).
// Prints, per function, the largest error in ulps of the exact value with its argument (its
// ulp error re-checked on the host with MPFR at 256 bits), the largest distance in floats from
// the correctly rounded value, the largest error per binade of |x|, and how many results lie
// outside [-1, 1] (the bound's own added premise).
//
// Why double sin/cos on the GPU is reference enough: CUDA documents its double sin/cos/sincos
// within 2 ulp of double (2^-51 relative) over the whole range, with full-range argument
// reduction; a float32 ulp is at least 2^-24 of the value, so the reference errs by at most
// 2^-27 float32 ulp, and every printed figure (two decimals) is exact to that. The correctly
// rounded value is taken as the double result rounded to float: it can differ only when the
// exact value lies within 2^-27 ulp of a rounding midpoint, which the MPFR re-check covers at
// the argmax. Exit 1 if a function breaks the premise the float32 bound rests on, as the
// header states it (float32_bound.hpp's cuda_sincosf_bound: more than k floats from the
// correctly rounded value, more than k + 1/2 ulp from the exact value, or a result outside
// [-1, 1]); 77 without a GPU. `--json FILE` also writes the measurement in machine-readable form
// (schema rope2d.sincosf_ulp/1: device, date, CUDA versions, range, per function the figures
// above), which premise_check compares with the header's premise.
#include <cuda_runtime.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "rope2d/ref/float32_bound.hpp"

namespace {

constexpr int kFns = 4;  // sinf, cosf, sincosf's sin, sincosf's cos
const char* const kNames[kFns] = {"sinf", "cosf", "sincosf.sin", "sincosf.cos"};
constexpr int kChunk = 1 << 16;  // inputs per block: one sign and exponent (binade) per block
constexpr int kThreads = 256;

struct Result {
  unsigned long long key[kFns];    // (ulp error as float bits) << 32 | input bits: max gives argmax
  unsigned int steps[kFns];        // floats between the result and the correctly rounded value
  unsigned int binade[256][kFns];  // max ulp error (float bits) per exponent field of x
  unsigned long long beyond_one[kFns];  // results outside [-1, 1] (the bound's added premise)
};

__device__ float ulp_error(float f, double exact) {
  if (f == exact) return 0.0f;
  const int e = exact == 0.0 ? -126 : max(ilogb(exact), -126);
  return static_cast<float>(fabs(static_cast<double>(f) - exact) / ldexp(1.0, e - 23));
}

__device__ int ordered(float f) {
  const int b = __float_as_int(f);
  return b < 0 ? static_cast<int>(0x80000000u - static_cast<unsigned>(b)) : b;
}

__device__ float opaque(float x) {  // keeps the compiler from merging sinf and cosf into sincosf
  asm volatile("" : "+f"(x));
  return x;
}

__global__ void measure(Result* out) {
  unsigned long long key[kFns] = {};
  unsigned int steps[kFns] = {};
  const unsigned int base = static_cast<unsigned int>(blockIdx.x) * kChunk;
  for (int i = threadIdx.x; i < kChunk; i += blockDim.x) {
    const unsigned int bits = base + static_cast<unsigned int>(i);
    const float x = __uint_as_float(bits);
    if (!isfinite(x)) continue;
    double sd, cd;
    sincos(static_cast<double>(x), &sd, &cd);
    float v[kFns];
    v[0] = sinf(opaque(x));
    v[1] = cosf(opaque(x));
    sincosf(opaque(x), &v[2], &v[3]);
    for (int f = 0; f < kFns; ++f) {
      const double exact = (f % 2 == 0) ? sd : cd;
      const unsigned long long k =
          (static_cast<unsigned long long>(__float_as_uint(ulp_error(v[f], exact))) << 32) | bits;
      key[f] = max(key[f], k);
      if (fabsf(v[f]) > 1.0f) atomicAdd(&out->beyond_one[f], 1ull);
      steps[f] = max(steps[f], static_cast<unsigned int>(abs(ordered(v[f]) - ordered(__double2float_rn(exact)))));
    }
  }
  __shared__ unsigned long long skey[kFns];
  __shared__ unsigned int ssteps[kFns];
  if (threadIdx.x < kFns) skey[threadIdx.x] = 0, ssteps[threadIdx.x] = 0;
  __syncthreads();
  for (int f = 0; f < kFns; ++f) {
    for (int o = 16; o > 0; o /= 2) {
      key[f] = max(key[f], __shfl_xor_sync(0xffffffffu, key[f], o));
      steps[f] = max(steps[f], __shfl_xor_sync(0xffffffffu, steps[f], o));
    }
    if (threadIdx.x % 32 == 0) atomicMax(&skey[f], key[f]), atomicMax(&ssteps[f], steps[f]);
  }
  __syncthreads();
  if (threadIdx.x < kFns) {
    const int f = threadIdx.x;
    atomicMax(&out->key[f], skey[f]);
    atomicMax(&out->steps[f], ssteps[f]);
    atomicMax(&out->binade[(base >> 23) & 0xff][f], static_cast<unsigned int>(skey[f] >> 32));
  }
}

__global__ void evaluate(float x, float* v) {
  v[0] = sinf(opaque(x));
  v[1] = cosf(opaque(x));
  sincosf(opaque(x), &v[2], &v[3]);
}

float as_float(unsigned int b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// The ulp error of the GPU's value at x, from sin or cos at 256 bits.
double mpfr_ulp_error(float x, float got, bool cosine) {
  mpfr_t t, r, d;
  mpfr_inits2(256, t, r, d, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_flt(t, x, MPFR_RNDN);
  cosine ? mpfr_cos(r, t, MPFR_RNDN) : mpfr_sin(r, t, MPFR_RNDN);
  const long e = mpfr_zero_p(r) ? -126 : std::max<long>(mpfr_get_exp(r) - 1, -126);
  mpfr_set_flt(d, got, MPFR_RNDN);
  mpfr_sub(d, d, r, MPFR_RNDN);
  mpfr_abs(d, d, MPFR_RNDN);
  mpfr_mul_2si(d, d, 23 - e, MPFR_RNDN);
  const double out = mpfr_get_d(d, MPFR_RNDN);
  mpfr_clears(t, r, d, static_cast<mpfr_ptr>(nullptr));
  return out;
}

// The measurement as JSON (rope2d.sincosf_ulp/1); premise_check reads it.
struct Measured {
  float max_ulp, at_x;
  double mpfr_ulp;
  unsigned int floats;
  unsigned long long beyond_one;
};

bool write_json(const char* path, const Measured (&m)[kFns], int runtime, double seconds) {
  cudaDeviceProp prop{};
  int device = 0, driver = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);
  cudaDriverGetVersion(&driver);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::FILE* f = std::fopen(path, "w");
  if (!f) return false;
  std::fprintf(f, "{\n  \"schema\": \"rope2d.sincosf_ulp/1\",\n  \"source\": \"sincosf_ulp --json\",\n");
  std::fprintf(f, "  \"date\": \"%s\",\n  \"device\": \"%s\",\n  \"compute_capability\": \"%d.%d\",\n", date, prop.name,
               prop.major, prop.minor);
  std::fprintf(f, "  \"cuda_runtime\": \"%d.%d\",\n  \"cuda_driver\": \"%d.%d\",\n  \"seconds\": %.3f,\n", runtime / 1000,
               runtime % 1000 / 10, driver / 1000, driver % 1000 / 10, seconds);
  std::fprintf(f, "  \"range\": \"every finite float32 input (all 2^32 bit patterns but Inf and NaN)\",\n  \"functions\": {\n");
  for (int k = 0; k < kFns; ++k)
    std::fprintf(f,
                 "    \"%s\": {\"max_ulp_from_exact\": %.9g, \"at_x\": \"%a\", \"mpfr_recheck_ulp\": %.9g, "
                 "\"max_floats_from_correctly_rounded\": %u, \"outside_unit_interval\": %llu}%s\n",
                 kNames[k], m[k].max_ulp, m[k].at_x, m[k].mpfr_ulp, m[k].floats, m[k].beyond_one, k + 1 < kFns ? "," : "");
  std::fprintf(f, "  }\n}\n");
  return std::fclose(f) == 0;
}

int check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  std::fprintf(stderr, "sincosf_ulp: %s: %s\n", what, cudaGetErrorString(e));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* json_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_path = argv[++i];
    else {
      std::fprintf(stderr, "usage: sincosf_ulp [--json FILE]\n");
      return 2;
    }
  }
  // The premise the float32 bound is proved under (float32_bound.hpp), in floats from the
  // correctly rounded value, and what it implies from the exact value (half an ulp more).
  const double k_ulp = rope2d::ref::cuda_sincosf_bound.k_ulp;
  Result* d = nullptr;
  float* dv = nullptr;
  if (check(cudaMalloc(&d, sizeof(Result)), "cudaMalloc") || check(cudaMalloc(&dv, 4 * sizeof(float)), "cudaMalloc") ||
      check(cudaMemset(d, 0, sizeof(Result)), "cudaMemset"))
    return 77;  // no usable GPU: the skip code of the test suite
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  measure<<<(1ull << 32) / kChunk, kThreads>>>(d);
  cudaEventRecord(b);
  if (check(cudaEventSynchronize(b), "measure")) return 3;
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  Result r;
  if (check(cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost), "copy")) return 3;
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  std::printf("# sinf / cosf / sincosf over all 2^32 float32 inputs (finite ones), CUDA runtime %d.%d, %.2f s\n",
              rt / 1000, rt % 1000 / 10, ms / 1000);
  std::printf("%-12s %12s %-16s %12s %22s\n", "function", "max ulp", "at x", "MPFR re-check", "floats from corr. rnd");
  Measured m[kFns];
  for (int f = 0; f < kFns; ++f) {
    const float x = as_float(static_cast<unsigned int>(r.key[f]));
    float v[kFns];
    evaluate<<<1, 1>>>(x, dv);
    if (check(cudaMemcpy(v, dv, sizeof v, cudaMemcpyDeviceToHost), "evaluate")) return 3;
    m[f] = {as_float(static_cast<unsigned int>(r.key[f] >> 32)), x, mpfr_ulp_error(x, v[f], f % 2 == 1), r.steps[f], r.beyond_one[f]};
    std::printf("%-12s %12.4f %-16a %12.4f %22u\n", kNames[f], m[f].max_ulp, x, m[f].mpfr_ulp, r.steps[f]);
  }
  std::printf("\n# max ulp error by binade of |x| (exponent field; 0 = subnormal and zero)\n");
  std::printf("%-22s", "binade");
  for (int f = 0; f < kFns; ++f) std::printf(" %12s", kNames[f]);
  std::printf("\n");
  for (int e = 0; e < 255; ++e) {
    char label[32];
    if (e == 0) std::snprintf(label, sizeof label, "subnormal");
    else std::snprintf(label, sizeof label, "[2^%d, 2^%d)", e - 127, e - 126);
    std::printf("%-22s", label);
    for (int f = 0; f < kFns; ++f) std::printf(" %12.4f", as_float(r.binade[e][f]));
    std::printf("\n");
  }
  cudaFree(d);
  cudaFree(dv);
  int broken = 0;
  std::printf("\n# results outside [-1, 1] (FLOAT32_BOUND.md's added premise: expected 0)\n");
  for (int f = 0; f < kFns; ++f) {
    std::printf("%-12s %llu\n", kNames[f], r.beyond_one[f]);
    if (r.beyond_one[f] != 0) {
      std::printf("PREMISE BROKEN: %s returned %llu values outside [-1, 1]\n", kNames[f], r.beyond_one[f]);
      broken = 1;
    }
  }
  for (int f = 0; f < kFns; ++f)
    if (r.steps[f] > k_ulp || m[f].max_ulp > k_ulp + 0.5 || m[f].mpfr_ulp > k_ulp + 0.5) {
      std::printf("PREMISE BROKEN: %s is %u floats from the correctly rounded value and %.4f ulp from the exact one "
                  "(float32_bound.hpp assumes at most %g and %g)\n",
                  kNames[f], r.steps[f], m[f].max_ulp, k_ulp, k_ulp + 0.5);
      broken = 1;
    }
  if (json_path) {
    if (!write_json(json_path, m, rt, ms / 1000)) {
      std::fprintf(stderr, "sincosf_ulp: cannot write %s\n", json_path);
      return 2;
    }
    std::printf("\nmeasurement written to %s\n", json_path);
  }
  return broken;
}
