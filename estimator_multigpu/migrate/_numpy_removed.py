"""NumPy names that TF 1.x-era code used and NumPy 2 removed.

TensorFlow 2.21 needs NumPy 2, so a TF 1.x script meets NumPy's removals
too: `np.float`, `np.int` (aliases of the builtins, removed in 1.24),
`np.cast[dtype](x)`, `np.float_`, `np.NaN`, `np.Inf`, `np.product` (removed
in 2.0), `np.in1d`, `np.trapz` (removed in 2.4). Python parses each and
fails only when its line runs (AttributeError), often after the training
did. Each name here has an exact successor, the object or value it was an
alias of, or the body of the removed function (NumPy's own migration notes,
`numpy/_expired_attrs_2_0.py` and `__former_attrs__`):

- `np.float` -> `float` (and `int`, `complex`, `object`, `str`, and
  `np.unicode` -> `str`): these were the builtins themselves;
- `np.float_` -> `np.float64`, `np.NaN` -> `np.nan`, `np.NINF` -> `-np.inf`,
  `np.product` -> `np.prod` ... (the spec's `numpy_aliases`, `numpy_values`):
  the same object;
- `np.cast[T](x)` -> `np.asarray(x).astype(T)`: NumPy 1.x's `cast[T]` was
  `lambda x: array(x, copy=False).astype(T)`, a fresh array cast with
  `astype`'s unsafe casting (NumPy's note `np.asarray(x, dtype=T)` may
  return `x` itself, and refuses a Python int out of T's range);
- `np.asscalar(a)` -> `a.item()`: its body;
- `np.in1d(a, b, ...)` -> `np.isin(a, b, ...).ravel()`: `in1d` flattened
  `isin`'s answer.

`np.bool` and `np.long` are left: NumPy 2 defines them again. A module that
assigns the name on numpy itself (`np.float = float`, a compatibility shim)
keeps its uses; a builtin successor the module binds itself, a removed
function used as a value, and `from numpy import float_` are reported for a
hand rewrite.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding, at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "numpy-removed"
ANCHOR = "numpy-2-removed-names"
# Nodes a method call or an attribute binds to without parentheses.
_PRIMARY = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Call,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
)


def successor(name: str) -> str:
    """The successor of np.<name>, as the finding and the guide spell it."""
    if name in SPEC.numpy_builtins:
        return SPEC.numpy_builtins[name]
    if name in SPEC.numpy_aliases:
        return f"np.{SPEC.numpy_aliases[name]}"
    if name in SPEC.numpy_values:
        return SPEC.numpy_values[name].format(np="np")
    return SPEC.numpy_calls[name].format(np="np", x="x", T="dtype", args="(...)")


def _rule(name: str, fixable: bool, why: str = ""):
    spelled = "np.cast[dtype](x)" if name == "cast" else f"np.{name}"
    how = "emg-migrate --fix writes it" if fixable else why
    return rule(
        RULE_ID,
        f"{spelled} was removed from NumPy (NumPy 2 raises AttributeError "
        "when the line runs)",
        f"{successor(name)} (what it was; {how})",
        ANCHOR,
        fixable=fixable,
    )


class _Scan:
    """The removed names one module uses (the visitor's matches), with how
    each can be rewritten."""

    def __init__(self, m: Module):
        self.m = m
        self.found = m.uses
        self.bound = _astutil.writes(m.tree)

    def removed(self) -> list[ast.Attribute]:
        """Each read of a removed name on numpy that the module does not
        assign on numpy itself (a compatibility shim)."""
        assigned = self.found.numpy_assigned
        return [n for n in self.found.numpy if n.attr not in assigned]

    def use(self, node: ast.Attribute) -> tuple[ast.AST, str]:
        """(the node to rewrite, why it cannot be, or '')."""
        name = node.attr
        if name in SPEC.numpy_builtins and SPEC.numpy_builtins[name] in self.bound:
            return node, f"the module binds {SPEC.numpy_builtins[name]} itself"
        if name not in SPEC.numpy_calls:
            return node, ""
        call = self.found.outer(node)
        if name == "cast":
            sub, call = call, self.found.outer(call)
            if not isinstance(sub, ast.Subscript) or sub.value is not node:
                return node, "np.cast used as a value"
        else:
            sub = node
        if not isinstance(call, ast.Call) or call.func is not sub:
            return node, f"np.{name} used as a value, not called"
        if name != "in1d" and (len(call.args) != 1 or call.keywords):
            return node, f"np.{name} called with other than one argument"
        if any(isinstance(a, ast.Starred) for a in call.args):
            return node, f"np.{name} called with *args"
        return call, ""


def _finding(m: Module, node: ast.AST, name: str, why: str) -> Finding:
    return at(
        m, node, f"numpy.{name}", m.off.segment(node) or name, _rule(name, not why, why)
    )


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per removed NumPy name used."""
    del ctx
    out = list(m.findings)
    for node, name in m.uses.numpy_imports:
        out.append(_finding(m, node, name, "imported by name: rewrite the import"))
    if not m.uses.numpy:
        return out
    scan = _Scan(m)
    for node in scan.removed():
        target, why = scan.use(node)
        out.append(_finding(m, target, node.attr, why))
    return out


def _wrapped(m: Module, node: ast.AST, inner: list[Edit]) -> str:
    """The text of `node`, parenthesized unless a method binds to it as is."""
    text = m.off.text(node, inner)
    return text if isinstance(node, _PRIMARY) else f"({text})"


def _value_text(m: Module, node: ast.Attribute) -> str:
    """`-np.inf` (or `-0.0`), parenthesized where its parent binds tighter."""
    text = SPEC.numpy_values[node.attr].format(np=m.off.segment(node.value))
    parent = m.uses.outer(node)
    tight = (
        isinstance(parent, (ast.Attribute, ast.Subscript))
        and parent.value is node
        or isinstance(parent, ast.Call)
        and parent.func is node
        or isinstance(parent, ast.BinOp)
        and isinstance(parent.op, ast.Pow)
        and parent.left is node
    )
    return f"({text})" if tight and text.startswith("-") else text


def _call_text(m: Module, call: ast.Call, inner: list[Edit]) -> str:
    """The successor of a removed function's call, its arguments' edits in."""
    attr = call.func.value if isinstance(call.func, ast.Subscript) else call.func
    np_text = m.off.segment(attr.value)
    if attr.attr == "cast":
        return SPEC.numpy_calls["cast"].format(
            np=np_text,
            x=m.off.text(call.args[0], inner),
            T=m.off.text(call.func.slice, inner),
        )
    if attr.attr == "asscalar":
        return SPEC.numpy_calls["asscalar"].format(x=_wrapped(m, call.args[0], inner))
    args = m.off.text(call, inner)[len(m.off.segment(call.func)) :]
    return SPEC.numpy_calls["in1d"].format(np=np_text, args=args)


def _edit(m: Module, node: ast.AST, inner: list[Edit]) -> Edit:
    if isinstance(node, ast.Call):
        return m.off.replace(node, _call_text(m, node, inner))
    name = node.attr
    if name in SPEC.numpy_builtins:
        return m.off.replace(node, SPEC.numpy_builtins[name])
    if name in SPEC.numpy_values:
        return m.off.replace(node, _value_text(m, node))
    end = m.off.span(node)[1]  # the attribute ends the node's text
    return Edit(end - len(name), end, SPEC.numpy_aliases[name])


def _ours(m: Module) -> list[Finding]:
    return [
        f
        for f in m.findings
        if f.rule.rule_id == RULE_ID and f.rule.fixable and not f.fixed
    ]


def _made(m: Module, ours: list[Finding]) -> list[tuple[Edit, list[Finding]]]:
    """Each outermost rewrite, with the findings it resolves (innermost first:
    a call's edit takes in the edits of the removed names inside it)."""
    made: list[tuple[Edit, list[Finding]]] = []
    for f in sorted(ours, key=lambda f: _length(m, f.node)):
        start, end = m.off.span(f.node)
        inner = [p for p in made if start <= p[0].start and p[0].end <= end]
        edit = _edit(m, f.node, [e for e, _ in inner])
        made = [p for p in made if p not in inner]
        made.append((edit, [f] + [g for _, fs in inner for g in fs]))
    return made


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each fixable finding's rewrite
    (`np.cast[np.float_](x)` is one edit); one that overlaps an edit made
    before is left."""
    del ctx
    ours = _ours(m)
    return place(m.edits, _made(m, ours) if ours else [])


def _length(m: Module, node: ast.AST) -> int:
    start, end = m.off.span(node)
    return end - start
