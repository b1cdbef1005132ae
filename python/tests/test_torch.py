"""The PyTorch side of the package: tensors in, tensors out on the input's device; bf16 tensors;
and, where CUDA exists, assert_close and verify on CUDA tensors. Skipped without torch (CI);
the CUDA tests are skipped without a GPU and run on the device."""
import numpy as np
import pytest

import rope2d
from rope2d.testing import assert_close

torch = pytest.importorskip("torch")
cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


def torch_inputs(device, n=(2, 7, 128)):
    g = torch.Generator().manual_seed(3)
    gc = torch.randn(n, generator=g).to(torch.bfloat16)
    gs = torch.randn(n, generator=g).to(torch.bfloat16)
    th = torch.randn(n, generator=g) * 3
    return gc.to(device), gs.to(device), th.to(device)


def accurate(gc, gs, th, out):
    t = th.double()
    out.copy_((-gc.double() * torch.sin(t) + gs.double() * torch.cos(t)).float())


def fp16_sincos(gc, gs, th, out):
    t = th.half().double()  # DEFECT: angle rounded to float16
    out.copy_((-gc.double() * torch.sin(t) + gs.double() * torch.cos(t)).float())


def test_bf16_tensors_match_the_numpy_path():
    gc, gs, th = torch_inputs("cpu")
    ref = rope2d.reference(gc, gs, th)
    assert isinstance(ref, torch.Tensor) and ref.dtype == torch.float32 and ref.shape == th.shape
    bits = [x.view(torch.int16).numpy().view(np.uint16) for x in (gc, gs)]
    np.testing.assert_array_equal(ref.numpy(), rope2d.reference(*bits, th.numpy(), grad_dtype="bf16"))
    b = rope2d.reference(gc, gs, th, dtype="bf16")
    assert b.dtype == torch.bfloat16
    np.testing.assert_array_equal(b.view(torch.int16).numpy().view(np.uint16),
                                  rope2d.reference(*bits, th.numpy(), dtype="bf16", grad_dtype="bf16"))


def test_torch_validation():
    gc, gs, th = torch_inputs("cpu")
    with pytest.raises(ValueError, match="idx_theta: expected a contiguous tensor"):
        rope2d.reference(gc, gs, th.transpose(0, 1))
    with pytest.raises(TypeError, match="grad_cos: expected a torch.bfloat16, float16 or float32 tensor, found torch.float64"):
        rope2d.reference(gc.double(), gs, th)


def test_check_on_cpu_tensors():
    gc, gs, th = torch_inputs("cpu")
    out = torch.empty_like(th)
    accurate(gc, gs, th, out)
    assert rope2d.check(out, gc, gs, th).passed
    fp16_sincos(gc, gs, th, out)
    with pytest.raises(AssertionError, match="FAIL check i="):
        assert_close(out, gc, gs, th)


@cuda
def test_cuda_tensors_stay_on_their_device():
    gc, gs, th = torch_inputs("cuda")
    ref = rope2d.reference(gc, gs, th)
    assert ref.device.type == "cuda"
    out = torch.full_like(th, float("nan"))
    accurate(gc, gs, th, out)
    assert_close(out, gc, gs, th)
    # PyTorch's own float32 kernel, the benchmark's reference, within SOL-ExecBench's tolerance
    eager = gs.float() * torch.cos(th) - gc.float() * torch.sin(th)
    assert rope2d.check(eager, gc, gs, th, tier="solexecbench").passed
    fp16_sincos(gc, gs, th, out)
    assert not rope2d.check(out, gc, gs, th).passed


@cuda
def test_verify_on_cuda(tmp_path):
    res = rope2d.verify(accurate, suite="smoke", grad_dtypes=("bf16", "fp16"), device="cuda", out=tmp_path / "good")
    assert res.verdict == "passed", res.summary
    assert "tensors on cuda" in (tmp_path / "good" / "report.md").read_text()
    res = rope2d.verify(fp16_sincos, suite="smoke", device="cuda", out=tmp_path / "bad")
    assert res.verdict == "incorrect" and "FAIL randn/bf16/1x64" in res.summary
