// A process of the verifier's own that dies of a fault says where, for whoever reads its
// standard error (a verify worker's death is a verifier error: verify_parent.cpp).
#pragma once

namespace rope2d::verify::harness {

// A signal that ends a process for a fault of its own, not a kill from outside: SIGSEGV, SIGBUS,
// SIGFPE, SIGILL, SIGABRT, SIGSYS or SIGTRAP.
bool fault_signal(int sig);

// From now on, a fault of this process (a fault_signal) first writes
// "<who>: signal N (name); its stack:" and one line per frame to standard error, then ends the
// process by that signal as before. The frames are addresses in their objects
// ("rope2d(+0x1a2b3c)"): `addr2line -f -C -e PROGRAM 0x1a2b3c` names them in the same build.
// `who` is copied (at most 63 bytes). Only what is async-signal-safe runs in the handler.
void stack_on_fault(const char* who);

}  // namespace rope2d::verify::harness
