"""Turns a recognised queue chain into text edits that use emg.inputs.queues."""

from __future__ import annotations

import ast
import itertools

from estimator_multigpu.migrate._astutil import unique
from estimator_multigpu.migrate._edits import Edit, Offsets, split_lines
from estimator_multigpu.migrate._queue_chains import batch_text, chains


def indent_unit(indent: str) -> str:
    """One more indentation level, in the file's style (tabs or 4 spaces)."""
    return "\t" if "\t" in indent else "    "


def _indent(text: str, prefix: str) -> str:
    return "".join(
        prefix + line if line.strip() else line for line in split_lines(text)
    )


def _chunks(off: Offsets, stmts: list[ast.stmt], first_line: int) -> dict:
    """Maps each statement to its lines, with the comments just above it."""
    out, line = {}, first_line
    for stmt in stmts:
        out[id(stmt)] = off.source[off.line_start(line) : off.line_end(stmt.end_lineno)]
        line = stmt.end_lineno + 1
    return out


def _check_layout(off: Offsets, stmts: list[ast.stmt], batch_stmt: ast.stmt) -> None:
    for stmt in stmts + [batch_stmt]:
        before = off.lines[stmt.lineno - 1].encode()[: stmt.col_offset]
        if before.strip():
            raise chains.NotAChain(f"line {stmt.lineno} holds more than one statement")
    for stmt in stmts:
        after = off.lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset :].strip()
        if after and not after.startswith(b"#"):
            raise chains.NotAChain(
                f"line {stmt.end_lineno} holds more than one statement"
            )


def _deeper(off: Offsets, stmt: ast.stmt, indent: str) -> str:
    """What to prefix to `stmt`'s lines to indent it as deep as `indent`."""
    line = off.lines[stmt.lineno - 1]
    own = line[: len(line) - len(line.lstrip())]
    if not indent.startswith(own):
        raise chains.NotAChain(
            f"line {stmt.lineno}: indented with other whitespace than the scope block"
        )
    return indent[len(own) :]


def _returned(off: Offsets, chain: chains.Chain) -> str:
    """The per-example function's return value: queue lists become tuples.

    A one-element list becomes its element: the queue batchers return a bare
    tensor for it too.
    """
    literal, name = chain.literal, off.text(chain.tensors)
    if isinstance(literal, ast.Dict):
        return name
    if chain.tensors is not literal:
        return f"{name}[0]" if len(literal.elts) == 1 else f"tuple({name})"
    elts = [off.text(e) for e in literal.elts]
    return elts[0] if len(elts) == 1 else "(" + ", ".join(elts) + ")"


def _dataset_expr(off: Offsets, chain: chains.Chain, q: str, renames) -> str:
    if chain.dataset_parts[0] == "helper":
        return off.text(chain.dataset_parts[1], renames)
    if chain.dataset_parts[0] == "read":
        _, queue, reader = chain.dataset_parts
        return f"{q}.read({off.text(queue, renames)}, {off.text(reader, renames)})"
    return off.text(chain.dataset_parts[1], renames)


def edits_for(chain: chains.Chain, off: Offsets, q: str, taken: set[str]) -> list[Edit]:
    """Returns the edits that rewrite `chain` onto the `q` module.

    Args:
      chain: the recognised chain.
      off: positions in the module's source.
      q: how the module spells emg.inputs.queues, e.g. `'emg.inputs.queues'`.
      taken: names already used in the module (new names are added).

    Raises:
      chains.NotAChain: if statements share lines, so lines cannot move.
    """
    src = chain.source_stmt
    region = [src] + sorted(chain.moved + chain.kept, key=lambda s: s.lineno)
    _check_layout(off, region, chain.batch_stmt)
    renames = [off.replace(node, f"{q}.{name}") for node, name in chain.renames]
    start, end = off.line_start(src.lineno), off.line_end(region[-1].end_lineno)
    outside = [e for e in renames if e.end <= start or e.start >= end]
    chunks = _chunks(off, region, src.lineno)
    line = off.lines[src.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    for stmt in region:
        if id(stmt) in chain.outer:  # after the scope block: into it
            chunks[id(stmt)] = _indent(chunks[id(stmt)], _deeper(off, stmt, indent))
    fn, ds = unique("_example_fn", taken), unique("examples", taken)
    returned = _returned(off, chain)
    dataset = _dataset_expr(off, chain, q, renames)
    identity = (
        chain.params[0] if len(chain.params) == 1 else f"({', '.join(chain.params)})"
    )
    if not chain.moved and returned == identity:
        # The function would return its arguments unchanged: no map needed.
        text = "".join(chunks[id(s)] for s in chain.kept)
        text += f"{indent}{ds} = {dataset}{off.newline}"
    else:
        text = _mapped(
            off, chain.kept, chain.moved, chunks, indent, fn, chain.params, src.lineno
        )
        text += (
            f"{indent}{indent_unit(indent)}return {returned}{off.newline}{off.newline}"
        )
        text += f"{indent}{ds} = {dataset}.map({fn}){off.newline}"
    return outside + [Edit(start, end, text)] + _batch_edits(off, chain, q, ds)


def _batch_edits(off: Offsets, chain: chains.Chain, q: str, ds: str) -> list[Edit]:
    """Each batching call now takes the Dataset `ds` of examples."""
    end, edits = chain.end, []
    for call, batcher, tensors in zip(end.calls, end.batchers, end.tensors):
        if end.helper:  # the per-example arguments become the one Dataset argument
            first, last = tensors.elts[0], tensors.elts[-1]
            edits.append(Edit(off.span(first)[0], off.span(last)[1], ds))
        else:
            text = batch_text.batch_call(off, call, batcher, q, ds, chain.keep_params)
            edits.append(off.replace(call, text))
    return edits


def _mapped(off, kept, moved, chunks, indent, fn, params, first_line) -> str:
    """Kept statements, then `def fn(params):` with the moved ones as its body."""
    nl = off.newline
    body = "".join(_indent(chunks[id(s)], indent_unit(indent)) for s in moved)
    text = "".join(chunks[id(s)] for s in kept)
    if text or not _opens_block(off, first_line - 1):
        text += nl
    text += f"{indent}def {fn}({', '.join(params)}):{nl}"
    return text + "".join(
        itertools.dropwhile(lambda x: not x.strip(), split_lines(body))
    )


def _opens_block(off: Offsets, lineno: int) -> bool:
    """True if line `lineno` ends with `:` (a def/with/if header)."""
    code = off.lines[lineno - 1].split("#")[0].rstrip() if lineno >= 1 else ""
    return code.endswith(":")


def helper_edits(
    helper, form: str, off: Offsets, q: str, taken: set[str]
) -> list[Edit]:
    """Edits that make a reader helper return a Dataset of decoded examples.

    Args:
      helper: a `helpers.ReaderHelper`.
      form: `'tuple'` (callers unpack the result) or `'as_is'`.
      off: positions in the module's source.
      q: how the module spells emg.inputs.queues.
      taken: names already used in the module.
    """
    region = [helper.read_stmt] + sorted(
        helper.moved + helper.kept, key=lambda s: s.lineno
    )
    _check_layout(off, region + [helper.ret], helper.ret)
    renames = [off.replace(node, f"{q}.{name}") for node, name in helper.renames]
    start = off.line_start(helper.read_stmt.lineno)
    end = off.line_end(helper.ret.end_lineno)
    outside = [e for e in renames if e.end <= start or e.start >= end]
    chunks = _chunks(off, region + [helper.ret], helper.read_stmt.lineno)
    line = off.lines[helper.read_stmt.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    fn = unique("_decode_fn", taken)
    text = _mapped(
        off,
        helper.kept,
        helper.moved,
        chunks,
        indent,
        fn,
        helper.params,
        helper.read_stmt.lineno,
    )
    returned = _helper_returned(off, helper, form)
    text += f"{indent}{indent_unit(indent)}return {returned}{off.newline}{off.newline}"
    reader = off.text(helper.reader, renames)
    text += f"{indent}return {q}.read({helper.queue_param}, {reader}).map({fn}){off.newline}"
    return outside + [Edit(start, end, text)]


def _helper_returned(off: Offsets, helper, form: str) -> str:
    value = helper.ret.value
    literal = helper.literal
    if isinstance(literal, ast.Dict) or (literal is None and form == "as_is"):
        return off.text(value)
    if literal is None:
        return f"tuple({off.text(value)})"
    if value is not literal:
        return f"tuple({off.text(value)})"
    elts = [off.text(e) for e in literal.elts]
    return f"({elts[0]},)" if len(elts) == 1 else f"({', '.join(elts)})"
