"""The canonical hand-written tower loop, recognised and rewritten into `emg.towers.minimize`."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _device_hoist,
    aliases,
    astutil,
    model_fn_rewrite,
    rules,
    tower_body,
    tower_def,
    tower_devices,
    tower_init,
    tower_loops,
)
from estimator_multigpu.migrate.astutil import call_target
from estimator_multigpu.migrate.edits import Edit, Offsets

_SCOPES = ("tf.name_scope", "tf.variable_scope")
_MODEL_FN_ARGS = {"features", "labels", "mode"}


NotCanonical = tower_body.NotCanonical


@dataclasses.dataclass
class TowerLoop:
    """A canonical tower loop and the statements around it that go with it.

    Attributes:
      stmt: the loop, or the `with tf.variable_scope(...)` holding only it.
      loop: the `for` loop.
      device: the `tf.device(...)` argument.
      loss: the name the tower loss is assigned to.
      tower_call: the call that builds one tower and returns its loss.
      inputs: (argument node, global batch expression) for `X[i]` arguments
        where `X = tf.split(batch, N)`.
      optimizer: the optimizer expression (`opt` in `opt.compute_gradients`).
      init: `tower_grads = []`, or None.
      average: `grads = average_gradients(tower_grads)`.
      apply: `train_op = opt.apply_gradients(grads, global_step=...)`.
      global_step: the global_step argument, or None.
      extras: the body's per-tower dequeue, bound scope and collections.
      capture: the averaged gradients are read elsewhere: the rewrite
        collects the aggregated ones into that name.
      at_average: the rewrite goes where the averaging was (statements
        before the apply read what it defines), else where the apply was.
    """

    stmt: ast.stmt
    loop: ast.For
    device: ast.expr
    loss: str
    tower_call: ast.Call
    inputs: list
    optimizer: ast.expr
    init: ast.stmt | None
    average: ast.Assign
    apply: ast.Assign
    global_step: ast.expr | None
    extras: tower_body.Extras = dataclasses.field(default_factory=tower_body.Extras)
    capture: bool = False
    at_average: bool = False


def peel(stmt: ast.stmt, table: aliases.AliasTable):
    """(the for loop, the statement to replace) for a loop maybe in a scope `with`."""
    if isinstance(stmt, ast.With) and len(stmt.body) == 1:
        items = stmt.items
        if all(
            table.resolve_tf(getattr(i.context_expr, "func", None)) in _SCOPES
            and i.optional_vars is None
            for i in items
        ):
            return stmt.body[0], stmt
    return stmt, stmt


def _bound_scope(item: ast.withitem, name: str | None, scope: str | None):
    """The name `with tf.name_scope(...) as NAME` binds (one per loop)."""
    bound = item.optional_vars
    if bound is None:
        return scope
    if name != "tf.name_scope" or not isinstance(bound, ast.Name) or scope:
        raise NotCanonical(
            f"line {item.context_expr.lineno}: `{ast.unparse(item)}` is not "
            "tf.device, a scope without `as` or one `tf.name_scope(...) as name`"
        )
    return bound.id


def loop_body(loop: ast.For, table: aliases.AliasTable):
    """(device argument, statements inside the device and scope `with`s, the
    name a `tf.name_scope(...) as name` binds or None)."""
    device, body, scope = None, loop.body, None
    while len(body) == 1 and isinstance(body[0], ast.With):
        for item in body[0].items:
            expr = item.context_expr
            name = table.resolve_tf(getattr(expr, "func", None))
            if name == "tf.device" and device is None and len(expr.args) == 1:
                device = expr.args[0]
            elif name in _SCOPES:
                scope = _bound_scope(item, name, scope)
            else:
                raise NotCanonical(
                    f"line {expr.lineno}: `{ast.unparse(item)}` is not tf.device "
                    "or a scope without `as`"
                )
        body = body[0].body
    if device is None or loop.orelse:
        raise NotCanonical("the body is not `with tf.device(...)` around the tower")
    return device, body, scope


def is_reuse(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and call_target(stmt.value) == "reuse_variables"


def _assigned_call(stmt: ast.stmt) -> tuple[str, ast.Call] | None:
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call)
    ):
        return stmt.targets[0].id, stmt.value
    return None


def _gradients(stmts: list[ast.stmt], loss: str):
    """(optimizer, list name) for `g = opt.compute_gradients(loss); L.append(g)`."""
    grads = None
    if len(stmts) == 2 and _assigned_call(stmts[0]):
        grads, call = _assigned_call(stmts[0])
        stmts = stmts[1:]
    elif len(stmts) == 1 and isinstance(stmts[0], ast.Expr):
        call = stmts[0].value.args[0] if stmts[0].value.args else None
    else:
        raise NotCanonical("after the loss, expect only compute_gradients and append")
    append = stmts[0].value if isinstance(stmts[0], ast.Expr) else None
    if not (
        isinstance(call, ast.Call)
        and call_target(call) == "compute_gradients"
        and isinstance(call.func, ast.Attribute)
        and [ast.unparse(a) for a in call.args] == [loss]
        and not call.keywords
        and call_target(append) == "append"
        and isinstance(append.func.value, ast.Name)
        and len(append.args) == 1
        and ast.unparse(append.args[0]) == (grads or ast.unparse(call))
    ):
        raise NotCanonical(
            "the tower does not end in `grads = opt.compute_gradients(loss)` "
            "and `tower_grads.append(grads)`"
        )
    return call.func.value, append.func.value.id


def split_of(block, before: int, name: str, table) -> ast.expr | None:
    """The batch `x` of an earlier `name = tf.split(x, N)` in `block`."""
    for stmt in reversed(block[:before]):
        found = _assigned_call(stmt)
        if found and found[0] == name:
            call = found[1]
            if table.resolve_tf(call.func) != "tf.split":
                return None
            axis = [k.value for k in call.keywords if k.arg == "axis"]
            if len(call.args) > 2 or any(ast.unparse(a) != "0" for a in axis):
                return None
            kw = {k.arg: k.value for k in call.keywords}
            value = call.args[0] if call.args else kw.get("value")
            return value
    return None


def _inputs(call, loop, block, index, table, extras=None) -> list:
    """(argument, global batch) per shard argument of the tower call; the
    batch is a node (of `X = tf.split(batch, N)`) or a dequeued name."""
    target = loop.target.id if isinstance(loop.target, ast.Name) else None
    extras = extras or tower_body.Extras()
    inputs = []
    for arg in call.args + [k.value for k in call.keywords]:
        if isinstance(arg, ast.Name) and arg.id in extras.dequeued():
            inputs.append((arg, arg.id))
        elif isinstance(arg, ast.Name) and arg.id == extras.scope:
            continue
        elif (
            isinstance(arg, ast.Subscript)
            and isinstance(arg.value, ast.Name)
            and ast.unparse(arg.slice) == target
        ):
            batch = split_of(block, index, arg.value.id, table)
            if batch is None:
                raise NotCanonical(
                    f"`{ast.unparse(arg)}` is not a shard of `{arg.value.id} = "
                    "tf.split(batch, N)` in the same block"
                )
            inputs.append((arg, batch))
        elif tower_loops.names_in(arg) & tower_loops.tainted_names(loop):
            raise NotCanonical(f"`{ast.unparse(arg)}` depends on the loop variable")
    if target is None or not inputs:
        raise NotCanonical(
            "the tower takes no `X[i]` shard of a tf.split batch and no "
            "batch dequeued in the loop"
        )
    return inputs


def after_loop(block, index, lists: str, optimizer: ast.expr):
    """The averaging and apply statements after the loop, in `block`."""
    average = apply = None
    for stmt in block[index + 1 :]:
        found = _assigned_call(stmt)
        if found is None:
            continue
        name, call = found
        args = [ast.unparse(a) for a in call.args]
        if average is None and args == [lists] and not call.keywords:
            average = stmt
        elif (
            average is not None
            and call_target(call) == "apply_gradients"
            and ast.unparse(call.func.value) == ast.unparse(optimizer)
            and args[:1] == [average.targets[0].id]
        ):
            apply = stmt
            break
    if apply is None:
        raise NotCanonical(
            f"no `grads = average_gradients({lists})` then "
            f"`train_op = {ast.unparse(optimizer)}.apply_gradients(grads, ...)` "
            "after the loop"
        )
    return average, apply


def global_step_of(apply: ast.Assign):
    call = apply.value
    extra = [k.arg for k in call.keywords if k.arg != "global_step"]
    if len(call.args) > 2 or extra:
        raise NotCanonical("apply_gradients takes more than grads and global_step")
    steps = call.args[1:] + [k.value for k in call.keywords]
    return steps[0] if steps else None


def init_of(block, index, lists: str):
    for stmt in block[:index]:
        if (
            isinstance(stmt, ast.Assign)
            and [ast.unparse(t) for t in stmt.targets] == [lists]
            and isinstance(stmt.value, ast.List)
            and not stmt.value.elts
        ):
            return stmt
    return None


def check_reads(scope, tl: TowerLoop, lists: str, block) -> None:
    """The rewrite drops names: nothing else may read them (the averaged
    gradients may be looped over: the rewrite collects the aggregated ones)."""
    skip = {id(n) for s in (tl.stmt, tl.average, tl.apply) for n in ast.walk(s)}
    if tl.init is not None:
        skip |= {id(n) for n in ast.walk(tl.init)}
    averaged = tl.average.targets[0].id
    looped = {id(n.iter) for n in astutil.walk_scope([scope]) if isinstance(n, ast.For)}
    for node in astutil.walk_scope([scope]):
        if (
            isinstance(node, ast.Name)
            and id(node) not in skip
            and node.id in (lists, averaged)
            and isinstance(node.ctx, ast.Load)
        ):
            if node.id != averaged or id(node) not in looped:
                raise NotCanonical(
                    f"line {node.lineno} reads `{node.id}`, which the rewrite removes"
                )
            tl.capture = True
    _place(tl, block)


def _place(tl: TowerLoop, block) -> None:
    """Puts the rewrite where the averaging was if statements between it and
    the apply read what the rewrite defines; checks what they read."""
    start, mid, end = (block.index(s) for s in (tl.stmt, tl.average, tl.apply))
    between = block[mid + 1 : end]
    defined = {s.targets[0].id for s in tl.extras.collected}
    defined |= {tl.average.targets[0].id} if tl.capture else set()
    tl.at_average = any(defined & set(astutil.reads(s)) for s in between)
    if tl.at_average:
        needed = set(astutil.reads(tl.apply)) | set(astutil.reads(tl.loop.iter))
        for stmt in between:
            if astutil.writes(stmt) & needed:
                raise NotCanonical(
                    f"line {stmt.lineno} assigns what the update reads, after "
                    "the averaging"
                )
    for stmt in block[start + 1 : mid if tl.at_average else end]:
        if tl.loss in astutil.reads(stmt):
            raise NotCanonical(
                f"line {stmt.lineno} reads `{tl.loss}` before the update is built"
            )


def recognise(block, index, scope, table: aliases.AliasTable) -> TowerLoop:
    """The canonical tower loop at `block[index]`.

    Raises:
      NotCanonical: with what differs from the canonical shape.
    """
    loop, stmt = peel(block[index], table)
    device, body, bound = loop_body(loop, table)
    body = [s for s in body if not is_reuse(s)]
    body, extras = tower_body.split_body(body, bound, table)
    found = _assigned_call(body[0]) if body else None
    if found is None:
        raise NotCanonical("the tower does not start with `loss = tower_loss(...)`")
    loss, tower_call = found
    tower_body.check_uses(extras, body, tower_call)
    optimizer, lists = _gradients(body[1:], loss)
    inputs = _inputs(tower_call, loop, block, index, table, extras)
    average, apply = after_loop(block, index, lists, optimizer)
    tl = TowerLoop(
        stmt,
        loop,
        device,
        loss,
        tower_call,
        inputs,
        optimizer,
        init_of(block, index, lists),
        average,
        apply,
        global_step_of(apply),
        extras,
    )
    check_reads(scope, tl, lists, block)
    return tl


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
    before = [tower_body.batch_text(tl.extras, tl.loop, off)]
    before = [b for b in before if b is not None]
    if tl.capture:
        before.append(f"{tl.average.targets[0].id} = []")
    return before, tower_body.collected_texts(tl.extras, off)


def _shard_params(tl: TowerLoop, off: Offsets, taken: set[str]):
    """(lambda parameters, global batches, batch text -> parameter)."""
    params, batches, replaced = [], [], {}
    for _, batch in tl.inputs:
        key = batch if isinstance(batch, str) else off.text(batch)
        if key not in replaced:
            base = key if isinstance(batch, str) else getattr(batch, "id", "shard")
            replaced[key] = astutil.unique(f"{base}_shard", taken)
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
        off.replace(a, tower_body.scope_text(tl.extras))
        for a in args
        if isinstance(a, ast.Name) and a.id == tl.extras.scope
    ]
    call = off.text(tl.tower_call, edits)
    devices = tower_devices.devices_text(tl.loop, tl.device, off, emg, hoisted)
    inputs = "(" + ", ".join(batches) + ("," if len(batches) == 1 else "") + ")"
    optimizer = off.text(tl.optimizer)
    if tl.capture:
        grads = tl.average.targets[0].id
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
    for scope in astutil.scopes(tree):
        for block in astutil.blocks(scope):
            for index, stmt in enumerate(block):
                loop, _ = peel(stmt, table)
                if isinstance(loop, ast.For) and tower_loops.is_tower_loop(loop, table):
                    if id(loop) not in best or stmt is not loop:
                        best[id(loop)] = (block, index, scope, loop)
    return sorted(best.values(), key=lambda c: c[3].lineno)


def _in_model_fn(scope: ast.AST) -> bool:
    if not isinstance(scope, ast.FunctionDef):
        return False
    return len({a.arg for a in scope.args.args} & _MODEL_FN_ARGS) >= 2


def rule_for(tl_or_reason, scope, text: str | None) -> rules.Rule:
    """The tower-loop finding's rule, with the exact replacement for this loop."""
    base = rules.TOWER_RULE
    if _in_model_fn(scope):
        return base
    if isinstance(tl_or_reason, TowerLoop | tower_def.TowerDef):
        replacement = f"{text} (and drop the loop, the list and the averaging)"
    else:
        replacement = (
            f"loss, train_op = emg.towers.minimize(tower_fn, inputs, optimizer, "
            f"devices=..., global_step=...) by hand: {tl_or_reason}; tower_fn(*shard) "
            "builds one tower and returns its loss, inputs are the global batch "
            "tensors (split along the batch) or emg.PerDevice values"
        )
    return dataclasses.replace(base, replacement=replacement)


def find(tree: ast.Module, table: aliases.AliasTable, off: Offsets, emg: str = "emg"):
    """Returns {id(loop): (TowerLoop or reason, rule)} for the module's tower loops."""
    out = {}
    taken = astutil.writes(tree) | set(astutil.reads(tree))
    for block, index, scope, loop in _loops(tree, table):
        try:
            tl = recognise(block, index, scope, table)
            text = minimize_text(tl, off, emg, set(taken), multiline=False)
        except NotCanonical as reason:
            tl, text = _as_def(block, index, scope, table, set(taken), reason)
            text = text if text is None else tower_def.summary(tl, off, emg)
        out[id(loop)] = (tl, rule_for(tl, scope, text))
    return out


def _as_def(block, index, scope, table, taken, reason):
    """(TowerDef, True) for a loop `tower_def` rewrites, else (why not, None)."""
    try:
        return tower_def.recognise(block, index, scope, table, taken), True
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


def dead_helper(tree: ast.Module, average: ast.Assign) -> ast.FunctionDef | None:
    """The module-level averaging helper only the removed statement called."""
    func = average.value.func
    if not isinstance(func, ast.Name) or astutil.reads(tree)[func.id] != 1:
        return None
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == func.id:
            return stmt if tower_loops.is_averaging_helper(stmt) else None
    return None


def hoist_devices(tree, tl: TowerLoop, off: Offsets, emg: str, taken, prior):
    """The towers' `emg.devices.resolve(num_gpus=n)` as an early statement of
    its own (`_device_hoist`), or None (devices kept as written, or no place)."""
    count = tower_devices.resolve_count(tl.loop, tl.device)
    if count is None:
        return None
    return _device_hoist.hoist(tree, tl.stmt, off.text(count), off, emg, taken, prior)


def _loop_edits(tree, tl: TowerLoop, off: Offsets, text: str) -> list[Edit] | None:
    at, gone = (tl.average, tl.apply) if tl.at_average else (tl.apply, tl.average)
    removed = [s for s in (tl.init, tl.stmt, gone) if s is not None]
    helper = dead_helper(tree, tl.average)
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
    taken = astutil.writes(tree) | set(astutil.reads(tree))
    done = []
    for block, index, scope, _ in _loops(tree, table):
        if _in_model_fn(scope):
            continue
        try:
            tl = recognise(block, index, scope, table)
            hoist = hoist_devices(tree, tl, off, emg, taken, out)
            name = hoist.name if hoist else ""
            new = _loop_edits(
                tree, tl, off, minimize_text(tl, off, emg, taken, True, name)
            )
            new = new if new is None or hoist is None else new + [hoist.edit]
        except NotCanonical:
            td, ok = _as_def(block, index, scope, table, taken, "")
            tf = tower_body.tf_name(table) or "tf"
            new = tower_def.edits(tree, td, off, emg, tf, taken, out) if ok else None
        if new is None or any(
            e.start < p.end and p.start < e.end for e in new for p in out
        ):
            continue
        out += new
        done += [(e.start, e.end) for e in new]
    for f in findings:
        if not f.fixed and done and _covered(f, off, done):
            f.fixed = True
    if done:
        out += tower_init.edits(tree, table, off, out)
    return _model_fn_edits(tree, table, off, findings, out, emg, taken)


def _model_fn_edits(tree, table, off: Offsets, findings, out: list, emg: str, taken):
    """`out` plus the edits that make a model_fn's tower loop one tower per
    call; its loop and averaging findings marked fixed."""
    try:
        plan = model_fn_rewrite.plan(tree, table, off, emg, taken, out)
    except NotCanonical:
        return out
    if any(e.start < p.end and p.start < e.end for e in plan.edits for p in out):
        return out
    start, end = off.span(plan.loop)
    func = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
            and any(c is plan.loop for c in ast.walk(n))][-1]  # fmt: skip
    inside = {id(n) for n in ast.walk(func)}
    for f in findings:
        if f.rule.rule_id == "tower-loop" and id(f.node) in inside:
            f.fixed = True
    return out + plan.edits
