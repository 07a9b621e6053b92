"""Manual check (not part of the test suite: it needs ~14 GiB of memory and disk and ~80 s):
a .pt file of a tensor over 4 GiB is written with zip64 records and loads back identically.
The zip64 layout itself is covered by cpp/tests/format_test.cc with a lowered size limit.

    python bench/zip64_huge_check.py /path/with/space
"""
import os
import sys
import zipfile
import zlib

import torch

from msprobe import _core


def main(folder):
    n = 2 ** 32 + 64
    t = torch.full((n,), 7, dtype=torch.uint8)
    t[:1000] = torch.arange(1000) % 251
    t[-1000:] = torch.arange(1000) % 13
    path = os.path.join(folder, "huge.pt")
    with open(path, "wb") as f:
        f.write(_core.encode_pt(t, "huge"))
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("huge/data/0")
        assert info.file_size == n
        assert info.CRC == zlib.crc32(t.numpy())
        assert z.read("huge/version") == b"3\n"   # an entry past 4 GiB
    got = torch.load(path, weights_only=True, mmap=True)
    assert torch.equal(got, t)
    os.remove(path)
    print("zip64 check passed")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
