"""Finds legacy TensorFlow API uses in one Python source, without running it."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _engine
from estimator_multigpu.migrate._finding import Finding
from estimator_multigpu.migrate._registry import REGISTRY

__all__ = ["Finding", "scan_rules"]


def scan_rules(tree: ast.AST, source: str, path: str) -> list[Finding]:
    """Returns the legacy API uses the rule table names, sorted by position.

    The first stage of `passes.scan_tree` (the public `scan_tree`): the
    registry's `table` rules, in order. The passes add their findings after.

    Args:
      tree: the module, from `ast.parse(source)`.
      source: its text (for columns and spellings).
      path: the file name to put in findings.
    """
    module = _engine.Module(source, tree, path)
    findings = _engine.find(REGISTRY, "table", module, _engine.ProgramContext())
    findings.sort(key=lambda f: (f.line, f.col))
    return findings
