"""Checks the dumps left by a kill storm (tests/scripts/kill_storm.py,
tests/mindspore/kill_storm_ms.py): after msprobe's repair every file parses and holds exactly the
records that were complete in it when its process was killed (oracle: torn_json.py)."""
import json
import os

from torn_json import check_repaired, complete_records, is_torn, kind_of

DUMP_FILES = ("dump.json", "stack.json", "construct.json")


def dump_files(root):
    for dp, dn, fn in os.walk(root):
        dn[:] = [d for d in dn if d != "dump_tensor_data"]
        for f in fn:
            if f in DUMP_FILES:
                yield os.path.join(dp, f)


def expectations(root):
    """What each file of a cut dump must hold after repair, read from the files as they are."""
    out = {}
    for path in dump_files(root):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        out[path] = (complete_records(text, kind_of(path)), is_torn(path))
    return out


def check_tree_repaired(root, expected):
    for path, ((header, records), _) in expected.items():
        check_repaired(path, header, records, kind_of(path))
    left = [f for dp, _, fn in os.walk(root) for f in fn if f.endswith(".msprobe-tmp")]
    assert not left, left


def verify_killed_dumps(out, kills, tensor_suffix):
    """Repairs OUT/kill{k}/dump for each victim and checks every file against what it held when
    the victim died; returns (files, torn before repair, records kept)."""
    from msprobe import _core
    files = torn = records = 0
    for k in range(kills):
        root = out / f"kill{k}" / "dump"
        if not root.exists():
            continue
        expected = expectations(root)
        files += len(expected)
        torn += sum(t for _, t in expected.values())
        records += sum(len(r) for (_, r), _ in expected.values())
        for _, action, message in _core.repair_dump(str(root)):
            assert action != "failed", message
        check_tree_repaired(root, expected)
        # Entries reach dump.json after their tensor files: every file named there is complete.
        for path in expected:
            if path.endswith("dump.json"):
                with open(path) as f:
                    doc = json.load(f)
                if doc["dump_data_dir"]:
                    names = [n for n in json.dumps(doc["data"]).split('"')
                             if n.endswith(tensor_suffix)]
                    tdir = os.path.join(os.path.dirname(path), "dump_tensor_data")
                    store = _core.reader.TensorStore(tdir)
                    for n in names[-3:]:
                        store.load(n)  # a complete .pt / .npy file
    return files, torn, records


def cut_and_repair(rank, scratch, rng, samples, min_size, ends=False):
    """Cuts each dump file of the folder `rank` (each longer than `min_size` bytes) at `samples`
    random offsets (with `ends`, also at 0 and at its full length), repairs each cut in
    SCRATCH/cut, and checks it holds exactly the records complete before the cut. Returns the
    number of cuts."""
    from msprobe import _core
    cuts = 0
    for name in DUMP_FILES:
        full = (rank / name).read_bytes()
        assert len(full) > min_size, name
        for cut in sorted(rng.sample(range(len(full)), samples)) + ([0, len(full)] if ends else []):
            piece = scratch / "cut" / name
            piece.parent.mkdir(exist_ok=True)
            piece.write_bytes(full[:cut])
            expected = complete_records(full[:cut].decode(), kind_of(name))
            for _, action, message in _core.repair_dump(str(piece)):
                assert action == "rewritten", message
            check_repaired(str(piece), *expected, kind_of(name))
            cuts += 1
    return cuts
