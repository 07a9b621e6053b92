"""run_ut settings: the packaged config.yaml, optionally overridden by the `run_ut` section of a
config.json given with -config (accuracy-checker spec §1.2).

config.yaml keys: white_list, black_list, error_data_path, precision (0..20) and the online keys
(is_online, nfs_path, host, port, rank_list, tls_path). Online run_ut is not implemented here:
is_online must stay false. -config replaces white_list, black_list and error_data_path
(precision always comes from config.yaml). Every problem raises RunUtConfigError with one line
naming the file and the field.
"""
import os

from msprobe.core.yaml_file import YamlFileError, load_yaml_file
from msprobe.pytorch.run_ut.api_list import supported_apis

CONFIG_YAML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.yaml")

_YAML_TYPES = {
    "white_list": list, "black_list": list, "error_data_path": str, "precision": int,
    "is_online": bool, "nfs_path": str, "host": str, "port": int, "rank_list": list,
    "tls_path": str,
}


class RunUtConfigError(ValueError):
    """A run_ut setting is invalid (one line naming the file and field)."""


def wrapped_api_names():
    """Names allowed in white_list / black_list: functional, tensor, torch and torch_npu APIs."""
    lists = supported_apis()
    return frozenset().union(*(lists.get(key, ()) for key in ("functional", "tensor", "torch", "torch_npu")))


def _check_filter_list(origin, key, value):
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise RunUtConfigError(f"{origin}: \"{key}\" must be a list of API names (strings), got {value!r}")
    allowed = wrapped_api_names()
    invalid = [x for x in value if x not in allowed]
    if invalid:
        raise RunUtConfigError(f"{origin}: \"{key}\" holds names that are not supported APIs "
                               f"(see support_wrap_ops.yaml): {invalid}")
    return list(value)


def _check_error_data_path(origin, key, value):
    if not isinstance(value, str) or not value:
        raise RunUtConfigError(f"{origin}: \"{key}\" must be a path to an existing directory, got {value!r}")
    if not os.path.isdir(value):
        raise RunUtConfigError(f"{origin}: \"{key}\" must be an existing directory, got {value!r}")
    return value


class CheckerConfig:
    """Effective run_ut settings."""

    def __init__(self, yaml_path=CONFIG_YAML):
        self.white_list, self.black_list = [], []
        self.error_data_path = "./"
        self.precision = 14
        self.is_online = False
        self._load_yaml(yaml_path)

    def _load_yaml(self, path):
        try:
            data = load_yaml_file(path)
        except YamlFileError as e:
            raise RunUtConfigError(f"run_ut settings {e}") from None
        if not isinstance(data, dict):
            raise RunUtConfigError(f"{path}: must map setting names to values")
        for key, value in data.items():
            want = _YAML_TYPES.get(key)
            if want is None:
                raise RunUtConfigError(f"{path}: unknown setting \"{key}\"; allowed: {', '.join(_YAML_TYPES)}")
            if not isinstance(value, want) or (want is int and isinstance(value, bool)):
                raise RunUtConfigError(f"{path}: \"{key}\" must be of type {want.__name__}, got {value!r}")
        if "precision" in data:
            if not 0 <= data["precision"] <= 20:
                raise RunUtConfigError(f"{path}: \"precision\" must be an integer in 0..20, got {data['precision']}")
            self.precision = data["precision"]
        if "white_list" in data:
            self.white_list = _check_filter_list(path, "white_list", data["white_list"])
        if "black_list" in data:
            self.black_list = _check_filter_list(path, "black_list", data["black_list"])
        if "error_data_path" in data:
            self.error_data_path = _check_error_data_path(path, "error_data_path", data["error_data_path"])
        self._set_online(path, data.get("is_online", False))

    def _set_online(self, origin, is_online):
        if is_online:
            raise RunUtConfigError(f"{origin}: \"is_online\" is true, but online run_ut is not supported; "
                                   "dump the data and run run_ut on the dump.json")
        self.is_online = False

    def load_json(self, path):
        """Applies the run_ut section of a config.json (-config): it replaces white_list,
        black_list and error_data_path (defaults [] / [] / "./")."""
        from msprobe import _core
        # Validates the common fields and the section (one-line ConfigError / MsprobeFileError).
        section = _core.load_config(path, "pytorch", task="run_ut").run_ut
        origin = f"{path}: run_ut"
        self.white_list = _check_filter_list(origin, "white_list", list(section.white_list))
        self.black_list = _check_filter_list(origin, "black_list", list(section.black_list))
        self.error_data_path = _check_error_data_path(origin, "error_data_path", section.error_data_path)

    def is_filtered(self, api_name):
        """True when the short API name is skipped: on the black list, or a white list is set and
        lacks it (black list first)."""
        if self.black_list and api_name in self.black_list:
            return True
        if self.white_list and api_name not in self.white_list:
            return True
        return False
