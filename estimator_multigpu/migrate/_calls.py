"""Small helpers about calls: which TF queue API a call is, and its arguments."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _rules

SINGLE_BATCHERS = tuple(b for b in _rules.BATCHERS if not b.endswith("_join"))


def tf_name(table: _aliases.AliasTable, call: ast.AST, names) -> str | None:
    """Returns `x` if `call` calls `tf.train.x` / `tf.x` with x in `names`."""
    if not isinstance(call, ast.Call):
        return None
    path = table.resolve_tf(call.func) or ""
    last = path.rsplit(".", 1)[-1]
    if last in names and path in (f"tf.train.{last}", f"tf.{last}", f"tf.io.{last}"):
        return last
    return None


def call_arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def is_batcher(table: _aliases.AliasTable, node: ast.AST) -> bool:
    """True if `node` calls a queue batcher (any of them, `*_join` included)."""
    return tf_name(table, node, _rules.BATCHERS) is not None
