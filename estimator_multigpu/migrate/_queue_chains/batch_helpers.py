"""Recognises batch helpers: `def make_batch(image, label, ...): ... tf.train.batch([image, label], ...)`."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._calls import (
    SINGLE_BATCHERS,
    call_arg,
    is_batcher,
    tf_name,
)
from estimator_multigpu.migrate._dataflow import NotAChain


@dataclasses.dataclass
class BatchHelper:
    """A module-level function whose leading parameters are batched by queues.

    `--fix` replaces those parameters by one Dataset parameter that each of
    its batchers batches; callers pass their mapped examples instead.

    Attributes:
      func: the function.
      names: the per-example parameters, in order (e.g. `['image', 'label']`).
      first: the position of the first of them.
      calls: (batcher call, batcher name) for each batcher in the function.
    """

    func: ast.FunctionDef
    names: list[str]
    first: int
    calls: list[tuple[ast.Call, str]]


def _batched_names(calls: list[ast.Call], name: str) -> list[str]:
    shapes = []
    for call in calls:
        tensors = call_arg(call, 0, "tensors")
        if not isinstance(tensors, ast.List | ast.Tuple) or not all(
            isinstance(e, ast.Name) for e in tensors.elts
        ):
            raise NotAChain(f"`{name}` batches something other than its parameters")
        shapes.append([e.id for e in tensors.elts])
    if any(s != shapes[0] for s in shapes):
        raise NotAChain(f"the batchers in `{name}` batch different tensors")
    return shapes[0]


def _check_params(func: ast.FunctionDef, names: list[str]) -> int:
    positional = [a.arg for a in func.args.posonlyargs + func.args.args]
    if not set(names) <= set(positional) or len(set(names)) != len(names):
        raise NotAChain(f"`{func.name}` batches names that are not its parameters")
    first = positional.index(names[0])
    if positional[first : first + len(names)] != names:
        raise NotAChain(f"the batched parameters of `{func.name}` are not adjacent")
    if first + len(names) > len(positional) - len(func.args.defaults):
        raise NotAChain(f"the batched parameters of `{func.name}` have defaults")
    return first


def recognise(func: ast.FunctionDef, table: _aliases.AliasTable) -> BatchHelper:
    """Returns the batch helper `func` is.

    Raises:
      NotAChain: if `func` is not one.
    """
    calls = [n for n in _astutil.walk_scope(func.body) if is_batcher(table, n)]
    if func.decorator_list or not calls:
        raise NotAChain(f"`{func.name}` is not a batch helper")
    batchers = [tf_name(table, c, SINGLE_BATCHERS) for c in calls]
    if None in batchers:
        raise NotAChain("`*_join` batchers combine several readers; rewrite by hand")
    names = _batched_names(calls, func.name)
    first = _check_params(func, names)
    uses = _astutil.reads(func)
    if any(uses[n] != len(calls) for n in names):
        raise NotAChain(f"`{func.name}` uses its batched parameters elsewhere")
    return BatchHelper(func, names, first, list(zip(calls, batchers)))


def find(tree: ast.Module, table: _aliases.AliasTable) -> dict[str, BatchHelper]:
    """Returns the module's batch helpers by name."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            try:
                out[node.name] = recognise(node, table)
            except NotAChain:
                pass
    return out


def example_args(call: ast.Call, helper: BatchHelper) -> list[ast.expr]:
    """The caller's per-example arguments, in the helper's parameter order."""
    args = []
    for i, name in enumerate(helper.names):
        arg = call_arg(call, helper.first + i, name)
        if arg is None or isinstance(arg, ast.Starred):
            raise NotAChain(f"`{helper.func.name}` is called without `{name}`")
        args.append(arg)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        raise NotAChain(f"`{helper.func.name}` is called with *args or **kwargs")
    return args
