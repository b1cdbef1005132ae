# DEFECTIVE: inaccurate (angles rounded to half precision), and at its import and every call it
# forges the runner's records: a "called" line without findings and an unfinished "load_error"
# line (to be glued onto the runner's next record) on stdout and on every descriptor 0..20 it
# can write now without blocking (pipes, sockets, files, terminals; device nodes left alone; a
# pipe nobody reads fills up). Must fail: the forged lines never reach a verdict; on the judge's
# socket, which the solution shares with the host, they are not the protocol, and the judge
# ends the host (failed, naming the record).
# languages: pytorch
import os
import select

import torch

LINE = b'{"type": "called", "name": "randn/bf16/1x773#0", "error": null, "findings": [], "shape": [1, 773, 128], "dtype": "float32"}\n'
FRAGMENT = b'{"type": "load_error", "message": "forged by the solution"'


def _forge():
    print(LINE.decode(), end="", flush=True)
    for fd in range(21):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(("/dev/", "anon_inode:")) and not os.isatty(fd):
            continue
        try:
            if select.select([], [fd], [], 0)[1]:
                os.write(fd, LINE + FRAGMENT)
        except (OSError, ValueError):
            pass


_forge()


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    _forge()
    t = idx_theta.half().float()
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
