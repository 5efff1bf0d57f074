"""Maps `tf.contrib.estimator.replicate_model_fn(...)` arguments onto emg's signature."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _aliases, _api_changes
from estimator_multigpu.migrate._edits import Edit, Offsets
from estimator_multigpu.migrate._rules import Rule

API = "tf.contrib.estimator.replicate_model_fn"
_REDUCTIONS = ("tf.losses.Reduction.", "tf.keras.losses.Reduction.")


NONE_RULE = Rule(
    "replicate-model-fn",
    "replicate_model_fn(..., loss_reduction=Reduction.NONE): contrib raised "
    "ValueError for it (tower losses must be reduced), so this never ran",
    "tf.contrib raised ValueError for Reduction.NONE; pick how the towers' "
    "losses combine: emg.replicate_model_fn(model_fn, loss_reduction='sum') "
    "(the loss and gradients summed over towers, Reduction.SUM) or "
    "loss_reduction='mean' (averaged, as contrib's default "
    "SUM_BY_NONZERO_WEIGHTS did)",
    "replicate",
)


def _reduction(node: ast.expr, table: _aliases.AliasTable) -> str | None:
    """`'sum'` for Reduction.SUM, `'mean'` for the averaging ones, else None
    (Reduction.NONE included: contrib refused it)."""
    path = table.resolve_tf(node) or ""
    if not path.startswith(_REDUCTIONS) or path.endswith(".NONE"):
        return None
    return "'sum'" if path.endswith(".SUM") else "'mean'"


def no_reduction(call: ast.Call, table: _aliases.AliasTable) -> bool:
    """True if `call` passes loss_reduction=Reduction.NONE (by position or name)."""
    named = [k.value for k in call.keywords if k.arg == "loss_reduction"]
    named += call.args[1:2]
    return any((table.resolve_tf(v) or "").endswith("Reduction.NONE") for v in named)


def edits(
    call: ast.Call, table: _aliases.AliasTable, off: Offsets
) -> list[Edit] | None:
    """Returns the edits that adapt `call`'s arguments, or None if not safe.

    Positional `loss_reduction`/`devices` become keywords (emg takes
    `devices` second; `_api_spec.POSITIONAL_TO_KEYWORD`);
    `tf.losses.Reduction.SUM` becomes `'sum'` and the averaging reductions
    (the contrib default) become `'mean'`.
    """
    out = _api_changes.argument_edits(call, API, off)
    if out is None:
        return None
    for name, value in _api_changes.named_arguments(call, API):
        if name == "loss_reduction":
            new = _reduction(value, table)
            if new is None:
                return None
            out.append(Edit(*off.span(value), new))
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
