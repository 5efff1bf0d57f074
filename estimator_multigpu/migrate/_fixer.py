"""Applies the safe rewrites (`--fix`) to one source, keeping every other line as is."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _engine,
    _imports,
    _scanner,
)
from estimator_multigpu.migrate._kept_comments import apply_keeping_comments
from estimator_multigpu.migrate._queue_chains import chain_text
from estimator_multigpu.migrate._registry import REGISTRY
from estimator_multigpu.migrate._scanner import Finding


@dataclasses.dataclass
class FixResult:
    """The rewritten source, and why some queue chains were left alone.

    Attributes:
      source: the new text (equal to the input when nothing was safe to do).
      notes: (line, reason) for each queue chain that needs a manual rewrite.
    """

    source: str
    notes: list[tuple[int, str]]


def _emg_name(tree: ast.Module, table: _aliases.AliasTable) -> str:
    """The name of the package in this module (a free name when unbound)."""
    bound = table.name_for(_imports.PACKAGE)
    if bound:
        return bound
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    return chain_text.unique("emg", taken)


def _staged(module: _engine.Module, ctx: _engine.ProgramContext) -> FixResult | None:
    """The fix of the first stage's source that fixes a finding `module`'s own
    fix would not reach; None when no stage does."""
    for rule in REGISTRY.phase("stages"):
        staged = rule.run(module, ctx) if module.findings else None
        if staged is None:
            continue
        tree = ast.parse(staged)
        again = _scanner.scan_rules(tree, staged, module.findings[0].path)
        result = fix(staged, tree, again, ctx)
        if _engine.carry(module.findings, again):
            return result
    return None


def _rewrite(module: _engine.Module, ctx: _engine.ProgramContext) -> FixResult:
    module.emg = _emg_name(module.tree, module.table)
    edits = _engine.edits(REGISTRY, module, ctx)
    return FixResult(apply_keeping_comments(module.source, edits), module.notes)


def fix(
    source: str,
    tree: ast.Module,
    findings: list[Finding],
    ctx: _engine.ProgramContext | None = None,
) -> FixResult:
    """Rewrites what is safe in `source`; marks the `findings` it resolved.

    Only iterates the registry: a stage's source is fixed instead when that
    fixes more (`_engine.carry`); else the `edits` rules run in their order,
    each leaving alone what overlaps an edit before it, then the `finish`
    rules (the imports the edits leave dead go, the one they need comes
    in); last, the `settle` rules reword the findings from what was fixed.

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
    module = _engine.Module(source, tree, findings=findings)
    result = _staged(module, ctx) or _rewrite(module, ctx)
    _engine.find(REGISTRY, "settle", module, ctx)
    return result
