"""Tower-loop body shapes: a per-tower dequeue, a bound name scope, scope-filtered collections."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._astutil import call_target

_TF_MODULES = ("tensorflow", "tensorflow.compat.v1")


class NotCanonical(Exception):
    """The loop is not the canonical shape; the message says where it differs."""


@dataclasses.dataclass
class Extras:
    """What the tower body holds beyond `loss = tower(...)` and its gradients.

    Attributes:
      scope: the name bound by `with tf.name_scope(...) as scope`, or None.
      dequeue: `a, b = queue.dequeue()` at the top of the body, or None: each
        tower takes its own batch from one queue.
      collected: `x = tf.get_collection(KEY, scope)` statements of the body.
      tf: how the module spells TensorFlow (for the text the rewrite writes).
    """

    scope: str | None = None
    dequeue: ast.Assign | None = None
    collected: list = dataclasses.field(default_factory=list)
    tf: str = "tf"

    def dequeued(self) -> list[str]:
        """The names the per-tower dequeue binds, in order."""
        if self.dequeue is None:
            return []
        return [e.id for e in self.dequeue.targets[0].elts]


def tf_name(table: _aliases.AliasTable) -> str | None:
    """A name bound to `tensorflow` or `tensorflow.compat.v1`, if any."""
    for module in _TF_MODULES:
        name = table.name_for(module)
        if name is not None:
            return name
    return None


def _is_dequeue(stmt: ast.stmt) -> bool:
    """`a, b = queue.dequeue()`: names on the left, no arguments."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target, value = stmt.targets[0], stmt.value
    return (
        isinstance(target, ast.Tuple | ast.List)
        and all(isinstance(e, ast.Name) for e in target.elts)
        and isinstance(value, ast.Call)
        and call_target(value) == "dequeue"
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and not value.args
        and not value.keywords
    )


def _is_collected(stmt: ast.stmt, scope: str | None, table) -> bool:
    """`x = tf.get_collection(KEY, scope)` with the tower's bound scope."""
    if scope is None or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    call = stmt.value
    return (
        isinstance(stmt.targets[0], ast.Name)
        and isinstance(call, ast.Call)
        and table.resolve_tf(call.func) == "tf.get_collection"
        and len(call.args) == 2
        and not call.keywords
        and isinstance(call.args[1], ast.Name)
        and call.args[1].id == scope
    )


def split_body(body: list, scope: str | None, table) -> tuple[list, Extras]:
    """(the body without the extras, the extras) for a tower body.

    Raises:
      NotCanonical: if the extras need TensorFlow and the module has no name
        for it.
    """
    extras = Extras(scope=scope)
    if body and _is_dequeue(body[0]):
        extras.dequeue, body = body[0], body[1:]
    extras.collected = [s for s in body if _is_collected(s, scope, table)]
    body = [s for s in body if s not in extras.collected]
    if extras.dequeue is not None or scope is not None:
        name = tf_name(table)
        if name is None:
            raise NotCanonical("no `import tensorflow as tf` to write the rewrite with")
        extras.tf = name
    return body, extras


def check_uses(extras: Extras, body: list, tower_call: ast.Call) -> None:
    """The scope and the dequeued names reach the tower call only.

    Raises:
      NotCanonical: if the body uses them elsewhere.
    """
    args = tower_call.args + [k.value for k in tower_call.keywords]
    direct = {id(a) for a in args if isinstance(a, ast.Name)}
    names = set(extras.dequeued()) | ({extras.scope} if extras.scope else set())
    for stmt in body:
        for node in _astutil.walk(stmt):
            if (
                isinstance(node, ast.Name)
                and node.id in names
                and id(node) not in direct
            ):
                raise NotCanonical(
                    f"line {node.lineno}: `{node.id}` is used beyond the tower call"
                )
    passed = {a.id for a in args if isinstance(a, ast.Name)}
    missing = [n for n in extras.dequeued() if n not in passed]
    if missing:
        raise NotCanonical(f"`{missing[0]}` is dequeued but not passed to the tower")


def batch_text(extras: Extras, loop: ast.For, off) -> str | None:
    """One global batch from the towers' dequeues: each tower's shard of it is
    the batch that tower dequeued (`emg.towers.minimize` splits it evenly)."""
    if extras.dequeue is None:
        return None
    targets = ", ".join(extras.dequeued())
    queue = off.text(extras.dequeue.value)
    each = f"[{queue} for {off.text(loop.target)} in {off.text(loop.iter)}]"
    return f"{targets} = [{extras.tf}.concat(parts, 0) for parts in zip(*{each})]"


def scope_text(extras: Extras) -> str:
    """The tower's own name scope, as the tower call's `scope` argument."""
    return f"{extras.tf}.get_default_graph().get_name_scope()"


def collected_texts(extras: Extras, off) -> list[str]:
    """`x = tf.get_collection(KEY)` after the towers: the collection holds
    the first tower's items (emg keeps each tower's losses and summaries to
    itself while it is built)."""
    out = []
    for stmt in extras.collected:
        key = off.text(stmt.value.args[0])
        func = off.text(stmt.value.func)
        out.append(f"{stmt.targets[0].id} = {func}({key})")
    return out
