"""Applies the safe rewrites (`--fix`) to one source, keeping every other line as is."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _engine,
    _imports,
    _queue_loops,
    _records,
    _scanner,
)
from estimator_multigpu.migrate._edits import EditSet, apply
from estimator_multigpu.migrate._queue_chains import chain_text
from estimator_multigpu.migrate._registry import REGISTRY
from estimator_multigpu.migrate._scanner import Finding

PACKAGE = "estimator_multigpu"


@dataclasses.dataclass
class FixResult:
    """The rewritten source, and why some queue chains were left alone.

    Attributes:
      source: the new text (equal to the input when nothing was safe to do).
      notes: (line, reason) for each queue chain that needs a manual rewrite.
    """

    source: str
    notes: list[tuple[int, str]]


def _emg_name(tree: ast.Module, table: _aliases.AliasTable) -> tuple[str, bool]:
    """Returns (name of the package in this module, whether to add the import)."""
    bound = table.name_for(PACKAGE)
    if bound:
        return bound, False
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    return chain_text.unique("emg", taken), True


def _flattened(source, tree, findings, ctx) -> FixResult | None:
    """The fix of `source` with its record objects flattened first.

    None when there are none, or when flattening them lets nothing more be
    rewritten. Flattening adds or removes no legacy API use, so the n-th
    finding of an API before it is the n-th of that API after it.
    """
    flat = _records.flatten(source, tree)
    if flat is None or not findings:
        return None
    flat_tree = ast.parse(flat)
    again = _scanner.scan_rules(flat_tree, flat, findings[0].path)
    result = fix(flat, flat_tree, again, ctx)
    by_api: dict[str, list[Finding]] = {}
    for f in again:
        by_api.setdefault(f.api, []).append(f)
    pairs = [
        (f, by_api.get(f.api, []).pop(0) if by_api.get(f.api) else None)
        for f in findings
    ]
    if not any(new is not None and new.fixed for _, new in pairs):
        return None
    for old, new in pairs:
        old.fixed = old.fixed or bool(new is not None and new.fixed)
    return result


def fix(
    source: str,
    tree: ast.Module,
    findings: list[Finding],
    ctx: _engine.ProgramContext | None = None,
) -> FixResult:
    """Rewrites what is safe in `source`; marks the `findings` it resolved.

    The registry's `edits` rules run in their order, each leaving alone what
    overlaps an edit before it; then the imports the edits leave dead go and
    the one they need comes in.

    Args:
      source: the module text.
      tree: `ast.parse(source)`.
      findings: from `passes.scan_tree` on the same tree; `fixed` is set on
        those the rewrite resolves.
      ctx: the facts about the rest of the program (a queue left in another
        file, another file reading a Keras model's input shape); by default,
        the file is the whole program.

    Returns:
      The new text and the reasons queue chains were left for a manual rewrite.
    """
    ctx = ctx or _engine.ProgramContext()
    staged = _flattened(source, tree, findings, ctx)
    if staged is not None:
        _queue_loops.kept(findings, ctx.keep_runners)
        return staged
    module = _engine.Module(source, tree, findings=findings)
    module.emg, add_import = _emg_name(tree, module.table)
    edits = _engine.edits(REGISTRY, module, ctx)
    if not edits:
        return FixResult(source, module.notes)
    placed = EditSet(edits)
    dead = _imports.dead_imports(tree, module.table, module.off, findings)
    edits += [e for e in dead if not placed.overlaps(e)]  # not a rewritten import
    if add_import and any(f"{module.emg}." in e.text for e in edits):
        # First: a line inserted at the same place (after the imports) uses it.
        edits.insert(0, _imports.import_edit(tree, module.off, module.emg, PACKAGE))
    return FixResult(apply(source, edits), module.notes)
