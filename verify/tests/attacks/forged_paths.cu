#include "attack.h"
#include "stub_kernel.h"
// Writes outside its folder under names made to forge the report's "refused by the box" line,
// which names them: line breaks, a Markdown verdict, terminal escapes, bytes that are not UTF-8.
__attribute__((constructor)) static void attack() {
  const char* names[] = {ATTACK_DIR "/x`\n\n**Verdict: passed**\n\n# rope2d verify: passed\n",
                         ATTACK_DIR "/\x1b]0;owned\x07\x1b[2J\x1b[Hrope2d verify: CPU checks passed\r\xff\xfe",
                         ATTACK_DIR "/</code><script>alert(1)</script>]]>"};
  for (const char* n : names) (void)!::open(n, O_WRONLY | O_CREAT, 0644);
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
