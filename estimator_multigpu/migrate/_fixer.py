"""Applies the safe rewrites (`--fix`) to one source, keeping every other line as is."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _clone_rewrite,
    _contrib_calls,
    _imports,
    _keras_input_shape,
    _keras_input_shape_fix,
    _queue_loops,
    _queue_threads,
    _reader_helpers,
    _records,
    _replicate_args,
    _scanner,
    _session_config,
    _tower_rewrite,
    _tutorial_imports,
)
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets, apply
from estimator_multigpu.migrate._queue_chains import (
    batch_helpers,
    batch_text,
    chain_text,
    chains,
)
from estimator_multigpu.migrate._scanner import Finding

PACKAGE = "estimator_multigpu"


@dataclasses.dataclass
class FixResult:
    """The rewritten source, and why some queue chains were left alone.

    Attributes:
      source: the new text (equal to the input when nothing was safe to do).
      notes: (line, reason) for each queue chain that needs a manual rewrite.
    """

    source: str
    notes: list[tuple[int, str]]


def _emg_name(tree: ast.Module, table: _aliases.AliasTable) -> tuple[str, bool]:
    """Returns (name of the package in this module, whether to add the import)."""
    bound = table.name_for(PACKAGE)
    if bound:
        return bound, False
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    return chain_text.unique("emg", taken), True


def _groups(found: list[chains.Chain]) -> list[list[chains.Chain]]:
    """Chains that share a helper are rewritten together or not at all.

    Groups come in the order of their last chain, chains in their own order.
    """
    group_of: dict[str, int] = {}  # helper name -> index of the chain that owns it
    parent = list(range(len(found)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = i = parent[parent[i]]
        return i

    for i, chain in enumerate(found):
        for name in chain.helper_names():
            if name in group_of:
                parent[root(group_of[name])] = i
            group_of[name] = i
    members: dict[int, list[chains.Chain]] = {}
    for i, chain in enumerate(found):
        members.setdefault(root(i), []).append(chain)
    return [members[r] for r in sorted(members)]


def _group_edits(group, off, q, taken) -> list[Edit]:
    new, done = [], set()
    for chain in group:
        new += chain_text.edits_for(chain, off, q, taken)
        if (
            chain.dataset_parts[0] == "helper"
            and chain.dataset_parts[2].func.name not in done
        ):
            _, _, helper, form = chain.dataset_parts
            done.add(helper.func.name)
            new += chain_text.helper_edits(helper, form, off, q, taken)
        if chain.batch_helper and chain.batch_helper.func.name not in done:
            done.add(chain.batch_helper.func.name)
            new += batch_text.helper_edits(chain.batch_helper, off, q)
    return new


def _rewritten_names(group: list[chains.Chain]) -> set[int]:
    """The ids of the legacy API name nodes that rewriting `group` replaces."""
    done = set()
    for chain in group:
        done |= {id(n) for n, _ in chain.renames}
        done |= {id(call.func) for call in chain.end.calls}
        if chain.dataset_parts[0] == "helper":
            done |= {id(n) for n, _ in chain.dataset_parts[2].renames}
        if chain.batch_helper:
            done |= {id(call.func) for call, _ in chain.batch_helper.calls}
    return done


def _chain_edits(tree, table, off, emg, findings, notes) -> list[Edit]:
    readers, failed = _reader_helpers.find(tree, table)
    found_helpers = chains.Helpers(readers, batch_helpers.find(tree, table), failed)
    found, refused = chains.find(tree, table, found_helpers)
    taken = _astutil.writes(tree) | set(_astutil.reads(tree))
    out, placed, done = [], EditSet(), set()
    for group in _groups(found):
        try:
            new = _group_edits(group, off, f"{emg}.inputs.queues", taken)
            if any(placed.overlaps(e) for e in new):
                raise chains.NotAChain("overlaps another queue chain")
        except chains.NotAChain as reason:
            notes.extend((c.batch_call.lineno, str(reason)) for c in group)
            continue
        for e in new:
            placed.add(e)
        out.extend(new)
        done |= _rewritten_names(group)
    for f in findings:
        f.fixed = f.fixed or id(f.node) in done
    # Batchers inside a rewritten batch helper were handled with their callers.
    notes.extend((c.lineno, why) for c, why in refused if id(c.func) not in done)
    return out


def _calls_by_func(tree: ast.AST) -> dict[int, ast.Call]:
    return {id(n.func): n for n in ast.walk(tree) if isinstance(n, ast.Call)}


def _rename_edits(tree, table, off, emg, findings, taken: list[Edit]) -> list[Edit]:
    calls = _calls_by_func(tree)
    out, placed = [], EditSet(taken)
    for f in findings:
        if not f.rule.rename or f.fixed:
            continue
        new = [off.replace(f.node, emg + f.rule.rename[len("emg") :])]
        if f.api == "tf.contrib.estimator.replicate_model_fn" and id(f.node) in calls:
            args = _replicate_args.edits(calls[id(f.node)], table, off)
            if args is None:
                continue
            new += args
        if not any(placed.overlaps(e) for e in new):
            for e in new:
                placed.add(e)
            out.extend(new)
            f.fixed = True
    return out


def _flattened(source, tree, findings, keep_runners) -> FixResult | None:
    """The fix of `source` with its record objects flattened first.

    None when there are none, or when flattening them lets nothing more be
    rewritten. Flattening adds or removes no legacy API use, so the n-th
    finding of an API before it is the n-th of that API after it.
    """
    flat = _records.flatten(source, tree)
    if flat is None or not findings:
        return None
    flat_tree = ast.parse(flat)
    again = _scanner.scan_rules(flat_tree, flat, findings[0].path)
    result = fix(flat, flat_tree, again, keep_runners)
    by_api: dict[str, list[Finding]] = {}
    for f in again:
        by_api.setdefault(f.api, []).append(f)
    pairs = [
        (f, by_api.get(f.api, []).pop(0) if by_api.get(f.api) else None)
        for f in findings
    ]
    if not any(new is not None and new.fixed for _, new in pairs):
        return None
    for old, new in pairs:
        old.fixed = old.fixed or bool(new is not None and new.fixed)
    return result


def fix(
    source: str,
    tree: ast.Module,
    findings: list[Finding],
    keep_runners=None,
    keep_input_shape=None,
) -> FixResult:
    """Rewrites what is safe in `source`; marks the `findings` it resolved.

    Args:
      source: the module text.
      tree: `ast.parse(source)`.
      findings: from `passes.scan_tree` on the same tree; `fixed` is set on
        those the rewrite resolves.
      keep_runners: why queue-runner starters must stay although this file's
        queues are all rewritten (a queue left elsewhere), else None.
      keep_input_shape: why a Keras first layer keeps its declared shape
        although this module reads nothing that needs it (another file of the
        program does), else None.

    Returns:
      The new text and the reasons queue chains were left for a manual rewrite.
    """
    staged = _flattened(source, tree, findings, keep_runners)
    if staged is not None:
        _queue_loops.kept(findings, keep_runners)
        return staged
    table = _aliases.AliasTable(tree)
    off = Offsets(source)
    emg, add_import = _emg_name(tree, table)
    notes: list[tuple[int, str]] = []
    edits = _chain_edits(tree, table, off, emg, findings, notes)
    edits = _queue_threads.edits(tree, table, off, emg, findings, notes, edits)
    edits += _rename_edits(tree, table, off, emg, findings, edits)
    edits = _contrib_calls.edits(tree, table, off, findings, edits, emg)
    edits = _tutorial_imports.edits(tree, table, off, findings, edits, emg, notes)
    edits = _tower_rewrite.edits(tree, table, off, findings, edits, emg)
    edits = _clone_rewrite.edits(tree, table, off, findings, edits, emg)
    edits = _session_config.edits(tree, table, off, findings, edits, emg)
    layers = {} if keep_input_shape else _keras_input_shape.droppable(tree)
    if keep_input_shape:
        _keras_input_shape_fix.keep(findings, keep_input_shape)
    edits = _keras_input_shape_fix.edits(tree, off, findings, edits, layers)
    edits = _queue_loops.edits(tree, off, findings, edits, notes, keep_runners)
    if not edits:
        return FixResult(source, notes)
    placed = EditSet(edits)
    dead = _imports.dead_imports(tree, table, off, findings)
    edits += [e for e in dead if not placed.overlaps(e)]  # not a rewritten import
    if add_import and any(f"{emg}." in e.text for e in edits):
        # First: a line inserted at the same place (after the imports) uses it.
        edits.insert(0, _imports.import_edit(tree, off, emg, PACKAGE))
    return FixResult(apply(source, edits), notes)
