"""Recognises whole queue input chains: producer -> reader.read -> per-example code -> batcher."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _sources,
)
from estimator_multigpu.migrate._dataflow import (
    NotAChain,
    check_escapes,
    check_mappable,
    literal_of,
    split,
)
from estimator_multigpu.migrate._queue_chains import batch_end, scoped


@dataclasses.dataclass
class Chain:
    """A queue chain that `--fix` can rewrite into emg.inputs.queues.

    Attributes:
      batch_stmt: the statement that batches (simple, or an `if`/`with`).
      end: its `batch_end.BatchEnd` (the batcher or batch-helper calls).
      literal: the list/tuple/dict display the examples are (or are named by).
      source_stmt: `key, value = reader.read(queue)` (or a producer of tensors).
      params: the per-example function's parameters (from the source targets).
      dataset_parts: ('read', queue_expr, reader_expr), ('dataset', expr) or
        ('helper', call, helpers.ReaderHelper, form); form is 'tuple' or 'as_is'.
      renames: (node, new name) pairs: producer and reader constructors.
      moved: statements between source and batcher that become the function.
      kept: the statements between them that do not depend on the records.
      keep_params: parameter names for `keep_input` functions that read the
        example (None when they do not).
      outer: the ids of the moved and kept statements after the scope block
        the source is in (`scoped`): they move one level deeper, into it.
    """

    batch_stmt: ast.stmt
    end: batch_end.BatchEnd
    literal: ast.expr
    source_stmt: ast.Assign
    params: list[str]
    dataset_parts: tuple
    renames: list[tuple[ast.AST, str]]
    moved: list[ast.stmt]
    kept: list[ast.stmt]
    keep_params: list[str] | None = None
    outer: set[int] = dataclasses.field(default_factory=set)

    @property
    def batch_call(self) -> ast.Call:
        """The first batching call (where notes point)."""
        return self.end.calls[0]

    @property
    def tensors(self) -> ast.expr:
        """The per-example structure the (first) batching call receives."""
        return self.end.tensors[0]

    @property
    def batch_helper(self):
        return self.end.helper

    def helper_names(self) -> set[str]:
        """The module-level helpers this chain rewrites (with the chain)."""
        names = {self.batch_helper.func.name} if self.batch_helper else set()
        if self.dataset_parts[0] == "helper":
            names.add(self.dataset_parts[2].func.name)
        return names


def recognise(block, index, scope, table: _aliases.AliasTable, helpers=None) -> Chain:
    """Returns the chain ending in the batching statement `block[index]`.

    Args:
      block, index: the statement list and the position of the batching statement.
      scope: the function (or module) around it.
      table: the module's aliases.
      helpers: a `Helpers` (reader and batch helpers of the module), or None.

    Raises:
      NotAChain: with the reason, if it cannot be rewritten safely.
    """
    helpers = helpers or Helpers()
    stmt = block[index]
    end = batch_end.batch_end(stmt, table, helpers.batchers)
    block, index, view = _source_block(block, index, table, helpers)
    s_idx = _sources.find_source(
        block, index, table, helpers.readers, helpers.failed_readers
    )
    params, parts, renames = _sources.source_parts(
        block, s_idx, table, scope, helpers.readers
    )
    moved, kept, tainted = split(block[s_idx + 1 : index], params)
    outer = []
    if view is not None:
        scoped.check(view, moved, kept)
        outer = scoped.after(view, moved, kept)
        kept = scoped.inside(view, moved, kept)
    check_mappable(moved + [end.tensors[0]], params, table)
    check_escapes(
        scope, moved, end.tensors + end.keeps, end.others, tainted, block[s_idx]
    )
    literal = literal_of(end.tensors[0], moved)
    keep_params = _keep_params(end, literal, tainted)
    return Chain(
        stmt,
        end,
        literal,
        block[s_idx],
        params,
        parts,
        renames,
        moved,
        kept,
        keep_params,
        {id(stmt) for stmt in outer},
    )


def _source_block(block, index, table, helpers):
    """(block, index, view): the batching statement's own block when a source
    precedes it there; else that block read through the nearest
    `with tf.name_scope(...)` before it that holds a source (`view`, a
    `scoped.Through`); else the batching statement's own block."""
    views = [None, *scoped.through(block, index, table)]
    for view in views:
        flat, at = (block, index) if view is None else (view.block, view.index)
        try:
            _sources.find_source(flat, at, table, helpers.readers, {})
        except NotAChain:
            continue
        return flat, at, view
    return block, index, None


def _keep_params(end, literal: ast.expr, tainted: set[str]) -> list[str] | None:
    """Parameters for `keep_input` functions that read the example, else None.

    `tf.train.maybe_batch([image, label], label > 0, ...)` keeps examples by
    their own label: emg's maybe_batch takes `lambda image, label: (label > 0)`.
    """
    reads = set().union(*(_astutil.reads(k) for k in end.keeps)) & tainted
    if not reads:
        return None
    elts = getattr(literal, "elts", None)
    if elts is None or literal is not end.tensors[0]:
        raise NotAChain("`keep_input` reads the example, which is not a list display")
    names = [
        e.id if isinstance(e, ast.Name) else f"_unused{i}" for i, e in enumerate(elts)
    ]
    names = [n if n not in names[:i] else f"_unused{i}" for i, n in enumerate(names)]
    if not reads <= set(names):
        raise NotAChain("`keep_input` reads per-example values that are not batched")
    return names


@dataclasses.dataclass
class Helpers:
    """A module's reader helpers and batch helpers, by name; and the functions
    that read a queue but cannot become reader helpers, with the reason."""

    readers: dict = dataclasses.field(default_factory=dict)
    batchers: dict = dataclasses.field(default_factory=dict)
    failed_readers: dict = dataclasses.field(default_factory=dict)


def find(tree: ast.Module, table: _aliases.AliasTable, helpers: Helpers | None = None):
    """Returns (chains, refusals): refusals are (batching call, reason) pairs.

    Args:
      tree: the module.
      table: its aliases.
      helpers: the module's reader and batch helpers; a chain may start or end
        in a call to one, if every use of that helper is such a chain.
    """
    helpers = helpers or Helpers()
    candidates = []
    for scope in _astutil.scopes(tree):
        for block in _astutil.blocks(scope):
            for index, stmt in enumerate(block):
                calls = batch_end.batching_calls(stmt, table, helpers.batchers)
                if calls:
                    candidates.append((stmt, block, index, scope, calls))
    # Innermost statements first: an `if` around two batchers is tried after each.
    candidates.sort(key=lambda c: (c[0].end_lineno - c[0].lineno, c[0].lineno))
    chains, claimed, reasons = [], set(), {}
    for _stmt, block, index, scope, calls in candidates:
        if claimed & {id(c) for c in calls}:
            continue
        try:
            chains.append(recognise(block, index, scope, table, helpers))
            claimed |= {id(c) for c in calls}
        except NotAChain as reason:
            reasons.update({id(c): (c, str(reason)) for c in calls})
    refusals = [r for key, r in reasons.items() if key not in claimed]
    return _check_helper_uses(tree, chains, refusals)


def _check_helper_uses(tree, chains, refusals):
    """Drops chains whose helpers are also used in other ways."""
    uses = _astutil.reads(tree)
    users: dict[str, list[Chain]] = {}
    for chain in chains:
        for name in chain.helper_names():
            users.setdefault(name, []).append(chain)
    bad = {name for name, group in users.items() if uses[name] != len(group)}
    for name, group in users.items():
        forms = {c.dataset_parts[3] for c in group if c.dataset_parts[0] == "helper"}
        if len(forms) > 1:
            bad.add(name)
    for chain in list(chains):
        names = sorted(chain.helper_names() & bad)
        if names:
            chains.remove(chain)
            reason = f"`{names[0]}` is also used outside queue chains"
            refusals.append((chain.batch_call, reason))
    return chains, refusals
