"""Tower loops of other shapes: the loop body becomes the `tower_fn` of `emg.towers.minimize`.

The shapes real scripts use beyond the tutorial's: shards sliced
`X[i * b:(i + 1) * b]`, the optimizer built inside the loop, `reuse=` flags
flipped after the first tower, `with arg_scope(...)` around the tower,
work done in tower 0 only (`if i == 0:`), names the loop leaves behind.
The body is kept as written, in a function called once per device.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _astutil,
    _tower_body,
    _tower_devices,
    _tower_loop,
    _tower_loops,
    _tower_rewrite,
)
from estimator_multigpu.migrate._astutil import call_target
from estimator_multigpu.migrate._edits import Edit, Offsets, apply

NotCanonical = _tower_body.NotCanonical
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclasses.dataclass
class TowerDef:
    """A tower loop whose body becomes a function.

    Attributes:
      tl: the loop and its averaging and apply (`_tower_loop.TowerLoop`).
      body: the statements inside the device and scope `with`s.
      dropped: ids of body statements the function leaves out.
      params: (parameter name, global batch text) per shard.
      inline: (node, parameter name) for `X[i]` shards read in place.
      hoisted: the optimizer's construction, moved before the function.
      var_list: the `compute_gradients(..., var_list=...)` argument, or None.
      exported: names the function binds that the code around reads.
      function: True if the loop is in a function (`nonlocal`), else `global`.
      bound: the name `tf.name_scope(...) as NAME` binds, or None.
      flags: (name, value before the loop) of the flags the body sets True
        after the first tower (`reuse_variables = True`).
      elsewhere: the names the code around the loop binds.
      scope_call: the `tf.name_scope(...)` call that binds `bound`, or None;
        the function keeps it, so the scope filters collections to this
        tower at every device count (tower 0 has no name scope of its own).
    """

    tl: _tower_loop.TowerLoop
    body: list
    dropped: set
    params: list
    inline: list
    hoisted: ast.stmt | None
    var_list: ast.expr | None
    exported: list
    function: bool
    bound: str | None
    elsewhere: set
    flags: list
    scope_call: ast.Call | None = None


def _top_call(stmt: ast.stmt, name: str) -> ast.Call | None:
    value = getattr(stmt, "value", None)
    return value if call_target(value) == name else None


def _appended(stmt: ast.stmt) -> ast.Call | None:
    """The `opt.compute_gradients(...)` of `L.append(opt.compute_gradients(...))`."""
    append = _top_call(stmt, "append") if isinstance(stmt, ast.Expr) else None
    if (
        append is None
        or not isinstance(append.func.value, ast.Name)
        or len(append.args) != 1
        or append.keywords
        or call_target(append.args[0]) != "compute_gradients"
    ):
        return None
    return append.args[0]


def _compute_call(stmt: ast.stmt) -> ast.Call | None:
    """The gradients call of `grads = opt.compute_gradients(...)` or of
    `L.append(opt.compute_gradients(...))`, else None."""
    if isinstance(stmt, ast.Assign) and _top_call(stmt, "compute_gradients"):
        return stmt.value
    return _appended(stmt)


def _compute(body) -> tuple[ast.stmt, ast.Call, str, dict]:
    """The one `grads = opt.compute_gradients(loss[, var_list=...])` (or the
    append of it), its call, its target's text and its keywords."""
    computes = [s for s in body if _compute_call(s) is not None]
    if len(computes) != 1:
        raise NotCanonical("the tower has no one `grads = opt.compute_gradients(loss)`")
    compute = computes[0]
    call = _compute_call(compute)
    grads = ast.unparse(getattr(compute, "targets", [call])[0])
    kw = {k.arg: k.value for k in call.keywords}
    if (
        not isinstance(call.func.value, ast.Name)
        or len(call.args) != 1
        or not isinstance(call.args[0], ast.Name)
        or set(kw) - {"var_list"}
    ):
        raise NotCanonical(
            f"line {compute.lineno}: expect "
            f"`{getattr(compute, 'targets', None) and grads or 'grads'} = "
            "opt.compute_gradients(loss)` (var_list= allowed)"
        )
    return compute, call, grads, kw


def _gradients(body):
    """(compute statement, append statement, loss, optimizer, var_list); one
    statement for both in `L.append(opt.compute_gradients(loss))`."""
    compute, call, grads, kw = _compute(body)
    appends = [
        s
        for s in body
        if _top_call(s, "append")
        and isinstance(s.value.func.value, ast.Name)
        and [ast.unparse(a) for a in s.value.args] == [grads]
    ]
    if len(appends) != 1:
        raise NotCanonical(f"the tower does not append `{grads}` to one list")
    return compute, appends[0], call.args[0].id, call.func.value, kw.get("var_list")


def _hoisted(body, optimizer: ast.Name, compute, tainted: set[str]):
    """The body's `opt = Optimizer(...)`, to build once before the towers."""
    made = [s for s in body if optimizer.id in _astutil.writes(s)]
    if not made:
        return None
    stmt = made[0]
    if (
        len(made) != 1
        or not isinstance(stmt, ast.Assign)
        or [ast.unparse(t) for t in stmt.targets] != [optimizer.id]
        or body.index(stmt) > body.index(compute)
        or set(_astutil.reads(stmt)) & tainted
    ):
        raise NotCanonical(
            f"line {stmt.lineno}: the optimizer is not built once as "
            f"`{optimizer.id} = Optimizer(...)` from values outside the loop"
        )
    return stmt


def _flag(stmt: ast.stmt, before: list) -> tuple[str, str] | None:
    """(name, value before the loop) for `reuse = True` in the body, with
    `reuse = None` (or False) before the loop: the first tower's marker."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value is True
    ):
        return None
    name = stmt.targets[0].id
    for s in reversed(before):
        if name in _astutil.writes(s):
            first = isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
            if first and s.value.value in (None, False):
                return name, repr(s.value.value)
            return None
    return None


def _is_slice(node: ast.expr, var: str) -> str | None:
    """The batch name of `X[i * b:(i + 1) * b]` (`b * i`, `b * (i + 1)` too)."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Slice)
        and node.slice.step is None
        and node.slice.lower is not None
        and node.slice.upper is not None
    ):
        return None
    upper = ast.unparse(node.slice.upper)
    for size in _sizes(node.slice.lower, var):
        if upper in (f"({var} + 1) * {size}", f"{size} * ({var} + 1)"):
            return node.value.id
    return None


def _sizes(lower: ast.expr, var: str) -> list[str]:
    if not (isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Mult)):
        return []
    left, right = ast.unparse(lower.left), ast.unparse(lower.right)
    return [right] if left == var else [left] if right == var else []


def _shards(body, block, index, var, table, taken):
    """(dropped statements, params, inline shards) for the tower's inputs."""
    dropped, params, inline, by_batch = [], [], [], {}
    written = set().union(*(_astutil.writes(s) for s in body))
    for stmt in body:
        value = getattr(stmt, "value", None)
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
        batch = _is_slice(value, var) if target is not None else None
        if batch is not None and isinstance(target, ast.Name) and batch not in written:
            dropped.append(stmt)
            params.append((target.id, batch))
    nodes = sorted(_astutil.walk_scope(body), key=_position)
    for node in nodes:
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and ast.unparse(node.slice) == var
        ):
            batch = _tower_loop.split_of(block, index, node.value.id, table)
            if batch is None:
                continue
            key = ast.unparse(batch)
            if key not in by_batch:
                base = getattr(batch, "id", "shard")
                by_batch[key] = _astutil.unique(f"{base}_shard", taken)
                params.append((by_batch[key], key))
            inline.append((node, by_batch[key]))
    if not params:
        raise NotCanonical(
            "the tower takes no `X[i]` shard of a tf.split batch and no "
            "`X[i * b:(i + 1) * b]` slice"
        )
    return dropped, params, inline


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _comprehension_own(nodes) -> set[int]:
    """The ids of the names each comprehension among `nodes` binds for itself."""
    own = set()
    for node in nodes:
        if isinstance(node, _COMPREHENSIONS):
            bound = set().union(*(_astutil.writes(g.target) for g in node.generators))
            own |= {
                id(n) for n in _astutil.walk(node) if getattr(n, "id", None) in bound
            }
    return own


def _outside(scope, stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """(names read, names written) in `scope` outside the loop statement
    (a comprehension's own variables are its own)."""
    inside = {id(n) for n in _astutil.walk(stmt)}
    walk = _astutil.walk(scope) if isinstance(scope, ast.Module) else (
        _astutil.walk_scope(scope.body))  # fmt: skip
    nodes = [n for n in walk if id(n) not in inside]
    own = _comprehension_own(nodes)
    names = [n for n in nodes if id(n) not in own and isinstance(n, ast.Name)]
    read = {n.id for n in names if isinstance(n.ctx, ast.Load)}
    written = {n.id for n in names if not isinstance(n.ctx, ast.Load)}
    return read, written


def recognise(block, index, scope, table, taken: set[str]) -> TowerDef:
    """The tower loop at `block[index]` as a function body.

    Raises:
      NotCanonical: with what stops the rewrite.
    """
    loop, stmt = _tower_loop.peel(block[index], table)
    device, body, bound = _tower_loop.loop_body(loop, table)
    if not isinstance(loop.target, ast.Name):
        raise NotCanonical("the loop variable is not one name")
    var = loop.target.id
    if _tower_body.tf_name(table) is None and bound is not None:
        raise NotCanonical("no `import tensorflow as tf` to write the rewrite with")
    compute, append, loss, optimizer, var_list = _gradients(body)
    tainted = _tower_loops.tainted_names(loop)
    hoisted = _hoisted(body, optimizer, compute, tainted)
    flags = {id(s): _flag(s, block[:index]) for s in body}
    flags = {k: v for k, v in flags.items() if v is not None}
    reuse = [s for s in body if _tower_loop.is_reuse(s)]
    sliced, params, inline = _shards(body, block, index, var, table, taken)
    dropped = {id(s) for s in [compute, append, hoisted, *reuse, *sliced] if s}
    dropped |= set(flags)
    _check_body(body, compute, loss, dropped)
    lists = append.value.func.value.id
    average, apply = _tower_loop.after_loop(block, index, lists, optimizer)
    tl = _tower_loop.TowerLoop(
        stmt, loop, device, loss, None, [], optimizer,
        _tower_loop.init_of(block, index, lists), average, apply,
        _tower_loop.global_step_of(apply),
    )  # fmt: skip
    _tower_loop.check_reads(scope, tl, lists, block)
    kept = [s for s in body if id(s) not in dropped]
    written = set().union(*(_astutil.writes(s) for s in kept)) | {var}
    read, bound_out = _outside(scope, stmt)
    exported = sorted((written & (read | bound_out)) - {loss, *(p for p, _ in params)})
    _check_between(block, tl, exported)
    return TowerDef(
        tl, body, dropped, params, inline, hoisted, var_list, exported,
        not isinstance(scope, ast.Module), bound, bound_out, list(flags.values()),
        _scope_call(loop, bound),
    )  # fmt: skip


def _scope_call(loop: ast.For, bound: str | None) -> ast.Call | None:
    """The call of the loop's `with tf.name_scope(...) as bound`, if any."""
    for node in _astutil.walk(loop):
        if not isinstance(node, ast.With):
            continue
        for item in node.items:
            target = item.optional_vars
            if isinstance(target, ast.Name) and target.id == bound:
                return item.context_expr
    return None


def _check_body(body, compute, loss: str, dropped: set) -> None:
    """The loss is the body's own and final once gradients are taken."""
    if not any(loss in _astutil.writes(s) for s in body[: body.index(compute)]):
        raise NotCanonical(f"`{loss}` is not computed in the tower")
    for stmt in body[body.index(compute) + 1 :]:
        if id(stmt) not in dropped and loss in _astutil.writes(stmt):
            raise NotCanonical(
                f"line {stmt.lineno} changes `{loss}` after its gradients"
            )


def _check_between(block, tl, exported: list[str]) -> None:
    """Nothing between the loop and the update reads what the towers leave."""
    at = tl.average if tl.at_average else tl.apply
    start, end = block.index(tl.stmt), block.index(at)
    skip = {id(tl.init), id(tl.average)}
    for stmt in block[start + 1 : end]:
        hit = set(_astutil.reads(stmt)) & set(exported)
        if id(stmt) not in skip and hit:
            raise NotCanonical(
                f"line {stmt.lineno} reads `{sorted(hit)[0]}` before the towers "
                "are built"
            )


def _indent(off: Offsets, stmt: ast.stmt) -> tuple[str, str]:
    """(`stmt`'s indent as written, one level more: a tab in a tab-indented file)."""
    indent = off.lines[stmt.lineno - 1][: off.column(stmt)]
    if indent.strip():
        indent = " " * len(indent)
    return indent, "\t" if "\t" in indent else "    "


def _lines(off: Offsets, body, keep, edits, indent: str) -> list[str]:
    """The kept statements with the comments above them, at `indent`."""
    out, previous = [], None
    fill = "\t" if "\t" in indent else " "
    for stmt in body:
        first = stmt.lineno if previous is None else previous.end_lineno + 1
        previous = stmt
        if not keep(stmt):
            continue
        start, end = off.line_start(first), off.line_end(stmt.end_lineno)
        inner = [e for e in edits if start <= e.start and e.end <= end]
        text = apply(off.source[start:end], inner, offset=start)
        shift = off.column(stmt) - len(indent)
        for line in text.splitlines():
            pad = len(line) - len(line.lstrip(" \t"))
            if not line.strip():
                out.append("")
            else:
                out.append(
                    line[min(pad, shift) :] if shift >= 0 else fill * -shift + line
                )
    return out


def _head_lines(td: TowerDef, off: Offsets, indent: str, name: str) -> list[str]:
    """The optimizer, the exported names' `= None` and `def name(...):` with its
    nonlocal or global line."""
    inner = indent + _indent(off, td.tl.stmt)[1]
    out = [indent + off.text(td.hoisted)] if td.hoisted is not None else []
    if td.function:
        out += [f"{indent}{n} = None" for n in td.exported if n not in td.elsewhere]
    out.append("")
    out.append(f"{indent}def {name}({', '.join(p for p, _ in td.params)}):")
    if td.exported:
        keyword = "nonlocal" if td.function else "global"
        out.append(f"{inner}{keyword} {', '.join(td.exported)}")
    return out


def _index_lines(td: TowerDef, inner: str, emg: str) -> list[str]:
    """`i = emg.towers.tower_index()` when the body reads the loop variable,
    and the first-tower flags."""
    kept = [s for s in td.body if id(s) not in td.dropped]
    var = td.tl.loop.target.id
    used = set().union(*(_astutil.reads(s) for s in kept)) | set(td.exported)
    inside = {id(n) for s in kept for n in _astutil.walk(s)}
    shards = sum(_astutil.reads(n)[var] for n, _ in td.inline if id(n) in inside)
    if shards == sum(_astutil.reads(s)[var] for s in kept):  # only in `X[i]` shards
        used.discard(var)
    if td.scope_call is not None:
        used |= set(_astutil.reads(td.scope_call))
    out = []
    if var in used or td.flags:
        out.append(f"{inner}{var} = {emg}.towers.tower_index()")
    for flag, first in td.flags:
        out.append(f"{inner}{flag} = True if {var} > 0 else {first}")
    return out


def def_text(td: TowerDef, off: Offsets, emg: str, tf: str, name: str) -> str:
    """The statements that replace the loop: the optimizer, then `def name(...)`."""
    indent, step = _indent(off, td.tl.stmt)
    inner = indent + step
    nl = off.newline
    out = _head_lines(td, off, indent, name) + _index_lines(td, inner, emg)
    edits = [off.replace(node, param) for node, param in td.inline]
    body = inner
    if td.scope_call is not None:
        out.append(f"{inner}with {off.text(td.scope_call)} as {td.bound}:")
        body = inner + step
    elif td.bound is not None:
        out.append(f"{inner}{td.bound} = {tf}.get_default_graph().get_name_scope()")
    out += _lines(off, td.body, lambda s: id(s) not in td.dropped, edits, body)
    out.append(f"{inner}return {td.tl.loss}")
    out.append("")
    return nl.join(out).lstrip(nl).lstrip(" \t")


def minimize_text(
    td: TowerDef, off: Offsets, emg: str, name: str, devices: str = ""
) -> str:
    """`loss, train_op = emg.towers.minimize(name, (X, ...), opt, ...)`;
    `devices`: the name the resolved devices were assigned to, if hoisted."""
    tl = td.tl
    indent, step = _indent(off, tl.average if tl.at_average else tl.apply)
    batches = list(dict.fromkeys(b for _, b in td.params))
    inputs = "(" + ", ".join(batches) + ("," if len(batches) == 1 else "") + ")"
    optimizer = off.text(tl.optimizer)
    before = []
    if tl.capture:
        grads = tl.averaged
        before.append(f"{grads} = []")
        optimizer = (
            f"{emg}.TowerOptimizer({optimizer}, "
            f"transform_gradients=lambda pairs: {grads}.extend(pairs) or pairs)"
        )
    args = [
        name,
        inputs,
        optimizer,
        f"devices={_tower_devices.devices_text(tl.loop, tl.device, off, emg, devices)}",
    ]
    if tl.global_step is not None:
        args.append(f"global_step={off.text(tl.global_step)}")
    if td.var_list is not None:
        text = off.text(td.var_list)
        simple = isinstance(td.var_list, ast.Name)
        args.append(f"var_list={text}" if simple else f"var_list=lambda: {text}")
    nl = off.newline
    lines = "".join(f"{indent}{step}{a},{nl}" for a in args)
    target = f"{tl.loss}, {off.text(tl.apply.targets[0])}"
    call = f"{target} = {emg}.towers.minimize({nl}{lines}{indent})"
    return f"{nl}{indent}".join(before + [call])


def edits(
    tree, td: TowerDef, off: Offsets, emg: str, tf: str, taken, prior=()
) -> list[Edit] | None:
    """The edits for `td`, or None if a statement shares its lines; the
    towers' resolved devices go early (`prior`: the edits already made)."""
    tl = td.tl
    name = _astutil.unique("tower_fn", taken)
    at, gone = (tl.average, tl.apply) if tl.at_average else (tl.apply, tl.average)
    removed = [s for s in (tl.init, gone) if s not in (None, at)]
    if not all(_tower_rewrite.alone(off, s) for s in removed + [at, tl.stmt]):
        return None
    out = [_tower_rewrite.delete_lines(off, s) for s in removed]
    out.append(off.replace(tl.stmt, def_text(td, off, emg, tf, name)))
    hoist = _tower_rewrite.hoist_devices(tree, tl, off, emg, taken, prior)
    devices = hoist.name if hoist else ""
    out.append(off.replace(at, minimize_text(td, off, emg, name, devices)))
    out += [hoist.edit] if hoist else []
    helper = _tower_rewrite.dead_helper(tree, tl.average_call)
    if helper is not None and not helper.decorator_list:
        out.append(_tower_rewrite.delete_lines(off, helper, blank_after=True))
    return out


def summary(td: TowerDef, off: Offsets, emg: str) -> str:
    """The rewrite in one line, for the finding."""
    params = ", ".join(p for p, _ in td.params)
    lines = minimize_text(td, off, emg, "tower_fn").split(off.newline)
    call = " ".join(line.strip() for line in lines).replace("( ", "(")
    call = call.replace(", )", ")").replace(" = [] ", " = []; ")
    hoisted = f"{off.text(td.hoisted)} before it; " if td.hoisted is not None else ""
    return (
        f"def tower_fn({params}): the loop body, returning {td.tl.loss} "
        f"(i = {emg}.towers.tower_index()); {hoisted}{call}"
    )
