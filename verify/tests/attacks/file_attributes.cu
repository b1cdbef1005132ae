// Changes files outside the box without writing their bytes: a node made, modes, owners,
// times and extended attributes changed, by path and through a descriptor opened to read. The
// read-only root refuses each; the report's "refused by the box" line must count every one
// (attack_test.sh asks for 12 at least), not only opens for writing.
#include <sys/stat.h>
#include <sys/xattr.h>
#include "attack.h"
#include "stub_kernel.h"

__attribute__((constructor)) static void attack() {
  const char* secret = "/var/tmp/rope2d-attack-secret.txt";
  (void)!mknod(ATTACK_DIR "/node", S_IFIFO | 0666, 0);
  (void)!mkfifo(ATTACK_DIR "/fifo", 0666);
  (void)!chmod(secret, 0666);
  (void)!chown(secret, 65534, 65534);
  (void)!lchown(secret, 65534, 65534);
  (void)!fchmodat(AT_FDCWD, secret, 0666, 0);
  (void)!utimensat(AT_FDCWD, secret, nullptr, 0);
  (void)!setxattr(ATTACK_DIR, "user.rope2d", "x", 1, 0);
  (void)!removexattr(ATTACK_DIR, "user.rope2d");
  const int fd = open(ATTACK_DIR, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    (void)!fchmod(fd, 0777);
    (void)!fchown(fd, 65534, 65534);
    (void)!futimens(fd, nullptr);
    (void)!fsetxattr(fd, "user.rope2d", "x", 1, 0);
    close(fd);
  }
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
