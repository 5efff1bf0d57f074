"""Whether TensorFlow may have started its runtime where a device count is read (pure ast).

`emg.devices.resolve` simulates missing devices only before TensorFlow starts
its runtime: an eager op, a `Session`, a device listing or a value read back
(`.numpy()`, `sess.run`) starts it. Graph ops built inside a `tf.Graph`, or
anywhere in a file that calls `disable_v2_behavior()`, do not. A count read
from a TensorFlow value (a tensor's shape, a session run, a `tf.` call) is
from estimator_multigpu.migrate import _astutil
known only once TensorFlow runs, so it counts as late too.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil

# Calls that start the runtime in either mode (by their last name).
_STARTERS = {
    "Session",
    "InteractiveSession",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "SingularMonitoredSession",
    "list_logical_devices",
    "list_physical_devices",
    "list_local_devices",
    "is_gpu_available",
    "is_built_with_cuda",
    "numpy",
}
# Calls that read a TensorFlow value back (by their last name).
_READS = {"run", "eval", "numpy", "get_shape"}
# `tf.` calls that do not start the runtime in a TF2-mode file.
_QUIET = {
    "Graph",
    "as_default",
    "device",
    "name_scope",
    "variable_scope",
    "get_logger",
    "disable_v2_behavior",
    "disable_eager_execution",
    "set_verbosity",
}
_QUIET_PARTS = {"flags", "logging", "app"}
# Modules that read data sets into NumPy arrays, starting no runtime: the
# MNIST tutorial's `input_data`, contrib.learn's and Keras's `datasets`
# (`input_data.read_data_sets`, `tf.keras.datasets.mnist.load_data()`).
_DATA_PARTS = {"input_data", "datasets"}


def _facts(tree: ast.Module) -> tuple[frozenset[str], bool]:
    """(tf_names, graph_mode) of `tree`, computed once per tree.

    Each device hoist asks; walking the whole module each time made a scan
    quadratic in the number of tower loops. The facts are kept on the tree
    itself (the rewrites edit text, never the tree), so they cannot go stale.
    """
    facts = getattr(tree, "_emg_runtime_facts", None)
    if facts is None:
        facts = (frozenset(_tf_names(tree)), _graph_mode(tree))
        tree._emg_runtime_facts = facts
    return facts


def tf_names(tree: ast.Module) -> frozenset[str]:
    """The names the module binds to TensorFlow (`tf` for `import ... as tf`)."""
    return _facts(tree)[0]


def graph_mode(tree: ast.Module) -> bool:
    """Whether the module turns TF2 behaviour off (graph ops start nothing)."""
    return _facts(tree)[1]


def _tf_module(path: str) -> bool:
    """Whether the module `path` is TensorFlow's, and not one of its data readers."""
    parts = path.split(".")
    return parts[0] == "tensorflow" and not _DATA_PARTS & set(parts)


def _tf_names(tree: ast.Module) -> set[str]:
    out = set()
    for node in _astutil.walk(tree):
        if isinstance(node, ast.Import):
            # `import tensorflow.x.y` binds `tensorflow` itself.
            out |= {
                a.asname or a.name.split(".")[0]
                for a in node.names
                if _tf_module(a.name if a.asname else a.name.split(".")[0])
            }
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            module = node.module or ""
            out |= {
                a.asname or a.name
                for a in node.names
                if _tf_module(f"{module}.{a.name}")
            }
    return out


def _graph_mode(tree: ast.Module) -> bool:
    quiet = {"disable_v2_behavior", "disable_eager_execution"}
    return any(_astutil.call_target(n) in quiet for n in _astutil.walk(tree))


def _dotted(node: ast.AST) -> list[str]:
    """`['tf', 'compat', 'v1', 'Session']` for `tf.compat.v1.Session`, else []."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else []


def _tf_call(node: ast.AST, tf: set[str]) -> bool:
    return isinstance(node, ast.Call) and _dotted(node.func)[:1] in [[t] for t in tf]


def tf_value(expr: ast.AST, tf: set[str]) -> ast.AST | None:
    """The node of `expr` that reads a TensorFlow value, else None."""
    for node in _astutil.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            return node
        if _astutil.call_target(node) in _READS or _tf_call(node, tf):
            return node
    return None


def _graph_blocks(scope_body: list[ast.stmt]) -> set[int]:
    """The ids of the nodes inside `with <graph>.as_default():` blocks."""
    out = set()
    for node in _astutil.walk_scope(scope_body):
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            _astutil.call_target(i.context_expr) == "as_default" for i in node.items
        ):
            out |= {id(n) for n in _astutil.walk_scope(node.body)}
    return out


def _starts(node: ast.AST, tf: set[str], eager: bool) -> bool:
    """Whether the call `node` may start the runtime."""
    name = _astutil.call_target(node)
    if name in _STARTERS:
        return True
    if not (eager and _tf_call(node, tf)):
        return False
    quiet = _QUIET_PARTS | _DATA_PARTS
    return name not in _QUIET and not quiet & set(_dotted(node.func))


def starter(tree: ast.Module, scope, limit: int) -> ast.AST | None:
    """The first call in `scope` (not in nested functions) ending on or before
    line `limit` that may start TensorFlow's runtime, else None."""
    tf, eager = tf_names(tree), not graph_mode(tree)
    graph = _graph_blocks(scope.body) if eager else set()
    found = [
        n
        for n in _astutil.walk_scope(scope.body)
        if isinstance(n, ast.Call)
        and n.end_lineno <= limit
        and id(n) not in graph
        and _starts(n, tf, eager)
    ]
    return min(found, key=lambda n: (n.lineno, n.col_offset), default=None)


def _values(stmt: ast.stmt) -> list[tuple[set[str], ast.AST]]:
    """(names, expression) for each value `stmt` binds to names."""
    if isinstance(stmt, ast.Assign):
        return [(set().union(*map(_astutil.writes, stmt.targets)), stmt.value)]
    if isinstance(stmt, ast.AugAssign | ast.AnnAssign) and stmt.value is not None:
        return [(_astutil.writes(stmt.target), stmt.value)]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [(_astutil.writes(stmt.target), stmt.iter)]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        items = [i for i in stmt.items if i.optional_vars is not None]
        return [(_astutil.writes(i.optional_vars), i.context_expr) for i in items]
    return []


def count_source(tree: ast.Module, scope, count: ast.AST, limit: int):
    """The node that reads a TensorFlow value on the way to `count`: in
    `count` itself or in the assignments (in `scope`, ending on or before line
    `limit`) of the names it reads, followed back; else None."""
    tf = tf_names(tree)
    found = tf_value(count, tf)
    bound = [
        pair
        for s in _astutil.walk_scope(scope.body)
        if isinstance(s, ast.stmt) and s.lineno <= limit
        for pair in _values(s)
    ]
    todo, seen = set(_astutil.reads(count)), set()
    while found is None and todo - seen:
        name = (todo - seen).pop()
        seen.add(name)
        for names, value in bound:
            if name in names and value.end_lineno <= limit:
                found = found or tf_value(value, tf)
                todo |= set(_astutil.reads(value))
    return found
