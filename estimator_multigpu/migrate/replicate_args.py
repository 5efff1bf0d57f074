"""Maps `tf.contrib.estimator.replicate_model_fn(...)` arguments onto emg's signature."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import aliases
from estimator_multigpu.migrate.edits import Edit, Offsets

# contrib: replicate_model_fn(model_fn, loss_reduction=SUM_BY_NONZERO_WEIGHTS, devices=None)
_POSITIONAL = (None, "loss_reduction", "devices")
_REDUCTIONS = ("tf.losses.Reduction.", "tf.keras.losses.Reduction.")


def _reduction(node: ast.expr, table: aliases.AliasTable) -> str | None:
    """`'sum'` for Reduction.SUM, `'mean'` for the averaging ones, else None."""
    path = table.resolve_tf(node) or ""
    if not path.startswith(_REDUCTIONS):
        return None
    return "'sum'" if path.endswith(".SUM") else "'mean'"


def edits(call: ast.Call, table: aliases.AliasTable, off: Offsets) -> list[Edit] | None:
    """Returns the edits that adapt `call`'s arguments, or None if not safe.

    Positional `loss_reduction`/`devices` become keywords (emg takes
    `devices` second); `tf.losses.Reduction.SUM` becomes `'sum'` and the
    averaging reductions (the contrib default) become `'mean'`.
    """
    if len(call.args) > len(_POSITIONAL) or any(
        isinstance(a, ast.Starred) for a in call.args
    ):
        return None
    out = []
    named = [(_POSITIONAL[i], a) for i, a in enumerate(call.args) if i]
    named += [(k.arg, k.value) for k in call.keywords]
    for name, value in named:
        if name == "loss_reduction":
            new = _reduction(value, table)
            if new is None:
                return None
            out.append(Edit(*off.span(value), new))
    for i, arg in enumerate(call.args[1:], start=1):
        out.append(Edit(off.span(arg)[0], off.span(arg)[0], f"{_POSITIONAL[i]}="))
    return _merge(out)


def _merge(edits: list[Edit]) -> list[Edit]:
    """Joins an insertion and a replacement that start at the same offset."""
    by_start: dict[int, Edit] = {}
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start in by_start:
            first = by_start[e.start]
            by_start[e.start] = Edit(
                e.start, max(first.end, e.end), first.text + e.text
            )
        else:
            by_start[e.start] = e
    return list(by_start.values())
