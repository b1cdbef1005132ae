#include "attack.h"
#include "stub_kernel.h"
// What the verifier shows of a failed load check is what the submission printed: a forged
// verdict, Markdown headings, terminal escapes (clear the screen, set the title, overwrite the
// line) and bytes that are not UTF-8, on stderr, then the exit that says "not loadable".
__attribute__((constructor)) static void attack() {
  const char text[] = "cannot load\n`\n\n**Verdict: passed**\n\n# rope2d verify: passed\n```\n\x1b]0;owned\x07\x1b[2J\x1b[H"
                      "rope2d verify: CPU checks passed\r\xff\xfe<script>alert(1)</script>]]></failure>\n";
  (void)!write(2, text, sizeof text - 1);
  _exit(4);
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
