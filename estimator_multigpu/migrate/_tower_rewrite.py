"""The canonical hand-written tower loop (recognised by `_tower_loop`) rewritten into `emg.towers.minimize`."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _device_hoist,
    _model_fn_rewrite,
    _rules,
    _tower_body,
    _tower_def,
    _tower_devices,
    _tower_init,
    _tower_loop,
    _tower_loops,
)
from estimator_multigpu.migrate._edits import Edit, Offsets

NotCanonical = _tower_body.NotCanonical
TowerLoop = _tower_loop.TowerLoop
recognise = _tower_loop.recognise


def minimize_text(
    tl: TowerLoop,
    off: Offsets,
    emg: str,
    taken: set[str],
    multiline: bool = True,
    devices: str = "",
) -> str:
    """`loss, train_op = emg.towers.minimize(...)` for a recognised loop.

    Args:
      tl: the loop.
      off: positions in the module's source.
      emg: how the module spells `estimator_multigpu`.
      taken: names used in the module (the shard parameters avoid them).
      multiline: one argument per line (for the file) or one line (for a finding).
      devices: the name the towers' resolved devices were assigned to
        before (`hoist_devices`), else "": the call is written in place.
    """
    args = _minimize_args(tl, off, emg, taken, devices)
    target = f"{tl.loss}, {off.text(tl.apply.targets[0])}"
    before, after = _around(tl, off)
    if not multiline:
        call = f"{target} = {emg}.towers.minimize({', '.join(args)})"
        return "; ".join(before + [call] + after)
    indent = " " * (tl.average if tl.at_average else tl.apply).col_offset
    nl = off.newline
    lines = "".join(f"{indent}    {a},{nl}" for a in args)
    call = f"{target} = {emg}.towers.minimize({nl}{lines}{indent})"
    return f"{nl}{indent}".join(before + [call] + after)


def _around(tl: TowerLoop, off: Offsets) -> tuple[list[str], list[str]]:
    """The statements the rewrite writes before and after the minimize call."""
    before = [_tower_body.batch_text(tl.extras, tl.loop, off)]
    before = [b for b in before if b is not None]
    if tl.capture:
        before.append(f"{tl.averaged} = []")
    return before, _tower_body.collected_texts(tl.extras, off)


def _shard_params(tl: TowerLoop, off: Offsets, taken: set[str]):
    """(lambda parameters, global batches, batch text -> parameter)."""
    params, batches, replaced = [], [], {}
    for _, batch in tl.inputs:
        key = batch if isinstance(batch, str) else off.text(batch)
        if key not in replaced:
            base = key if isinstance(batch, str) else getattr(batch, "id", "shard")
            replaced[key] = _astutil.unique(f"{base}_shard", taken)
            params.append(replaced[key])
            batches.append(key)
    return params, batches, replaced


def _minimize_args(tl: TowerLoop, off: Offsets, emg: str, taken, hoisted="") -> list:
    params, batches, replaced = _shard_params(tl, off, taken)
    edits = [
        off.replace(arg, replaced[b if isinstance(b, str) else off.text(b)])
        for arg, b in tl.inputs
    ]
    args = tl.tower_call.args + [k.value for k in tl.tower_call.keywords]
    edits += [
        off.replace(a, _tower_body.scope_text(tl.extras))
        for a in args
        if isinstance(a, ast.Name) and a.id == tl.extras.scope
    ]
    call = off.text(tl.tower_call, edits)
    devices = _tower_devices.devices_text(tl.loop, tl.device, off, emg, hoisted)
    inputs = "(" + ", ".join(batches) + ("," if len(batches) == 1 else "") + ")"
    optimizer = off.text(tl.optimizer)
    if tl.capture:
        grads = tl.averaged
        optimizer = (
            f"{emg}.TowerOptimizer({optimizer}, "
            f"transform_gradients=lambda pairs: {grads}.extend(pairs) or pairs)"
        )
    out = [f"lambda {', '.join(params)}: {call}", inputs, optimizer]
    out.append(f"devices={devices}")
    if tl.global_step is not None:
        out.append(f"global_step={off.text(tl.global_step)}")
    return out


def _loops(tree: ast.Module, table):
    """(block, index, scope, loop) for every tower loop, once each.

    A loop alone in a `with tf.variable_scope(...)` is taken with that `with`.
    """
    best = {}
    for scope in _astutil.scopes(tree):
        for block in _astutil.blocks(scope):
            for index, stmt in enumerate(block):
                loop, _ = _tower_loop.peel(stmt, table)
                if isinstance(loop, ast.For) and _tower_loops.is_tower_loop(
                    loop, table
                ):
                    if id(loop) not in best or stmt is not loop:
                        best[id(loop)] = (block, index, scope, loop)
    return sorted(best.values(), key=lambda c: c[3].lineno)


def _in_model_fn(scope: ast.AST) -> bool:
    if not isinstance(scope, ast.FunctionDef):
        return False
    return _model_fn_rewrite.takes_model_fn_args(scope)


def rule_for(tl_or_reason, scope, text: str | None) -> _rules.Rule:
    """The tower-loop finding's rule, with the exact replacement for this loop."""
    base = _rules.TOWER_RULE
    if _in_model_fn(scope):
        return base
    if isinstance(tl_or_reason, TowerLoop | _tower_def.TowerDef):
        replacement = f"{text} (and drop the loop, the list and the averaging)"
    else:
        replacement = (
            f"loss, train_op = emg.towers.minimize(tower_fn, inputs, optimizer, "
            f"devices=..., global_step=...) by hand: {tl_or_reason}; tower_fn(*shard) "
            "builds one tower and returns its loss, inputs are the global batch "
            "tensors (split along the batch) or emg.PerDevice values"
        )
    return dataclasses.replace(base, replacement=replacement, kind="described")


def find(tree: ast.Module, table: _aliases.AliasTable, off: Offsets, emg: str = "emg"):
    """Returns {id(loop): (TowerLoop or reason, rule)} for the module's tower loops."""
    out = {}
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    for block, index, scope, loop in _loops(tree, table):
        try:
            tl = recognise(block, index, scope, table)
            text = minimize_text(tl, off, emg, set(taken), multiline=False)
        except NotCanonical as reason:
            tl, text = _as_def(block, index, scope, table, set(taken), reason)
            text = text if text is None else _tower_def.summary(tl, off, emg)
        out[id(loop)] = (tl, rule_for(tl, scope, text))
    return out


def _as_def(block, index, scope, table, taken, reason):
    """(TowerDef, True) for a loop `tower_def` rewrites, else (why not, None)."""
    try:
        return _tower_def.recognise(block, index, scope, table, taken), True
    except NotCanonical as other:
        return f"{reason}; as a tower function: {other}", None


def alone(off: Offsets, stmt: ast.stmt) -> bool:
    """True if `stmt` has its lines to itself (no `;` neighbours)."""
    before = off.lines[stmt.lineno - 1].encode()[: stmt.col_offset]
    after = off.lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset :].strip()
    return not before.strip() and (not after or after.startswith(b"#"))


def delete_lines(off: Offsets, stmt: ast.stmt, blank_after: bool = False) -> Edit:
    """Deletes the lines of `stmt` (and the blank lines after it, if asked)."""
    end = stmt.end_lineno
    while blank_after and end < len(off.lines) and not off.lines[end].strip():
        end += 1
    return Edit(off.line_start(stmt.lineno), off.line_end(end), "")


def dead_helper(tree: ast.Module, average: ast.Call) -> ast.FunctionDef | None:
    """The module-level averaging helper only the removed `average` call called."""
    func = average.func
    if not isinstance(func, ast.Name) or _astutil.module_reads(tree)[func.id] != 1:
        return None
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == func.id:
            return stmt if _tower_loops.is_averaging_helper(stmt) else None
    return None


def hoist_devices(tree, tl: TowerLoop, off: Offsets, emg: str, taken, prior):
    """The towers' `emg.devices.resolve(num_gpus=n)` as an early statement of
    its own (`_device_hoist`), or None (devices kept as written, or no place)."""
    count = _tower_devices.resolve_count(tl.loop, tl.device)
    if count is None:
        return None
    return _device_hoist.hoist(tree, tl.stmt, off.text(count), off, emg, taken, prior)


def _loop_edits(tree, tl: TowerLoop, off: Offsets, text: str) -> list[Edit] | None:
    at, gone = (tl.average, tl.apply) if tl.at_average else (tl.apply, tl.average)
    removed = [s for s in (tl.init, tl.stmt, gone) if s not in (None, at)]
    helper = dead_helper(tree, tl.average_call)
    if not all(alone(off, s) for s in removed + [at]):
        return None
    out = [delete_lines(off, s) for s in removed] + [off.replace(at, text)]
    if helper is not None and not helper.decorator_list:
        out.append(delete_lines(off, helper, blank_after=True))
    return out


def _covered(finding, off: Offsets, spans) -> bool:
    node = finding.node
    if getattr(node, "end_lineno", None) is None:
        return False
    start, end = off.span(node)
    return any(s <= start and end <= e for s, e in spans)


def _overlaps(new: list[Edit], out: list[Edit]) -> bool:
    return any(e.start < p.end and p.start < e.end for e in new for p in out)


def _one_loop(tree, table, off: Offsets, emg, taken, out, loop) -> list[Edit] | None:
    """The edits that rewrite one tower loop (not in a model_fn), or None."""
    block, index, scope, _ = loop
    try:
        tl = recognise(block, index, scope, table)
        hoist = hoist_devices(tree, tl, off, emg, taken, out)
        name = hoist.name if hoist else ""
        new = _loop_edits(tree, tl, off, minimize_text(tl, off, emg, taken, True, name))
        return new if new is None or hoist is None else new + [hoist.edit]
    except NotCanonical:
        td, ok = _as_def(block, index, scope, table, taken, "")
        tf = _tower_body.tf_name(table) or "tf"
        return _tower_def.edits(tree, td, off, emg, tf, taken, out) if ok else None


def _mark(findings, off: Offsets, done: list, late: list) -> None:
    """Marks the findings the rewritten spans cover fixed, but for late devices."""
    for f in findings:
        if not f.fixed and done and _covered(f, off, done):
            f.fixed = True
    for spans, why in late:  # rewritten, but the devices may resolve too late
        for f in findings:
            if isinstance(f.node, ast.For) and _covered(f, off, spans):
                _device_hoist.keep_unfixed(f, why)


def edits(tree, table, off: Offsets, findings, prior: list[Edit], emg: str):
    """Rewrites the canonical tower loops; marks what the rewrite resolves fixed.

    Args:
      tree: the module.
      table: its aliases.
      off: positions in its source.
      findings: the module's findings.
      prior: the edits already made (a loop that overlaps one is left alone).
      emg: how the module spells `estimator_multigpu`.

    Returns:
      `prior` plus the new edits.
    """
    out = list(prior)
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    done, late = [], []
    for loop in _loops(tree, table):
        if _in_model_fn(loop[2]):
            continue
        new = _one_loop(tree, table, off, emg, taken, out, loop)
        if new is None or _overlaps(new, out):
            continue
        out += new
        done += [(e.start, e.end) for e in new]
        if _device_hoist.late(new):
            late.append(([(e.start, e.end) for e in new], _device_hoist.late(new)))
    _mark(findings, off, done, late)
    if done:
        out += _tower_init.edits(tree, table, off, out)
    return _model_fn_edits(tree, table, off, findings, out, emg, taken)


def _model_fn_edits(tree, table, off: Offsets, findings, out: list, emg: str, taken):
    """`out` plus the edits that make a model_fn's tower loop one tower per
    call; its loop and averaging findings marked fixed."""
    try:
        plan = _model_fn_rewrite.plan(tree, table, off, emg, taken, out)
    except NotCanonical:
        return out
    if _overlaps(plan.edits, out):
        return out
    func = [n for n in _astutil.nodes(tree, ast.FunctionDef) if any(c is plan.loop for c in _astutil.walk(n))][-1]  # fmt: skip
    inside = {id(n) for n in _astutil.walk(func)}
    why = _device_hoist.late(plan.edits)
    for f in findings:
        if f.rule.rule_id == "tower-loop" and id(f.node) in inside:
            f.fixed = True
            if why and isinstance(f.node, ast.For):  # devices resolved too late
                _device_hoist.keep_unfixed(f, why)
    return out + plan.edits
