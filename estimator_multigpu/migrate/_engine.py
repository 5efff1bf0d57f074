"""The rule engine: one protocol for every rewrite, run in the registry's declared order.

A rule finds legacy shapes in a module (`find`), rewrites what it found as
edits of the module's text (`edits`), or ports the whole rewritten text
(`port`). Each rule names the rules that must run before it (`after`); the
registry checks at import that its declared order keeps every such
dependency, so `scan` and `fix` only iterate it.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from typing import Any

from estimator_multigpu.migrate import _aliases, _api_uses, _star_roots
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

# The phases, in the order a run goes through them: the rule table's scan,
# the passes that refine and add to it; then `--fix`: the stages (a whole
# rewritten source to fix instead, when that fixes more), the edits, the
# edits that finish them (imports; only when an edit was made), the rules
# that settle the findings from what was fixed; and the ports of the
# rewritten text.
PHASES = ("table", "passes", "stages", "edits", "finish", "settle", "ports", "program")


@dataclasses.dataclass(frozen=True)
class ProgramContext:
    """The facts about the whole program (every file of one run) a rule reads.

    Attributes:
      keep_runners: why queue-runner starters stay although this file's
        queues are all rewritten (a queue is left in another file), else None.
      keep_input_shape: why a Keras first layer keeps its declared shape
        although this file reads nothing that needs it (another file of the
        program reads the built model), else None.
      device_flags: the attribute names another file of the program passes
        to `emg.devices.resolve(num_gpus=...)` after `--fix`: a flag of this
        file so named resolves its devices where the flags are parsed
        (`_flag_devices`).
    """

    keep_runners: str | None = None
    keep_input_shape: str | None = None
    device_flags: tuple[str, ...] = ()


@dataclasses.dataclass
class Module:
    """One module under scan or rewrite: its text, its tree and what rules found.

    Attributes:
      source: the module text.
      tree: `ast.parse(source)`.
      path: the file name to put in findings.
      findings: the findings so far (each `find` returns the new list).
      edits: the edits so far (each `edits` returns the new list).
      notes: (line, reason) for what `--fix` leaves for a manual rewrite.
      emg: how the rewritten module spells `estimator_multigpu`.
      upgraded: whether `source` is tf_upgrade_v2's output (its TF 1.x
        names are then ported one by one, not by the import switch).
      facts: what a rule leaves for the rules after it, by the rule's name.
    """

    source: str
    tree: ast.Module | None
    path: str = ""
    findings: list = dataclasses.field(default_factory=list)
    edits: list[Edit] = dataclasses.field(default_factory=list)
    notes: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    emg: str = "emg"
    upgraded: bool = False
    facts: dict[str, Any] = dataclasses.field(default_factory=dict)
    _table: _aliases.AliasTable | None = dataclasses.field(default=None, repr=False)
    _off: Offsets | None = dataclasses.field(default=None, repr=False)

    @property
    def table(self) -> _aliases.AliasTable:
        """The module's import aliases (built once), with the free names that
        are TensorFlow through a star import (`_star_roots`) as compat.v1."""
        if self._table is None:
            # One per tree (kept on it): a scan and its rewrite make several
            # Modules of the same tree. Rules read the table, never change it.
            table = self.tree.__dict__.get(_TABLE)
            if table is None:
                table = _aliases.AliasTable(self.tree)
                for name in _star_roots.uses(self.tree):
                    table.bindings.setdefault(name, _star_roots.COMPAT)
                setattr(self.tree, _TABLE, table)
            self._table = table
        return self._table

    @property
    def uses(self) -> _api_uses.Uses:
        """What the module uses of each table of the API spec, matched by the
        one visitor (once per tree, kept on it like `table`)."""
        return _api_uses.uses(self.tree, self.table)

    @property
    def off(self) -> Offsets:
        """Positions in the module's source (built once)."""
        if self._off is None:
            self._off = Offsets(self.source)
        return self._off


_TABLE = "_emg_alias_table"

Find = Callable[[Module, ProgramContext], list]
Stage = Callable[[Module, ProgramContext], str | None]
Edits = Callable[[Module, ProgramContext], list[Edit]]
Port = Callable[[str, Module, ProgramContext], str]


@dataclasses.dataclass(frozen=True)
class Rule:
    """One rewrite rule: a shape it finds, the edits it makes, or a port.

    Attributes:
      name: the rule's name, unique in its registry (a shape, e.g.
        `'queue-chains'`).
      phase: one of `PHASES`: `'table'`, `'passes'` and `'settle'` rules
        have `find`, `'stages'` rules `stage`, `'edits'` and `'finish'` rules
        `edits`, `'ports'` rules `port`.
      run: `find(module, ctx) -> findings` (the module's findings after the
        rule: those before, refined, plus its own), `stage(module, ctx) ->
        source or None` (the module rewritten whole, adding or removing no
        legacy API use, for the rewrite to fix instead), `edits(module, ctx)
        -> edits` (the module's edits after the rule), `port(source,
        module, ctx) -> source`, or, for a `'program'` rule, `facts(results)
        -> {index: {ProgramContext field: value}}` (the files of one run to
        process again with those facts set; it may reword findings too).
      after: the names of the rules that must run before this one.
    """

    name: str
    phase: str
    run: Callable
    after: tuple[str, ...] = ()


class Registry:
    """Rules in their declared order, checked when the registry is made.

    Args:
      rules: every rule, in the order they run.

    Raises:
      ValueError: a phase that is not one of `PHASES`, a name used twice, a
        rule declared before a rule of an earlier phase, or one that runs
        before a rule its `after` names (or names a rule not registered).
    """

    def __init__(self, rules: tuple[Rule, ...]):
        _check(rules)
        self.rules = tuple(rules)

    def phase(self, phase: str) -> tuple[Rule, ...]:
        """The rules of `phase`, in their declared order."""
        return tuple(r for r in self.rules if r.phase == phase)

    def names(self) -> list[str]:
        """Every rule's name, in the declared order."""
        return [r.name for r in self.rules]


def _check(rules: tuple[Rule, ...]) -> None:
    seen: dict[str, int] = {}
    for i, rule in enumerate(rules):
        if rule.phase not in PHASES:
            raise ValueError(
                f"rule {rule.name!r}: phase {rule.phase!r} is not one of {PHASES}"
            )
        if rule.name in seen:
            raise ValueError(f"rule name {rule.name!r} is registered twice")
        if i and PHASES.index(rule.phase) < PHASES.index(rules[i - 1].phase):
            raise ValueError(
                f"rule {rule.name!r} (phase {rule.phase!r}) is declared after "
                f"{rules[i - 1].name!r} (phase {rules[i - 1].phase!r}); declare "
                f"the rules phase by phase, in the order of {PHASES}"
            )
        _check_after(rule, seen, {r.name for r in rules})
        seen[rule.name] = i


def _check_after(rule: Rule, seen: dict[str, int], names: set[str]) -> None:
    for name in rule.after:
        if name not in names:
            raise ValueError(
                f"rule {rule.name!r}: after={rule.after!r} names {name!r}, which "
                "is not registered; register it or drop it from `after`"
            )
        if name not in seen:
            raise ValueError(
                f"rule {rule.name!r} runs after {name!r} (after={rule.after!r}) "
                f"but is declared before it; move {rule.name!r} below {name!r}"
            )


def find(registry: Registry, phase: str, module: Module, ctx: ProgramContext):
    """Runs the `find` of each rule of `phase`; returns the module's findings."""
    for rule in registry.phase(phase):
        module.findings = rule.run(module, ctx)
    return module.findings


def edits(registry: Registry, module: Module, ctx: ProgramContext) -> list[Edit]:
    """Runs the `edits` of each `'edits'` rule, then, when they made any, of
    each `'finish'` rule; returns the module's edits."""
    for rule in registry.phase("edits"):
        module.edits = rule.run(module, ctx)
    if module.edits:
        for rule in registry.phase("finish"):
            module.edits = rule.run(module, ctx)
    return module.edits


def finding_edits(
    module: Module, rule_id: str, make: Callable[[Any], list[Edit] | None]
) -> list[Edit]:
    """The module's edits so far plus `make(finding)`'s for each finding of
    `rule_id` not fixed yet, which then counts as fixed. A finding is left
    when `make` returns None (it cannot be written here) or its edits overlap
    one placed before (an earlier rule rewrote the text around it)."""
    out, placed = list(module.edits), EditSet(module.edits)
    for f in module.findings:
        if f.rule.rule_id != rule_id or f.fixed:
            continue
        new = make(f)
        if new is None or any(placed.overlaps(e) for e in new):
            continue
        for e in new:
            placed.add(e)
        out.extend(new)
        f.fixed = True
    return out


def carry(findings: list, staged: list) -> bool:
    """Marks each of `findings` fixed whose twin among `staged` (the findings
    of a stage's source, after its rewrite) was fixed; False, marking
    nothing, when none was.

    A stage adds or removes no legacy API use, so the n-th finding of an API
    in `findings` is the n-th finding of that API in `staged`.
    """
    by_api: dict[str, list] = {}
    for f in staged:
        by_api.setdefault(f.api, []).append(f)
    twins = [by_api[f.api].pop(0) if by_api.get(f.api) else None for f in findings]
    if not any(t is not None and t.fixed for t in twins):
        return False
    for f, twin in zip(findings, twins):
        f.fixed = f.fixed or bool(twin is not None and twin.fixed)
    return True


def program(registry: Registry, results: list, again: Callable) -> None:
    """Runs each `'program'` rule over the results of one run, in order.

    Each file a rule names is processed again (`again(index, ctx)` returns
    its new result) with the facts it gives set on the ones earlier rules
    gave it.
    """
    ctxs: dict[int, ProgramContext] = {}
    for rule in registry.phase("program"):
        for i, facts in rule.run(results).items():
            ctxs[i] = dataclasses.replace(ctxs.get(i, ProgramContext()), **facts)
            results[i] = again(i, ctxs[i])


def port(registry: Registry, source: str, module: Module, ctx: ProgramContext):
    """Runs each `port` on the rewritten `source`; returns the ported text."""
    for rule in registry.phase("ports"):
        source = rule.run(source, module, ctx)
    return source
