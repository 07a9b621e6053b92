"""Reading the YAML files users edit: the API lists (support_wrap_ops.yaml), run_ut's
config.yaml, compare's mapping files (-am, -cm, -dm, -lm) and merge_result's -config. One loader,
one error line: "{path}: cannot read: {reason}" or "{path}: not valid YAML (line L, column C):
{problem}". PyYAML parses (its C loader when it has one); each caller checks the document's shape
and raises its own exception type with this message."""
import yaml

# libyaml when PyYAML has it: the pure-Python loader takes most of a second on the API lists.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlFileError(ValueError):
    """A YAML file that cannot be read or parsed; the message is one line naming it."""


def load_yaml_file(path):
    """The document in the YAML file `path` (None for an empty file)."""
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.load(f, Loader=_LOADER)
    except OSError as e:
        raise YamlFileError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise YamlFileError(f"{path}: cannot read: not UTF-8 text") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(e, "problem", None) or "malformed"
        raise YamlFileError(f"{path}: not valid YAML{where}: {problem}") from None
