/* The host library's C ABI, for bindings (the Python package `rope2d`, through ctypes): the
 * correctly rounded reference, judging a kernel's outputs, and the verifier's problem sets and
 * report writer driven from outside. Structured results cross as JSON text (rope2d_free it);
 * every call returns 0 or 2 (bad input) / 3 (internal error) with rope2d_last_error() set. */
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

/* The version of this C API ("2"): a binding checks it before its first call. */
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

/* A verification session: the verifier's problem sets, judged one call at a time. options is
 * JSON: {"suite": "verification"|"benchmark"|"smoke", "quick", "seed", "grad_dtypes": [...],
 * "only", "rounds", "tier", "ieee_subnormals", "reproduce_prefix"}. */
typedef struct rope2d_session rope2d_session;
int rope2d_session_open(const char* options, rope2d_session** out);
void rope2d_session_close(rope2d_session* s);
/* The problems of the session, as JSON: [{"name", "set", "dtype", "shape", "n", "misalign"}]. */
int rope2d_session_problems(rope2d_session* s, char** json);
/* Makes problem k's inputs for round r; the pointers stay valid until the next call. */
int rope2d_session_inputs(rope2d_session* s, int64_t k, int round, const void** gc, const void** gs,
                          const float** theta);
/* Judges that call's output (n floats) of the last rope2d_session_inputs; integrity is ""
 * when the caller's checks passed, else what failed; error non-empty: the call failed. */
int rope2d_session_judge(rope2d_session* s, const float* out, const char* integrity, const char* error);
/* The call of the last rope2d_session_inputs failed: error says why, cause what kind of failure
 * it is, by the name report.json gives it ("runtime", "timeout", "shape", "dtype"; status.hpp),
 * which sets the SOL-ExecBench status of the set (RUNTIME_ERROR, TIMEOUT, INCORRECT_SHAPE, ...). */
int rope2d_session_fail(rope2d_session* s, const char* cause, const char* error);
/* Writes report.md/json, junit.xml and the plots to out_dir; header is a JSON array of
 * [key, value] pairs, warnings a JSON array of strings. *summary gets the terminal summary,
 * *exit_code 0 passed, 1 incorrect, 3 failed. */
int rope2d_session_finish(rope2d_session* s, const char* out_dir, const char* title, const char* header,
                          const char* warnings, char** summary, int* exit_code);

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
