"""Finds legacy TensorFlow API uses in one Python source, without running it."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _contrib_calls,
    _queue_loops,
    _rules,
    _tower_loops,
    _tower_rewrite,
)
from estimator_multigpu.migrate._edits import Offsets


@dataclasses.dataclass
class Finding:
    """One use of a legacy API.

    Attributes:
      path: the file scanned.
      line: 1-based line of the use.
      col: 1-based column (in characters) of the use.
      api: the canonical API used, e.g. `'tf.train.shuffle_batch'`.
      text: the source spelling, e.g. `'tf.compat.v1.train.shuffle_batch'`.
      rule: the matching `rules.Rule`.
      node: the AST node of the name the rule matched (a prefix of the use:
        `tf.estimator.ModeKeys` in `tf.estimator.ModeKeys.TRAIN`).
      fixed: True once the rewrite resolves it (written only with `--fix`).
    """

    path: str
    line: int
    col: int
    api: str
    text: str
    rule: _rules.Rule
    node: ast.AST = dataclasses.field(repr=False, compare=False)
    fixed: bool = False

    def to_dict(self, applied: bool = True) -> dict:
        """A JSON-ready dict; `applied` says whether the rewrite was written."""
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "rule": self.rule.rule_id,
            "api": self.api,
            "text": self.text,
            "summary": self.rule.summary,
            "replacement": self.rule.replacement,
            "guide": self.rule.guide,
            "fixable": self.fixed,
            "fixed": self.fixed and applied,
        }


class _Visitor(ast.NodeVisitor):
    def __init__(self, table: _aliases.AliasTable, make):
        self._table = table
        self._make = make

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not self._match(node):
            self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._match(node)

    def _match(self, node: ast.expr) -> bool:
        if not isinstance(node.ctx, ast.Load):
            return False
        path = self._table.resolve_tf(node)
        hit = _rules.lookup(path) if path else None
        if hit is None:
            return False
        prefix, rule = hit
        matched = node
        for _ in range(path.count(".") - prefix.count(".")):
            if not isinstance(matched, ast.Attribute):
                # An alias binds deeper than the rule's prefix: no safe rename.
                rule = dataclasses.replace(rule, rename=None)
                break
            matched = matched.value
        if isinstance(matched, ast.Name) and matched.id in self._table.assigned:
            # `Estimator = tf.estimator.Estimator` is fixed where it is assigned.
            rule = dataclasses.replace(rule, rename=None)
        self._make(node, path, rule, matched)
        return True


def _unused_imports(tree: ast.AST):
    """Yields (import, api, rule) for legacy imports whose names are never used.

    Such an import still fails on TF 2 (`from tensorflow.contrib import slim`),
    and no use of the name reports it.
    """
    uses = _astutil.reads(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            pairs = [
                (f"{node.module}.{a.name}", a.asname or a.name) for a in node.names
            ]
            pairs = [
                (node.module, "*") if name == "*" else (p, name) for p, name in pairs
            ]
        elif isinstance(node, ast.Import):
            pairs = [(a.name, a.asname or a.name.split(".")[0]) for a in node.names]
        else:
            continue
        for path, name in pairs:
            api = _aliases.canonical(path)
            hit = _rules.lookup(api) if api else None
            if hit and (name == "*" or not uses[name]):
                yield node, api, hit[1]


def scan_rules(tree: ast.AST, source: str, path: str) -> list[Finding]:
    """Returns the legacy API uses the rule table names, sorted by position.

    The first stage of `passes.scan_tree` (the public `scan_tree`), which
    adds the findings of the passes after it.

    Args:
      tree: the module, from `ast.parse(source)`.
      source: its text (for columns and spellings).
      path: the file name to put in findings.
    """
    off = Offsets(source)
    table = _aliases.AliasTable(tree)
    findings = []

    def make(node, api, rule, matched):
        if isinstance(node, ast.Import | ast.ImportFrom):
            text = f"import of {api}"
        elif isinstance(node, ast.For):
            text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}:"
        elif isinstance(node, ast.FunctionDef):
            text = f"def {node.name}(...)"
        else:
            text = off.segment(node) or api
        col = off.column(node) + 1
        findings.append(Finding(path, node.lineno, col, api, text, rule, matched))

    _Visitor(table, make).visit(tree)
    for node, api, rule in _unused_imports(tree):
        make(node, api, dataclasses.replace(rule, rename=None), node)
    loops = _tower_rewrite.find(tree, table, off)
    for node, is_loop in _tower_loops.find(tree, table):
        rule = _rules.TOWER_RULE if is_loop else _rules.AVERAGING_RULE
        rule = loops.get(id(node), (None, rule))[1]
        make(node, "tower loop" if is_loop else "gradient averaging", rule, node)
    for node in _queue_loops.find(tree, table):
        make(node, _queue_loops.API, _queue_loops.RULE, node)
    for node, api, rule, covered in _contrib_calls.find(tree, table, off):
        findings[:] = [f for f in findings if id(f.node) not in covered]
        make(node, api, rule, node)
    findings.sort(key=lambda f: (f.line, f.col))
    return findings
