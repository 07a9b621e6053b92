"""Name mappings of `compare` (-am, -cm, -dm): loads their yaml tables and builds the C++ mapper
that compare_dumps(name_mapper=...) takes. The mapping itself runs in C++
(cpp/src/compare/mapping/name_mapping.cc); here only files are read.

1.2.1's precedence: a layer mapping (-lm) or a data mapping (-dm) replaces matching; else -cm;
else -am.
"""
import os

from msprobe import _core
from msprobe.core.errors import MsprobeException
from msprobe.core.yaml_file import YamlFileError, load_yaml_file

BUILTIN_API_TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                 "mindspore", "ms_to_pt_api.yaml")
USER_API_LISTS = ("ms_args", "pt_args", "ms_output", "pt_output", "ms_parameters",
                  "pt_parameters", "ms_parameters_grad", "pt_parameters_grad")


def _load_yaml(path, what):
    try:
        return load_yaml_file(path)
    except YamlFileError as e:
        raise MsprobeException(f"{what} file {e}") from None


def _string_table(data, path, what):
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise MsprobeException(f"{what} file '{path}' must hold a mapping of names to names, "
                               f"not a {type(data).__name__}")
    return {str(k): str(v) for k, v in data.items()}


def _user_api_entries(data, path):
    if data is None:
        return []
    if not isinstance(data, list):
        raise MsprobeException(f"api mapping file '{path}' must hold a list of entries with "
                               f"ms_api, pt_api, ms_args, pt_args, ...")
    entries = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or "ms_api" not in item or "pt_api" not in item:
            raise MsprobeException(f"api mapping file '{path}': entry {i} needs ms_api and pt_api")
        entry = _core.UserApiMapping()
        entry.ms_api, entry.pt_api = str(item["ms_api"]), str(item["pt_api"])
        for key in USER_API_LISTS:
            values = item.get(key) or []
            if not isinstance(values, list):
                raise MsprobeException(f"api mapping file '{path}': entry {i}: {key} must be a "
                                       f"list")
            setattr(entry, key, [str(v) for v in values])
        entries.append(entry)
    return entries


def api_mapper(user_file=None):
    """-am [FILE]: the built-in MindSpore-to-PyTorch table plus the user's entries."""
    builtin = _string_table(_load_yaml(BUILTIN_API_TABLE, "built-in api mapping"),
                            BUILTIN_API_TABLE, "built-in api mapping")
    user = _user_api_entries(_load_yaml(user_file, "api mapping"), user_file) if user_file else []
    return _core.ApiMapper(builtin, user)


def cell_mapper(table_file=None):
    """-cm [FILE]: Cell -> Module, plus the user's "{path}.{Class}" table."""
    table = _string_table(_load_yaml(table_file, "cell mapping"), table_file,
                          "cell mapping") if table_file else {}
    return _core.CellMapper(table)


def data_mapper(table_file):
    """-dm FILE: explicit (npu row, bench row) pairs, in file order."""
    table = _string_table(_load_yaml(table_file, "data mapping"), table_file, "data mapping")
    return _core.DataMapper(list(table.items()))


def layer_mapper(npu_dump_json, bench_dump_json, table_file=None):
    """-lm [FILE]: row pairs from both dumps' layer trees; FILE: {parent type: {"child[.grand
    child]": "new name"}} (a top-level "Cell" means the root)."""
    data = _load_yaml(table_file, "layer mapping") if table_file else None
    if data is None:
        data = {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) or v is None
                                             for v in data.values()):
        raise MsprobeException(f"layer mapping file '{table_file}' must map layer types to "
                               f"mappings of layer names")
    table = [(str(t), [(str(k), str(v)) for k, v in (names or {}).items()])
             for t, names in data.items()]
    return _core.LayerMapper(npu_dump_json, bench_dump_json, table)


def name_mapper(cell_mapping=None, api_mapping=None, data_mapping=None, layer_mapping=None,
                npu_dump_json=None, bench_dump_json=None):
    """The mapper for the CLI's -cm/-am/-dm/-lm values (True for a flag given without a file),
    or None when no mapping is asked for. -lm needs the two dump.json paths."""
    if layer_mapping:
        return layer_mapper(npu_dump_json, bench_dump_json,
                            layer_mapping if isinstance(layer_mapping, str) else None)
    if data_mapping:
        return data_mapper(data_mapping)
    if cell_mapping:
        return cell_mapper(cell_mapping if isinstance(cell_mapping, str) else None)
    if api_mapping:
        return api_mapper(api_mapping if isinstance(api_mapping, str) else None)
    return None
