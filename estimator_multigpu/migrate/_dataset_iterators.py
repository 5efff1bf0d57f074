"""TF 1.x's Dataset iterator methods onto emg's functions of the same name.

`ds.make_one_shot_iterator()` and `ds.make_initializable_iterator(shared_name)`
are methods of TF 1.x's `Dataset` only: a dataset made in a module that kept
`import tensorflow as tf` is a TF 2 dataset, which has neither. TF 1.x's
methods also copied the dataset into the iterator's graph, so a dataset made
in `main()` was read inside an Estimator input_fn's graph; TF 2.x's
`tf.compat.v1.data.make_one_shot_iterator` refuses that. The call becomes
`emg.inputs.queues.make_one_shot_iterator(ds)` (or
`make_initializable_iterator(ds, shared_name)`), which does both, wherever
the call is and whatever made its receiver.
"""

from __future__ import annotations

import ast
import re

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit
from estimator_multigpu.migrate._engine import Module, ProgramContext, finding_edits
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "dataset-iterator"
ANCHOR = "dataset-iterators"
# method -> the keyword its one optional parameter has (None: it takes none).
METHODS = {
    "make_one_shot_iterator": None,
    "make_initializable_iterator": "shared_name",
}
# Where the functions live, after the package's import name.
HOME = "inputs.queues"


def _rule(method: str):
    summary = (
        f"Dataset.{method}() is a method of TF 1.x's Dataset only: a TF 2 "
        "dataset (made where `import tensorflow as tf` stayed) has none "
        "(AttributeError), and tf.compat.v1.data's function refuses a dataset "
        "made in another graph (an Estimator input_fn reading one made in main())"
    )
    form = f"emg.{HOME}.{method}(ds"
    form += ", shared_name)" if METHODS[method] else ")"
    replacement = (
        f"{form} (TF 1.x's method as a function: any dataset, from any graph; "
        "emg-migrate --fix writes it)"
    )
    return rule(RULE_ID, summary, replacement, ANCHOR)


def _is_method_call(m: Module, node: ast.AST) -> bool:
    """True for `<receiver>.<method>(...)` with the method's own arguments."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr not in METHODS or m.table.resolve(node.func.value):
        return False  # another method, or tf.compat.v1.data's function itself
    keyword = METHODS[node.func.attr]
    if keyword is None:
        return not node.args and not node.keywords
    names = [k.arg for k in node.keywords]
    return (
        len(node.args) + len(names) <= 1
        and not any(isinstance(a, ast.Starred) for a in node.args)
        and all(n == keyword for n in names)
    )


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per iterator method call."""
    del ctx
    out = list(m.findings)
    for node in _astutil.walk(m.tree):
        if _is_method_call(m, node):
            method = node.func.attr
            out.append(
                at(
                    m,
                    node,
                    f"Dataset.{method}",
                    m.off.segment(node) or method,
                    _rule(method),
                )
            )
    return out


def _call_edits(m: Module, call: ast.Call, data: str) -> list[Edit] | None:
    """`r.method(a)` -> `data.method(r, a)`, leaving `r` and `a` in place (so
    edits inside them stand); None when a comment sits in the way.

    The receiver is the attribute's text before its `.method`, with any
    parentheses it has (`(a + b).method()` -> `data.method((a + b))`).
    """
    start, func_end = m.off.span(call.func)
    dot = re.search(rf"\s*\.\s*{call.func.attr}$", m.source[start:func_end])
    gap = dot and re.match(
        rf"\s*\.\s*{call.func.attr}\s*\(\s*",
        m.source[start + dot.start() : m.off.span(call)[1]],
    )
    if gap is None:
        return None
    end = start + dot.start()
    comma = ", " if call.args or call.keywords else ""
    return [
        Edit(start, start, f"{data}.{call.func.attr}("),
        Edit(end, end + gap.end(), comma),
    ]


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus the rewrite of each iterator finding."""
    del ctx
    data = f"{m.emg}.{HOME}"
    return finding_edits(m, RULE_ID, lambda f: _call_edits(m, f.node, data))
