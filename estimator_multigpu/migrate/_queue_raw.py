"""Raw queues: `q = tf.FIFOQueue(...)` / `RandomShuffleQueue`, their enqueue ops,
QueueRunner and dequeues, onto `emg.inputs.queues`' drop-ins.

    queue = tf.FIFOQueue(capacity=10, dtypes=[tf.float32])
    enqueue = queue.enqueue_many([values])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 2))
    batch = queue.dequeue_many(32)

becomes the same lines on `emg.inputs.queues.FIFOQueue`, `QueueRunner` and
`add_queue_runner`, with `batch = emg.inputs.queues.get_next(queue.dequeue_many(32))`.
A queue is taken only when every use of it is one of those, and what it
enqueues reads no reader or queue (such values need a dataset: by hand).
A `dequeue()` that feeds a per-thread preprocessing loop before a
`batch_join` stays a dataset (see `queue_threads`).
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._dataflow import NotAChain

QUEUES = ("FIFOQueue", "RandomShuffleQueue")
_NAMESPACES = ("tf", "tf.queue", "tf.io")
RUNNER_NAMES = ("tf.train.QueueRunner", "tf.train.queue_runner.QueueRunner")
_ADD = ("tf.train.add_queue_runner", "tf.train.queue_runner.add_queue_runner")
ENQUEUES = ("enqueue", "enqueue_many")
DEQUEUES = ("dequeue", "dequeue_many", "dequeue_up_to")
# The constant fills that prime a queue used as state (`_primed`).
_FILLS = ("tf.zeros", "tf.ones", "tf.fill", "tf.zeros_like", "tf.ones_like")
# Calls whose results read the next record or element on every run.
_STATEFUL = ("read", "read_up_to", "get_next", "limit_epochs", *DEQUEUES)


@dataclasses.dataclass
class RawQueue:
    """A raw queue that `--fix` moves onto the drop-ins.

    Attributes:
      make: the constructor call (`tf.FIFOQueue(...)`).
      kind: `'FIFOQueue'` or `'RandomShuffleQueue'`.
      dequeues: the `queue.dequeue*()` calls.
      runners: the `QueueRunner(queue, ...)` calls.
      adds: the `add_queue_runner(...)` calls that register those runners.
      scope: the function (or module) it is made in.
    """

    make: ast.Call
    kind: str
    dequeues: list[ast.Call]
    runners: list[ast.Call]
    adds: list[ast.Call]
    scope: ast.AST


def queue_kind(table: _aliases.AliasTable, node: ast.AST) -> str | None:
    """`FIFOQueue`/`RandomShuffleQueue` if `node` calls that TF1 class."""
    if not isinstance(node, ast.Call):
        return None
    path = table.resolve_tf(node.func) or ""
    ns, _, last = path.rpartition(".")
    return last if last in QUEUES and ns in _NAMESPACES else None


def find(tree: ast.Module, table: _aliases.AliasTable):
    """Returns (queues, refusals): refusals are (constructor call, reason)."""
    found, refused = [], []
    for scope in _astutil.scopes(tree):
        for node in _astutil.walk_scope([scope]):
            if isinstance(node, ast.Assign) and queue_kind(table, node.value):
                try:
                    found.append(_recognise(scope, node, table))
                except NotAChain as why:
                    refused.append((node.value, str(why)))
    return found, refused


def _queue_name(scope, assign: ast.Assign, nodes) -> tuple[str, list[ast.Name]]:
    """The queue's name and its Name nodes, if it is bound once, in `scope` only."""
    target = assign.targets[0] if len(assign.targets) == 1 else None
    if not isinstance(target, ast.Name):
        raise NotAChain("the queue is not assigned to a plain name")
    name = target.id
    names = [n for n in nodes if isinstance(n, ast.Name) and n.id == name]
    if sum(not _load(n) for n in names) != 1:
        why = f"`{name}` is assigned more than once"
        also = _enqueue_problem(nodes, names)
        raise NotAChain(f"{why}; also {also}" if also else why)
    if _astutil.reads(scope)[name] != sum(_load(n) for n in names):
        raise NotAChain(f"`{name}` is used in a nested function")
    return name, names


@dataclasses.dataclass
class _Uses:
    """How the queue's uses are told apart: the calls of the scope, by part."""

    methods: dict  # id(receiver) -> the method call on it
    firsts: dict  # id(first argument) -> the call it is passed to
    tainted: set  # names bound to reader/queue reads

    @classmethod
    def of(cls, nodes) -> _Uses:
        return cls(*call_maps(nodes), _tainted(nodes))


def call_maps(nodes) -> tuple[dict, dict]:
    """(id(receiver) -> the method call on it, id(first argument) -> the call
    it is passed to) over the calls among `nodes`."""
    calls = {id(n.func): n for n in nodes if isinstance(n, ast.Call)}
    methods = {
        id(n.value): calls.get(id(n)) for n in nodes if isinstance(n, ast.Attribute)
    }
    firsts = {id(a): n for n in calls.values() for a in n.args[:1]}
    return methods, firsts


def _sort_use(use, name, uses: _Uses, table, dequeues, runners) -> None:
    """Files one read of the queue: an enqueue (checked), dequeue or runner."""
    call = uses.methods.get(id(use))
    if call is not None and call.func.attr in ENQUEUES:
        _check_enqueued(call, uses.tainted)
    elif call is not None and call.func.attr in DEQUEUES:
        dequeues.append(call)
    elif id(use) in uses.firsts and (
        table.resolve_tf(uses.firsts[id(use)].func) in RUNNER_NAMES
    ):
        runners.append(uses.firsts[id(use)])
    else:
        raise NotAChain(
            f"line {use.lineno}: `{name}` is used other than by enqueue, "
            "dequeue or QueueRunner calls"
        )


def _recognise(scope, assign: ast.Assign, table) -> RawQueue:
    nodes = list(_astutil.walk_scope([scope]))
    primed = _primed(assign, nodes, table)
    if primed is not None:
        raise NotAChain(_state_buffer_why(primed))
    name, names = _queue_name(scope, assign, nodes)
    uses = _Uses.of(nodes)
    dequeues, runners = [], []
    for use in (n for n in names if _load(n)):
        _sort_use(use, name, uses, table, dequeues, runners)
    adds = runner_adds(scope, nodes, runners, table)
    kind = queue_kind(table, assign.value)
    return RawQueue(assign.value, kind, dequeues, runners, adds, scope)


def _primed(assign: ast.Assign, nodes, table) -> ast.Call | None:
    """The `q.enqueue_many(tf.zeros(...))` that primes the queue bound by
    `assign` with a constant fill (a queue used as state: a delay line the
    session steps, one dequeue and one enqueue a run), when it has one: the
    first such call after the assignment."""
    target = assign.targets[0] if len(assign.targets) == 1 else None
    if not isinstance(target, ast.Name):
        return None
    fills = [
        node
        for node in nodes
        if _fills(node, target.id, table) and node.lineno >= assign.lineno
    ]
    return min(fills, key=lambda n: (n.lineno, n.col_offset), default=None)


def _fills(node: ast.AST, name: str, table) -> bool:
    """True for `name.enqueue_many(<a constant fill>)`."""
    func = node.func if isinstance(node, ast.Call) else None
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "enqueue_many"
        and isinstance(func.value, ast.Name)
        and func.value.id == name
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Call)
        and table.resolve_tf(node.args[0].func) in _FILLS
    )


def _state_buffer_why(primed: ast.Call) -> str:
    fill = ast.unparse(primed.args[0].func)
    return (
        f"a state buffer, not an input pipeline: line {primed.lineno} primes it "
        f"with {fill}(...) and the graph reads and writes it once a run (a "
        "delay line); there is nothing to move to tf.data: it runs as it is "
        "under the compat.v1 port, or keep the state in a tf.Variable by hand"
    )


def _enqueue_problem(nodes, names) -> str | None:
    """Why the queue's enqueued values cannot stay tensors, if they cannot
    (named with another refusal, so that both show at once)."""
    calls = {
        id(n.func.value): n
        for n in nodes
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }
    tainted = _tainted(nodes)
    for use in names:
        call = calls.get(id(use))
        if call is not None and getattr(call.func, "attr", None) in ENQUEUES:
            try:
                _check_enqueued(call, tainted)
            except NotAChain as why:
                return str(why)
    return None


def _load(node: ast.Name) -> bool:
    return isinstance(node.ctx, ast.Load)


def _check_enqueued(call: ast.Call, tainted: set[str]) -> None:
    reads = set().union(*(_astutil.reads(a) for a in call.args + call.keywords))
    stateful = [
        n
        for a in call.args
        for n in _astutil.nodes(a, ast.Call)
        if _astutil.call_target(n) in _STATEFUL
    ]
    if reads & tainted or stateful:
        raise NotAChain(
            f"line {call.lineno}: the enqueued values come from a reader, a "
            "queue or limit_epochs (each run reads anew); after --fix the queue "
            "takes a dataset of them instead: queue.enqueue("
            "emg.inputs.queues.read(filenames, reader).map(fn)), rewrite by hand"
        )


def _tainted(nodes) -> set[str]:
    """Names bound (directly or through other names) to reader/queue reads."""
    out: set[str] = set()
    binds = [n for n in nodes if isinstance(n, ast.Assign | ast.AugAssign | ast.For)]
    changed = True
    while changed:
        changed = False
        for node in binds:
            value = node.iter if isinstance(node, ast.For) else node.value
            stateful = any(
                isinstance(n, ast.Call) and _astutil.call_target(n) in _STATEFUL
                for n in _astutil.walk(value)
            )
            if not (stateful or set(_astutil.reads(value)) & out):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = set().union(*(_astutil.writes(t) for t in targets))
            if not bound <= out:
                out |= bound
                changed = True
    return out


def _bound_runners(nodes, runners: list[ast.Call]) -> dict[str, ast.Call]:
    """name -> runner, for `name = QueueRunner(...)` of one of `runners`."""
    bound = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and any(node.value is r for r in runners):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                bound[node.targets[0].id] = node.value
    return bound


def _thread_starts(nodes, name: str) -> int:
    """How many `name.create_threads(...)` calls `nodes` hold."""
    return sum(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "create_threads"
        and getattr(n.func.value, "id", None) == name
        for n in nodes
    )


def _check_runner_uses(scope, nodes, runners, bound, out, direct) -> None:
    """Refuses a runner used other than by the add_queue_runner calls `out`,
    or, when it has none, by `create_threads` calls (the drop-in's starts no
    thread: the queue reads its enqueue ops when dequeued)."""
    for name in bound:
        added = sum(getattr(a.args[0], "id", None) == name for a in out)
        if _astutil.reads(scope)[name] != (added or _thread_starts(nodes, name)):
            raise NotAChain(
                f"the QueueRunner `{name}` is used other than by add_queue_runner"
            )
    for runner in runners:
        if id(runner) not in direct and runner not in bound.values():
            if not _statement_value(nodes, runner):
                raise NotAChain(
                    f"line {runner.lineno}: the QueueRunner is used other than by "
                    "add_queue_runner"
                )


def runner_adds(scope, nodes, runners: list[ast.Call], table) -> list[ast.Call]:
    """The add_queue_runner calls that register `runners`.

    Raises:
      NotAChain: if a runner is used otherwise (a TF1 add_queue_runner or
        start_queue_runners would meet the drop-in's runner).
    """
    adds = [
        n
        for n in nodes
        if isinstance(n, ast.Call) and table.resolve_tf(n.func) in _ADD and n.args
    ]
    direct = {id(a.args[0]) for a in adds}
    bound = _bound_runners(nodes, runners)
    out = [
        add
        for add in adds
        if any(add.args[0] is r for r in runners)
        or getattr(add.args[0], "id", None) in bound
    ]
    _check_runner_uses(scope, nodes, runners, bound, out, direct)
    return out


def _statement_value(nodes, call: ast.Call) -> bool:
    """True if `call` is a whole expression statement (its result unused)."""
    return any(isinstance(n, ast.Expr) and n.value is call for n in nodes)


def edits(found: RawQueue, off, q: str, datasets: set[int]) -> list:
    """Edits moving `found` onto the drop-ins; `datasets` holds the ids of
    dequeue calls that stay datasets (the others get `get_next`)."""
    out = [off.replace(found.make.func, f"{q}.{found.kind}")]
    out += [off.replace(r.func, f"{q}.QueueRunner") for r in found.runners]
    out += [off.replace(a.func, f"{q}.add_queue_runner") for a in found.adds]
    for call in found.dequeues:
        if id(call) not in datasets:
            out.append(off.replace(call, f"{q}.get_next({off.text(call)})"))
    return out


def rewritten_nodes(found: RawQueue) -> set[int]:
    """The ids of the legacy name nodes the edits replace (their findings)."""
    return {id(c.func) for c in [found.make, *found.runners, *found.adds]}
