"""rope2d.runner.process_watch without torch: a torch-like namespace stands in, so that the
monkey-patch, global-state and thread rules the solution runner applies are tested on the CPU."""
import threading
import time
import types

from rope2d.runner import process_watch as pw


def fake_torch():
    class Tensor:
        def copy_(self):
            return self

    class Event:
        def elapsed_time(self, other):
            return 1.0

    ns = {n: (lambda *a: 0) for n in pw.TORCH_FUNCTIONS}
    t = types.SimpleNamespace(Tensor=Tensor, cuda=types.SimpleNamespace(Event=Event, synchronize=lambda: None), **ns)
    t.get_default_dtype = lambda: "torch.float32"
    return t


def test_a_replaced_function_or_method_is_named():
    t = fake_torch()
    entries = pw.watched(t)
    before = pw.identities(entries)
    assert pw.patched(before, pw.identities(entries)) == []  # stable identities: methods are not re-bound
    t.sin = lambda x: x
    t.Tensor.copy_ = lambda self: None
    t.cuda.Event.elapsed_time = lambda self, other: 0.0
    assert pw.patched(before, pw.identities(entries)) == ["torch.Tensor.copy_", "torch.cuda.Event.elapsed_time", "torch.sin"]


def test_global_state_changes_are_listed():
    t = fake_torch()
    before = pw.torch_state(t)
    assert before["default dtype"] == "torch.float32" and before["cudnn benchmark"] == "unavailable"
    t.get_default_dtype = lambda: "torch.float64"
    assert pw.state_changes(before, pw.torch_state(t)) == ["default dtype: torch.float32 -> torch.float64"]


def test_threads_that_outlive_a_call_are_found_even_if_they_end_soon():
    before = set(threading.enumerate())
    assert pw.new_threads(before) == []
    th = threading.Thread(target=time.sleep, args=(0.05,), name="late-writer")
    th.start()
    fresh = pw.new_threads(before, settle_s=1.0)
    assert [x.name for x in fresh] == ["late-writer"] and not th.is_alive()
