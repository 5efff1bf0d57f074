"""Text edits for reader-fed raw queues (see `raw_reader`): the per-example
function, the lines that stay (each `if` keeps its queue part), the enqueue of
`queues.read(...).map(fn)` and the queue's own renames."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import (
    _astutil,
    _queue_raw,
    _sources,
)
from estimator_multigpu.migrate._dataflow import NotAChain
from estimator_multigpu.migrate._edits import Edit, split_lines
from estimator_multigpu.migrate._queue_chains.chain_text import indent_unit
from estimator_multigpu.migrate._queue_chains.raw_reader import (
    ReaderQueue,
    find,
    is_example,
    rewritten_nodes,
)


def edits(found: ReaderQueue, off, q: str, taken: set[str]) -> list[Edit]:
    """The text edits for `found` (see the module docstring)."""
    read, enq = found.read_stmt, found.enqueue
    start, end = off.line_start(read.lineno), off.line_start(enq.lineno)
    renames = [off.replace(node, f"{q}.{name}") for node, name in found.renames]
    read_end = off.line_end(read.end_lineno)
    inside = [e for e in renames if not (e.end <= start or e.start >= end)]
    if any(not (start <= e.start and e.end <= read_end) for e in inside):
        raise NotAChain("the reader or producer is made inside the moved lines")
    line = off.lines[read.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    fn = _astutil.unique("_example_fn", taken)
    found.inner = [
        off.replace(m.func, f"{q}.{k}") for m, k in zip(found.makes, found.kinds)
    ]
    found.unit = _unit_of(found, indent)
    text = off.newline + _function(off, found, fn, indent)
    text += "".join(_outside(off, s, found, indent) for s in found.between)
    text += off.newline
    _, queue, reader = found.read_parts
    source = (
        f"{q}.read({off.text(queue, renames)}, {off.text(reader, renames)}).map({fn})"
    )
    return (
        [e for e in renames if e not in inside]
        + [Edit(start, end, text), off.replace(enq.args[0], source)]
        + (_queue_raw.edits(found.raw, off, q, set())[1:])
    )


def _unit_of(found: ReaderQueue, indent: str) -> str:
    """One indentation level as the function holding the queue writes it."""
    col = getattr(found.raw.scope, "col_offset", None)
    if col is not None and len(indent) > col:
        return indent[col:]
    return indent_unit(indent)


def _function(off, found: ReaderQueue, fn: str, indent: str) -> str:
    nl, unit = off.newline, found.unit
    params = _sources.params_of(found.read_stmt.targets[0], star=True)
    body = "".join(_example(off, s, found, indent + unit) for s in found.between)
    elts = [off.text(e) for e in found.enqueue.args[0].elts]
    ret = elts[0] if len(elts) == 1 else f"({', '.join(elts)})"
    head = f"{indent}def {fn}({', '.join(params)}):{nl}"
    return f"{head}{body}{indent}{unit}return {ret}{nl}{nl}"


def _source(off, stmt, indent: str, inner) -> str:
    """`stmt`'s lines with the `inner` edits in them, re-indented from its own
    indentation to `indent`."""
    first = stmt.lineno
    while first > 1 and off.lines[first - 2].lstrip().startswith("#"):
        first -= 1  # the comment lines just above it go with it
    start, end = off.line_start(first), off.line_end(stmt.end_lineno)
    text = off.source[start:end]
    for e in sorted(inner, key=lambda e: -e.start):
        if start <= e.start and e.end <= end:
            text = text[: e.start - start] + e.text + text[e.end - start :]
    lines = split_lines(text)
    code = lines[stmt.lineno - first]
    own = code[: len(code) - len(code.lstrip())]
    return "".join(
        indent + ln[len(own) :] if ln.startswith(own) else ln for ln in lines
    )


def _example(off, stmt, found, indent) -> str:
    """The per-example part of `stmt` (for the function body), or ''."""
    if isinstance(stmt, ast.If) and _mixed(stmt, found):
        return _render_if(off, stmt, found, indent, _example)
    return (
        _source(off, stmt, indent, found.inner)
        if is_example(stmt, found.tainted)
        else ""
    )


def _outside(off, stmt, found, indent) -> str:
    """The part of `stmt` that stays where it was, or ''."""
    if isinstance(stmt, ast.If) and _mixed(stmt, found):
        return _render_if(off, stmt, found, indent, _outside)
    return (
        ""
        if is_example(stmt, found.tainted)
        else _source(off, stmt, indent, found.inner)
    )


def _mixed(stmt: ast.If, found) -> bool:
    kinds = {
        is_example(s, found.tainted)
        for s in _astutil.nodes(stmt, ast.stmt)
        if not isinstance(s, ast.If)
    }
    return len(kinds) == 2


def _render_if(off, stmt: ast.If, found, indent, part) -> str:
    nl, unit = off.newline, found.unit
    text = f"{indent}if {off.text(stmt.test)}:{nl}"
    body = "".join(part(off, s, found, indent + unit) for s in stmt.body)
    text += body or f"{indent}{unit}pass{nl}"
    if stmt.orelse:
        orelse = "".join(part(off, s, found, indent + unit) for s in stmt.orelse)
        if orelse:
            text += f"{indent}else:{nl}{orelse}"
    return text


def apply(tree, table, off, q: str, state) -> set[int]:
    """Adds the edits of every reader-fed raw queue in `tree`.

    `state` is (taken names, placed EditSet, edit list, done node ids,
    notes); returns the ids of the queue constructor calls rewritten.
    """
    taken, placed, out, done, notes = state
    handled: set[int] = set()
    for scope in _astutil.scopes(tree):
        found, refused = find(scope, table)
        notes.extend(refused)
        for item in found:
            try:
                new = edits(item, off, q, taken)
            except NotAChain as why:
                notes.append((item.enqueue.lineno, str(why)))
                continue
            if any(placed.overlaps(e) for e in new):
                notes.append((item.enqueue.lineno, "overlaps another rewrite"))
                continue
            for e in new:
                placed.add(e)
            out.extend(new)
            done |= rewritten_nodes(item)
            handled |= {id(m) for m in item.makes}
    return handled
