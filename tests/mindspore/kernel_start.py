"""Creates a PrecisionDebugger for level L2 and calls start() without running a network, then
prints the environment MindSpore's dump would read. Run with our msprobe or (with
MSPROBE_ORIGINAL_SHIM=1) with the original 1.2.1, in the directory that holds config.json.
Usage: kernel_start.py MODE  (graph | graph_o2 | pynative)"""
import json
import os
import sys

if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import orig_shim  # noqa: F401

import mindspore as ms

mode = sys.argv[1]
if mode == "pynative":
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
else:
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU",
                   jit_config={"jit_level": "O2" if mode == "graph_o2" else "O0"})
from msprobe.mindspore import PrecisionDebugger  # noqa: E402

PrecisionDebugger(config_path="./config.json").start()
env = {k: os.path.relpath(os.environ[k]) if k in os.environ else None
       for k in ("MINDSPORE_DUMP_CONFIG", "MS_ACL_DUMP_CFG_PATH")}
print("ENV " + json.dumps(env, sort_keys=True))
