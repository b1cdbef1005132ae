"""rope2d.golden: a golden set (docs/golden.md) read into NumPy arrays, and a kernel's outputs
written for `rope2d check --outputs`, with NumPy and the standard library alone (no torch, no
safetensors package, no native library). Every file read is untrusted and checked as the C++
reader checks it (verify/src/codec/golden.cpp, safetensors.cpp): anything wrong raises ValueError
naming the file, the field, what was expected and what was found. bf16 tensors come as uint16
bit patterns, the package's convention (rope2d.bf16_to_float32 widens them exactly)."""
import hashlib
import json
import math
import os
import stat
import tempfile
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SCHEMA = "rope2d.golden/1"
MAX_FILE_BYTES = 64 << 30       # one problem file, as the C++ reader
MAX_HEADER_BYTES = 100 << 20    # a safetensors header, as the safetensors crate
MAX_MANIFEST_BYTES = 64 << 20
# safetensors dtype -> NumPy, little-endian; bf16 and fp8 as their bit patterns.
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
          "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?", "F8_E4M3": "u1", "F8_E5M2": "u1"}
GRAD_DTYPES = {"bf16": "BF16", "fp16": "F16", "fp32": "F32"}
# The stored results: the exact gradient correctly rounded to each output dtype.
EXPECTED = {"fp32": ("grad_idx_theta", "F32"), "bf16": ("grad_idx_theta_bf16", "BF16"), "fp16": ("grad_idx_theta_fp16", "F16")}

SafeTensors = namedtuple("SafeTensors", "tensors dtypes metadata")  # {name: array}, {name: "BF16"...}, {key: str}


@dataclass
class GoldenProblem:
    name: str              # the manifest's problem ("randn/bf16/1x64"); `rope2d check` takes it or the stem
    file: str              # its safetensors file in the set
    grad_dtype: str        # "bf16", "fp16" or "fp32"
    grad_cos: np.ndarray   # bf16 as uint16 bits, fp16 as float16, fp32 as float32; shapes as stored
    grad_sin: np.ndarray
    idx_theta: np.ndarray  # float32
    expected: dict         # "fp32": float32, "bf16": uint16 bits, "fp16": float16, correctly rounded
    scale: np.ndarray      # float64 S = |gc sin t| + |gs cos t|: the unit of the verifier's errors is 2^-24 S
    tensors: dict = field(default_factory=dict)   # every tensor of the file (layouts add positions, theta)
    metadata: dict = field(default_factory=dict)

    @property
    def stem(self):
        return self.file[:-len(".safetensors")] if self.file.endswith(".safetensors") else self.file


def _bad(path, where, expected, found):
    raise ValueError(f"{path}: {where}: expected {expected}, found {found}")


def _brief(v):
    text = json.dumps(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_count(x, top=2**62):
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= top


def _parse_json(text, path, where):
    """JSON refusing what nlohmann's parser refuses (NaN, Infinity) and duplicate keys."""
    def no_duplicates(pairs):
        d = {}
        for k, v in pairs:
            if k in d:
                _bad(path, f"{where} key {_brief(k)}", "each key once", "it twice")
            d[k] = v
        return d

    def no_constant(name):
        _bad(path, where, "JSON", name)

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except (json.JSONDecodeError, RecursionError) as e:
        _bad(path, where, "JSON", f"{type(e).__name__}: {e}"[:200])


def _read(path, max_bytes):
    """The bytes of a regular file (symlinks followed; FIFOs and devices refused without blocking)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise ValueError(f"{path}: cannot open ({e.strerror})") from None
    with os.fdopen(fd, "rb", buffering=0) as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            _bad(path, "file", "a regular file", "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or special file")
        if st.st_size > max_bytes:
            _bad(path, "file", f"at most {max_bytes} bytes", st.st_size)
        buf = bytearray(st.st_size)
        view, at = memoryview(buf), 0
        while at < len(buf):
            k = f.readinto(view[at:])
            if not k:
                raise ValueError(f"{path}: read failed at byte {at} (truncated while read?)")
            at += k
    return buf


def parse_safetensors(buf, path):
    """The tensors of safetensors bytes (8-byte little-endian header length, JSON header, data),
    arrays viewing buf; path names the file in errors."""
    size = len(buf)
    if size < 8:
        _bad(path, "header length", "8 bytes", f"a file of {size} bytes")
    n = int.from_bytes(bytes(buf[:8]), "little")
    top = min(size - 8, MAX_HEADER_BYTES)
    if not 2 <= n <= top:
        _bad(path, "header length", f"at least 2 and at most {top} bytes", n)
    raw = bytes(buf[8:8 + n])
    if raw[:1] != b"{":
        _bad(path, "header", "a JSON object", f"text starting with byte {raw[0]}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        _bad(path, "header", "UTF-8 text", f"byte {e.start} not UTF-8")
    header = _parse_json(text, path, "header")
    if not isinstance(header, dict):
        _bad(path, "header", "a JSON object", _brief(header))
    data = memoryview(buf)[8 + n:]
    out, spans = SafeTensors({}, {}, {}), []
    for name, v in header.items():
        if name == "__metadata__":
            if not isinstance(v, dict) or not all(isinstance(s, str) for s in v.values()):
                _bad(path, "__metadata__", "an object of strings", _brief(v))
            out.metadata.update(v)
            continue
        where = f"tensor {_brief(name)}"
        if not name:
            _bad(path, where, "a non-empty name", '""')
        if not isinstance(v, dict) or set(v) != {"dtype", "shape", "data_offsets"}:
            _bad(path, where, "an object of dtype, shape and data_offsets", _brief(v))
        dtype, shape, offsets = v["dtype"], v["shape"], v["data_offsets"]
        if dtype not in DTYPES:
            _bad(path, f"{where}.dtype", f"a safetensors dtype ({', '.join(DTYPES)})", _brief(dtype))
        if not isinstance(shape, list) or len(shape) > 8 or not all(_is_count(d) for d in shape):
            _bad(path, f"{where}.shape", "an array of at most 8 non-negative integers below 2^62", _brief(shape))
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_count(x, 2**64 - 1) for x in offsets):
            _bad(path, f"{where}.data_offsets", "[begin, end] of non-negative integers", _brief(offsets))
        b, e = offsets
        if not b <= e <= len(data):
            _bad(path, f"{where}.data_offsets", f"0 <= begin <= end <= {len(data)} (the data bytes)", f"[{b}, {e}]")
        npd = np.dtype(DTYPES[dtype])
        need = math.prod(shape) * npd.itemsize
        if e - b != need:
            _bad(path, where, f"{need} bytes for shape {shape} of {dtype}", f"{e - b} between its data_offsets")
        a = np.frombuffer(data[b:e], dtype=npd).reshape(shape)
        out.tensors[name], out.dtypes[name] = (a if a.flags.aligned else a.copy()), dtype
        spans.append((b, e))
    # The data is exactly the tensors, back to back: no overlap, no gap, nothing after.
    at = 0
    for b, e in sorted(spans):
        if b < at:
            _bad(path, "data_offsets", "tensors back to back", f"an overlap at data byte {b}")
        if b > at:
            _bad(path, "data_offsets", "tensors back to back", f"a gap of {b - at} unused bytes at data byte {at}")
        at = e
    if at != len(data):
        _bad(path, "data_offsets", f"tensors ending at the file's end ({len(data)} data bytes)", f"{len(data) - at} trailing bytes")
    return out


def read_safetensors(path):
    """A safetensors file as SafeTensors(tensors, dtypes, metadata), checked throughout."""
    return parse_safetensors(_read(str(path), MAX_FILE_BYTES), str(path))


_ENTRY = {  # each entry of the manifest's files: its fields and what they must be
    "file": (lambda x: isinstance(x, str), "a string"),
    "problem": (lambda x: isinstance(x, str), "a string"),
    "sha256": (lambda x: isinstance(x, str) and len(x) == 64 and set(x) <= set("0123456789abcdef"), "64 lowercase hex digits"),
    "elements": (lambda x: _is_count(x, 2**40) and x >= 1, "an integer in [1, 2^40]"),
}


def _manifest_entries(folder):
    mpath = str(folder / "manifest.json")
    buf = _read(mpath, MAX_MANIFEST_BYTES)
    try:
        m = _parse_json(buf.decode("utf-8"), mpath, "(top)")
    except UnicodeDecodeError as e:
        _bad(mpath, "(top)", "UTF-8 text", f"byte {e.start} not UTF-8")
    if not isinstance(m, dict):
        _bad(mpath, "(top)", "an object", _brief(m))
    if m.get("schema") != SCHEMA:
        _bad(mpath, "schema", f'"{SCHEMA}"', _brief(m.get("schema")))
    files = m.get("files")
    if not isinstance(files, list) or not files:
        _bad(mpath, "files", "a non-empty array (a set holds at least one problem)", _brief(files))
    seen = set()
    for i, f in enumerate(files):
        where = f"{mpath}: files[{i}]"
        if not isinstance(f, dict):
            _bad(where, "(entry)", "an object", _brief(f))
        for key, (ok, what) in _ENTRY.items():
            if not ok(f.get(key)):
                _bad(where, key, what, _brief(f[key]) if key in f else "nothing")
        name = f["file"]
        if not name or name[0] == "." or "/" in name or "\0" in name:
            _bad(where, "file", "a plain file name", _brief(name))
        if name in seen:
            _bad(where, "file", "each file once", f"{_brief(name)} twice")
        seen.add(name)
    return files


def _problem(folder, entry):
    path = str(folder / entry["file"])
    buf = _read(path, MAX_FILE_BYTES)
    found = hashlib.sha256(buf).hexdigest()  # the bytes parsed are the bytes checked
    if found != entry["sha256"]:
        _bad(path, "sha256", f"{entry['sha256']} (the manifest's)", found)
    st = parse_safetensors(buf, path)
    problem = st.metadata.get("problem")
    if problem != entry["problem"]:
        _bad(path, "__metadata__.problem", f"{_brief(entry['problem'])} (the manifest's)", _brief(problem))
    grad_dtype = st.metadata.get("grad_dtype")
    if grad_dtype not in GRAD_DTYPES:
        _bad(path, "__metadata__.grad_dtype", ", ".join(GRAD_DTYPES), _brief(grad_dtype))
    shape = list(st.tensors["idx_theta"].shape) if "idx_theta" in st.tensors else None
    want = {"idx_theta": "F32", "grad_cos": GRAD_DTYPES[grad_dtype], "grad_sin": GRAD_DTYPES[grad_dtype], "scale": "F64",
            **dict(EXPECTED.values())}
    for name, dtype in want.items():  # every tensor of exactly the problem's dtype and shape
        if name not in st.tensors:
            _bad(path, f"tensor {name}", f"{dtype} of shape {shape}" if shape else dtype, "nothing")
        if st.dtypes[name] != dtype or list(st.tensors[name].shape) != shape:
            _bad(path, f"tensor {name}", f"{dtype} of shape {shape}", f"{st.dtypes[name]} of shape {list(st.tensors[name].shape)}")
    if math.prod(shape) != entry["elements"]:
        _bad(path, "elements", f"{entry['elements']} (the manifest's)", math.prod(shape))
    t = st.tensors
    return GoldenProblem(name=problem, file=entry["file"], grad_dtype=grad_dtype, grad_cos=t["grad_cos"], grad_sin=t["grad_sin"],
                         idx_theta=t["idx_theta"], expected={k: t[name] for k, (name, _) in EXPECTED.items()},
                         scale=t["scale"], tensors=t, metadata=st.metadata)


def load(path):
    """The problems of the golden set in folder `path` (GoldenProblem, in the manifest's order),
    all held in memory: each file's sha256 checked against manifest.json before it is parsed,
    each problem's tensors checked for dtype and shape. Layout angles are not recomputed from
    positions and theta here: `rope2d check --golden` does that."""
    folder = Path(path)
    return [_problem(folder, entry) for entry in _manifest_entries(folder)]


def _kind(path):
    try:
        m = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    return ("a regular file" if stat.S_ISREG(m) else "a directory" if stat.S_ISDIR(m) else "a symbolic link" if stat.S_ISLNK(m)
            else "a FIFO" if stat.S_ISFIFO(m) else "a device" if stat.S_ISCHR(m) or stat.S_ISBLK(m) else "a special file")


def _require_regular_or_nothing(path):
    kind = _kind(path)
    if kind not in (None, "a regular file"):
        _bad(path, "file", "a regular file or nothing", kind)


def write_outputs(path, outputs):
    """Writes kernel outputs for `rope2d check --golden DIR --outputs PATH`: `outputs` maps each
    problem's name (GoldenProblem.name) or file stem (.stem) to its float32 NumPy result, as one
    F32 tensor each. Written whole or not at all (a temporary file beside PATH, fsync, rename),
    and only over a regular file or nothing: a symbolic link, FIFO or device there is refused."""
    path = str(path)
    arrays = {}
    for name, a in outputs.items():
        if not isinstance(name, str) or not name or name == "__metadata__":
            raise ValueError(f"outputs: expected problem names or file stems as keys, found {name!r}"[:200])
        if not isinstance(a, np.ndarray) or a.dtype != np.float32:
            found = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
            raise TypeError(f"outputs[{name!r}]: expected a float32 NumPy array, found {found}"[:200])
        arrays[name] = a.astype("<f4", order="C", copy=False)  # a copy only where not C-contiguous
    header, offset = {}, 0
    for name in sorted(arrays):  # in name order, as the C++ writer: the same outputs give the same bytes
        header[name] = {"dtype": "F32", "shape": list(arrays[name].shape), "data_offsets": [offset, offset + arrays[name].nbytes]}
        offset += arrays[name].nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # data starts 8-byte aligned
    _require_regular_or_nothing(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=f".{os.path.basename(path)}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(len(text).to_bytes(8, "little") + text)
            for name in sorted(arrays):
                f.write(arrays[name].data)
            f.flush()
            os.fchmod(f.fileno(), 0o644)
            os.fsync(f.fileno())
        _require_regular_or_nothing(path)  # what came there while the file was written
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
