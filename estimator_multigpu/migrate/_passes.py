"""The whole scan (rules, then the passes) and the ports of the rewritten text."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _engine, _scanner
from estimator_multigpu.migrate._registry import REGISTRY


def scan_tree(tree: ast.Module, source: str, path: str) -> list[_scanner.Finding]:
    """Returns every finding in a parsed module, sorted by position.

    The one scan behind `emg-migrate`, `runner.process` and the public
    `emg.migrate.scan_tree`: the rule table's findings refined by the passes
    (era shapes, slim grouping), plus the passes' own (compat.v1 port, era
    shapes, slim clones). Inline `# emg-migrate: ignore` comments are not
    applied here (`runner.process` applies them).

    Args:
      tree: the module, from `ast.parse(source)`.
      source: its text (for columns and spellings).
      path: the file name to put in findings.
    """
    return scan(tree, source, path, _scanner.scan_rules(tree, source, path))


def scan(tree: ast.Module, source: str, path: str, findings: list) -> list:
    """Returns `findings` refined by the registry's passes, plus their own.

    Args:
      tree: the module.
      source: its text.
      path: the file name for new findings.
      findings: from `scanner.scan_rules`.
    """
    module = _engine.Module(source, tree, path, findings=list(findings))
    out = _engine.find(REGISTRY, "passes", module, _engine.ProgramContext())
    out.sort(key=lambda f: (f.line, f.col))
    return out


def fix(source: str, findings: list, notes: list, per_use: bool = False) -> str:
    """Applies the registry's ports (compat.v1, tf_slim) to `source` (already
    rewritten by the fixer).

    Marks the findings they resolve as fixed; a port that is not safe adds
    its reason to `notes` and leaves its part of `source` unchanged. With
    `per_use` (after tf_upgrade_v2) each TF1 name is renamed to
    `tf.compat.v1.<name>` instead of switching the import.
    """
    module = _engine.Module(
        source, None, findings=findings, notes=notes, upgraded=per_use
    )
    return _engine.port(REGISTRY, source, module, _engine.ProgramContext())
