"""1.2.1's grad_probe config messages, as fixtures: each bad grad_probe section is given to the
original's PrecisionDebugger and the exception's type and text are written as JSON (1.2.1 logs
to stdout, hence the file argument):

  ../orig121/bin/python tests/grad_probe/make_config_messages.py pytorch \\
      tests/fixtures/grad_probe_1.2.1/config_messages.json
  MSPROBE_ORIGINAL_SHIM=1 ../orig121ms/bin/python tests/grad_probe/make_config_messages.py mindspore \\
      tests/fixtures/grad_probe_1.2.1_mindspore/config_messages.json

(run from the repository root; test_grad_probe_config_messages.py gives ours the same sections)."""
import json
import os
import sys
import tempfile

CASES = {
    "level_L3": {"grad_level": "L3"},
    "param_list_str": {"param_list": "w"},
    "bounds_str": {"bounds": "0"},
    "bounds_item": {"bounds": [0, "1"]},
    "bounds_range": {"bounds": [0, 1e30]},
    "bounds_descending": {"bounds": [1, 0, -1]},
    "bounds_equal": {"bounds": [0, 0]},
}


def main(framework, out_path):
    out_path = os.path.abspath(out_path)
    if framework == "pytorch":
        from msprobe.pytorch import PrecisionDebugger
    else:
        if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                            "mindspore"))
            import orig_shim  # noqa: F401
        from msprobe.mindspore import PrecisionDebugger
    out = {}
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        for name, section in CASES.items():
            with open("config.json", "w") as f:
                json.dump({"task": "grad_probe", "dump_path": "./out", "grad_probe": section}, f)
            PrecisionDebugger._instance = None
            try:
                PrecisionDebugger("config.json")
                out[name] = None
            except Exception as e:  # noqa: BLE001  what the original raises is the fixture
                out[name] = [type(e).__name__, str(e)]
    with open(out_path, "w") as f:
        f.write(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
