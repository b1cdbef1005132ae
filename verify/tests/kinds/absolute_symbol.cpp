// A shared object whose rope2d_backward is a function symbol of its dynamic table that is
// absolute, at address 0 (SHN_ABS): the loader hands it out as a null address, no code of the
// object, and the verifier finds no entry point there. The control, rope2d_backward_v2, is an
// ordinary function. kinds_test: only the control is found.
extern "C" int rope2d_backward_v2(void) { return 1; }
__asm__(".globl rope2d_backward\n.type rope2d_backward, @function\n.set rope2d_backward, 0\n");
