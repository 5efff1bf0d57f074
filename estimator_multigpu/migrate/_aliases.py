"""Resolves names in a module to the TensorFlow API paths they are bound to."""

from __future__ import annotations

import ast
import functools

from estimator_multigpu.migrate import _astutil

# Prefixes that all mean "the TF 1.x API", longest first.
_TF_ROOTS = ("tensorflow.compat.v1", "tensorflow.compat.v2", "tensorflow")


@functools.lru_cache(maxsize=8192)
def canonical(dotted: str | None) -> str | None:
    """Returns `dotted` spelled from `tf.`, or None if it is not TensorFlow.

    Args:
      dotted: a full import path such as `'tensorflow.compat.v1.train.batch'`.

    Returns:
      e.g. `'tf.train.batch'`; `tf.compat.v1.X` and `tensorflow.X` both map to
      `tf.X`, so one rule table covers every way of spelling an API.
    """
    if not dotted:
        return None
    for root in _TF_ROOTS:
        if dotted == root or dotted.startswith(root + "."):
            rest = dotted[len(root) :]
            if rest.startswith(".compat.v1"):
                return canonical("tensorflow" + rest)
            return "tf" + rest
    return None


class AliasTable:
    """Maps each name bound by an import (or `x = tf.compat.v1`) to its path.

    The table is flow-insensitive: a name keeps the last binding seen in
    source order, which is what legacy scripts mean in practice. Imports bind
    wherever they are; assignments (`tf = tf.compat.v1`) only at module level.

    Attributes:
      bindings: name -> full dotted path, e.g. `{'tf': 'tensorflow.compat.v1'}`.
      assigned: the names bound by an assignment rather than an import.
    """

    def __init__(self, tree: ast.AST):
        self.bindings: dict[str, str] = {}
        self.assigned: set[str] = set()
        nodes = [n for n in _astutil.nodes(tree, ast.Import, ast.ImportFrom)]
        nodes += [n for n in getattr(tree, "body", []) if isinstance(n, ast.Assign)]
        for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
            self._bind(node)

    def _bind(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bindings[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.bindings[top] = top
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                for alias in node.names:
                    name = alias.asname or alias.name
                    self.bindings[name] = f"{node.module}.{alias.name}"
        elif len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = self.resolve(node.value)
            if canonical(target) is not None:
                self.bindings[node.targets[0].id] = target
                self.assigned.add(node.targets[0].id)

    def resolve(self, node: ast.AST) -> str | None:
        """Returns the full dotted path `node` (a Name/Attribute chain) names."""
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def resolve_tf(self, node: ast.AST) -> str | None:
        """Like `resolve`, spelled from `tf.` (None for non-TensorFlow names)."""
        return canonical(self.resolve(node))

    def name_for(self, module: str) -> str | None:
        """Returns a name bound to exactly `module` (e.g. `'emg'`), if any."""
        for name, path in self.bindings.items():
            if path == module:
                return name
        return None
