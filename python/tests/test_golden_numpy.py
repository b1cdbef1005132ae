"""Golden data from NumPy, as a framework team without torch uses it: rope2d.golden loads
data/golden-smoke into NumPy arrays, a NumPy kernel computes every problem, write_outputs writes
its outputs, and `rope2d check --golden --outputs` passes them, and fails them with one element
perturbed. Then: the stored results equal the library's reference bit for bit (the reader
decodes what the C++ writer encoded), the reader's refusals of bad files (each a ValueError
naming the file and the field), and write_outputs' round trip and refusals."""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rope2d
from rope2d import golden

from conftest import program

GOLDEN = Path(os.environ.get("ROPE2D_REPO", Path(__file__).resolve().parents[2])) / "data" / "golden-smoke"


def numpy_kernel(p):
    """The implementation under test: the formula in float64, rounded once to float32."""
    gc, gs = (rope2d.bf16_to_float32(g) if p.grad_dtype == "bf16" else g for g in (p.grad_cos, p.grad_sin))
    t = p.idx_theta.astype(np.float64)
    with np.errstate(all="ignore"):  # the nonfinite problem: NaN and Inf propagate as IEEE says
        return (-gc.astype(np.float64) * np.sin(t) + gs.astype(np.float64) * np.cos(t)).astype(np.float32)


def rope2d_check(outputs_file, report_dir):
    exe = program()
    if not exe.is_file():
        pytest.skip(f"no rope2d program at {exe}: build it (cmake --build build --target rope2d) or set ROPE2D_PROGRAM")
    return subprocess.run([str(exe), "check", "--golden", str(GOLDEN), "--outputs", str(outputs_file), "--out", str(report_dir),
                           "--quiet"], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def problems():
    return golden.load(GOLDEN)


def test_numpy_outputs_pass_check(problems, tmp_path):
    golden.write_outputs(tmp_path / "out.safetensors", {p.name: numpy_kernel(p) for p in problems})
    r = rope2d_check(tmp_path / "out.safetensors", tmp_path / "report")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(problems)} passed, 0 incorrect" in r.stdout


def test_one_perturbed_element_fails_check(problems, tmp_path):
    outputs = {p.stem: numpy_kernel(p) for p in problems}  # file stems name the outputs as well
    p = next(p for p in problems if p.name == "randn/fp32/1x64")
    outputs[p.stem].flat[1000] += 1e4 * 2**-24 * p.scale.flat[1000]  # the allowance is about 6 units of 2^-24 S
    golden.write_outputs(tmp_path / "out.safetensors", outputs)
    r = rope2d_check(tmp_path / "out.safetensors", tmp_path / "report")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL randn/fp32/1x64 i=1000 " in r.stdout and f"{len(problems) - 1} passed, 1 incorrect" in r.stdout


def test_the_set_as_the_manifest_lists_it(problems):
    m = json.loads((GOLDEN / "manifest.json").read_text())
    assert [(p.name, p.file) for p in problems] == [(f["problem"], f["file"]) for f in m["files"]]
    for p in problems:
        grads = {"bf16": np.uint16, "fp16": np.float16, "fp32": np.float32}[p.grad_dtype]
        assert p.grad_cos.dtype == grads and p.grad_sin.dtype == grads and p.idx_theta.dtype == np.float32
        assert {k: v.dtype for k, v in p.expected.items()} == {"fp32": np.float32, "bf16": np.uint16, "fp16": np.float16}
        assert p.scale.dtype == np.float64 and p.idx_theta.shape == p.grad_cos.shape == p.expected["bf16"].shape


def bits(x):
    """Bit patterns, every NaN one pattern (NaN's sign and payload are not the result's)."""
    u = x.view(np.uint32 if x.dtype == np.float32 else np.uint16)
    f = rope2d.bf16_to_float32(x) if x.dtype == np.uint16 else x
    return np.where(np.isnan(f), 0xFFFF, u)


def test_stored_results_are_the_librarys_reference(problems):
    for p in problems:
        for dtype, stored in p.expected.items():
            ref = rope2d.reference(p.grad_cos, p.grad_sin, p.idx_theta, dtype=dtype, grad_dtype=p.grad_dtype)
            assert np.array_equal(bits(ref), bits(stored)), f"{p.name} {dtype}"


# The reader's refusals, on a set of one small problem whose file is mutated.
SMALL = "odd_fp32_n_7_1.safetensors"


def one_problem_set(folder, data, sha256=None):
    """A golden set of SMALL holding `data`; the manifest's sha256 is data's unless given, so
    that the reader's checks of the file, not the checksum, find what is wrong."""
    m = json.loads((GOLDEN / "manifest.json").read_text())
    m["files"] = [dict(next(f for f in m["files"] if f["file"] == SMALL), sha256=sha256 or hashlib.sha256(data).hexdigest())]
    (folder / "manifest.json").write_text(json.dumps(m))
    (folder / SMALL).write_bytes(data)
    return folder


def edit_header(data, edit):
    """data with its JSON header edited by edit(header dict) and re-padded; the tensor bytes as they were."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    edit(header)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data[8 + n:]


def duplicate_key(data):
    n = int.from_bytes(data[:8], "little")
    header = data[8:8 + n].rstrip()
    text = header[:-1] + b',"idx_theta":' + json.dumps(json.loads(header)["idx_theta"]).encode() + b"}"
    return len(text).to_bytes(8, "little") + text + data[8 + n:]


def overlap(h):
    h["grad_sin"]["data_offsets"] = h["grad_cos"]["data_offsets"]


MUTATIONS = {  # name: (mutation, what the message names)
    "truncated": (lambda d: d[:-4], "data_offsets"),
    "header_length_beyond_file": (lambda d: len(d).to_bytes(8, "little") + d[8:], "header length"),
    "overlapping_offsets": (lambda d: edit_header(d, overlap), "overlap"),
    "unknown_dtype": (lambda d: edit_header(d, lambda h: h["grad_cos"].update(dtype="F12")), '"grad_cos".dtype'),
    "shape_not_its_bytes": (lambda d: edit_header(d, lambda h: h["idx_theta"].update(shape=[8])), "bytes for shape [8]"),
    "duplicate_key": (duplicate_key, "each key once"),
}


def test_the_unmutated_small_set_loads(tmp_path):
    [p] = golden.load(one_problem_set(tmp_path, (GOLDEN / SMALL).read_bytes()))
    assert p.name == "odd/fp32/n=7+1" and p.idx_theta.shape == (7,)


@pytest.mark.parametrize("name", MUTATIONS)
def test_bad_file_is_refused_naming_file_and_field(tmp_path, name):
    mutate, field = MUTATIONS[name]
    folder = one_problem_set(tmp_path, mutate((GOLDEN / SMALL).read_bytes()))
    with pytest.raises(ValueError) as e:
        golden.load(folder)
    assert str(folder / SMALL) in str(e.value) and field in str(e.value)


def test_bad_sha256_names_file_expected_and_found(tmp_path):
    data = (GOLDEN / SMALL).read_bytes()
    folder = one_problem_set(tmp_path, data, sha256="0" * 64)
    with pytest.raises(ValueError) as e:
        golden.load(folder)
    assert str(e.value) == f"{folder / SMALL}: sha256: expected {'0' * 64} (the manifest's), found {hashlib.sha256(data).hexdigest()}"


def test_manifest_file_outside_the_set_is_refused(tmp_path):
    folder = one_problem_set(tmp_path, (GOLDEN / SMALL).read_bytes())
    m = json.loads((folder / "manifest.json").read_text())
    m["files"][0]["file"] = "../" + SMALL
    (folder / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ValueError, match=r"manifest\.json: files\[0\]: file: expected a plain file name"):
        golden.load(folder)


def test_write_outputs_round_trip(tmp_path):
    outputs = {"randn/bf16/1x64": np.arange(24, dtype=np.float32).reshape(2, 3, 4), "odd_fp32_n_7_1": np.full(7, np.nan, np.float32)}
    golden.write_outputs(tmp_path / "out.safetensors", outputs)
    st = golden.read_safetensors(tmp_path / "out.safetensors")
    assert set(st.tensors) == set(outputs) and set(st.dtypes.values()) == {"F32"}
    for name, a in outputs.items():
        assert st.tensors[name].shape == a.shape and np.array_equal(st.tensors[name], a, equal_nan=True)
    assert os.listdir(tmp_path) == ["out.safetensors"]  # no temporary file left


def test_write_outputs_refuses_links_fifos_and_other_dtypes(tmp_path):
    ok = {"a": np.zeros(3, np.float32)}
    (tmp_path / "target").write_bytes(b"untouched")
    os.symlink(tmp_path / "target", tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    for name, kind in (("link", "a symbolic link"), ("fifo", "a FIFO")):
        with pytest.raises(ValueError, match=f"{tmp_path / name}: file: expected a regular file or nothing, found {kind}"):
            golden.write_outputs(tmp_path / name, ok)
    assert (tmp_path / "target").read_bytes() == b"untouched"
    with pytest.raises(TypeError, match=r"outputs\['a'\]: expected a float32 NumPy array, found float64"):
        golden.write_outputs(tmp_path / "out.safetensors", {"a": np.zeros(3)})
    assert sorted(os.listdir(tmp_path)) == ["fifo", "link", "target"]


def test_needs_no_library(tmp_path):
    """NumPy alone: the set loads and outputs are written where no librope2d_py.so is found."""
    code = (f"from rope2d import golden; ps = golden.load({str(GOLDEN)!r}); "
            f"golden.write_outputs({str(tmp_path / 'out.safetensors')!r}, {{p.name: p.idx_theta for p in ps}}); print(len(ps))")
    env = dict(os.environ, ROPE2D_LIBRARY=str(tmp_path), PYTHONPATH=str(Path(golden.__file__).parent.parent))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == str(len(json.loads((GOLDEN / "manifest.json").read_text())["files"])), r.stderr
