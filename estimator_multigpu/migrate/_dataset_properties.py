"""TF 1.x's Dataset and Iterator properties onto tf.compat.v1.data's functions.

`ds.output_types`, `ds.output_shapes` and `ds.output_classes` are properties
of TF 1.x's `Dataset` (and of `tf.compat.v1.data.Iterator`) only: a dataset
made in a module that kept `import tensorflow as tf` is a TF 2 dataset, which
has none, even when the module reading them was ported to `tf.compat.v1`
(the reinitializable-iterator shape
`Iterator.from_structure(train.output_types, train.output_shapes)` over a
dataset a helper module built). TensorFlow's own successors,
`tf.compat.v1.data.get_output_types(ds)` (`get_output_shapes`,
`get_output_classes`), read either kind of dataset and an iterator, so the
read becomes that call wherever it is and whatever made its receiver.

A module that assigns one of these attributes or defines it (a class of its
own with an `output_shapes`) keeps its reads: they are not a dataset's.
"""

from __future__ import annotations

import ast
import re

from estimator_multigpu.migrate import _astutil, _contrib_calls
from estimator_multigpu.migrate._edits import Edit
from estimator_multigpu.migrate._engine import Module, ProgramContext, finding_edits
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "dataset-property"
ANCHOR = "dataset-properties"
PROPERTIES = ("output_types", "output_shapes", "output_classes")


def _rule(prop: str, root: str | None):
    summary = (
        f"Dataset.{prop} is a property of TF 1.x's Dataset and Iterator only: a "
        "TF 2 dataset (made where `import tensorflow as tf` stayed) has none "
        "(AttributeError)"
    )
    replacement = f"tf.compat.v1.data.get_{prop}(ds) (any dataset, or an iterator"
    if root is None:
        replacement += (
            "; --fix cannot here: the module imports no tensorflow to spell it with)"
        )
        return rule(RULE_ID, summary, replacement, ANCHOR, fixable=False)
    return rule(
        RULE_ID, summary, replacement + "; emg-migrate --fix writes it)", ANCHOR
    )


def _own_attributes(tree: ast.Module) -> set[str]:
    """The property names the module assigns or defines itself."""
    own = set()
    for node in _astutil.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            own.add(node.attr)
    return own & set(PROPERTIES)


def _reads(m: Module) -> list[ast.Attribute]:
    """The `<receiver>.<property>` reads that are a dataset's or an iterator's."""
    own = _own_attributes(m.tree)
    return [
        node
        for node in _astutil.nodes(m.tree, ast.Attribute)
        if isinstance(node.ctx, ast.Load)
        and node.attr in PROPERTIES
        and node.attr not in own
        and not m.table.resolve(node.value)  # a module's name, not a dataset
    ]


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per property read."""
    del ctx
    out = list(m.findings)
    root = _contrib_calls.tf_root(m.table)
    for node in _reads(m):
        out.append(
            at(
                m,
                node,
                f"Dataset.{node.attr}",
                m.off.segment(node) or node.attr,
                _rule(node.attr, root),
            )
        )
    return out


def _read_edits(m: Module, node: ast.Attribute, data: str) -> list[Edit] | None:
    """`r.prop` -> `data.get_prop(r)`, leaving `r` in place (so edits inside it
    stand); None when a comment sits between `r` and `.prop`."""
    start, end = m.off.span(node)
    dot = re.search(rf"\s*\.\s*{node.attr}$", m.source[start:end])
    receiver_end = m.off.span(node.value)[1]
    gap = m.source[receiver_end : start + dot.start()] if dot else "#"
    if "#" in gap or gap.strip(" \t\r\n\\)"):
        return None
    return [
        Edit(start, start, f"{data}.get_{node.attr}("),
        Edit(start + dot.start(), end, ")"),
    ]


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus the rewrite of each fixable property finding."""
    del ctx
    root = _contrib_calls.tf_root(m.table)

    def make(f):
        if not f.rule.fixable or root is None:
            return None
        return _read_edits(m, f.node, f"{root}.compat.v1.data")

    return finding_edits(m, RULE_ID, make)
