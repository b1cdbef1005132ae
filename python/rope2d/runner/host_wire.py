"""The records of the judge and a host (verify/src/harness/host_protocol.hpp), as the Python host
(host_serve) reads and writes them: the same layouts, checked against the C++ side's by
HostProtocol.ThePythonHostReadsTheSameRecords. No torch here."""
import json
import struct

MAGIC = 0x72326B68
# Request: magic op seq region capture bytes entry grad_dtype count head_dim slot, 5 x (region
# pad offset), rank pad shape[3]. Reply: magic stage seq rc cuda_error.
REQUEST = struct.Struct("<IIQIIQiiqiI" + "IIQ" * 5 + "II3q")
REPLY = struct.Struct("<IiQii")
OP_MAP, OP_UNMAP, OP_CALL, OP_BYE = 1, 2, 3, 4
MAPPED, LAUNCHED, FINISHED, HELLO, NOTE = 0, 1, 2, 3, 4
FLAG_PAIRS, FLAGS_REGION = 2048, 1
MAX_NOTE = 16384
assert REQUEST.size == 168 and REPLY.size == 24


def parse_request(data):
    """The request's fields, or None when the bytes are not one whole request of a known op."""
    if len(data) != REQUEST.size:
        return None
    f = REQUEST.unpack(data)
    q = {"magic": f[0], "op": f[1], "seq": f[2], "region": f[3], "capture": f[4], "bytes": f[5], "entry": f[6],
         "grad_dtype": f[7], "count": f[8], "head_dim": f[9], "slot": f[10],
         "args": [(f[11 + 3 * i], f[13 + 3 * i]) for i in range(5)], "rank": f[26], "shape": list(f[28:28 + f[26]])}
    if q["magic"] != MAGIC or q["op"] not in (OP_MAP, OP_UNMAP, OP_CALL, OP_BYE) or q["rank"] > 3:
        return None
    return q


def note_record(seq, fields):
    """A note: the reply header (stage NOTE, rc = the text's length) and the JSON text, cut to
    the protocol's limit (a text cut short is replaced by a note saying so). The judge reads
    only the kinds and fields it knows (verify/src/harness/host_notes.hpp): a new one is
    refused there until both sides have it."""
    text = json.dumps(fields).encode()
    if len(text) > MAX_NOTE:
        text = json.dumps({"error" if "error" in fields else "note": "a note longer than the protocol allows, cut",
                           "kind": fields.get("kind", "runtime")}).encode()
    return REPLY.pack(MAGIC, NOTE, seq, len(text), 0) + text
