"""One finding: a use of a legacy API, where it is and the rule that names it."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _rules


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


def at(module, node: ast.AST, api: str, text: str, rule: _rules.Rule) -> Finding:
    """A finding of `rule` at `node` of `module` (an `_engine.Module`: its
    path, and its offsets for the column in characters)."""
    col = module.off.column(node) + 1
    return Finding(module.path, node.lineno, col, api, text, rule, node)
