"""merge_result(input_dir, output_dir, config_path) as in msprobe 1.2.1
(core/compare/merge_result/merge_result.py): reads the compare_result_rank{N}-rank{N}_{ts}.xlsx
files of input_dir and writes multi_ranks_compare_merge_{ts}.xlsx into output_dir, one sheet per
compare index. The YAML config (api: [...], compare_index: [...]) is read here; everything else
(reading the workbooks, matching, merging, writing) happens in C++ (msprobe._core.merge_results).
"""
import os

from msprobe import _core
from msprobe.core import log
from msprobe.core.errors import MsprobeException
from msprobe.core.yaml_file import YamlFileError, load_yaml_file


def _load_config(config_path):
    if not isinstance(config_path, str) or not os.path.isfile(config_path) or os.path.islink(config_path):
        raise MsprobeException(f"-config {config_path}: no such file (a regular YAML file is needed)")
    try:
        config = load_yaml_file(config_path)
    except YamlFileError as e:
        raise MsprobeException(f"-config {e}") from None
    if not config:
        return True, [], []
    if not isinstance(config, dict):
        raise MsprobeException(f"-config {config_path}: must hold a mapping with 'api' and 'compare_index'")
    unknown = sorted(set(config) - {"api", "compare_index"})
    if unknown:
        raise MsprobeException(f"-config {config_path}: unknown key {unknown[0]!r}: allowed keys are api, "
                               f"compare_index")
    lists = []
    for key in ("api", "compare_index"):
        value = config.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise MsprobeException(f"-config {config_path}: {key!r} must be a list of names")
        lists.append(value)
    return False, lists[0], lists[1]


def merge_result(input_dir, output_dir, config_path):
    """Returns the path of the merged workbook. Raises MsprobeException / ConfigError /
    MsprobeFileError (one line) when there is nothing to merge or an input is bad."""
    empty, api, compare_index = _load_config(config_path)
    report = _core.merge_results(input_dir, output_dir, api, compare_index, empty_config=empty)
    for line in report.warnings:
        log.warning(line)
    for line in report.infos:
        log.info(line)
    return report.path
