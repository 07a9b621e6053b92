"""config.json through msprobe._core.load_config: every invalid case gives ONE line naming the
file, the field and what is allowed; valid cases give the documented defaults and expansions."""
import json
import os

import pytest

from msprobe import _core

ConfigError = _core.ConfigError
FileErr = _core.MsprobeFileError

SHIPPED = os.path.realpath(os.path.join(os.path.dirname(_core.__file__), "config.json"))

TASKS = "tensor, statistics, overflow_check, free_benchmark, run_ut, grad_probe"
DATA_MODES = "all, input, output, forward, backward"


def write(tmp_path, cfg, name="config.json"):
    p = tmp_path / name
    p.write_text(cfg if isinstance(cfg, str) else json.dumps(cfg, indent=4))
    return str(p)


def expect_error(path, exc, needles, **kwargs):
    with pytest.raises(exc) as info:
        _core.load_config(path, **kwargs)
    msg = str(info.value)
    assert "\n" not in msg, msg
    for needle in needles:
        assert needle in msg, f"{needle!r} not in {msg!r}"
    return msg


# (id, config, load_config kwargs, [substrings the message must contain]). Every message must also
# start with the file path (file values) or "argument:" (overrides).
INVALID = [
    ("task_unknown", {"task": "dump"}, {}, ['"task" must be one of ' + TASKS, 'got "dump"']),
    ("task_not_string", {"task": 1}, {}, ['"task" must be one of', "got 1"]),
    ("task_null", {"task": None}, {}, ['"task" must be one of', "got null"]),
    ("task_run_ut_mindspore", {"task": "run_ut"}, {"framework": "mindspore"},
     ['"task" must be one of tensor, statistics, overflow_check, free_benchmark, grad_probe', 'got "run_ut"']),
    ("level_unknown", {"level": "L3"}, {}, ['"level" must be one of L0, L1, L2, mix, got "L3"']),
    ("level_lowercase", {"level": "l1"}, {}, ['"level" must be one of L0, L1, L2, mix', 'got "l1"']),
    ("dump_path_empty", {"dump_path": ""}, {}, ['"dump_path" must be a non-empty path', "letters, digits"]),
    ("dump_path_space", {"dump_path": "./my dump"}, {},
     ['"dump_path" may only contain letters, digits and the characters _ . / -', 'got "./my dump"']),
    ("dump_path_non_ascii", {"dump_path": "./dümp"}, {}, ['"dump_path" may only contain']),
    ("dump_path_not_string", {"dump_path": ["a"]}, {}, ['"dump_path" must be a string', 'got ["a"]']),
    ("dump_path_component_too_long", {"dump_path": "./" + "a" * 256}, {},
     ['"dump_path" must have path components of at most 255 characters']),
    ("dump_path_too_long", {"dump_path": "abcdefgh/" * 500}, {}, ['"dump_path" must be at most 4096 characters']),
    ("rank_string", {"rank": "0"}, {},
     ['"rank" must be a list of integers in 0..1000000 and "a-b" range strings with a <= b', 'got "0"']),
    ("rank_int", {"rank": 0}, {}, ['"rank" must be a list', "got 0"]),
    ("rank_single_number_string", {"rank": ["3"]}, {},
     ['"rank[0]" must be an integer in 0..1000000 or an "a-b" range string with a <= b', 'got "3"']),
    ("rank_bool", {"rank": [True]}, {}, ['"rank[0]" must be an integer in 0..1000000', "got true"]),
    ("rank_negative", {"rank": [0, -1]}, {}, ['"rank[1]" must be an integer in 0..1000000', "got -1"]),
    ("step_too_big", {"step": [1000001]}, {}, ['"step[0]" must be an integer in 0..1000000', "got 1000001"]),
    ("step_reversed_range", {"step": ["5-2"]}, {}, ['"step[0]" must be an integer in 0..1000000 or an "a-b" range',
                                                     'with a <= b', 'got "5-2"']),
    ("step_float", {"step": [1.0]}, {}, ['"step[0]" must be an integer', "got 1.0"]),
    ("step_range_too_big", {"step": ["0-2000000"]}, {}, ['"step[0]"', "0..1000000", 'got "0-2000000"']),
    ("enable_dataloader_string", {"enable_dataloader": "false"}, {},
     ['"enable_dataloader" must be true or false, got "false"']),
    ("async_dump_int", {"async_dump": 1}, {}, ['"async_dump" must be true or false, got 1']),
    ("section_not_object", {"statistics": ["all"]}, {}, ['"statistics" must be an object', 'got ["all"]']),
    ("scope_not_list", {"statistics": {"scope": "Functional.relu.0.forward"}}, {},
     ['"statistics.scope" must be a list of strings']),
    ("scope_one_name", {"statistics": {"scope": ["Functional.relu.0.forward"]}}, {},
     ['"statistics.scope" must be empty or hold exactly 2 names']),
    ("scope_three_names", {"statistics": {"scope": ["Torch.a.0.forward", "Torch.b.0.forward", "Torch.c.0.forward"]}},
     {}, ['"statistics.scope" must be empty or hold exactly 2 names']),
    ("scope_module_names_at_L1", {"level": "L1", "statistics": {"scope": ["Module.a.A.forward.0",
                                                                          "Module.b.B.forward.0"]}},
     {}, ['"statistics.scope[0]" must be an API name when "level" is L1', "Functional.conv2d.0.forward",
          'got "Module.a.A.forward.0"']),
    ("scope_api_names_at_L0", {"level": "L0", "statistics": {"scope": ["Torch.add.0.forward",
                                                                        "Torch.add.1.forward"]}},
     {}, ['"statistics.scope[0]" must be a module name when "level" is L0', "Module.conv1.Conv2d.forward.0"]),
    ("scope_bad_name_at_mix", {"level": "mix", "statistics": {"scope": ["Module.a.A.forward.0", "relu"]}},
     {}, ['"statistics.scope[1]" must be an API name', "or a module name", 'when "level" is mix', 'got "relu"']),
    ("scope_item_not_string", {"statistics": {"scope": [1, 2]}}, {}, ['"statistics.scope[0]" must be a string, got 1']),
    ("list_not_list", {"statistics": {"list": "relu"}}, {},
     ['"statistics.list" must be a list of strings, got "relu"']),
    ("list_item_not_string", {"statistics": {"list": ["relu", None]}}, {},
     ['"statistics.list[1]" must be a string, got null']),
    ("L2_needs_one_api", {"level": "L2", "statistics": {"list": []}}, {},
     ['"statistics.list" must hold exactly one full API name when "level" is L2']),
    ("L2_list_not_api_name", {"level": "L2", "statistics": {"list": ["relu"]}}, {},
     ['"statistics.list[0]" must be a full API name when "level" is L2', 'got "relu"']),
    ("L2_scope_not_empty", {"level": "L2", "statistics": {"scope": ["Torch.a.0.forward", "Torch.b.0.forward"],
                                                          "list": ["Torch.a.0.forward"]}},
     {}, ['"statistics.scope" must be empty when "level" is L2']),
    ("data_mode_string", {"statistics": {"data_mode": "all"}}, {},
     ['"statistics.data_mode" must be a list drawn from ' + DATA_MODES, 'got "all"']),
    ("data_mode_empty", {"statistics": {"data_mode": []}}, {},
     ['"statistics.data_mode" must hold at least one of ' + DATA_MODES, "got []"]),
    ("data_mode_unknown_item", {"statistics": {"data_mode": ["inputs"]}}, {},
     ['"statistics.data_mode[0]" must be one of ' + DATA_MODES, 'got "inputs"']),
    ("data_mode_all_combined", {"statistics": {"data_mode": ["all", "forward"]}}, {},
     ['"statistics.data_mode" may hold "all" only on its own', "input, output, forward, backward"]),
    ("data_mode_duplicate", {"statistics": {"data_mode": ["input", "input"]}}, {},
     ['"statistics.data_mode" must not repeat an item', DATA_MODES]),
    ("data_mode_too_many", {"statistics": {"data_mode": ["input", "output", "forward", "backward", "output"]}}, {},
     ['"statistics.data_mode" cannot exceed 4 items', DATA_MODES]),
    ("data_mode_ms_L2", {"level": "L2", "statistics": {"data_mode": ["forward"]}}, {"framework": "mindspore"},
     ['"statistics.data_mode" must be exactly one of all, input, output when "level" is L2']),
    ("summary_mode_unknown", {"statistics": {"summary_mode": "crc"}}, {},
     ['"statistics.summary_mode" must be one of statistics, md5, got "crc"']),
    ("summary_mode_list_pytorch", {"statistics": {"summary_mode": ["max"]}}, {},
     ['"statistics.summary_mode" must be one of statistics, md5', 'got ["max"]']),
    ("summary_mode_list_bad_item_ms", {"statistics": {"summary_mode": ["max", "norm"]}}, {"framework": "mindspore"},
     ['"statistics.summary_mode[1]" must be one of md5, max, min, mean, l2norm, got "norm"']),
    ("file_format_unknown", {"task": "tensor", "tensor": {"file_format": "pt"}}, {},
     ['"tensor.file_format" must be one of npy, bin, got "pt"']),
    # 1.2.1's online run_ut sends tensors to a GPU host; not implemented, so refused (never a
    # silent full tensor dump instead).
    ("tensor_online_run_ut", {"task": "tensor", "tensor": {"online_run_ut": True, "host": "10.0.0.1", "port": 8080}},
     {}, ['"tensor.online_run_ut" is true, but online run_ut', "is not supported by this version",
          "set it to false (or remove it) to dump the tensors",
          "then run `msprobe -f pytorch run_ut -api_info <dump.json>`"]),
    ("tensor_online_run_ut_override_task", {"task": "statistics", "tensor": {"online_run_ut": True}},
     {"task": "tensor"}, ['"tensor.online_run_ut" is true, but online run_ut', "is not supported"]),
    ("tensor_online_run_ut_not_bool", {"task": "tensor", "tensor": {"online_run_ut": "true"}}, {},
     ['"tensor.online_run_ut" must be true or false, got "true"']),
    ("overflow_nums_string", {"task": "overflow_check", "overflow_check": {"overflow_nums": "1"}}, {},
     ['"overflow_check.overflow_nums" must be -1 (no limit) or an integer >= 0 (0 means 1)', 'got "1"']),
    ("overflow_nums_zero_ms", {"task": "overflow_check", "overflow_check": {"overflow_nums": 0}},
     {"framework": "mindspore"}, ['"overflow_check.overflow_nums" must be -1 (no limit) or an integer > 0, got 0']),
    ("check_mode_unknown", {"task": "overflow_check", "overflow_check": {"check_mode": "vector"}}, {},
     ['"overflow_check.check_mode" must be one of all, aicore, atomic, got "vector"']),
    ("free_benchmark_scope_and_list", {"task": "free_benchmark",
                                       "free_benchmark": {"scope": ["Torch.add.0.forward"], "list": ["relu"]}},
     {}, ['"free_benchmark.scope" and "free_benchmark.list" cannot both be set']),
    ("free_benchmark_pert_mode", {"task": "free_benchmark", "free_benchmark": {"pert_mode": "noise"}}, {},
     ['"free_benchmark.pert_mode" must be one of improve_precision, add_noise, bit_noise, no_change, '
      'change_value, to_cpu', 'got "noise"']),
    ("free_benchmark_cpu_without_to_cpu", {"task": "free_benchmark", "free_benchmark": {"fuzz_device": "cpu"}}, {},
     ['"free_benchmark.fuzz_device" cpu requires "free_benchmark.pert_mode" to_cpu']),
    ("free_benchmark_fix_backward", {"task": "free_benchmark",
                                     "free_benchmark": {"handler_type": "fix", "fuzz_stage": "backward"}},
     {}, ['"free_benchmark.fuzz_stage" must be forward when "free_benchmark.handler_type" is fix']),
    ("free_benchmark_preheat_step", {"task": "free_benchmark", "free_benchmark": {"preheat_step": 0}}, {},
     ['"free_benchmark.preheat_step" must be an integer > 0, got 0']),
    ("run_ut_white_list", {"task": "run_ut", "run_ut": {"white_list": "conv2d"}}, {},
     ['"run_ut.white_list" must be a list of strings, got "conv2d"']),
    ("run_ut_error_data_path", {"task": "run_ut", "run_ut": {"error_data_path": "/no/such/dir"}}, {},
     ['"run_ut.error_data_path" must be a path to an existing directory, got "/no/such/dir"']),
    ("grad_probe_level", {"task": "grad_probe", "grad_probe": {"grad_level": "mix"}}, {},
     ["grad_level must be one of dict_keys(['L0', 'L1', 'L2'])", '"grad_probe.grad_level" is "mix"']),
    ("grad_probe_bounds_descending", {"task": "grad_probe", "grad_probe": {"bounds": [1, 0, -1]}}, {},
     ['bounds list is not ascending', '"grad_probe.bounds" is [1, 0, -1]']),
    # The task override selects (and validates) the section.
    ("override_task_selects_section", {"task": "statistics", "tensor": {"file_format": "h5"}}, {"task": "tensor"},
     ['"tensor.file_format" must be one of npy, bin, got "h5"']),
    # The override level decides the scope pattern.
    ("override_level_scope_pattern", {"statistics": {"scope": ["Torch.a.0.forward", "Torch.b.0.forward"]}},
     {"level": "L0"}, ['"statistics.scope[0]" must be a module name when "level" is L0']),
    # A valid override does not excuse an invalid file value.
    ("file_level_invalid_despite_override", {"level": "L9"}, {"level": "L1"}, ['"level" must be one of', 'got "L9"']),
    ("top_level_list", [], {}, ["the top level must be a JSON object, got a list"]),
]


@pytest.mark.parametrize("case_id,cfg,kwargs,needles", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_config_file(tmp_path, case_id, cfg, kwargs, needles):
    path = write(tmp_path, cfg)
    msg = expect_error(path, ConfigError, needles, **kwargs)
    assert msg.startswith(path + ": "), msg
    assert isinstance(ConfigError(msg), ValueError)


OVERRIDE_INVALID = [
    ("task", {"task": "dump"}, ['argument: "task" must be one of ' + TASKS, 'got "dump"']),
    ("level", {"level": "L5"}, ['argument: "level" must be one of L0, L1, L2, mix, got "L5"']),
    ("dump_path", {"dump_path": "a b"}, ['argument: "dump_path" may only contain']),
    ("step_not_list", {"step": 3}, ['argument: "step" must be a list of integers in 0..1000000', "got 3"]),
    ("step_single_string", {"step": ["3"]}, ['argument: "step[0]" must be an integer in 0..1000000', 'got "3"']),
    ("step_object", {"step": [object()]}, ['argument: "step" must be built from lists, strings and integers']),
    ("level_not_string", {"level": 1}, ['argument: "level" must be a string, got 1']),
    ("framework", {"framework": "tensorflow"}, ['argument: "framework" must be one of pytorch, mindspore']),
]


@pytest.mark.parametrize("case_id,kwargs,needles", OVERRIDE_INVALID, ids=[c[0] for c in OVERRIDE_INVALID])
def test_invalid_override(tmp_path, case_id, kwargs, needles):
    path = write(tmp_path, {})
    msg = expect_error(path, ConfigError, needles, **kwargs)
    assert msg.startswith("argument: "), msg


# ---- file problems --------------------------------------------------------------------------

def test_malformed_json_names_line_and_column(tmp_path):
    path = write(tmp_path, '{\n    "task": "tensor",\n    "level": L1\n}\n')
    msg = expect_error(path, FileErr, [path + ": line 3 column 14: expected a JSON value"])
    assert isinstance(FileErr(msg), ValueError)


def test_trailing_comma_names_position(tmp_path):
    path = write(tmp_path, '{"task": "tensor",}')
    expect_error(path, FileErr, [path + ": line 1 column 19:", "trailing comma"])


def test_empty_file(tmp_path):
    path = write(tmp_path, "")
    expect_error(path, FileErr, [path + ": line 1 column 1:", "empty"])


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.json")
    with pytest.raises(FileErr) as info:
        _core.load_config(path)
    assert str(info.value).startswith(path + ": no such file")
    assert isinstance(info.value, OSError) and isinstance(info.value, ValueError)


def test_directory_instead_of_file(tmp_path):
    d = tmp_path / "cfg.json"
    d.mkdir()
    expect_error(str(d), FileErr, [str(d) + ": is a directory"])


def test_symlink_refused(tmp_path):
    real = write(tmp_path, {}, "real.json")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    expect_error(str(link), FileErr, [str(link) + ": is a symbolic link"])


def test_wrong_suffix(tmp_path):
    path = write(tmp_path, {}, "config.yaml")
    expect_error(path, FileErr, [path + ": the config file must have a .json suffix"])


def test_exception_classes():
    assert issubclass(ConfigError, ValueError)
    assert issubclass(FileErr, OSError) and issubclass(FileErr, ValueError)
    assert ConfigError.__module__ == "msprobe._core" and FileErr.__module__ == "msprobe._core"


# ---- valid cases ----------------------------------------------------------------------------

def test_shipped_default_config_loads():
    assert os.path.isfile(SHIPPED), SHIPPED
    c = _core.load_config(SHIPPED)
    assert (c.task, c.dump_path, c.level) == ("statistics", "./dump_path", "L1")
    assert c.rank == [] and c.step == [] and c.scope == [] and c.list == []
    assert c.data_mode == ["all"] and c.summary_mode == "statistics"
    assert c.enable_dataloader is False and c.async_dump is False
    assert c.file_format == "npy" and c.overflow_nums == 1 and c.check_mode == "all"
    assert c.grad_probe.bounds == [-1.0, 0.0, 1.0]
    assert c.free_benchmark.max_sample == 20 and c.free_benchmark.preheat_step == 15
    assert c.run_ut.error_data_path == "./"
    assert _core.load_config(SHIPPED, framework="mindspore").task == "statistics"


def test_shipped_config_exact_content():
    with open(SHIPPED) as f:
        doc = json.load(f)
    assert doc == {
        "task": "statistics", "dump_path": "./dump_path", "rank": [], "step": [], "level": "L1",
        "enable_dataloader": False, "async_dump": False,
        "tensor": {"scope": [], "list": [], "data_mode": ["all"], "file_format": "npy"},
        "statistics": {"scope": [], "list": [], "data_mode": ["all"], "summary_mode": "statistics"},
        "overflow_check": {"overflow_nums": 1, "check_mode": "all"},
        "run_ut": {"white_list": [], "black_list": [], "error_data_path": "./"},
        "grad_probe": {"grad_level": "L1", "param_list": [], "bounds": [-1, 0, 1]},
        "free_benchmark": {"scope": [], "list": [], "fuzz_device": "npu", "pert_mode": "improve_precision",
                           "handler_type": "check", "fuzz_level": "L1", "fuzz_stage": "forward",
                           "if_preheat": False, "preheat_step": 15, "max_sample": 20},
    }
    assert list(doc) == ["task", "dump_path", "rank", "step", "level", "enable_dataloader", "async_dump",
                         "tensor", "statistics", "overflow_check", "run_ut", "grad_probe", "free_benchmark"]


def test_defaults_from_empty_object(tmp_path):
    c = _core.load_config(write(tmp_path, {}))
    d = c.as_dict()
    assert d["task"] == "statistics" and d["level"] == "L1" and d["dump_path"] == "./dump_path"
    assert d["data_mode"] == ["all"] and d["summary_mode"] == "statistics"


def test_range_expansion(tmp_path):
    c = _core.load_config(write(tmp_path, {"rank": ["0-3"], "step": [7, "2-4", 3, "4-4"]}))
    assert c.rank == [0, 1, 2, 3]
    assert c.step == [2, 3, 4, 7]


def test_overrides_win(tmp_path):
    path = write(tmp_path, {"task": "statistics", "level": "L1", "dump_path": "./a", "step": [0],
                            "tensor": {"list": ["relu"], "data_mode": ["forward"]}})
    c = _core.load_config(path, task="tensor", dump_path="/tmp/out", level="mix", step=["1-2", 5])
    assert (c.task, c.dump_path, c.level, c.step) == ("tensor", "/tmp/out", "mix", [1, 2, 5])
    assert c.list == ["relu"] and c.data_mode == ["forward"]


def test_unknown_keys_ignored(tmp_path):
    c = _core.load_config(write(tmp_path, {"whatever": 1, "statistics": {"extra": True, "summary_mode": "md5"}}))
    assert c.summary_mode == "md5"


def test_online_run_ut_false_or_mindspore_accepted(tmp_path):
    c = _core.load_config(write(tmp_path, {"task": "tensor", "tensor": {"online_run_ut": False}}))
    assert c.task == "tensor"
    # MindSpore 1.2.1 has no online run_ut: the key is unknown there, and ignored like any other.
    c = _core.load_config(write(tmp_path, {"task": "tensor", "tensor": {"online_run_ut": True}}),
                          framework="mindspore")
    assert c.task == "tensor"


def test_other_sections_not_validated(tmp_path):
    c = _core.load_config(write(tmp_path, {"task": "statistics", "tensor": {"file_format": "h5"},
                                           "overflow_check": {"overflow_nums": "x"}}))
    assert c.task == "statistics"


def test_scope_and_list(tmp_path):
    c = _core.load_config(write(tmp_path, {"level": "mix", "statistics": {
        "scope": ["Module.conv1.Conv2d.forward.0", "Functional.relu.0.forward"], "list": ["relu"],
        "data_mode": ["backward", "input"]}}))
    assert c.scope == ["Module.conv1.Conv2d.forward.0", "Functional.relu.0.forward"]
    assert c.list == ["relu"] and c.data_mode == ["backward", "input"]


def test_mindspore_summary_mode_list(tmp_path):
    c = _core.load_config(write(tmp_path, {"statistics": {"summary_mode": ["md5", "l2norm"]}}),
                          framework="mindspore")
    assert c.summary_mode_list == ["md5", "l2norm"]


def test_nan_and_infinity_tokens_parse(tmp_path):
    c = _core.load_config(write(tmp_path, '{"task": "grad_probe", "grad_probe": {"bounds": [-1, 0.5, 1]},'
                                          ' "extra": [NaN, Infinity, -Infinity]}'))
    assert c.grad_probe.bounds == [-1.0, 0.5, 1.0]


def test_parse_config_text():
    c = _core.parse_config_text('{"level": "L0"}', "inline.json")
    assert c.level == "L0"
    with pytest.raises(ConfigError, match=r'^inline\.json: "level" must be one of L0, L1, L2, mix, got "x"$'):
        _core.parse_config_text('{"level": "x"}', "inline.json")
    with pytest.raises(FileErr, match=r"^inline\.json: line 1 column 2: "):
        _core.parse_config_text("{]", "inline.json")


def test_config_is_read_only(tmp_path):
    c = _core.load_config(write(tmp_path, {}))
    with pytest.raises(AttributeError):
        c.level = "L0"
    c.rank.append(5)  # a new list each time; the config is unchanged
    assert c.rank == []
