// A shared object whose rope2d_backward is a function symbol of its dynamic table that is
// absolute, at address 0 (SHN_ABS): the loader hands out no function for it. The control,
// rope2d_backward_v2, is an ordinary function. kinds_test: only the control is found.
extern "C" int rope2d_backward_v2(void) { return 1; }
__asm__(".globl rope2d_backward\n.type rope2d_backward, @function\n.set rope2d_backward, 0\n");
