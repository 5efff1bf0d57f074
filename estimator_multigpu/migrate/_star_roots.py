"""Free names that are TensorFlow through a star import of the program.

A file with no TensorFlow import of its own that does `from models import *`
and reads `tf.placeholder`, `tf.app.flags`... gets `tf` from that module. A
free name (bound nowhere in the file, not a builtin) whose chains read
names only `tf.compat.v1` has is that TensorFlow: `_star_reexports` gives
the file its own `import tensorflow.compat.v1 as <name>`, and the module's
alias table binds the name to `tensorflow.compat.v1` from the start, so the
other rules (tf.contrib names, queues) read the file's TensorFlow names in
the same `--fix` as the port.
"""

from __future__ import annotations

import ast
import builtins

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._api_spec import SPEC

COMPAT = "tensorflow.compat.v1"


def local_star_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """The module-level `from X import *` of modules other than TensorFlow's."""
    return [
        s
        for s in getattr(tree, "body", [])
        if isinstance(s, ast.ImportFrom)
        and [a.name for a in s.names] == ["*"]
        and (s.level or not (s.module or "").split(".")[0] == "tensorflow")
    ]


def _chain(node: ast.Attribute) -> tuple[str, str] | None:
    """(root name, dotted rest) of `root.a.b`, or None for another shape."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, ".".join(reversed(parts))


class _Uses(ast.NodeVisitor):
    """The outermost chains `root.<TF 1.x name>` on free root names."""

    def __init__(self, free: set[str]):
        self.free, self.uses = free, {}

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _chain(node) if isinstance(node.ctx, ast.Load) else None
        if chain and chain[0] in self.free:
            api = SPEC.v1_prefix(f"tf.{chain[1]}")
            if api:
                self.uses.setdefault(chain[0], []).append((api, node.lineno))
                return
        self.generic_visit(node)


def uses(tree: ast.Module) -> dict[str, list[tuple[str, int]]]:
    """{free name: [(TF 1.x name, line)]} of a file with a local star import."""
    if not local_star_imports(tree):
        return {}
    bound = _astutil.writes(tree) | set(dir(builtins))
    visitor = _Uses({n for n in _astutil.module_reads(tree) if n not in bound})
    visitor.visit(tree)
    return visitor.uses
