"""The GPU count a script's own guard asks for, for the device list a rewrite writes.

A GPU-name list (`[x.name for x in device_lib.list_local_devices() if
x.device_type == 'GPU']`) becomes `emg.devices.resolve(...)`. Scripts check
it: `if len(gpus) < FLAGS.num_gpus: raise ...`. Plain `resolve()` is one
device on a machine without GPUs, so that guard refuses; `resolve(num_gpus=
FLAGS.num_gpus)` is the same first GPUs on a GPU machine and that many
simulated devices on a CPU one. The count is taken only when the guard's
expression can be read where the list is made.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil


def _chain(node: ast.AST, parents) -> list[ast.AST]:
    """`node`'s ancestors, innermost first."""
    out = []
    while id(node) in parents:
        node = parents[id(node)]
        out.append(node)
    return out


def _function(ancestors: list) -> ast.AST | None:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    return next((a for a in ancestors if isinstance(a, functions)), None)


def _module_names(module: ast.Module) -> set[str]:
    """Names bound by module-level assignments and imports."""
    names = set()
    for stmt in module.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return names


def _holders(module: ast.Module, function: ast.AST | None, made: ast.AST) -> set:
    """The expressions that hold the list: `f()` / names assigned from it."""
    calls = {function.name} if function is not None else set()
    names = set()
    for node in _astutil.walk(module):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            value, target = node.value, node.targets[0]
            direct = value is made
            called = isinstance(value, ast.Call) and getattr(value.func, "id", None)
            if isinstance(target, ast.Name) and (direct or called in calls):
                names.add(target.id)
    return {("call", name) for name in calls} | {("name", name) for name in names}


def _held(node: ast.AST, holders: set) -> bool:
    """Whether `len(node)`'s argument is one of `holders`."""
    if isinstance(node, ast.Name):
        return ("name", node.id) in holders
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Name):
        return ("call", node.func.id) in holders
    return False


def _length_of(node: ast.AST, holders: set) -> bool:
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "len"
        and len(node.args) == 1
        and _held(node.args[0], holders)
    )


def _guard_counts(module: ast.Module, holders: set):
    """Yields (C, compare) for each `len(list) < C` / `C > len(list)` in `module`."""
    for node in _astutil.walk(module):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        left, op, right = node.left, node.ops[0], node.comparators[0]
        if isinstance(op, ast.Lt) and _length_of(left, holders):
            yield right, node
        elif isinstance(op, ast.Gt) and _length_of(right, holders):
            yield left, node


def _local_names(function: ast.AST) -> set[str]:
    """The parameters and assigned names of `function`."""
    names = {a.arg for a in _astutil.nodes(function.args, ast.arg)}
    return names | {
        n.id for n in _astutil.nodes(function, ast.Name) if isinstance(n.ctx, ast.Store)
    }


def _visible(count: ast.AST, names: set[str]) -> bool:
    used = {n.id for n in _astutil.nodes(count, ast.Name)}
    calls = any(isinstance(n, ast.Call) for n in _astutil.walk(count))
    return used <= names and not calls


def requested(made: ast.AST, parents) -> str:
    """`num_gpus=<count>` for the `resolve()` that replaces the list `made`, or ''.

    Args:
      made: the GPU-name list comprehension being rewritten.
      parents: `{id(node): parent}` of its module.

    Returns:
      The count of the script's own `len(list) < count` guard, when it is a
      constant or reads only names bound at module level (a flag) or, for a
      guard in the function that makes the list, in that function; else ''.
    """
    ancestors = _chain(made, parents)
    if not ancestors or not isinstance(ancestors[-1], ast.Module):
        return ""
    module, function = ancestors[-1], _function(ancestors)
    names = _module_names(module)
    local = names | (_local_names(function) if function is not None else set())
    for count, guard in _guard_counts(module, _holders(module, function, made)):
        same = function is not None and _function(_chain(guard, parents)) is function
        if _visible(count, local if same else names):
            return f"num_gpus={ast.unparse(count)}"
    return ""
