"""The rewrite's rules: each turns the findings of one shape into edits, or ports the text."""

from __future__ import annotations

from estimator_multigpu.migrate import (
    _astutil,
    _clone_rewrite,
    _compat_v1,
    _contrib_calls,
    _era,
    _hand_tower_devices,
    _imports,
    _keras_input_shape,
    _keras_input_shape_fix,
    _queue_loops,
    _queue_threads,
    _reader_helpers,
    _records,
    _replicate_args,
    _session_config,
    _slim,
    _tower_rewrite,
    _tutorial_imports,
)
from estimator_multigpu.migrate._edits import Edit, EditSet, apply
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._guide_rules import PortedRule
from estimator_multigpu.migrate._queue_chains import (
    batch_helpers,
    batch_text,
    chain_text,
    chains,
)


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


def _found_chains(m: Module):
    readers, failed = _reader_helpers.find(m.tree, m.table)
    helpers = chains.Helpers(readers, batch_helpers.find(m.tree, m.table), failed)
    return chains.find(m.tree, m.table, helpers)


def queue_chains(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Queue chains (producer, reader, batcher) onto the drop-ins, group by group."""
    found, refused = _found_chains(m)
    taken = _astutil.writes(m.tree) | set(_astutil.reads(m.tree))
    out, placed, done = list(m.edits), EditSet(m.edits), set()
    for group in _groups(found):
        try:
            new = _group_edits(group, m.off, f"{m.emg}.inputs.queues", taken)
            if any(placed.overlaps(e) for e in new):
                raise chains.NotAChain("overlaps another queue chain")
        except chains.NotAChain as reason:
            m.notes.extend((c.batch_call.lineno, str(reason)) for c in group)
            continue
        for e in new:
            placed.add(e)
        out.extend(new)
        done |= _rewritten_names(group)
    for f in m.findings:
        f.fixed = f.fixed or id(f.node) in done
    # Batchers inside a rewritten batch helper were handled with their callers.
    m.notes.extend((c.lineno, why) for c, why in refused if id(c.func) not in done)
    return out


def raw_queues(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Raw queues and their per-thread loops onto the drop-ins."""
    return _queue_threads.edits(
        m.tree, m.table, m.off, m.emg, m.findings, m.notes, m.edits
    )


def _renamed(m: Module, rename: str) -> str | None:
    """`rename` (`emg.x` or `tf.x`) spelled with this module's import of it;
    None for a `tf.` name in a module that does not import TensorFlow."""
    if rename.startswith("emg."):
        return m.emg + rename[len("emg") :]
    roots = ("tensorflow", "tensorflow.compat.v1")
    root = next((n for n, p in m.table.bindings.items() if p in roots), None)
    return None if root is None else root + rename[len("tf") :]


def _rename(m: Module, f) -> list[Edit] | None:
    """The edits that rename `f`'s name (and reorder its arguments), or None."""
    target = _renamed(m, f.rule.rename)
    if target is None:
        return None
    new = [m.off.replace(f.node, target)]
    call = m.uses.call(f.node)
    if f.api == "tf.contrib.estimator.replicate_model_fn" and call is not None:
        args = _replicate_args.edits(call, m.table, m.off)
        if args is None:
            return None
        new += args
    return new


def renames(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The table's one-to-one renames (`Rule.rename`)."""
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if not f.rule.rename or f.fixed:
            continue
        new = _rename(m, f)
        if new is not None and not any(placed.overlaps(e) for e in new):
            for e in new:
                placed.add(e)
            out.extend(new)
            f.fixed = True
    return out


def contrib_calls(m: Module, ctx: ProgramContext) -> list[Edit]:
    """tf.contrib calls with a known successor call."""
    return _contrib_calls.edits(m.tree, m.table, m.off, m.findings, m.edits, m.emg)


def tutorial_imports(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The tutorials' modules onto their drop-ins."""
    return _tutorial_imports.edits(
        m.tree, m.table, m.off, m.findings, m.edits, m.emg, m.notes
    )


def tower_loops(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Hand-written tower loops (and model_fn towers) onto replicate_model_fn."""
    return _tower_rewrite.edits(m.tree, m.table, m.off, m.findings, m.edits, m.emg)


def hand_tower_devices(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The GPU names of the tower loops left for a hand rewrite, by resolve."""
    return _hand_tower_devices.edits(m.tree, m.off, m.findings, m.edits, m.emg, m.notes)


def clones(m: Module, ctx: ProgramContext) -> list[Edit]:
    """slim's model_deploy clones onto create_clones."""
    return _clone_rewrite.edits(m.tree, m.table, m.off, m.findings, m.edits, m.emg)


def session_configs(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Session configs wrapped to see the devices the rewrite resolves."""
    return _session_config.edits(m.tree, m.table, m.off, m.findings, m.edits, m.emg)


def keras_input_shape(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Drops a Keras first layer's declared shape, unless the program reads it."""
    if ctx.keep_input_shape:
        _keras_input_shape_fix.keep(m.findings, ctx.keep_input_shape)
        layers = {}
    else:
        layers = _keras_input_shape.droppable(m.tree)
    return _keras_input_shape_fix.edits(m.tree, m.off, m.findings, m.edits, layers)


def queue_runner_loops(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Drops the queue-runner loops once no queue of the program is left."""
    return _queue_loops.edits(
        m.tree, m.off, m.findings, m.edits, m.notes, ctx.keep_runners
    )


def records(m: Module, ctx: ProgramContext) -> str | None:
    """The module with its record objects flattened to names (a stage)."""
    return _records.flatten(m.source, m.tree)


def dead_imports(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Drops the legacy imports whose every use the edits rewrote."""
    placed = EditSet(m.edits)
    dead = _imports.dead_imports(m.tree, m.table, m.off, m.findings)
    return m.edits + [e for e in dead if not placed.overlaps(e)]  # not rewritten


def emg_import(m: Module, ctx: ProgramContext) -> list[Edit]:
    """Imports the package as `m.emg` when an edit uses it and none binds it."""
    used = any(f"{m.emg}." in e.text for e in m.edits)
    if not used or m.table.name_for(_imports.PACKAGE):
        return m.edits
    # First: a line inserted at the same place (after the imports) uses it.
    return [_imports.import_edit(m.tree, m.off, m.emg, _imports.PACKAGE), *m.edits]


def queue_starters(m: Module, ctx: ProgramContext) -> list:
    """Rewords the queue-runner starters that stay while a queue is left."""
    _queue_loops.kept(m.findings, ctx.keep_runners)
    return m.findings


def _portable(findings: list) -> list:
    """The findings the compat.v1 import switch resolves."""
    out = []
    for f in findings:
        if f.rule.rule_id == _compat_v1.RULE_ID and not f.rule.fixable:
            continue
        if f.rule.rule_id == _compat_v1.RULE_ID and f.api == "tf (TF 1.x names)":
            out.append(f)
        elif isinstance(f.rule, PortedRule):
            out.append(f)
    return out


def _rename_summaries(source: str, findings: list) -> str:
    """Without the import switch, renames bare summaries one by one."""
    new = _era.summary_edits(source)
    if not new:
        return source
    for f in findings:
        if f.rule.rule_id in _era.RENAMED_TO_V1:
            f.fixed = True
    return apply(source, new)


def _rename_compat(source: str, findings: list) -> str:
    todo = _portable(findings)
    if not todo:
        return source
    new = _compat_v1.rename(_rename_summaries(source, findings))
    for f in todo:
        f.fixed = True
    return new


def _switch_compat(source: str, findings: list, notes: list) -> str:
    todo = _portable(findings)
    if not todo:
        return source
    new, why = _compat_v1.port(source)
    if why:
        lines = [f.line for f in findings if f.rule.rule_id == _compat_v1.RULE_ID]
        line = min(lines, default=todo[0].line)
        notes.append((line, f"compat.v1 import not switched: {why}"))
        return _rename_summaries(source, findings)
    for f in todo:
        f.fixed = True
    return new


def compat_v1(source: str, m: Module, ctx: ProgramContext) -> str:
    """Switches the TF import to tf.compat.v1 (per name after tf_upgrade_v2)."""
    if m.upgraded:
        return _rename_compat(source, m.findings)
    return _switch_compat(source, m.findings, m.notes)


def slim(source: str, m: Module, ctx: ProgramContext) -> str:
    """Ports tf.contrib.slim onto tf_slim."""
    uses = [f for f in m.findings if f.rule.rule_id == _slim.RULE_ID]
    if not uses:
        return source
    core = [f for f in uses if f.rule.kind == _slim.CORE_KIND]
    new, why = _slim.port(source)
    if why:
        m.notes.append((uses[0].line, f"slim import not replaced by tf_slim: {why}"))
        return source
    for f in core[:1] + [f for f in uses if _slim.fixed_by_port(f, new)]:
        f.fixed = True
    return new
