// The fault handler of fault_stack.hpp: backtrace(3) into standard error, then the signal again.
#include "harness/fault_stack.hpp"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace rope2d::verify::harness {

namespace {

char who_[64] = "";
constexpr int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};

void put(const char* s) { (void)!::write(2, s, std::strlen(s)); }

extern "C" void on_fault(int sig) {
  char number[12];
  char* digits = number + sizeof number;
  *--digits = '\0';
  unsigned v = static_cast<unsigned>(sig);
  do {
    *--digits = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  put("\n");
  put(who_);
  put(": signal ");
  put(digits);
  put(" (");
  put(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
  put("); its stack:\n");
  void* frames[64];
  ::backtrace_symbols_fd(frames, ::backtrace(frames, 64), 2);
  ::raise(sig);  // its default action again (SA_RESETHAND): the process ends by it
}

}  // namespace

bool fault_signal(int sig) {
  for (int f : faults)
    if (f == sig) return true;
  return false;
}

void stack_on_fault(const char* who) {
  std::strncpy(who_, who, sizeof who_ - 1);
  void* warm[1];
  ::backtrace(warm, 1);  // loads what backtrace needs now, not in the handler
  struct sigaction a {};
  a.sa_handler = on_fault;
  a.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&a.sa_mask);
  for (int sig : faults) ::sigaction(sig, &a, nullptr);
}

}  // namespace rope2d::verify::harness
