"""Per-thread preprocessing before a `batch_join`, and the raw-queue rewrite around it.

    serialized = examples_queue.dequeue()
    images_and_labels = []
    for thread_id in range(num_preprocess_threads):
        image, label = parse_and_preprocess(serialized, thread_id)
        images_and_labels.append([image, label])
    images, labels = tf.train.batch_join(images_and_labels, batch_size=32)

becomes (the loop body kept as the function's body)

    serialized = examples_queue.dequeue()
    def _thread_fn(thread_id, serialized):
        image, label = parse_and_preprocess(serialized, thread_id)
        return (image, label)

    images_and_labels = emg.inputs.queues.per_thread(
        serialized, _thread_fn, num_preprocess_threads)
    images, labels = emg.inputs.queues.get_next(
        emg.inputs.queues.batch_join(images_and_labels, batch_size=32))

when `examples_queue` is a raw queue moved onto the drop-ins (its
`dequeue()` is then a dataset).
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _astutil, _queue_raw
from estimator_multigpu.migrate._calls import call_arg, tf_name
from estimator_multigpu.migrate._dataflow import NotAChain, check_mappable
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._queue_chains import batch_text, raw_reader_text

_JOINS = ("batch_join", "shuffle_batch_join")
_DTYPES_AT = {"FIFOQueue": 1, "RandomShuffleQueue": 2}


@dataclasses.dataclass
class ThreadLoop:
    """`L = []; for t in range(n): ...; L.append([...])` then `batch_join(L, ...)`."""

    start: ast.Assign
    loop: ast.For
    join: ast.Call
    batcher: str
    source: ast.Call
    params: list[str]


def _components(raw: _queue_raw.RawQueue) -> int | None:
    dtypes = call_arg(raw.make, _DTYPES_AT[raw.kind], "dtypes")
    if call_arg(raw.make, 99, "names") is not None:
        return 1  # a dict: passed whole
    return len(dtypes.elts) if isinstance(dtypes, ast.List | ast.Tuple) else None


def _source_params(block, raw, table) -> dict:
    """dequeue call id -> (its statement, the per-thread function's example params)."""
    out = {}
    for stmt in block:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        if not any(stmt.value is d for d in raw.dequeues):
            continue
        if stmt.value.func.attr != "dequeue":
            continue
        target, count = stmt.targets[0], _components(raw)
        if isinstance(target, ast.Tuple) and all(
            isinstance(e, ast.Name) for e in target.elts
        ):
            out[id(stmt.value)] = (stmt, [e.id for e in target.elts])
        elif isinstance(target, ast.Name) and count is not None:
            out[id(stmt.value)] = (stmt, [target.id if count == 1 else f"*{target.id}"])
    return out


def _empty_list(stmt) -> bool:
    """Whether `stmt` is `name = []`."""
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.List)
        and not stmt.value.elts
    )


def _range_loop(loop) -> bool:
    """Whether `loop` is `for i in range(n):` (or xrange) with no else."""
    return (
        isinstance(loop, ast.For)
        and isinstance(loop.target, ast.Name)
        and not loop.orelse
        and isinstance(loop.iter, ast.Call)
        and getattr(loop.iter.func, "id", None) in ("range", "xrange")
        and len(loop.iter.args) == 1
    )


def _appends(stmt, name: str) -> bool:
    """Whether `stmt` is `name.append([...])` (or a tuple)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and getattr(call.func.value, "id", None) == name
        and len(call.args) == 1
        and isinstance(call.args[0], ast.List | ast.Tuple)
    )


def _loop(block, i, table) -> tuple[ast.Assign, ast.For, str] | None:
    start, loop = block[i], block[i + 1] if i + 1 < len(block) else None
    if not (_empty_list(start) and _range_loop(loop)):
        return None
    name = start.targets[0].id
    if not _appends(loop.body[-1], name):
        return None
    return start, loop, name


def find(scope, raw, table) -> list[ThreadLoop]:
    """The per-thread loops in `scope` fed by a `dequeue()` of `raw`.

    Raises:
      NotAChain: for a loop of that shape that cannot be rewritten.
    """
    out = []
    for block in _astutil.blocks(scope):
        sources = _source_params(block, raw, table)
        for i in range(len(block)):
            shape = _loop(block, i, table)
            if shape is None:
                continue
            start, loop, name = shape
            for stmt, params in sources.values():
                example = {p.lstrip("*") for p in params}
                if example & set(_astutil.reads(loop)):
                    out.append(_check(scope, start, loop, name, stmt, params, table))
    return out


def _check(scope, start, loop, name, stmt, params, table) -> ThreadLoop:
    uses = _astutil.reads(scope)
    joins = [
        n
        for n in _astutil.walk_scope([scope])
        if tf_name(table, n, _JOINS)
        and n.args
        and getattr(n.args[0], "id", None) == name
    ]
    if len(joins) != 1 or uses[name] != 2:
        raise NotAChain(f"`{name}` is used other than by one batch_join")
    example = [p.lstrip("*") for p in params]
    inside = _astutil.reads(loop)
    for var in example:
        if uses[var] != inside[var]:
            raise NotAChain(f"the dequeued `{var}` is also used outside the loop")
    thread = loop.target.id
    body = loop.body[:-1] + [loop.body[-1].value.args[0]]
    check_mappable(body, [thread, *params], table)
    for var in _astutil.writes(loop) - {thread}:
        if uses[var] != inside[var]:
            raise NotAChain(f"`{var}` is set in the per-thread loop and used after it")
    batcher = tf_name(table, joins[0], _JOINS)
    return ThreadLoop(start, loop, joins[0], batcher, stmt.value, [thread, *params])


def loop_edits(found: ThreadLoop, off, q: str, taken: set[str]) -> list[Edit]:
    """The loop becomes `def fn(thread, example):` + `L = q.per_thread(...)`."""
    nl = off.newline
    fn = _astutil.unique("_thread_fn", taken)
    line = off.lines[found.start.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    last = found.loop.body[-1]
    body_line = off.lines[last.lineno - 1]
    body_indent = body_line[: len(body_line) - len(body_line.lstrip())]
    head = off.source[
        off.line_start(found.loop.iter.end_lineno + 1) : off.line_start(last.lineno)
    ]
    elts = [off.text(e) for e in last.value.args[0].elts]
    returned = elts[0] if len(elts) == 1 else "(" + ", ".join(elts) + ")"
    name = found.start.targets[0].id
    args = [_source_name(found), fn, off.text(found.loop.iter.args[0])]
    call = f"{name} = {q}.per_thread({', '.join(args)})"
    if len(indent) + len(call) > 88:
        call = f"{name} = {q}.per_thread({nl}{indent}    {', '.join(args)}{nl}{indent})"
    text = (
        f"{indent}def {fn}({', '.join(found.params)}):{nl}{head}"
        f"{body_indent}return {returned}{nl}{nl}{indent}{call}{nl}"
    )
    start = off.line_start(found.start.lineno)
    end = off.line_end(found.loop.end_lineno)
    join = batch_text.batch_call(off, found.join, found.batcher, q, name)
    return [Edit(start, end, text), off.replace(found.join, join)]


def _source_name(found: ThreadLoop) -> str:
    params = found.params[1:]
    if len(params) == 1:
        return params[0].lstrip("*")
    raise NotAChain("the dequeued example is unpacked into several names")


def edits(tree, table, off, emg: str, findings, notes, prior) -> list[Edit]:
    """Raw queues (and their per-thread loops) onto the drop-ins.

    Returns `prior` plus the new edits; marks the findings they resolve and
    adds a note for each raw queue left alone.
    """
    q = f"{emg}.inputs.queues"
    found, refused = _queue_raw.find(tree, table)
    placed, out, done = EditSet(prior), list(prior), set()
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    handled = raw_reader_text.apply(
        tree, table, off, q, (taken, placed, out, done, notes)
    )
    notes.extend((c.lineno, why) for c, why in refused if id(c) not in handled)
    for raw in found:
        try:
            new, loops = _raw_edits(raw, off, q, table, taken)
        except NotAChain as why:
            notes.append((raw.make.lineno, str(why)))
            continue
        if any(placed.overlaps(e) for e in new):
            notes.append((raw.make.lineno, "overlaps another rewrite"))
            continue
        for e in new:
            placed.add(e)
        out.extend(new)
        done |= _queue_raw.rewritten_nodes(raw) | {id(t.join.func) for t in loops}
        joined = {t.join.lineno for t in loops}
        notes[:] = [n for n in notes if n[0] not in joined]
    for f in findings:
        f.fixed = f.fixed or id(f.node) in done
    return out


def _raw_edits(raw, off, q, table, taken):
    loops = find(raw.scope, raw, table)
    datasets = {id(t.source) for t in loops}
    new = _queue_raw.edits(raw, off, q, datasets)
    for t in loops:
        new += loop_edits(t, off, q, taken)
    return new, loops
