/* The host library's C ABI, for bindings (the Python package `rope2d`, through ctypes): the
 * correctly rounded reference, judging a kernel's outputs, and verifying the caller's own
 * kernel through the verifier's problem sets, judge and report writer. Structured results
 * cross as JSON text (rope2d_free it); every call returns 0 or 2 (bad input) / 3 (internal
 * error) with rope2d_last_error() set. */
#ifndef ROPE2D_VERIFY_CAPI_H
#define ROPE2D_VERIFY_CAPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Grad and output dtypes: the kernel ABI's numbering. bf16 and fp16 are uint16 bit patterns. */
enum { ROPE2D_DT_BF16 = 0, ROPE2D_DT_FP16 = 1, ROPE2D_DT_FP32 = 2 };

/* The version of this C API ("3"): a binding checks it before its first call. */
const char* rope2d_capi_version(void);
/* The version of rope2d: semantic version + commit ("0.1.0+ec93437"), as `rope2d --version`. */
const char* rope2d_version(void);
/* The message of the last failed call on this thread ("" if none). */
const char* rope2d_last_error(void);
void rope2d_free(char* text);

/* out[i] = the exact -gc*sin(t) + gs*cos(t), correctly rounded to out_dtype. */
int rope2d_reference(const void* gc, const void* gs, const float* theta, int64_t n, int grad_dtype, int out_dtype,
                     void* out);

/* Judges float32 outputs of the given shape (rank sizes, row-major; [batch, seq_len, head_dim]
 * as the benchmark has it, or [n]) against the reference. *json receives: count, max/RMS error
 * in units of 2^-24 S, max ulps, correctly rounded, the count over and verdict of every tier,
 * the FAIL lines of the gate tier (at most max_failures), the worst line, the subnormal mode
 * observed, the overflows accepted, and "mismatch": when the gate fails, the lines
 * "Mismatched elements: N / M (x.x%)", the worst element and the greatest absolute and
 * relative differences at their indices (b, s, d) beside the allowance there (mismatch.hpp).
 * ieee_subnormals != 0 demands IEEE subnormal behaviour (a flushed subnormal value fails).
 * Since C API version 2 (the shape replaced the element count). */
int rope2d_check(const float* out, const void* gc, const void* gs, const float* theta, const int64_t* shape, int rank,
                 int grad_dtype, const char* gate_tier, const char* set_name, int max_failures, int ieee_subnormals,
                 char** json);

/* Verification of the caller's own kernel: the verifier's problem sets judged through the one
 * pipeline `rope2d verify` runs (verify(plan, harness, observer)), the caller's function its
 * harness. The function is called in the caller's own process (no box: its code is the
 * caller's), once per set and round, on fresh host inputs; the report is the one `rope2d
 * verify` writes. Since C API version 3 (it replaced the session of version 2). */

/* One call: a set's round of fresh inputs in host memory, valid until the function returns. */
typedef struct rope2d_call_state rope2d_call_state;
typedef struct rope2d_call {
  const char* name;        /* the set's name, as the report gives it ("randn/bf16/1x64") */
  int64_t index, count;    /* the set's place in the run (0-based), of count sets */
  int round;               /* the round of fresh inputs, 0-based (round 0: the set's first call) */
  int grad_dtype;          /* ROPE2D_DT_*: gc's and gs's type (bf16, fp16: uint16 bit patterns) */
  const int64_t* shape;    /* rank sizes: [batch, seq_len, head_dim], or [n] for a flat set */
  int rank;
  int64_t n;               /* elements of each array: the product of shape */
  const int64_t* offsets;  /* 4 element offsets past a 256-byte boundary (gc, gs, theta, out)
                            * at which the verifier's own views place the buffers */
  const void* gc;
  const void* gs;
  const float* theta;
  float* out;              /* n floats, pre-filled with NaN: the call's output goes here */
  rope2d_call_state* state; /* the verifier's: for rope2d_call_fail and rope2d_call_finding */
} rope2d_call;

/* What the caller's function returns. */
enum {
  ROPE2D_CALL_OK = 0,     /* out holds the output (integrity findings, if any, given first) */
  ROPE2D_CALL_FAILED = 1, /* no output: why, given by rope2d_call_fail ("the call failed" if not);
                           * any other value but ROPE2D_CALL_STOP counts the same */
  ROPE2D_CALL_STOP = 2    /* stop the run now: rope2d_verify writes no report and returns 3 */
};
/* The caller's function: makes the call, fills call->out; never lets an exception out. user is
 * rope2d_verify's. Called on rope2d_verify's thread, one call at a time. */
typedef int (*rope2d_call_fn)(void* user, const rope2d_call* call);

/* During a call: the call failed. error says why, cause what kind of failure it is, by the name
 * report.json gives it ("runtime", "timeout", "shape", "dtype"; status.hpp), which sets the
 * SOL-ExecBench status of the set (RUNTIME_ERROR, TIMEOUT, INCORRECT_SHAPE, ...). A call given
 * a failure fails whatever its function returns; its first failure is the one kept. */
int rope2d_call_fail(const rope2d_call* call, const char* cause, const char* error);
/* During a call: one of the caller's integrity checks failed (its words; "" adds nothing). */
int rope2d_call_finding(const rope2d_call* call, const char* finding);

/* Judges the caller's function `call` over the sets of options, JSON: {"suite":
 * "verification"|"benchmark"|"smoke", "quick", "seed", "grad_dtypes": [...], "only", "rounds",
 * "tier", "ieee_subnormals", "worst_dir" (the worst-case lists' folder: the worst set joins the
 * verification suite), "reproduce_prefix" (each set's reproduce line is this + "only='NAME')";
 * "": none)}. A set ends at its first failed call. Writes report.md/json, junit.xml and the plots to out_dir; title
 * is the report's, header a JSON array of [key, value] pairs (the caller's words on its code,
 * before the verifier's), warnings a JSON array of strings. *summary gets the terminal summary,
 * *exit_code 0 passed, 1 incorrect, 3 failed. */
int rope2d_verify(const char* options, rope2d_call_fn call, void* user, const char* out_dir, const char* title,
                  const char* header, const char* warnings, char** summary, int* exit_code);

/* SOL-ExecBench's solution.json rules (solution_schema.hpp: the embedded JSON Schema, then the
 * cross-field rules and rope2d's caps), as `rope2d verify` applies them. *json receives a JSON
 * array, empty when the solution is accepted, else one {"field", "expected", "found", "ours",
 * "line"} per broken rule ("ours": a limit of rope2d's, not the official model's). From a file,
 * sources given by path only are filled from the files beside it; from text, from base_dir
 * (NULL or "": not filled). A file that cannot be read or text that is not JSON: 2. */
int rope2d_solution_check_file(const char* path, char** json);
int rope2d_solution_check_text(const char* text, const char* base_dir, char** json);
/* The schema's text (static; not to be freed). */
const char* rope2d_solution_schema(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
