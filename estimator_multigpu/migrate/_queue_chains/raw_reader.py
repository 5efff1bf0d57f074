"""Raw queues fed from a reader: `queue.enqueue([image, label])` of values
decoded from `reader.read(filename_queue)`.

    _, value = reader.read(file_queue)
    image = decode(value)
    if mode == 'train':
        image = augment(image)
        queue = tf.RandomShuffleQueue(...)
    else:
        queue = tf.FIFOQueue(...)
    op = queue.enqueue([image, label])

becomes a per-example function over the records (each `if` keeps its
per-example branches there; the queue constructors stay where they were)
and the queue enqueues the dataset of its results:

    def _example_fn(_, value):
        image = decode(value)
        if mode == 'train':
            image = augment(image)
        return (image, label)

    if mode == 'train':
        queue = emg.inputs.queues.RandomShuffleQueue(...)
    else:
        queue = emg.inputs.queues.FIFOQueue(...)
    op = queue.enqueue(emg.inputs.queues.read(file_queue, reader).map(_example_fn))
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _astutil,
    _queue_raw,
    _sources,
)
from estimator_multigpu.migrate._dataflow import NotAChain
from estimator_multigpu.migrate._edits import Edit


@dataclasses.dataclass
class ReaderQueue:
    """One recognised raw queue fed from a reader (see the module docstring)."""

    read_stmt: ast.Assign
    enqueue: ast.Call
    between: list[ast.stmt]
    tainted: set[str]
    makes: list[ast.Call]
    raw: _queue_raw.RawQueue
    read_parts: tuple
    renames: list
    kinds: list[str]
    inner: list[Edit] = dataclasses.field(default_factory=list)
    unit: str = "    "


def find(scope, table) -> tuple[list[ReaderQueue], list[tuple[int, str]]]:
    """Returns (queues, refusals) in the body of `scope`."""
    found, refused = [], []
    block = getattr(scope, "body", [])
    for s_idx, stmt in enumerate(block):
        if not _is_read(stmt):
            continue
        for e_idx in range(s_idx + 1, len(block)):
            enq = _enqueue_of(block[e_idx])
            if enq is None:
                continue
            try:
                found.append(_recognise(scope, block, s_idx, e_idx, enq, table))
            except NotAChain as why:
                refused.append((enq.lineno, str(why)))
            break
    return found, refused


def _is_read(stmt) -> bool:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    value = stmt.value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "read"
        and len(value.args) == 1
        and not value.keywords
    )


def _enqueue_of(stmt) -> ast.Call | None:
    value = getattr(stmt, "value", None)
    if not isinstance(stmt, ast.Assign | ast.Expr) or not isinstance(value, ast.Call):
        return None
    func = value.func
    if not (isinstance(func, ast.Attribute) and func.attr == "enqueue"):
        return None
    if not isinstance(func.value, ast.Name) or len(value.args) != 1:
        return None
    return value if isinstance(value.args[0], ast.List | ast.Tuple) else None


def _taint(seed: set[str], stmts) -> set[str]:
    """Names bound, directly or through others, to `seed` within `stmts`."""
    out, changed = set(seed), True
    binds = [
        n for s in stmts for n in _astutil.nodes(s, ast.Assign, ast.AugAssign, ast.For)
    ]
    while changed:
        changed = False
        for node in binds:
            value = node.iter if isinstance(node, ast.For) else node.value
            if set(_astutil.reads(value)) & out:
                targets = (
                    node.targets if isinstance(node, ast.Assign) else [node.target]
                )
                bound = set().union(*(_astutil.writes(t) for t in targets))
                if not bound <= out:
                    out |= bound
                    changed = True
    return out


def _makes(between, name: str, table) -> list[ast.Call]:
    """The `name = FIFOQueue(...)` / `RandomShuffleQueue(...)` calls in `between`."""
    return [
        n.value
        for s in between
        for n in _astutil.nodes(s, ast.Assign)
        if _queue_raw.queue_kind(table, n.value)
        and [getattr(t, "id", None) for t in n.targets] == [name]
    ]


def _stores(nodes, name: str) -> list[ast.Name]:
    return [
        n
        for n in nodes
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
    ]


def _recognise(scope, block, s_idx, e_idx, enq, table) -> ReaderQueue:
    read_stmt, between = block[s_idx], block[s_idx + 1 : e_idx]
    name = enq.func.value.id
    seed = set(_astutil.writes(read_stmt.targets[0]))
    tainted = _taint(seed, between)
    if not set().union(*(_astutil.reads(e) for e in enq.args[0].elts)) & tainted:
        raise NotAChain(f"line {enq.lineno}: the enqueued values read no record")
    makes = _makes(between, name, table)
    nodes = list(_astutil.walk_scope([scope]))
    if not makes or len(_stores(nodes, name)) != len(makes):
        raise NotAChain(
            f"`{name}` is not made only by FIFOQueue/RandomShuffleQueue "
            f"between lines {read_stmt.lineno} and {enq.lineno}"
        )
    for stmt in between:
        _check_split(stmt, tainted, makes)
    _check_rebound(between, tainted)
    _check_escapes(block, s_idx, e_idx, tainted, enq)
    parts, renames = _sources.read_parts(block, s_idx, table, scope)
    raw = _raw(scope, nodes, name, enq, makes, table)
    kinds = [_queue_raw.queue_kind(table, m) for m in makes]
    return ReaderQueue(
        read_stmt, enq, between, tainted, makes, raw, parts, renames, kinds
    )


def is_example(stmt, tainted) -> bool:
    """True if `stmt` computes per-example values (reads or binds them)."""
    return bool((set(_astutil.reads(stmt)) | _astutil.writes(stmt)) & tainted)


def _check_split(stmt, tainted, makes) -> None:
    """Every statement is per-example or not; an `if` may hold both kinds."""
    if isinstance(stmt, ast.If):
        if set(_astutil.reads(stmt.test)) & tainted:
            raise NotAChain(f"line {stmt.lineno}: the `if` tests a record's value")
        for child in stmt.body + stmt.orelse:
            _check_split(child, tainted, makes)
        return
    holds_make = any(m in set(_astutil.walk(stmt)) for m in makes)
    if holds_make and is_example(stmt, tainted):
        raise NotAChain(
            f"line {stmt.lineno}: the queue is made in a statement that also "
            "computes the examples"
        )


def _first_reads(between, tainted) -> tuple[list[ast.stmt], dict[str, int]]:
    """(the simple statements of `between`, name -> the first line the
    per-example code reads it at)."""
    nodes = [n for s in between for n in _astutil.walk(s)]
    leaves = [n for n in nodes if isinstance(n, ast.stmt) and not isinstance(n, ast.If)]
    tests = [n for n in nodes if isinstance(n, ast.If) and is_example(n, tainted)]
    read_at: dict[str, int] = {}
    for node in sorted(leaves + tests, key=lambda n: n.lineno):
        if isinstance(node, ast.If):
            for name in _astutil.reads(node.test):
                read_at.setdefault(name, node.lineno)
        elif is_example(node, tainted):
            for name in _astutil.reads(node):
                read_at.setdefault(name, node.lineno)
    return leaves, read_at


def _check_rebound(between, tainted) -> None:
    """A name the per-example code reads must not be bound again, by the
    lines that stay, after that read: the function runs after all of them."""
    leaves, read_at = _first_reads(between, tainted)
    for stmt in leaves:
        if is_example(stmt, tainted):
            continue
        for name in sorted(_astutil.writes(stmt)):
            if name in read_at and read_at[name] < stmt.lineno:
                raise NotAChain(
                    f"line {stmt.lineno}: `{name}` is bound again after the "
                    f"per-example code reads it (line {read_at[name]})"
                )


def _check_escapes(block, s_idx, e_idx, tainted, enq) -> None:
    """Per-example names must not be read after the enqueue."""
    late = set().union(*(_astutil.reads(s) for s in block[e_idx:]))
    late -= set().union(*(_astutil.reads(e) for e in enq.args[0].elts))
    late |= set().union(*(_astutil.reads(s) for s in block[e_idx + 1 :]))
    leaked = sorted(late & tainted)
    if leaked:
        raise NotAChain(
            f"the per-example values {leaked} are also used after the enqueue "
            f"at line {enq.lineno}"
        )


def _sort_use(use, name, enq, maps, table, dequeues, runners) -> None:
    """Files one read of the queue: its enqueue, a dequeue or a runner."""
    methods, firsts = maps
    call = methods.get(id(use))
    if call is enq:
        return
    if call is not None and call.func.attr in _queue_raw.DEQUEUES:
        dequeues.append(call)
    elif id(use) in firsts and table.resolve_tf(firsts[id(use)].func) in (
        _queue_raw.RUNNER_NAMES
    ):
        runners.append(firsts[id(use)])
    else:
        raise NotAChain(
            f"line {use.lineno}: `{name}` is used other than by one enqueue, "
            "dequeue or QueueRunner calls"
        )


def _raw(scope, nodes, name, enq, makes, table) -> _queue_raw.RawQueue:
    """The queue's dequeues, runners and adds (every other use refused)."""
    maps = _queue_raw.call_maps(nodes)
    dequeues, runners = [], []
    for use in nodes:
        if (
            isinstance(use, ast.Name)
            and use.id == name
            and isinstance(use.ctx, ast.Load)
        ):
            _sort_use(use, name, enq, maps, table, dequeues, runners)
    adds = _queue_raw.runner_adds(scope, nodes, runners, table)
    kind = _queue_raw.queue_kind(table, makes[0])
    return _queue_raw.RawQueue(makes[0], kind, dequeues, runners, adds, scope)


def rewritten_nodes(found: ReaderQueue) -> set[int]:
    """Ids of the legacy name nodes the edits replace (their findings)."""
    done = _queue_raw.rewritten_nodes(found.raw)
    done |= {id(m.func) for m in found.makes}
    return done | {id(node) for node, _ in found.renames}
