"""`--fix` for the TF 1.x MNIST tutorial modules: imports of the drop-ins instead.

`tensorflow.examples.tutorials.mnist` (`input_data`, `mnist`) and contrib's
`tensorflow.contrib.learn.python.learn.datasets.mnist` are in no TF 2
package; `estimator_multigpu.tutorials` mirrors them. An import is rewritten
only when every name the program reads from it exists in the drop-in;
otherwise it stays, with a note naming what is missing.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, EditSet

PACKAGE = "estimator_multigpu.tutorials"
_INPUT = f"{PACKAGE}.input_data"
INPUT_NAMES = frozenset(
    {
        "DataSet",
        "Datasets",
        "dense_to_one_hot",
        "extract_images",
        "extract_labels",
        "load_mnist",
        "read_data_sets",
    }
)
MODEL_NAMES = frozenset(
    {
        "IMAGE_PIXELS",
        "IMAGE_SIZE",
        "NUM_CLASSES",
        "evaluation",
        "inference",
        "loss",
        "training",
    }
)
_CONTRIB = "tensorflow.contrib.learn.python.learn.datasets.mnist"
# TF 1.x module -> (drop-in module, the names it has).
DROP_INS = {
    "tensorflow.examples.tutorials.mnist": (
        PACKAGE,
        frozenset({"input_data", "mnist"}),
    ),
    "tensorflow.examples.tutorials.mnist.input_data": (_INPUT, INPUT_NAMES),
    "tensorflow.examples.tutorials.mnist.mnist": (f"{PACKAGE}.mnist", MODEL_NAMES),
    _CONTRIB: (_INPUT, INPUT_NAMES),
}
# Attribute spellings (from `tf.`) of contrib's module.
CONTRIB_ATTRS = (
    "tf.contrib.learn.datasets.mnist",
    "tf.contrib.learn.python.learn.datasets.mnist",
)


class NoDropIn(str):
    """Why an import stays: its module has no drop-in at all (another rule
    reports the import, so this one adds no note)."""


def target(path: str) -> str | None:
    """The drop-in for the imported `path` (a module, or a name in one), if any."""
    if path in DROP_INS:
        return DROP_INS[path][0]
    parent, _, name = path.rpartition(".")
    if parent in DROP_INS and name in DROP_INS[parent][1]:
        return f"{DROP_INS[parent][0]}.{name}"
    return None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _attrs_read(tree: ast.AST, dotted: str) -> set[str]:
    """The attributes read from the name (or dotted chain) `dotted`."""
    return {
        n.attr
        for n in _astutil.nodes(tree, ast.Attribute)
        if _dotted(n.value) == dotted
    }


def missing(tree: ast.AST, path: str, local: str) -> list[str]:
    """Names read as `local.<name>` that the drop-in for module `path` lacks."""
    if path not in DROP_INS:
        return []
    return sorted(_attrs_read(tree, local) - DROP_INS[path][1])


def _from_text(pairs: list[tuple[str, str]], indent: str, newline: str) -> str:
    """`from P import n as local` statements, one per parent module."""
    groups: dict[str, list[str]] = {}
    for new, local in pairs:
        parent, _, name = new.rpartition(".")
        groups.setdefault(parent, []).append(
            name if name == local else f"{name} as {local}"
        )
    lines = [f"from {p} import {', '.join(names)}" for p, names in groups.items()]
    return (newline + indent).join(lines)


def from_import(stmt: ast.ImportFrom, tree, off) -> tuple[list[Edit], str | None]:
    """The edit for `from <TF 1.x module> import ...`, or (no edits, why not)."""
    pairs = []
    for alias in stmt.names:
        path, local = f"{stmt.module}.{alias.name}", alias.asname or alias.name
        new = target(path) if alias.name != "*" else None
        if new is None:
            return [], NoDropIn(f"`{path}` has no drop-in in {PACKAGE}")
        lacking = missing(tree, path, local)
        if lacking:
            return [], _lacks(new, lacking)
        pairs.append((new, local))
    indent = off.lines[stmt.lineno - 1][: off.column(stmt)]
    return [off.replace(stmt, _from_text(pairs, indent, off.newline))], None


def _lacks(module: str, names: list[str]) -> str:
    return f"{module} has no {', '.join(names)}; write the import by hand"


def _chains(tree: ast.AST, path: str) -> list[ast.Attribute]:
    """The outermost `a.b.c` chains spelling exactly `path`."""
    return [
        n
        for n in _astutil.nodes(tree, ast.Attribute)
        if isinstance(n.ctx, ast.Load) and _dotted(n) == path
    ]


def _root_still_bound(tree: ast.AST, stmt: ast.Import, root: str) -> bool:
    """Whether another import binds `root` (so rewriting `stmt` keeps it)."""
    for node in _astutil.walk(tree):
        if node is stmt or not isinstance(node, ast.Import):
            continue
        if any((a.asname or a.name.split(".")[0]) == root for a in node.names):
            return True
    return False


def _plain_import(alias, stmt, tree, off) -> tuple[list[Edit], str | None]:
    """`import tensorflow.examples...input_data` (binds `tensorflow`): the
    statement and every `tensorflow.examples...input_data` chain."""
    chains = _chains(tree, alias.name)
    heads = {id(c) for chain in chains for c in _astutil.walk(chain)}
    root = alias.name.split(".")[0]
    others = [
        n for n in _astutil.nodes(tree, ast.Name) if n.id == root and id(n) not in heads
    ]
    if others and not _root_still_bound(tree, stmt, root):
        return [], f"`{root}` is read elsewhere; write the import by hand"
    new = DROP_INS[alias.name][0]
    return [off.replace(alias, new)] + [off.replace(c, new) for c in chains], None


def plain_import(stmt: ast.Import, tree, off) -> tuple[list[Edit], str | None]:
    """The edits for `import <TF 1.x module> [as x]`, or (no edits, why not)."""
    out = []
    for alias in stmt.names:
        if target(alias.name) is None:
            if alias.name.startswith("tensorflow.examples."):
                return [], NoDropIn(f"`{alias.name}` has no drop-in in {PACKAGE}")
            continue
        if alias.name not in DROP_INS:
            return [], f"`{alias.name}` is not a module; write the import by hand"
        local = alias.asname or alias.name
        lacking = missing(tree, alias.name, local)
        if lacking:
            return [], _lacks(DROP_INS[alias.name][0], lacking)
        if alias.asname:
            out.append(off.replace(alias, f"{DROP_INS[alias.name][0]} as {local}"))
            continue
        edits, why = _plain_import(alias, stmt, tree, off)
        if why:
            return [], why
        out += edits
    return out, None


def contrib_uses(tree, table, off, emg: str, taken: EditSet):
    """Yields (attribute node, edit) for `tf.contrib.learn.datasets.mnist.X` uses."""
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in INPUT_NAMES:
            continue
        if not isinstance(node.value, ast.Attribute):
            continue  # a name bound by an import: the import is rewritten
        if table.resolve_tf(node.value) not in CONTRIB_ATTRS:
            continue
        edit = off.replace(node.value, f"{emg}.tutorials.input_data")
        if not taken.overlaps(edit):
            yield node, edit


def _relevant(path: str) -> bool:
    roots = ("tensorflow.examples", _CONTRIB)
    return any(path == r or path.startswith(r + ".") for r in roots)


def _statement(stmt, tree, off) -> tuple[list[Edit], str | None, set[str]]:
    """(edits, why not, local names bound) for one import statement."""
    if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
        if any(_relevant(f"{stmt.module}.{a.name}") for a in stmt.names):
            new, why = from_import(stmt, tree, off)
            return new, why, {a.asname or a.name for a in stmt.names}
    if isinstance(stmt, ast.Import) and any(_relevant(a.name) for a in stmt.names):
        new, why = plain_import(stmt, tree, off)
        return new, why, {a.asname for a in stmt.names if a.asname}
    return [], None, set()


def _root(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def edits(tree, table, off, findings, taken: list[Edit], emg: str, notes) -> list:
    """`taken` plus the edits that import the drop-ins; marks what they fix.

    A statement that imports a name the drop-in lacks stays, with a note
    (line, reason) in `notes`.
    """
    placed, out = EditSet(taken), list(taken)
    nodes, roots = set(), set()
    for stmt in _astutil.walk(tree):
        new, why, bound = _statement(stmt, tree, off)
        if why and not isinstance(why, NoDropIn):
            notes.append((stmt.lineno, f"tutorial import not rewritten: {why}"))
        if why or not new or any(placed.overlaps(e) for e in new):
            continue
        for e in new:
            placed.add(e)
        out += new
        nodes.add(id(stmt))
        roots |= bound
    for node, edit in list(contrib_uses(tree, table, off, emg, placed)):
        placed.add(edit)
        out.append(edit)
        nodes |= {id(n) for n in _astutil.walk(node)}
    for f in findings:
        ours = f.rule.rule_id in ("contrib", "tf-examples") and _root(f.node) in roots
        f.fixed = f.fixed or id(f.node) in nodes or ours
    return out
