"""dump.json entry order, which 1.2.1's compare relies on: parameters_grad is appended when the
gradients arrive and put where 1.2.1 reserves it (right after its module's first forward of the
step) when the step's files are finalized. With gradient accumulation 1.2.1 keeps one entry per
module and step, holding the last backward's gradient (checked by hand against 1.2.1 on this
script: same keys, same order, same values)."""
import json

from conftest import load_json, run_python
from torn_json import raw_names

SCRIPT = r"""
import json, torch
from msprobe.pytorch import PrecisionDebugger
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
d = PrecisionDebugger(task="statistics", dump_path="./dump", level="L0")
last = {}
for step in range(2):
    d.start(net)
    for micro_batch in range(3):
        before = net[0].weight.grad.clone() if net[0].weight.grad is not None else 0
        net(torch.randn(5, 4)).sum().backward()
        last[step] = (net[0].weight.grad - before).max().item()
    d.stop()
    d.step()
    net.zero_grad()
print(json.dumps(last))
"""


def test_parameters_grad_once_per_step_in_1_2_1_place_with_last_gradient(tmp_path):
    r = run_python(SCRIPT, cwd=tmp_path)
    last = json.loads(r.stdout.strip().splitlines()[-1])
    for step in (0, 1):
        path = tmp_path / "dump" / f"step{step}" / "rank" / "dump.json"
        names = raw_names(path.read_text(), "dump")
        assert len(names) == len(set(names))          # the finished file names each entry once
        assert names[:5] == ["Module.0.Linear.forward.0", "Module.0.Linear.parameters_grad",
                             "Module.1.ReLU.forward.0", "Module.2.Linear.forward.0",
                             "Module.2.Linear.parameters_grad"]
        assert sum("parameters_grad" in n for n in names) == 2
        grad = load_json(path)["data"]["Module.0.Linear.parameters_grad"]["weight"][0]
        assert abs(grad["Max"] - last[str(step)]) <= 1e-6 * max(1.0, abs(last[str(step)]))
