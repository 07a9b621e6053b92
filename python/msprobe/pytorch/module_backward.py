"""A module's backward (its gradients in and out, as torch's full backward hooks hand them over)
read off the autograd graph its forward built, without adding a node to that graph.

torch's full backward hooks route a module's inputs and outputs through a `BackwardHookFunction`
node. That node changes which gradients autograd adds up first: a tensor used inside the module
and beside it (a residual) gets its inside gradients summed before the outside ones. Float
addition is not associative, so the weights' gradients, and training, change in the last bits.

Here nothing is added to the graph. One forward call of a module is followed like this:
  * its outputs' gradients: a pre-hook on the node that made each output. The module's backward
    begins (on_pre) when the first of them is about to run, as the full hook's output node would;
  * its inputs' gradients: a post-hook on each node made during the forward that takes one of the
    inputs. These nodes are found by walking the graph back from the outputs, over the nodes whose
    sequence number says they were made during this forward. Each one's gradients for an input
    are added up in the order they arrive, as autograd's input buffer does. The module's backward
    ends (on_post) when the last of them has run;
  * whatever has not ended when the backward pass ends (autograd.grad over part of the graph, a
    node that did not run) ends then, with the gradients that came.
No hook holds a reference to a node: the graph frees itself as it does without the probe.

What cannot be told apart without the extra node (docs/compatibility.md): a tensor passed twice
as an argument gets all its inside gradient at its first position; an output that is used again
inside the module, or is an input itself, has its whole gradient as grad_output.
"""
import torch

_sequence_nr = torch._C._autograd._get_sequence_nr
_graph_task_id = torch._C._current_graph_task_id
_gradient_edge = torch.autograd.graph.get_gradient_edge
_LEAF_SEQUENCE_NR = 2 ** 64 - 1  # AccumulateGrad's; it takes nothing

# Keys of the watcher lists kept in a node's metadata dict (one hook per node and kind).
_OUTPUT_WATCHERS = "msprobe.module_outputs"
_INPUT_WATCHERS = "msprobe.module_inputs"


def _edge(tensor):
    edge = _gradient_edge(tensor)
    return edge.node, edge.output_nr


def output_tensors(output, attribute_tensors):
    """(number of output positions, [(position, tensor)]) as full backward hooks see a module's
    output: a tensor, or the tensors of a tuple; any other object through attribute_tensors."""
    if isinstance(output, torch.Tensor):
        return 1, [(0, output)]
    if isinstance(output, tuple):
        return len(output), [(i, t) for i, t in enumerate(output) if isinstance(t, torch.Tensor)]
    tensors = attribute_tensors(output)
    return len(tensors), list(enumerate(tensors))


class _OpenCalls:
    """The calls a backward pass has begun, each ended at the latest when the pass ends."""

    def __init__(self):
        self.by_task = {}

    def add(self, task, call):
        calls = self.by_task.get(task)
        if calls is None:
            calls = self.by_task[task] = []
            torch.autograd.Variable._execution_engine.queue_callback(lambda: self._pass_ends(task))
        calls.append(call)

    def _pass_ends(self, task):
        for call in reversed(self.by_task.pop(task, ())):   # inner calls began later
            call.watch.guard(call.pass_ends, task)


_OPEN = _OpenCalls()


class _Pass:
    """What one backward pass has brought one forward call so far."""
    __slots__ = ("task", "grad_outputs", "grad_inputs", "consumers_left", "begun", "ended")

    def __init__(self, task, call):
        self.task = task
        self.grad_outputs = [None] * call.n_outputs
        self.grad_inputs = [None] * call.n_inputs
        self.consumers_left = call.n_consumers
        self.begun = self.ended = False


class _WatchedCall:
    """One forward call of a module, followed through backward."""
    __slots__ = ("module", "watch", "n_inputs", "n_outputs", "n_consumers", "state")

    def __init__(self, module, watch, n_inputs, n_outputs, n_consumers):
        self.module, self.watch = module, watch
        self.n_inputs, self.n_outputs, self.n_consumers = n_inputs, n_outputs, n_consumers
        self.state = None

    def _pass(self):
        task = _graph_task_id()
        if self.state is None or self.state.task != task:
            self.state = _Pass(task, self)
            _OPEN.add(task, self)
        return self.state

    def output_grad(self, position, grad):
        p = self._pass()
        if p.ended:   # an output used inside the module, reached after its backward ended
            return
        p.grad_outputs[position] = grad
        if not p.begun:
            p.begun = True
            self.watch.on_pre(self.module, tuple(p.grad_outputs))
            self._end_if_complete(p)

    def input_grads(self, slots, grads):
        p = self._pass()
        if p.ended:
            return
        for k, position in slots:
            g = grads[k]
            if g is not None:
                acc = p.grad_inputs[position]
                p.grad_inputs[position] = g if acc is None else acc + g
        p.consumers_left -= 1
        self._end_if_complete(p)

    def _end_if_complete(self, p):
        if p.begun and p.consumers_left <= 0:
            self._end(p)

    def _end(self, p):
        p.ended = True
        grad_inputs, grad_outputs = tuple(p.grad_inputs), tuple(p.grad_outputs)
        p.grad_inputs = p.grad_outputs = None   # kept no longer than the hooks need them
        self.watch.on_post(self.module, grad_inputs, grad_outputs)

    def pass_ends(self, task):
        p = self.state
        if p is not None and p.task == task:
            self.state = None
            # not begun: gradients reached the inside without passing an output (no backward)
            if p.begun and not p.ended:
                self._end(p)


def _watchers(node, key, make_hook, register):
    """The watcher list of node under key; the node's one hook for it registered on first use."""
    meta = node.metadata
    watchers = meta.get(key)
    if watchers is None:
        watchers = meta[key] = []
        register(node, make_hook(watchers))
    return watchers


def _output_hook(watchers):
    def hook(grad_outputs):
        # Outer calls first, as full hooks' output nodes run: an outer forward ends later.
        for call, position, output_nr in reversed(watchers):
            call.watch.guard(call.output_grad, position, grad_outputs[output_nr])
    return hook


def _input_hook(watchers):
    def hook(grad_inputs, _grad_outputs):
        for call, slots in watchers:   # inner calls first, as full hooks' input nodes run
            call.watch.guard(call.input_grads, slots, grad_inputs)
    return hook


def _consumers(start_nodes, input_edges, first_seq):
    """[(node, [(slot, input position)])]: the nodes made since first_seq and reachable from
    start_nodes that take one of input_edges ({(node, output_nr): position})."""
    if not input_edges:
        return []
    found, seen = [], set()
    stack = list(start_nodes)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        seq = node._sequence_nr()
        if seq < first_seq or seq == _LEAF_SEQUENCE_NR:
            continue
        slots = []
        for k, (nxt, nr) in enumerate(node.next_functions):
            if nxt is None:
                continue
            position = input_edges.get((nxt, nr))
            if position is None:
                stack.append(nxt)
            else:
                slots.append((k, position))
        if slots:
            found.append((node, slots))
    return found


class BackwardWatch:
    """Follows the backward of every forward call of one module. on_pre(module, grad_output) and
    on_post(module, grad_input, grad_output) are called as full backward (pre-)hooks would be;
    guard(fn, *args) runs fn so that no error can escape into autograd; attribute_tensors(output)
    lists the tensors of an output that is neither a tensor nor a tuple."""

    def __init__(self, on_pre, on_post, guard, attribute_tensors=lambda output: []):
        self.on_pre, self.on_post, self.guard = on_pre, on_post, guard
        self.attribute_tensors = attribute_tensors
        self.running = []   # per forward under way: (n_inputs, {input edge: position}, first seq nr)

    def forward_begins(self, args):
        """Before the module's forward, with its positional arguments."""
        if not torch.is_grad_enabled():
            self.running.append(None)
            return
        edges = {}
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor) and a.requires_grad:
                edges.setdefault(_edge(a), i)
        self.running.append((len(args), edges, _sequence_nr()))

    def forward_ends(self, module, output):
        """After the module's forward, with what it returned."""
        started = self.running.pop() if self.running else None
        if started is None:
            return
        n_inputs, input_edges, first_seq = started
        n_outputs, tensors = output_tensors(output, self.attribute_tensors)
        outputs = [(i, _edge(t)) for i, t in tensors if t.requires_grad]
        if not outputs:
            return
        consumers = _consumers({node for _, (node, _) in outputs}, input_edges, first_seq)
        call = _WatchedCall(module, self, n_inputs, n_outputs, len(consumers))
        for i, (node, nr) in outputs:
            _watchers(node, _OUTPUT_WATCHERS, _output_hook,
                      lambda n, h: n.register_prehook(h)).append((call, i, nr))
        for node, slots in consumers:
            _watchers(node, _INPUT_WATCHERS, _input_hook,
                      lambda n, h: n.register_hook(h)).append((call, slots))
