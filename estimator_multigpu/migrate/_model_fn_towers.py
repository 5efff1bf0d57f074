"""A hand-written tower loop inside a model_fn: the exact edits to one replicated tower."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _astutil,
    _model_fn_rewrite,
    _rules,
    _tower_loops,
)
from estimator_multigpu.migrate._astutil import walk_scope

_AVERAGING = (
    "nothing: delete the averaging and pass the one tower's (gradient, variable) "
    "pairs to optimizer.apply_gradients as they are; emg.TowerOptimizer weighs "
    "each tower's pairs by its share of the global batch and sums the towers"
)


def _enclosing_model_fns(tree: ast.AST) -> dict[int, ast.FunctionDef]:
    """{id(node): model_fn} for every node directly inside a model_fn."""
    out = {}
    for func in _astutil.walk(tree):
        if not isinstance(func, ast.FunctionDef):
            continue
        if not _model_fn_rewrite.takes_model_fn_args(func):
            continue
        for node in walk_scope(func.body):
            out[id(node)] = func
    return out


def _count(loop: ast.For) -> str:
    it = loop.iter
    is_range = isinstance(it, ast.Call) and ast.unparse(it.func) == "range"
    if is_range and len(it.args) == 1:
        return ast.unparse(it.args[0])
    return f"len(list({ast.unparse(it)}))"


def _at_estimator(count: str, func: ast.FunctionDef) -> str:
    """The edit where the Estimator is built; a local of `func` in `count` is
    not visible there, so the text says N and what the local holds."""
    head = "where the Estimator is built: model_fn=emg.replicate_model_fn(model_fn, "
    try:
        names = {
            n.id for n in _astutil.walk(ast.parse(count)) if isinstance(n, ast.Name)
        }
    except SyntaxError:
        names = set()
    params = {a.arg for a in func.args.args + func.args.kwonlyargs}
    local = sorted(names & (_astutil.writes(func) - params))  # params: the Estimator's
    if not local:
        return f"{head}devices=emg.devices.resolve(num_gpus={count}))"
    values = [
        ast.unparse(n.value)
        for n in _astutil.nodes(func, ast.Assign)
        if [ast.unparse(t) for t in n.targets] == [local[0]]
    ]
    held = f" (here {values[0]})" if len(values) == 1 else ""
    return (
        f"{head}devices=emg.devices.resolve(num_gpus=N)), N the tower count: "
        f"`{local[0]}` is a local of {func.name}{held}, not visible there; pass "
        "the same value"
    )


def _indexed(loop: ast.For, var: str) -> list[str]:
    """`X[var]` spellings in the loop body (the per-tower inputs)."""
    return sorted(
        {
            ast.unparse(n)
            for n in _astutil.nodes(loop, ast.Subscript)
            if isinstance(n.slice, ast.Name) and n.slice.id == var
        }
    )


def replacement(loop: ast.For, func: ast.FunctionDef) -> str:
    """The edits that turn `loop` (in `func`) into one tower replicated by emg."""
    var = ast.unparse(loop.target)
    count = _count(loop)
    inputs = "; ".join(f"{x} -> {x.rsplit('[', 1)[0]}" for x in _indexed(loop, var))
    lists = ", ".join(sorted(_tower_loops.appended(loop)))
    parts = [
        f"build one tower per {func.name}() call: the loop body once, without "
        f"`for {var} in ...` and its tf.device ({var} = 0)",
        inputs,
        f"the tower's own values instead of the lists {lists} (no averaging, "
        "no tf.concat over towers)"
        if lists
        else "",
        "optimizer -> emg.TowerOptimizer(optimizer) (its apply_gradients takes "
        "tf.gradients pairs too)",
        _at_estimator(count, func),
        "the input_fn returns the global batch, not per-tower lists",
    ]
    return "; ".join(p for p in parts if p)


def _planned(tree, table, off):
    """(the rewrite's description, None) or (None, why --fix cannot make it)."""
    if table is None or off is None:
        return None, None
    try:
        plan = _model_fn_rewrite.plan(tree, table, off, "emg")
    except _model_fn_rewrite.NotRewritable as reason:
        return None, str(reason)
    return _model_fn_rewrite.describe(plan, off), None


def refine(tree: ast.AST, findings: list, table=None, off=None) -> list:
    """Gives the generic tower-loop and averaging findings in a model_fn their edits.

    With the module's alias `table` and offsets `off`, a loop `--fix`
    rewrites is described by the edits it makes; another one lists the
    edits to make by hand and why `--fix` cannot.
    """
    funcs = _enclosing_model_fns(tree)
    done, why = None, None
    if any(f.rule.rule_id == "tower-loop" and id(f.node) in funcs for f in findings):
        done, why = _planned(tree, table, off)
    for f in findings:
        func = funcs.get(id(f.node))
        if f.rule.rule_id != "tower-loop" or func is None:
            continue
        if f.rule.kind == _rules.AVERAGING_RULE.kind:
            new = _AVERAGING if done is None else (
                "nothing: it averages the one tower's gradients once --fix makes "
                "the loop one tower per model_fn call")  # fmt: skip
            f.rule = dataclasses.replace(f.rule, replacement=new)
        elif f.rule.kind == _rules.TOWER_RULE.kind:
            if isinstance(f.node, ast.For):
                new = done or replacement(f.node, func)
                new += f" (emg-migrate --fix cannot: {why})" if why else ""
                f.rule = dataclasses.replace(f.rule, replacement=new)
    return findings
