#!/usr/bin/env python3
"""Copies a golden set and moves some stored float32 results off the reference by a few ulps
(the manifest's sha256 updated), so that checking it against the reference finds failing
problems with known worst elements: the nightly tests' fixture.
    nudge_golden.py SOURCE_SET DEST_SET"""
import hashlib
import json
import shutil
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
manifest = json.load(open(f"{dst}/manifest.json"))
# (file index, element, ulps): every fourth problem, different elements and sizes of move.
nudges = [(i, 3 + 5 * i, 1 + i % 3) for i in range(0, len(manifest["files"]), 4)]
for i, element, ulps in nudges:
    entry = manifest["files"][i]
    path = f"{dst}/{entry['file']}"
    data = bytearray(open(path, "rb").read())
    size = struct.unpack("<Q", data[:8])[0]
    tensor = json.loads(data[8:8 + size])["grad_idx_theta"]
    count = (tensor["data_offsets"][1] - tensor["data_offsets"][0]) // 4
    at = 8 + size + tensor["data_offsets"][0] + 4 * (element % count)
    bits = struct.unpack("<I", data[at:at + 4])[0]
    if bits & 0x7F800000 == 0x7F800000:  # not a finite value: the next element
        at = 8 + size + tensor["data_offsets"][0] + 4 * ((element + 1) % count)
        bits = struct.unpack("<I", data[at:at + 4])[0]
    data[at:at + 4] = struct.pack("<I", bits + ulps)
    open(path, "wb").write(data)
    entry["sha256"] = hashlib.sha256(data).hexdigest()
json.dump(manifest, open(f"{dst}/manifest.json", "w"), indent=2)
print(f"{len(nudges)} of {len(manifest['files'])} problems nudged")
