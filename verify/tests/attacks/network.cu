#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "attack.h"
#include "stub_kernel.h"
static bool reach(const char* ip, int port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, ip, &a.sin_addr);
  const bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(s);
  return ok;
}
__attribute__((constructor)) static void attack() {
  // attack_test.sh listens on 127.0.0.1:47811 outside the box; only loopback is ever tried.
  if (reach("127.0.0.1", 47811)) leave_mark("network.txt", "reached the machine's loopback");
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
