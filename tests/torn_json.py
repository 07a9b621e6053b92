"""Test oracle for cut (torn) dump files, built on the standard library's JSON decoder only: which
members of a JSON object are complete in whatever prefix of a file survived. Used to check that
`msprobe repair` keeps exactly the records completed before the cut."""
import json

_DEC = json.JSONDecoder()
_WS = " \t\n\r"


def _skip_ws(text, pos):
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _is_complete_value(text, start, end):
    """A number at the very end of a prefix may be cut (12 of 12.5); any other value is complete
    once its last character is present."""
    if text[start] in '-0123456789':
        return _skip_ws(text, end) < len(text)
    return True


def object_members(text, pos=0):
    """Members of the object starting at text[pos] (after whitespace) that are complete in the
    prefix: returns ([(key, value, end_offset)], closed, partial_key). `closed` says whether the
    object's closing brace is present; `partial_key` is the key of a member whose value is cut (None
    when the cut is elsewhere), with the offset its value starts at."""
    members = []
    pos = _skip_ws(text, pos)
    if pos >= len(text) or text[pos] != "{":
        return members, False, None
    pos += 1
    while True:
        pos = _skip_ws(text, pos)
        if pos >= len(text):
            return members, False, None
        if text[pos] == "}":
            return members, True, None
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        try:
            key, pos = _DEC.raw_decode(text, pos)
        except ValueError:
            return members, False, None
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ":":
            return members, False, None
        vstart = _skip_ws(text, pos + 1)
        try:
            value, end = _DEC.raw_decode(text, vstart)
        except ValueError:
            return members, False, (key, vstart)
        if not _is_complete_value(text, vstart, end):
            return members, False, (key, vstart)
        members.append((key, value, end))
        pos = end


def complete_records(text, kind):
    """What a repair must keep from a (possibly cut) file of `kind` ('dump', 'stack', 'construct'):
    (header, records) with header the complete top-level members other than dump.json's "data"
    and records the list of complete (name, value) of the record object."""
    top, _, partial = object_members(text)
    if kind != "dump":
        return {}, [(k, v) for k, v, _ in top]
    header = {k: v for k, v, _ in top if k != "data"}
    data = [(k, v) for k, v, _ in top if k == "data"]
    if data:
        return header, list(data[0][1].items())
    if partial and partial[0] == "data":
        records, _, _ = object_members(text, partial[1])
        return header, [(k, v) for k, v, _ in records]
    return header, []


def kind_of(path):
    name = str(path).rsplit("/", 1)[-1]
    return {"dump.json": "dump", "stack.json": "stack", "construct.json": "construct"}[name]


def is_torn(path):
    try:
        with open(path) as f:
            json.load(f)
        return False
    except ValueError:
        return True


def check_repaired(path, expected_header, expected_records, kind):
    """Asserts the repaired file parses and holds exactly the expected records (in order; a name
    written twice, as a dump being written may hold it, counts as json.load reads it: the first
    place, the last value)."""
    expected_records = list(dict(expected_records).items())
    with open(path) as f:
        doc = json.load(f)
    if kind != "dump":
        got = list(doc.items())
        assert got == expected_records, (path, len(got), len(expected_records))
        return
    for k, v in expected_header.items():
        assert doc.get(k) == v, (path, k)
    got = list(doc["data"].items())
    assert got == expected_records, (path, len(got), len(expected_records))


def raw_names(text, kind):
    """Record names in file order, duplicates included (json.load would merge them)."""
    top, _, _ = object_members(text)
    if kind != "dump":
        return [k for k, _, _ in top]
    start = text.index('"data"')
    start = text.index("{", start)
    members, _, _ = object_members(text, start)
    return [k for k, _, _ in members]
