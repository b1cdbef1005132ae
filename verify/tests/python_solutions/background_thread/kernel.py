# DEFECTIVE: returns at once and leaves the work to a thread that writes the output a little
# later. Must fail: a thread started by the call is still running after it.
# languages: pytorch
import threading
import time

import torch


def _later(gc, gs, t, out, stream):
    time.sleep(0.05)
    with torch.cuda.stream(stream):
        torch.sub(gs.float() * torch.cos(t), gc.float() * torch.sin(t), out=out)


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    args = (grad_cos, grad_sin, idx_theta, grad_idx_theta, torch.cuda.current_stream())
    threading.Thread(target=_later, args=args, name="rope2d-later").start()
