"""A session made before the towers: resolve the flag's device count where the flags are parsed.

An entry script parses its flags (`args = parse_args()`), makes a
`tf.Session(config=tf.ConfigProto(...))` and only then calls into another
file of the program, whose tower loop `--fix` placed on
`emg.devices.resolve(num_gpus=self.gpu_num)`. There the devices come too
late: the session was built from its own ConfigProto, with one CPU, so the
towers resolved afterwards are soft-placed on it (N towers, one device).

When another file of the program resolves a count read from an attribute
named like one of this file's argparse flags (`self.gpu_num`, `--gpu_num`),
the statement that binds the parsed flags is followed by
`emg.devices.resolve(num_gpus=<args>.<flag>)`, so the devices exist before
the session, and the explicit session configs after it in that function
become `emg.devices.session_config(config)`, which keeps them. On a GPU
machine `resolve` returns the first N GPUs and simulates nothing.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _session_config
from estimator_multigpu.migrate._edits import Edit, EditSet

_RESOLVE = "devices.resolve"
_PARSE = "parse_args"


def resolved_counts(source: str | None) -> set[str]:
    """The attribute names of the `num_gpus=<x>.<name>` counts that `source`
    passes to `emg.devices.resolve` (its rewritten text)."""
    if not source or _RESOLVE not in source:
        return set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    out = set()
    for call in _astutil.nodes(tree, ast.Call):
        if not ast.unparse(call.func).endswith(_RESOLVE):
            continue
        for k in call.keywords:
            if k.arg == "num_gpus" and isinstance(k.value, ast.Attribute):
                out.add(k.value.attr)
    return out


def _flag_name(call: ast.Call) -> str | None:
    """The dest of `parser.add_argument('--name', ...)`, else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
        return None
    for k in call.keywords:
        if k.arg == "dest" and isinstance(k.value, ast.Constant):
            return str(k.value.value)
    for arg in call.args:
        if isinstance(arg, ast.Constant) and str(arg.value).startswith("--"):
            return str(arg.value)[2:].replace("-", "_")
    return None


def flags(tree: ast.Module) -> set[str]:
    """The dests of the module's `add_argument('--name', ...)` flags."""
    return {
        name
        for call in _astutil.nodes(tree, ast.Call)
        if (name := _flag_name(call)) is not None
    }


def _parsed(stmt: ast.stmt) -> str | None:
    """`args` of `args = parse_args()` / `args = parser.parse_args(...)`."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call)
    ):
        return None
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return stmt.targets[0].id if name == _PARSE else None


def _guards(stmt: ast.stmt, name: str) -> bool:
    """True for `if <name> is None: ...` / `if not <name>: ...`, which must
    run before `<name>.<flag>` is read."""
    if not isinstance(stmt, ast.If):
        return False
    test = stmt.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1:
        test = test.left
    return isinstance(test, ast.Name) and test.id == name


def _inside(node: ast.AST, stmts: list[ast.stmt]) -> bool:
    return any(
        s.lineno <= node.lineno and node.end_lineno <= s.end_lineno for s in stmts
    )


def edits(m, ctx) -> list[Edit]:
    """The resolve line and the wrapped session configs (see module doc)."""
    names = sorted(flags(m.tree) & set(ctx.device_flags)) if m.tree else []
    if not names:
        return m.edits
    uses = _session_config.uses(m.tree, m.table)
    for scope in _astutil.nodes(m.tree, ast.FunctionDef):
        for i, stmt in enumerate(scope.body):
            parsed = _parsed(stmt)
            later = [u for u in uses if _inside(u.call, scope.body[i + 1 :])]
            if parsed and later:
                while i + 1 < len(scope.body) and _guards(scope.body[i + 1], parsed):
                    i += 1
                return _added(m, scope.body[i], f"{parsed}.{names[0]}", later)
    return m.edits


def _added(m, stmt: ast.stmt, count: str, uses) -> list[Edit]:
    indent = m.off.lines[stmt.lineno - 1][: stmt.col_offset]
    end = m.off.line_end(stmt.end_lineno)
    line = f"{indent}{m.emg}.devices.resolve(num_gpus={count}){m.off.newline}"
    new = [Edit(end, end, line)]
    for use in uses:
        text = f"{m.emg}.devices.session_config({m.off.text(use.arg, m.edits)})"
        new.append(m.off.replace(use.arg, text))
    placed = EditSet(m.edits)
    if any(placed.overlaps(e) for e in new):
        return m.edits
    return list(m.edits) + new


def program(results) -> dict[int, dict]:
    """The `'program'` rule: `{index: {"device_flags": counts}}` for the
    files with a flag named like a count another file resolves devices
    from, which resolve none themselves."""
    resolved = [resolved_counts(r.rewritten) for r in results]  # once a file
    if not any(resolved):
        return {}
    out = {}
    for i, result in enumerate(results):
        others = set().union(*(c for j, c in enumerate(resolved) if j != i))
        text = result.rewritten or result.original
        own = resolved[i] if result.rewritten else resolved_counts(text)
        if not others or not text or own:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if flags(tree) & others:
            out[i] = {"device_flags": tuple(sorted(others))}
    return out
