#!/usr/bin/env python3
"""Compares two training checkpoints part by part, byte for byte.

    tools/checkpoint_diff.py A.pt B.pt

A checkpoint (storage/checkpoint.h) is "NMTCKPT\\n", a little-endian uint64
header length, the header JSON, then its sections. Two runs of the same
training are equal when every section (weights, optimizer, RNG states) has
the same bytes and the headers agree on everything but the wall-clock
figures (state.elapsed_seconds, state.valid_seconds), which no two runs
share.

Checkpoints of format 1 hold LibTorch's optimizer archive, which keys Adam's
state by each parameter's address in memory, so its bytes differ between any
two processes; where the bytes differ, the section is compared by content: the same tensors (the
multiset of their data's SHA-256) under a pickle of the same length.
Prints one line per part; exits 1 when anything else differs.
"""
import collections
import hashlib
import io
import json
import struct
import sys
import zipfile

CLOCK_FIELDS = ("elapsed_seconds", "valid_seconds")


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"NMTCKPT\n"):
        sys.exit(f"{path}: not a checkpoint (no NMTCKPT magic)")
    (length,) = struct.unpack_from("<Q", data, 8)
    header = json.loads(data[16:16 + length])
    payload = data[16 + length:]
    sections, offset = {}, 0
    for section in header["sections"]:
        size = section["size"]
        sections[section["name"]] = payload[offset:offset + size]
        offset += size
    return header, sections


def same_tensors(a, b):
    """Whether two torch zip archives hold the same tensors and pickles of one length."""
    try:
        za, zb = zipfile.ZipFile(io.BytesIO(a)), zipfile.ZipFile(io.BytesIO(b))
    except zipfile.BadZipFile:
        return False

    def content(z):
        blobs = collections.Counter(hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist() if "/data/" in n)
        pickles = sorted(len(z.read(n)) for n in z.namelist() if n.endswith(".pkl"))
        return blobs, pickles

    return content(za) == content(zb)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (ha, sa), (hb, sb) = read(sys.argv[1]), read(sys.argv[2])
    same = True
    for name in sorted(set(sa) | set(sb)):
        a, b = sa.get(name), sb.get(name)
        verdict = "identical" if a == b else "same tensors" if a and b and same_tensors(a, b) else "DIFFERENT"
        same &= verdict != "DIFFERENT"
        digest = hashlib.sha256(a or b"").hexdigest()[:16]
        print(f"section {name:12s} {len(a or b''):>10} bytes  {verdict:12s}  sha256 {digest}")
    clocks = {k: (ha["state"].pop(k, None), hb["state"].pop(k, None)) for k in CLOCK_FIELDS}
    for h in (ha, hb):  # the CRCs cover the clocks and LibTorch's addresses
        h.pop("header_crc32", None)
        for section in h.get("sections", []):
            section.pop("crc32", None)
    header_equal = ha == hb
    same &= header_equal
    print(f"header (config, state, sizes) {'identical' if header_equal else 'DIFFERENT'} "
          f"but for the clocks and CRCs {json.dumps(clocks)}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
