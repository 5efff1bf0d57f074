"""The canonical hand-written tower loop, recognised: the loop, its averaging and its update.

`tower_rewrite` writes the `emg.towers.minimize` call for it; `tower_def`
reads the same parts of a loop whose body becomes a tower function.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _tower_body,
    _tower_loops,
)
from estimator_multigpu.migrate._astutil import call_target

_SCOPES = ("tf.name_scope", "tf.variable_scope")

NotCanonical = _tower_body.NotCanonical


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
    extras: _tower_body.Extras = dataclasses.field(default_factory=_tower_body.Extras)
    capture: bool = False
    at_average: bool = False

    @property
    def averaged(self) -> str | None:
        """The name the averaged gradients are bound to; None when the update
        averages in its argument (`opt.apply_gradients(average(tower_grads))`)."""
        return None if self.average is self.apply else self.average.targets[0].id

    @property
    def average_call(self) -> ast.Call:
        """The averaging call, `average_gradients(tower_grads)`."""
        if self.average is self.apply:
            return self.apply.value.args[0]
        return self.average.value


def peel(stmt: ast.stmt, table: _aliases.AliasTable):
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


def loop_body(loop: ast.For, table: _aliases.AliasTable):
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
    """True for `tf.get_variable_scope().reuse_variables()` (emg reuses itself)."""
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


def _computes(call, loss: str) -> bool:
    """Whether `call` is `opt.compute_gradients(loss)`."""
    return (
        isinstance(call, ast.Call)
        and call_target(call) == "compute_gradients"
        and isinstance(call.func, ast.Attribute)
        and [ast.unparse(a) for a in call.args] == [loss]
        and not call.keywords
    )


def _appends(append, value: str) -> bool:
    """Whether `append` is `L.append(value)` on a plain name."""
    return (
        call_target(append) == "append"
        and isinstance(append.func.value, ast.Name)
        and len(append.args) == 1
        and ast.unparse(append.args[0]) == value
    )


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
    if not (_computes(call, loss) and _appends(append, grads or ast.unparse(call))):
        raise NotCanonical(
            "the tower does not end in `grads = opt.compute_gradients(loss)` "
            "and `tower_grads.append(grads)`"
        )
    return call.func.value, append.func.value.id


def _assigned_values(stmt: ast.stmt) -> list[tuple[str, ast.expr]]:
    """(name, value) per name `stmt` assigns: `a = v`, or `a, b = v, w`
    element by element."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return []
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    sequences = ast.Tuple | ast.List
    if (
        isinstance(target, sequences)
        and isinstance(value, sequences)
        and len(target.elts) == len(value.elts)
    ):
        pairs = zip(target.elts, value.elts)
        return [(t.id, v) for t, v in pairs if isinstance(t, ast.Name)]
    return []


def _split_batch(call: ast.expr, table) -> ast.expr | None:
    """The batch `x` of `tf.split(x, N)` along axis 0, else None."""
    if not isinstance(call, ast.Call) or table.resolve_tf(call.func) != "tf.split":
        return None
    axis = [k.value for k in call.keywords if k.arg == "axis"]
    if len(call.args) > 2 or any(ast.unparse(a) != "0" for a in axis):
        return None
    kw = {k.arg: k.value for k in call.keywords}
    return call.args[0] if call.args else kw.get("value")


def split_of(block, before: int, name: str, table) -> ast.expr | None:
    """The batch `x` of the last `name = tf.split(x, N)` before `block[before]`
    (`xs, ys = tf.split(x, N), tf.split(y, N)` too)."""
    for stmt in reversed(block[:before]):
        values = [v for n, v in _assigned_values(stmt) if n == name]
        if values:
            return _split_batch(values[-1], table)
    return None


def _shard(arg, target, block, index, table):
    """(arg, batch) for an `X[i]` shard of `X = tf.split(batch, N)`, else None."""
    if not (
        isinstance(arg, ast.Subscript)
        and isinstance(arg.value, ast.Name)
        and ast.unparse(arg.slice) == target
    ):
        return None
    batch = split_of(block, index, arg.value.id, table)
    if batch is None:
        raise NotCanonical(
            f"`{ast.unparse(arg)}` is not a shard of `{arg.value.id} = "
            "tf.split(batch, N)` in the same block"
        )
    return arg, batch


def _input(arg, target, loop, block, index, table, extras):
    """(argument, global batch) for one argument of the tower call, or None."""
    if isinstance(arg, ast.Name) and arg.id in extras.dequeued():
        return arg, arg.id
    if isinstance(arg, ast.Name) and arg.id == extras.scope:
        return None
    shard = _shard(arg, target, block, index, table)
    if shard is None and _tower_loops.names_in(arg) & _tower_loops.tainted_names(loop):
        raise NotCanonical(f"`{ast.unparse(arg)}` depends on the loop variable")
    return shard


def _inputs(call, loop, block, index, table, extras=None) -> list:
    """(argument, global batch) per shard argument of the tower call; the
    batch is a node (of `X = tf.split(batch, N)`) or a dequeued name."""
    target = loop.target.id if isinstance(loop.target, ast.Name) else None
    extras = extras or _tower_body.Extras()
    inputs = []
    for arg in call.args + [k.value for k in call.keywords]:
        found = _input(arg, target, loop, block, index, table, extras)
        inputs += [found] if found is not None else []
    if target is None or not inputs:
        raise NotCanonical(
            "the tower takes no `X[i]` shard of a tf.split batch and no "
            "batch dequeued in the loop"
        )
    return inputs


def _averages(call, lists: str) -> bool:
    """Whether `call` is `f(lists)`: the averaging of the towers' gradients."""
    return (
        isinstance(call, ast.Call)
        and [ast.unparse(a) for a in call.args] == [lists]
        and not call.keywords
    )


def _applies(call: ast.Call, optimizer: ast.expr) -> bool:
    """Whether `call` is `optimizer.apply_gradients(...)` with an argument."""
    return (
        call_target(call) == "apply_gradients"
        and ast.unparse(call.func.value) == ast.unparse(optimizer)
        and bool(call.args)
    )


def after_loop(block, index, lists: str, optimizer: ast.expr):
    """The averaging and apply statements after the loop, in `block`; one
    statement for both when the update averages in its argument."""
    average = None
    for stmt in block[index + 1 :]:
        found = _assigned_call(stmt)
        if found is None:
            continue
        call = found[1]
        if average is None and _applies(call, optimizer):
            if _averages(call.args[0], lists):
                return stmt, stmt
        elif average is None and _averages(call, lists):
            average = stmt
        elif average is not None and _applies(call, optimizer):
            if ast.unparse(call.args[0]) == average.targets[0].id:
                return average, stmt
    raise NotCanonical(
        f"no `grads = average_gradients({lists})` then "
        f"`train_op = {ast.unparse(optimizer)}.apply_gradients(grads, ...)` "
        "after the loop"
    )


def global_step_of(apply: ast.Assign):
    """The `global_step` of `train_op = opt.apply_gradients(grads, global_step)`."""
    call = apply.value
    extra = [k.arg for k in call.keywords if k.arg != "global_step"]
    if len(call.args) > 2 or extra:
        raise NotCanonical("apply_gradients takes more than grads and global_step")
    steps = call.args[1:] + [k.value for k in call.keywords]
    return steps[0] if steps else None


def init_of(block, index, lists: str):
    """The `tower_grads = []` before the loop at `block[index]`, or None."""
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
    skip = {id(n) for s in (tl.stmt, tl.average, tl.apply) for n in _astutil.walk(s)}
    if tl.init is not None:
        skip |= {id(n) for n in _astutil.walk(tl.init)}
    averaged = tl.averaged
    looped = {
        id(n.iter) for n in _astutil.walk_scope([scope]) if isinstance(n, ast.For)
    }
    for node in _astutil.walk_scope([scope]):
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
    defined |= {tl.averaged} if tl.capture else set()
    tl.at_average = any(defined & set(_astutil.reads(s)) for s in between)
    if tl.at_average:
        needed = set(_astutil.reads(tl.apply)) | set(_astutil.reads(tl.loop.iter))
        for stmt in between:
            if _astutil.writes(stmt) & needed:
                raise NotCanonical(
                    f"line {stmt.lineno} assigns what the update reads, after "
                    "the averaging"
                )
    for stmt in block[start + 1 : mid if tl.at_average else end]:
        if tl.loss in _astutil.reads(stmt):
            raise NotCanonical(
                f"line {stmt.lineno} reads `{tl.loss}` before the update is built"
            )


def recognise(block, index, scope, table: _aliases.AliasTable) -> TowerLoop:
    """The canonical tower loop at `block[index]`.

    Raises:
      NotCanonical: with what differs from the canonical shape.
    """
    loop, stmt = peel(block[index], table)
    device, body, bound = loop_body(loop, table)
    body = [s for s in body if not is_reuse(s)]
    body, extras = _tower_body.split_body(body, bound, table)
    found = _assigned_call(body[0]) if body else None
    if found is None:
        raise NotCanonical("the tower does not start with `loss = tower_loss(...)`")
    loss, tower_call = found
    _tower_body.check_uses(extras, body, tower_call)
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
