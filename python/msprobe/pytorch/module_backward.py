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
    are added up in the order they arrive, as autograd's input buffer does;
  * the module's backward ends (on_post) when the full hook's input node would have run (with
    the outputs' gradients if no input needs a gradient, as full hooks do). That
    node would have been numbered just before the module's first node, and autograd runs the
    ready node with the highest number first (a weight's AccumulateGrad before any). So the
    call ends once its input-taking nodes have all run, just before the first node numbered
    below the module's runs: a pre-hook on each node this file hooks, the inputs' nodes among
    them, checks. Whatever has not ended when the backward pass ends (autograd.grad over part of
    the graph) ends then, with the gradients that came.
No hook holds a reference to a node: the graph frees itself as it does without the probe.

What cannot be told apart without the extra node (docs/compatibility.md): a tensor passed twice
as an argument gets all its inside gradient at its first position; an output that is used again
inside the module, or is an input itself, has its whole gradient as grad_output.
"""
import itertools
import weakref

import torch

_sequence_nr = torch._C._autograd._get_sequence_nr
_graph_task_id = torch._C._current_graph_task_id
_gradient_edge = torch.autograd.graph.get_gradient_edge
_LEAF_SEQUENCE_NR = 2 ** 64 - 1  # AccumulateGrad's: it takes nothing and runs first

_NODE_WATCH = "msprobe.module_backward"   # key of a node's _NodeWatch in its metadata dict
_events = itertools.count()


def _now():
    """Where a full hook's node made now would be numbered: after the nodes made so far, and
    after the hook nodes made before it at the same sequence number."""
    return _sequence_nr(), next(_events)


def _node_place(seq):
    """A node's place among those: after every hook node made while seq was the next number."""
    return seq, float("inf")


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


class _Pass:
    """What one backward pass (graph task) has brought its calls so far."""

    def __init__(self, task):
        self.task = task
        self.begun = []    # calls this pass has reached, in that order
        self.ending = []   # calls whose input-taking nodes have all run, not yet ended

    def end_above(self, place):
        """Ends the waiting calls whose input node would be placed above place, inner calls first."""
        due = [c for c in self.ending if c.first_place > place]
        if not due:
            return
        self.ending = [c for c in self.ending if c.first_place <= place]
        for call in sorted(due, key=lambda c: c.first_place, reverse=True):
            call.watch.guard(call.end)


class _Passes:
    """The passes under way (nested ones too: a backward inside a backward)."""

    def __init__(self):
        self.by_task = {}

    def current(self):
        task = _graph_task_id()
        p = self.by_task.get(task)
        if p is None:
            p = self.by_task[task] = _Pass(task)
            torch.autograd.Variable._execution_engine.queue_callback(lambda: self._ends(task))
        return p

    def _ends(self, task):
        p = self.by_task.pop(task, None)
        if p is not None:
            p.end_above((-1, 0))
            for call in reversed(p.begun):   # inner calls were reached later
                call.watch.guard(call.drop, task)


_PASSES = _Passes()


class _CallPass:
    """What one backward pass has brought one forward call."""
    __slots__ = ("task", "grad_outputs", "grad_inputs", "consumers_left", "begun", "ended")

    def __init__(self, task, call):
        self.task = task
        self.grad_outputs = [None] * call.n_outputs
        self.grad_inputs = [None] * call.n_inputs
        self.consumers_left = call.n_consumers
        self.begun = self.ended = False


class _WatchedCall:
    """One forward call of a module, followed through backward."""
    __slots__ = ("module", "watch", "n_inputs", "n_outputs", "n_consumers", "first_place", "end_place",
                 "inputs_need_grad", "state")

    def __init__(self, module, watch, n_inputs, n_outputs, n_consumers, places, inputs_need_grad):
        self.module, self.watch = module, watch
        self.n_inputs, self.n_outputs, self.n_consumers = n_inputs, n_outputs, n_consumers
        # places of the full hooks' input and output nodes, had they been made (_now())
        self.first_place, self.end_place = places
        self.inputs_need_grad = inputs_need_grad
        self.state = None

    def _state(self):
        p = _PASSES.current()
        if self.state is None or self.state.task != p.task:
            self.state = _CallPass(p.task, self)
            p.begun.append(self)
        return self.state

    def output_grad(self, position, grad):
        s = self._state()
        if s.ended:   # an output used inside the module, reached after its backward ended
            return
        s.grad_outputs[position] = grad
        if not s.begun:
            s.begun = True
            self.watch.on_pre(self.module, tuple(s.grad_outputs))
            self._wait_if_complete(s)

    def input_grads(self, slots, grads):
        s = self._state()
        if s.ended:
            return
        for k, position in slots:
            g = grads[k]
            if g is not None:
                acc = s.grad_inputs[position]
                s.grad_inputs[position] = g if acc is None else acc + g
        s.consumers_left -= 1
        self._wait_if_complete(s)

    def _wait_if_complete(self, s):
        if s.begun and s.consumers_left == 0:
            s.consumers_left = -1
            if self.inputs_need_grad:
                _PASSES.current().ending.append(self)
            else:   # full hooks have no input node then: they end with the outputs' gradients
                self.end()

    def end(self):
        s = self.state
        if s is None or s.ended or not s.begun:
            return
        s.ended = True
        grad_inputs, grad_outputs = tuple(s.grad_inputs), tuple(s.grad_outputs)
        s.grad_inputs = s.grad_outputs = None   # kept no longer than the hooks need them
        self.watch.on_post(self.module, grad_inputs, grad_outputs)

    def drop(self, task):
        """The pass is over: a call it began ends now; one that gradients reached only inside,
        without passing an output, had no backward."""
        s = self.state
        if s is not None and s.task == task:
            self.end()
            self.state = None


class _NodeWatch:
    """What this file watches on one node: its outputs' gradients for some calls (before it
    runs), its gradients for their inputs (after), and the calls due to end before it runs."""
    __slots__ = ("seq", "outputs", "inputs")

    def __init__(self, seq):
        self.seq = seq
        self.outputs = []   # (call, output position, output_nr)
        self.inputs = []    # (call, [(slot, input position)])

    def before(self, grad_outputs):
        # The full hooks' nodes would run by their numbers, highest first: an output node is
        # numbered at the end of its forward (an outer call's later), an input node at its start.
        try:
            p = _PASSES.current()
            for call, position, output_nr in reversed(self.outputs):
                p.end_above(call.end_place)
                call.watch.guard(call.output_grad, position, grad_outputs[output_nr])
            p.end_above(_node_place(self.seq))
        except Exception as e:  # noqa: BLE001  never into autograd
            _report(e)

    def after(self, grad_inputs, _grad_outputs):
        for call, slots in self.inputs:   # inner calls first, as full hooks' input nodes run
            call.watch.guard(call.input_grads, slots, grad_inputs)


def _report(error):
    """An error outside any one call's bookkeeping, reported through a watch's guard."""
    def fail():
        raise error
    for watch in list(_WATCHES)[:1]:
        watch.guard(fail)


def _node_watch(node, seq=None):
    meta = node.metadata
    w = meta.get(_NODE_WATCH)
    if w is None:
        w = meta[_NODE_WATCH] = _NodeWatch(node._sequence_nr() if seq is None else seq)
        node.register_prehook(w.before)
    return w


def _consumers(start_nodes, input_edges, first_seq):
    """[(node, its sequence number, [(slot, input position)])]: the nodes made since first_seq and
    reachable from start_nodes that take one of input_edges ({(node, output_nr): position})."""
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
            found.append((node, seq, slots))
    return found


_WATCHES = weakref.WeakSet()   # the BackwardWatch objects alive


def records_in_backward(node):
    """Called for a node whose post-hook records something (an API's backward): the module
    backwards due to end before it runs end first, as full hooks' input nodes would have run."""
    if _WATCHES:
        _node_watch(node)


class BackwardWatch:
    """Follows the backward of every forward call of one module. on_pre(module, grad_output) and
    on_post(module, grad_input, grad_output) are called as full backward (pre-)hooks would be;
    guard(fn, *args) runs fn so that no error can escape into autograd; attribute_tensors(output)
    lists the tensors of an output that is neither a tensor nor a tuple."""

    def __init__(self, on_pre, on_post, guard, attribute_tensors=lambda output: []):
        self.on_pre, self.on_post, self.guard = on_pre, on_post, guard
        self.attribute_tensors = attribute_tensors
        self.running = []   # per forward under way: (n_inputs, {input edge: position}, _now())
        _WATCHES.add(self)

    def forward_begins(self, args):
        """Before the module's forward, with its positional arguments."""
        if not torch.is_grad_enabled():
            self.running.append(None)
            return
        edges = {}
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor) and a.requires_grad:
                edges.setdefault(_edge(a), i)
        self.running.append((len(args), edges, _now()))

    def forward_ends(self, module, output):
        """After the module's forward, with what it returned."""
        started = self.running.pop() if self.running else None
        if started is None:
            return
        n_inputs, input_edges, first = started
        n_outputs, tensors = output_tensors(output, self.attribute_tensors)
        outputs = [(i, _edge(t)) for i, t in tensors if t.requires_grad]
        if not outputs:
            return
        consumers = _consumers({node for _, (node, _) in outputs}, input_edges, first[0])
        call = _WatchedCall(module, self, n_inputs, n_outputs, len(consumers), (first, _now()), bool(input_edges))
        for i, (node, nr) in outputs:
            _node_watch(node).outputs.append((call, i, nr))
        for node, seq, slots in consumers:
            w = _node_watch(node, seq)
            if not w.inputs:
                node.register_hook(w.after)
            w.inputs.append((call, slots))
        # the inputs' nodes: where the full hook's input node would have run just before
        for node, _ in input_edges:
            if node._sequence_nr() != _LEAF_SEQUENCE_NR:
                _node_watch(node)
