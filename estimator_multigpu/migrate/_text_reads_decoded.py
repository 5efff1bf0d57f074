"""A file opened in text mode whose reads are decoded: Python 2's byte strings.

Under Python 2, `open(path, 'r').read()` and `tf.gfile.Open(path, 'r').read()`
(TF 1.x's gfile before its text mode decoded) returned a byte string, so code
of the era wrote `f.read().decode()`. Under Python 3 the text-mode read is
already a `str`, which has no `decode` (AttributeError when the line runs).
The exact successor opens the file in binary mode: `.read()` returns the
bytes again and the code's own `.decode(...)` (its encoding, its errors)
makes the same `str`.

Two shapes are rewritten, the mode `'r'` (or `'rt'`, or none given) becoming
`'rb'`:

- `OPENER(path, 'r').read().decode(...)` (also `.readline()`);
- `with OPENER(path, 'r') as f:` whose every use of `f` in the block is
  `f.read(...).decode(...)` or `f.readline(...).decode(...)`.

OPENER is `tf.gfile.Open`, `tf.gfile.GFile`, `tf.gfile.FastGFile`,
`tf.io.gfile.GFile` (any spelling of them) or the builtin `open` (not bound by
the module, and without the Python 3 keywords `encoding`, `errors`,
`newline`). A `with` block that also uses the handle another way (a read used
as `str`, an iteration) is reported, not rewritten: binary mode would change
those other uses.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "text-read-decoded"
ANCHOR = "text-mode-reads-decoded"
_SUMMARY = (
    "a read of a file opened in text mode is decoded: Python 2 read bytes, "
    "Python 3 reads a str, which has no decode (AttributeError when the line runs)"
)
FIXED = rule(
    RULE_ID,
    _SUMMARY,
    "the file opened in binary mode ('rb'): the read returns the bytes and the "
    "decode makes the same str (emg-migrate --fix writes it)",
    ANCHOR,
    fixable=True,
)
MIXED = rule(
    RULE_ID,
    _SUMMARY,
    "decode only the reads that need it by hand: the handle is also used "
    "another way in its block, which binary mode would change",
    ANCHOR,
    fixable=False,
)
_GFILE = frozenset(
    f"tf.{module}.{name}"
    for module in ("gfile", "io.gfile", "python.platform.gfile")
    for name in ("Open", "GFile", "FastGFile")
)
_PY3_KEYWORDS = frozenset({"encoding", "errors", "newline"})
_TEXT_MODES = frozenset({"r", "rt"})
_READS = frozenset({"read", "readline"})


def _is_opener(m: Module, call: ast.AST, open_bound: bool) -> bool:
    if not isinstance(call, ast.Call):
        return False
    if isinstance(call.func, ast.Name) and call.func.id == "open" and not open_bound:
        return not any(k.arg in _PY3_KEYWORDS for k in call.keywords)
    return _aliases.canonical(m.table.resolve(call.func)) in _GFILE


def _mode(call: ast.Call) -> ast.AST | None:
    """The mode argument's node, or None when the call gives none."""
    if len(call.args) > 1:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "mode"), None)


def _text_mode(call: ast.Call) -> bool:
    """True when the call opens in text mode: a literal 'r' or 'rt', or no
    mode (both openers' default is 'r')."""
    mode = _mode(call)
    if mode is None:
        return (
            len(call.args) == 1
            and not isinstance(call.args[0], ast.Starred)
            and not any(k.arg is None for k in call.keywords)
        )
    return isinstance(mode, ast.Constant) and mode.value in _TEXT_MODES


def _decoded_read(node: ast.AST) -> ast.AST | None:
    """The receiver of `X.read(...).decode(...)` (or readline), else None."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "decode"
    ):
        return None
    read = node.func.value
    if (
        isinstance(read, ast.Call)
        and isinstance(read.func, ast.Attribute)
        and read.func.attr in _READS
    ):
        return read.func.value
    return None


def _handle_uses(body: list[ast.stmt], name: str) -> tuple[int, int] | None:
    """(decoded reads of `name`, other uses of it) in `body`; None when the
    block binds `name` again."""
    decoded, seen = set(), 0
    for node in (n for stmt in body for n in _astutil.walk(stmt)):
        receiver = _decoded_read(node)
        if isinstance(receiver, ast.Name) and receiver.id == name:
            decoded.add(id(receiver))
        if isinstance(node, ast.Name) and node.id == name:
            if not isinstance(node.ctx, ast.Load):
                return None
            seen += 1
    return len(decoded), seen - len(decoded)


def _opened(m: Module, open_bound: bool) -> list[tuple[ast.Call, bool]]:
    """(opener call, fixable) for each text-mode open whose reads are decoded."""
    out = []
    for node in _astutil.nodes(m.tree, ast.Call, ast.With, ast.AsyncWith):
        receiver = _decoded_read(node)
        if _is_opener(m, receiver, open_bound) and _text_mode(receiver):
            out.append((receiver, True))
        if not isinstance(node, ast.With | ast.AsyncWith):
            continue
        for item in node.items:
            call, var = item.context_expr, item.optional_vars
            if not isinstance(var, ast.Name) or not _is_opener(m, call, open_bound):
                continue
            uses = _handle_uses(node.body, var.id)
            if uses and uses[0] and _text_mode(call):
                out.append((call, uses[1] == 0))
    return out


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per text-mode open whose reads are decoded."""
    del ctx
    out = list(m.findings)
    for call, fixable in _opened(m, "open" in _astutil.writes(m.tree)):
        out.append(
            at(
                m,
                call,
                "text-mode read decoded",
                m.off.segment(call) or "open",
                FIXED if fixable else MIXED,
            )
        )
    return out


def _edit(m: Module, call: ast.Call) -> Edit:
    """The mode written 'rb' (in the literal's own quotes), or `, 'rb'` added
    after the path when the call gives no mode."""
    mode = _mode(call)
    if mode is None:
        end = m.off.span(call.args[0])[1]
        return Edit(end, end, ", 'rb'")
    text = m.off.segment(mode) or "'r'"
    quote = text[-1] if text[-1] in "'\"" else "'"
    return m.off.replace(mode, f"{quote}rb{quote}")


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each fixable finding's mode (one edit per open)."""
    del ctx
    ours = [
        f
        for f in m.findings
        if f.rule.rule_id == RULE_ID and f.rule.fixable and not f.fixed
    ]
    return place(m.edits, [(_edit(m, f.node), [f]) for f in ours])
