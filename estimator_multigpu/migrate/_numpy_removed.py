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
  `np.product` -> `np.prod` ... (`ALIASES`, `VALUES`): the same object;
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
from estimator_multigpu.migrate._edits import Edit, place
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "numpy-removed"
ANCHOR = "numpy-2-removed-names"
# np.<name> -> the builtin it was (removed in NumPy 1.24).
BUILTINS = {
    "float": "float",
    "int": "int",
    "complex": "complex",
    "object": "object",
    "str": "str",
    "unicode": "str",
}
# np.<name> -> np.<name> of the same object (removed in NumPy 2.0 and 2.4).
ALIASES = {
    "float_": "float64",
    "complex_": "complex128",
    "cfloat": "complex128",
    "singlecomplex": "complex64",
    "longfloat": "longdouble",
    "longcomplex": "clongdouble",
    "clongfloat": "clongdouble",
    "string_": "bytes_",
    "unicode_": "str_",
    "bool8": "bool_",
    "int0": "intp",
    "uint0": "uintp",
    "object0": "object_",
    "str0": "str_",
    "bytes0": "bytes_",
    "void0": "void",
    "Inf": "inf",
    "Infinity": "inf",
    "infty": "inf",
    "PINF": "inf",
    "NaN": "nan",
    "NAN": "nan",
    "product": "prod",
    "cumproduct": "cumprod",
    "sometrue": "any",
    "alltrue": "all",
    "round_": "round",
    "mat": "asmatrix",
    "trapz": "trapezoid",
}
# np.<name> -> the value it was ("{np}" is how the module spells numpy).
VALUES = {"NINF": "-{np}.inf", "NZERO": "-0.0", "PZERO": "0.0"}
# Removed functions rewritten where they are called.
CALLS = {
    "cast": "{np}.asarray({x}).astype({T})",
    "asscalar": "{x}.item()",
    "in1d": "{np}.isin{args}.ravel()",
}
NAMES = set(BUILTINS) | set(ALIASES) | set(VALUES) | set(CALLS)
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
    if name in BUILTINS:
        return BUILTINS[name]
    if name in ALIASES:
        return f"np.{ALIASES[name]}"
    if name in VALUES:
        return VALUES[name].format(np="np")
    return CALLS[name].format(np="np", x="x", T="dtype", args="(...)")


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


def _own(tree: ast.Module, numpy: set[str]) -> tuple[set[str], set[str]]:
    """(the names the module binds itself, the numpy attributes it assigns)."""
    names, assigned = set(), set()
    for node in _astutil.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name) and node.value.id in numpy:
                assigned.add(node.attr)
    return names, assigned


def _numpy_names(m: Module) -> set[str]:
    return {name for name, path in m.table.bindings.items() if path == "numpy"}


class _Scan:
    """The removed names one module uses, with how each can be rewritten."""

    def __init__(self, m: Module):
        self.m = m
        self.numpy = _numpy_names(m)
        self.bound, self.assigned = _own(m.tree, self.numpy)
        self.parents = {
            child: node
            for node in _astutil.walk(m.tree)
            for child in ast.iter_child_nodes(node)
        }

    def is_removed(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.numpy
            and node.attr in NAMES
            and node.attr not in self.assigned
        )

    def use(self, node: ast.Attribute) -> tuple[ast.AST, str]:
        """(the node to rewrite, why it cannot be, or '')."""
        name = node.attr
        if name in BUILTINS and BUILTINS[name] in self.bound:
            return node, f"the module binds {BUILTINS[name]} itself"
        if name not in CALLS:
            return node, ""
        call = self.parents.get(node)
        if name == "cast":
            sub, call = call, self.parents.get(call)
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

    def imported(self) -> list[tuple[ast.ImportFrom, str]]:
        """(the import, the name) for each removed name imported from numpy."""
        return [
            (node, alias.name)
            for node in _astutil.nodes(self.m.tree, ast.ImportFrom)
            if node.module == "numpy" and node.level == 0
            for alias in node.names
            if alias.name in NAMES
        ]


def _finding(m: Module, node: ast.AST, name: str, why: str) -> Finding:
    return Finding(
        m.path,
        node.lineno,
        m.off.column(node) + 1,
        f"numpy.{name}",
        m.off.segment(node) or name,
        _rule(name, not why, why),
        node,
    )


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per removed NumPy name used."""
    del ctx
    out = list(m.findings)
    scan = _Scan(m)
    for node, name in scan.imported():
        out.append(_finding(m, node, name, "imported by name: rewrite the import"))
    if not scan.numpy:
        return out
    for node in _astutil.walk(m.tree):
        if scan.is_removed(node):
            target, why = scan.use(node)
            out.append(_finding(m, target, node.attr, why))
    return out


def _wrapped(m: Module, node: ast.AST, inner: list[Edit]) -> str:
    """The text of `node`, parenthesized unless a method binds to it as is."""
    text = m.off.text(node, inner)
    return text if isinstance(node, _PRIMARY) else f"({text})"


def _value_text(m: Module, node: ast.Attribute, parents: dict) -> str:
    """`-np.inf` (or `-0.0`), parenthesized where its parent binds tighter."""
    text = VALUES[node.attr].format(np=m.off.segment(node.value))
    parent = parents.get(node)
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
        return CALLS["cast"].format(
            np=np_text,
            x=m.off.text(call.args[0], inner),
            T=m.off.text(call.func.slice, inner),
        )
    if attr.attr == "asscalar":
        return CALLS["asscalar"].format(x=_wrapped(m, call.args[0], inner))
    args = m.off.text(call, inner)[len(m.off.segment(call.func)) :]
    return CALLS["in1d"].format(np=np_text, args=args)


def _edit(m: Module, node: ast.AST, inner: list[Edit], parents: dict) -> Edit:
    if isinstance(node, ast.Call):
        return m.off.replace(node, _call_text(m, node, inner))
    name = node.attr
    if name in BUILTINS:
        return m.off.replace(node, BUILTINS[name])
    if name in VALUES:
        return m.off.replace(node, _value_text(m, node, parents))
    end = m.off.span(node)[1]  # the attribute ends the node's text
    return Edit(end - len(name), end, ALIASES[name])


def _ours(m: Module) -> list[Finding]:
    return [
        f
        for f in m.findings
        if f.rule.rule_id == RULE_ID and f.rule.fixable and not f.fixed
    ]


def _made(m: Module, ours: list[Finding]) -> list[tuple[Edit, list[Finding]]]:
    """Each outermost rewrite, with the findings it resolves (innermost first:
    a call's edit takes in the edits of the removed names inside it)."""
    parents = _Scan(m).parents
    made: list[tuple[Edit, list[Finding]]] = []
    for f in sorted(ours, key=lambda f: _length(m, f.node)):
        start, end = m.off.span(f.node)
        inner = [p for p in made if start <= p[0].start and p[0].end <= end]
        edit = _edit(m, f.node, [e for e, _ in inner], parents)
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
