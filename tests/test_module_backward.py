"""Module backward at L0 and mix without torch's full backward hooks
(msprobe/pytorch/module_backward.py): training is unchanged bit for bit, the recorded gradients are
the ones full backward hooks hand over, and the autograd graph gets no node and frees itself.

The arithmetic check needs no particular CPU: an input used twice inside a module and once beside
it (a residual) gets three float32 gradients, 1.0, 3e-8 and -1.0, and how autograd groups their sum
decides the result (5.96e-8 as autograd adds them, 0.0 when a hook node sums the inside ones
first). Elementwise float32 additions are exact IEEE operations on every x86-64 CPU.
"""
import gc
import math
import weakref

import pytest
import torch
from conftest import load_dump

LEVELS = ("L0", "mix")


class Inside(torch.nn.Module):
    """Uses its input twice; its gradient is 1.0 + 3e-8, which rounds to 1.0."""

    def forward(self, x):
        return x * 1.0 + x * 3e-8


class Residual(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inside = Inside()

    def forward(self, x):
        h = x * 1.0
        return self.inside(h) + h * -1.0


def residual_grad(debugger=None, level=None, full_hook=False):
    model = Residual()
    if full_hook:
        model.inside.register_full_backward_hook(lambda *args: None)
    x = torch.ones(4, requires_grad=True)
    if debugger:
        debugger.start(model)
    model(x).sum().backward()
    if debugger:
        debugger.stop()
    return x.grad


@pytest.mark.parametrize("level", LEVELS)
def test_gradient_sums_unchanged(fresh_debugger, level):
    plain = residual_grad()
    assert plain.tolist() == [2.0 ** -24] * 4
    # the control: a no-op full backward hook changes the gradient, so this case would show it
    assert residual_grad(full_hook=True).tolist() == [0.0] * 4
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level=level)
    probed = residual_grad(dbg, level)
    assert probed.tolist() == plain.tolist()
    data = load_dump("./dump")[0]["data"]
    entry = data["Module.inside.Inside.backward.0"]
    # grad_output is 1.0; grad_input is the inside sum 1.0 + 3e-8, as a full hook reports it
    assert [entry["input"][0]["Max"], entry["output"][0]["Max"]] == [1.0, 1.0]


class TwoOut(torch.nn.Module):
    def forward(self, x):
        return x * 2.0, x.sin()


class NoGradIn(torch.nn.Module):
    """Its input needs no gradient: grad_input is (None,)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class Unused(torch.nn.Module):
    """Returns an output nobody uses, made by a node of its own: its grad_output is None."""

    def forward(self, x):
        return x.tanh(), x.exp()


class Mixed(torch.nn.Module):
    """Every construct the oracle below compares: nested modules, a shared module called twice,
    two outputs, an unused output, an input without gradient, non-tensor arguments."""

    def __init__(self):
        super().__init__()
        self.first = NoGradIn()
        self.shared = torch.nn.Linear(4, 4)
        self.two = TwoOut()
        self.unused = Unused()
        self.act = torch.nn.GELU()

    def forward(self, x):
        h = self.first(x)
        a, b = self.two(self.shared(h))
        c, _ = self.unused(a)
        return self.act(self.shared(c + b) + h)


def full_hook_grads(model, x):
    """{module name: [(grad_input, grad_output)] in the order their backward ended} from torch's
    full backward hooks on a copy."""
    got = {}
    for name, module in model.named_modules():
        if name:
            module.register_full_backward_hook(
                lambda m, gi, go, name=name: got.setdefault(name, []).append((gi, go)))
    model(x).sum().backward()
    return got


def stats(t):
    t = t.detach().double()
    return [t.max().item(), t.min().item(), t.mean().item(), t.norm().item()]


def same_records(records, tensors, where):
    assert len(records) == len(tensors), where
    for rec, t in zip(records, tensors):
        if t is None:
            assert rec is None, where
            continue
        got = [rec["Max"], rec["Min"], rec["Mean"], rec["Norm"]]
        scale = max(abs(v) for v in got[:2])
        assert all(math.isclose(g, w, rel_tol=1e-6, abs_tol=1e-7 * scale) for g, w in zip(got, stats(t))), \
            (where, got, stats(t))


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")   # the oracle's, on first
@pytest.mark.parametrize("level", LEVELS)
def test_recorded_gradients_are_full_hook_gradients(fresh_debugger, level):
    torch.manual_seed(3)
    model = Mixed()
    x = torch.randn(2, 4)
    reference = Mixed()
    reference.load_state_dict(model.state_dict())
    oracle = full_hook_grads(reference, x)
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level=level)
    dbg.start(model)
    model(x).sum().backward()
    dbg.stop()
    data = load_dump("./dump")[0]["data"]
    checked = 0
    for name, calls in oracle.items():
        cls = type(model.get_submodule(name)).__name__
        for i, (grad_input, grad_output) in enumerate(calls):
            entry = data[f"Module.{name}.{cls}.backward.{i}"]
            same_records(entry["input"], grad_output, (name, i, "grad_output"))
            same_records(entry["output"], grad_input, (name, i, "grad_input"))
            checked += 1
    # first.lin, first, shared twice, two, unused, act: 7 backward calls, and no other
    assert checked == 7
    assert len([k for k in data if k.startswith("Module.") and ".backward." in k]) == 7


def graph_nodes(root):
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen


@pytest.mark.parametrize("level", LEVELS)
def test_no_node_added_to_the_graph(fresh_debugger, level):
    torch.manual_seed(0)
    model = Mixed()
    x = torch.randn(2, 4)
    plain = sorted(n.name() for n in graph_nodes(model(x).sum().grad_fn))
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level=level)
    dbg.start(model)
    loss = model(x).sum()
    probed = sorted(n.name() for n in graph_nodes(loss.grad_fn))
    loss.backward()
    dbg.stop()
    assert "BackwardHookFunctionBackward" not in probed
    assert probed == plain
    assert "Module.act.GELU.backward.0" in load_dump("./dump")[0]["data"]


@pytest.mark.parametrize("level", LEVELS)
def test_graph_freed_without_backward(fresh_debugger, level):
    """No hook holds a node: a forward whose backward never runs (an evaluation with grad on)
    leaves nothing alive once its outputs are dropped."""
    saved = []

    class Keeps(torch.nn.Module):
        def forward(self, x):
            a = x * 2.0
            saved.append(weakref.ref(a))   # saved by sin's node for its backward
            return a.sin()

    model = torch.nn.Sequential(Keeps(), torch.nn.Linear(4, 4))
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level=level)
    dbg.start(model)
    out = model(torch.randn(2, 4, requires_grad=True))
    dbg.stop()
    assert saved[0]() is not None
    del out
    gc.collect()
    assert saved[0]() is None


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        return self.w * x.sin()


@pytest.mark.parametrize("level", LEVELS)
def test_partial_and_repeated_backward(fresh_debugger, level):
    """autograd.grad over part of the graph: a module backward that began ends when the pass
    does, though the node taking its input never runs; a second backward over the retained graph
    records each module once more."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), Scale())
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level=level)
    dbg.start(model)
    loss = model(torch.randn(3, 4)).sum()
    (g,) = torch.autograd.grad(loss, [model[1].w], retain_graph=True)   # sin's node does not run
    loss.backward()
    dbg.stop()
    dump, _, construct = load_dump("./dump")
    data = dump["data"]
    backward = [k for k in data if k.startswith("Module.") and ".backward." in k]
    assert backward == ["Module.1.Scale.backward.0", "Module.1.Scale.backward.1",
                        "Module.0.Linear.backward.0"]
    assert data["Module.1.Scale.backward.0"]["output"] == [None]   # the input's gradient never came
    assert data["Module.1.Scale.backward.1"]["output"][0]["shape"] == [3, 4]
    assert all(construct[k] is None for k in backward)
    assert torch.equal(g, model[1].w.grad)
