#!/usr/bin/env python3
"""Hand-made bad golden sets for the hardening tests: copies a golden set and damages one file
of it in one way, then rewrites the manifest's sha256 so only the damage itself is left to find.

    bad_inputs.py SRC_SET DST_SET KIND
"""
import hashlib
import json
import os
import shutil
import struct
import sys

LAYOUT = "layout_bf16_1x128.safetensors"


def read(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    meta = header.pop("__metadata__", {})
    tensors = {k: (v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]]) for k, v in header.items()}
    return tensors, meta


def write(path, tensors, meta, header_text=None, gap=0, trailing=b""):
    header, blobs, off = {}, [], 0
    for k, (dtype, shape, blob) in tensors.items():
        if blobs:
            off += gap
            blobs.append(b"\0" * gap)
        header[k] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    header["__metadata__"] = meta
    text = header_text(header) if header_text else json.dumps(header)
    text = text.encode()
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + b"".join(blobs) + trailing)


def rehash(dst):
    mpath = os.path.join(dst, "manifest.json")
    m = json.load(open(mpath))
    for f in m["files"]:
        f["sha256"] = hashlib.sha256(open(os.path.join(dst, f["file"]), "rb").read()).hexdigest()
    json.dump(m, open(mpath, "w"), indent=2)


def main():
    src, dst, kind = sys.argv[1:4]
    shutil.copytree(src, dst)
    path = os.path.join(dst, LAYOUT)
    t, meta = read(path)
    mpath = os.path.join(dst, "manifest.json")
    if kind == "positions_i64":  # heap overflow before: copied into an int32 buffer by bytes
        d, s, b = t["positions"]
        t["positions"] = ("I64", s, b"".join(struct.pack("<q", v) for v in struct.unpack(f"<{len(b)//4}i", b)))
        write(path, t, meta)
    elif kind == "positions_f64":
        d, s, b = t["positions"]
        t["positions"] = ("F64", s, b"".join(struct.pack("<d", v) for v in struct.unpack(f"<{len(b)//4}i", b)))
        write(path, t, meta)
    elif kind == "grad_sin_empty":  # out-of-bounds read before
        t["grad_sin"] = ("BF16", [0], b"")
        write(path, t, meta)
    elif kind == "grad_sin_short":
        d, s, b = t["grad_sin"]
        t["grad_sin"] = (d, [s[0], s[1], s[2] // 2], b[:len(b) // 2])
        write(path, t, meta)
    elif kind == "duplicate":  # the second grad_cos silently replaced the first
        write(path, t, meta, header_text=lambda h: json.dumps(h)[:-1] + ', "grad_cos": ' + json.dumps(h["grad_cos"]) + "}")
    elif kind == "trailing":
        write(path, t, meta, trailing=b"\0" * 8)
    elif kind == "gap":
        write(path, t, meta, gap=8)
    elif kind == "meta_batch":  # metadata disagreeing with the tensors
        meta["batch"] = "2"
        write(path, t, meta)
    elif kind == "meta_seq_len":
        meta["seq_len"] = "64"
        write(path, t, meta)
    elif kind == "shape_overflow":  # [2^32, 2^32] wrapped to 0 elements before
        t["extra"] = ("F32", [2**32, 2**32], b"")
        write(path, t, meta)
    elif kind == "files_empty":
        m = json.load(open(mpath))
        m["files"] = []
        json.dump(m, open(mpath, "w"))
        return
    elif kind == "all_empty":  # every tensor empty, metadata saying so
        m = json.load(open(mpath))
        m["files"] = [f for f in m["files"] if f["file"] == "odd_bf16_n_7_1.safetensors"]
        json.dump(m, open(mpath, "w"))
        p = os.path.join(dst, "odd_bf16_n_7_1.safetensors")
        t, meta = read(p)
        meta["elements"] = "0"
        write(p, {k: (d, [0], b"") for k, (d, s, b) in t.items()}, meta)
    elif kind == "devzero":  # hung check before
        os.remove(path)
        os.symlink("/dev/zero", path)
        return
    elif kind == "fifo":
        os.remove(path)
        os.mkfifo(path)
        return
    elif kind == "wrong_type":  # a string where the manifest has a number: exit 3 before
        m = json.load(open(mpath))
        m["files"][0]["elements"] = "7"
        json.dump(m, open(mpath, "w"))
        return
    elif kind == "layout_angle":  # an angle no layout gives: idx_theta[5] one ulp off its position x theta
        d, sh, b = t["idx_theta"]
        v = bytearray(b)
        bits = struct.unpack_from("<I", v, 5 * 4)[0]
        struct.pack_into("<I", v, 5 * 4, bits + 1)
        t["idx_theta"] = (d, sh, bytes(v))
        write(path, t, meta)
    elif kind == "layout_table":  # a theta table that does not give the stored angles
        d, sh, b = t["theta"]
        v = bytearray(b)
        struct.pack_into("<f", v, 4, struct.unpack_from("<f", v, 4)[0] * 2)
        t["theta"] = (d, sh, bytes(v))
        write(path, t, meta)
    elif kind == "problem_swap":  # the manifest names another problem for this file
        m = json.load(open(mpath))
        entry = next(f for f in m["files"] if f["file"] == LAYOUT)
        entry["problem"] = next(f["problem"] for f in m["files"] if f["file"] != LAYOUT)
        json.dump(m, open(mpath, "w"), indent=2)
        return
    else:
        sys.exit("unknown kind " + kind)
    rehash(dst)


if __name__ == "__main__":
    main()
