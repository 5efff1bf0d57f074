"""The eval scripts' `for qr in tf.get_collection(QUEUE_RUNNERS): qr.create_threads(...)` loop."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import aliases, astutil
from estimator_multigpu.migrate.edits import Edit, Offsets
from estimator_multigpu.migrate.rules import Rule

RULE = Rule(
    "queue-runner",
    "the loop starts the threads of the graph's QueueRunners",
    "nothing: a tf.data pipeline registers no queue runners; drop the loop "
    "(the thread list stays empty, coord.join of it returns at once)",
    "runners",
)
API = "tf.GraphKeys.QUEUE_RUNNERS loop"


def _is_runner_loop(node: ast.AST, table: aliases.AliasTable) -> bool:
    if not isinstance(node, ast.For) or not isinstance(node.target, ast.Name):
        return False
    it = node.iter
    if not (
        isinstance(it, ast.Call)
        and table.resolve_tf(it.func) == "tf.get_collection"
        and it.args
        and table.resolve_tf(it.args[0]) == "tf.GraphKeys.QUEUE_RUNNERS"
    ):
        return False
    name = node.target.id
    uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]
    methods = [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == name
        and n.attr == "create_threads"
    ]
    return len(uses) == len(methods) + 1


def find(tree: ast.AST, table: aliases.AliasTable) -> list[ast.For]:
    """The loops that start queue-runner threads by hand."""
    return [n for n in ast.walk(tree) if _is_runner_loop(n, table)]


def _alone(off: Offsets, stmt: ast.stmt) -> bool:
    before = off.lines[stmt.lineno - 1].encode()[: stmt.col_offset]
    after = off.lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset :].strip()
    return not before.strip() and (not after or after.startswith(b"#"))


def edits(tree: ast.AST, off: Offsets, findings, prior: list[Edit]) -> list[Edit]:
    """Drops the loops (a lone one becomes `pass`); marks their findings fixed."""
    out = list(prior)
    parents = {
        id(s): block for block in _blocks(tree) for s in block if isinstance(s, ast.For)
    }
    for f in findings:
        if f.fixed or f.api != API or not _alone(off, f.node):
            continue
        start = off.line_start(f.node.lineno)
        edit = Edit(start, off.line_end(f.node.end_lineno), "")
        if len(parents.get(id(f.node), [])) == 1:
            indent = off.lines[f.node.lineno - 1][: f.node.col_offset]
            edit = Edit(edit.start, edit.end, f"{indent}pass{off.newline}")
        if any(e.start < edit.end and edit.start < e.end for e in out):
            continue
        out.append(edit)
        f.fixed = True
    return out


def _blocks(tree: ast.AST):
    for scope in astutil.scopes(tree):
        yield from astutil.blocks(scope)
