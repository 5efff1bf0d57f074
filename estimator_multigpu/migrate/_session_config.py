"""Session configs in a file that resolves devices, wrapped in `emg.devices.session_config`.

`emg.devices.resolve(num_gpus=n)` (which `--fix` writes for tower loops, slim
clones, model_fn towers and device counts) simulates n logical devices on a
machine with fewer, but a session built from its own `ConfigProto` sees only
one CPU: tower 1 is soft-placed on `/cpu:0`, or fails to place without
`allow_soft_placement`. So in such a file each explicit session config
becomes `emg.devices.session_config(config)`, which keeps the logical devices.
A `tf.estimator.RunConfig` that the rewrite turns into `emg.estimator.RunConfig`
needs nothing: that one applies it itself.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil, _guide_rules
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets

RULE_ID = "session-config"
ANCHOR = "session-configs"
_PACKAGE = "estimator_multigpu"
_WRAPPER = f"{_PACKAGE}.devices.session_config"
_RESOLVERS = (f"{_PACKAGE}.devices.resolve", f"{_PACKAGE}.devices.simulate")
# The rules whose rewrite writes `emg.devices.resolve(...)`.
_RESOLVING_RULES = ("tower-loop", "slim-clones", "device-lib")
_RUN_CONFIG = "tf.estimator.RunConfig"

# API -> (keyword, index of the argument when passed by position).
_CALLS = {
    "tf.Session": ("config", 2),
    "tf.InteractiveSession": ("config", 2),
    "tf.train.MonitoredTrainingSession": ("config", 9),
    "tf.train.SingularMonitoredSession": ("config", 3),
    "tf.train.ChiefSessionCreator": ("config", 2),
    "tf.train.WorkerSessionCreator": ("config", 2),
    "tf.train.Server": ("config", 4),
    _RUN_CONFIG: ("session_config", 5),
    # slim's training loop builds its Supervisor's session from this config.
    "tf.contrib.slim.learning.train": ("session_config", 22),
}
# Methods of a tf.train.Supervisor: (keyword, index).
_SUPERVISOR = "tf.train.Supervisor"
_METHODS = {
    "managed_session": ("config", 1),
    "prepare_or_wait_for_session": ("config", 1),
}

SUMMARY = (
    "a session with its own ConfigProto sees one CPU; emg.devices.session_config "
    "keeps the N logical devices emg.devices.resolve simulates (else tower 1 "
    "runs on /cpu:0, or fails to place without allow_soft_placement)"
)
RULE = _guide_rules.rule(
    RULE_ID, SUMMARY, "config=emg.devices.session_config(config)", ANCHOR
)


@dataclasses.dataclass
class Use:
    """One explicit session config: the call, its API and the argument."""

    call: ast.Call
    api: str
    arg: ast.expr


def _supervisors(tree: ast.AST, table: _aliases.AliasTable) -> set[str]:
    """The texts of the targets assigned a `tf.train.Supervisor(...)`."""
    out = set()
    for node in _astutil.walk(tree):
        if isinstance(node, ast.Assign) and _is_supervisor(node.value, table, set()):
            out |= {ast.unparse(t) for t in node.targets}
    return out


def _is_supervisor(node: ast.AST, table, names: set[str]) -> bool:
    if isinstance(node, ast.Call) and table.resolve_tf(node.func) == _SUPERVISOR:
        return True
    return not isinstance(node, ast.Call) and ast.unparse(node) in names


def _api(call: ast.Call, table, supervisors: set[str]) -> str | None:
    """The API `call` is (a key of `_CALLS`, or `Supervisor.<method>`), else None."""
    path = table.resolve_tf(call.func)
    if path in _CALLS:
        return path
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _METHODS
        and _is_supervisor(func.value, table, supervisors)
    ):
        return f"{_SUPERVISOR}.{func.attr}"
    return None


def _argument(call: ast.Call, api: str) -> ast.expr | None:
    keyword, index = _CALLS.get(api) or _METHODS[api.rsplit(".", 1)[1]]
    for k in call.keywords:
        if k.arg == keyword:
            return k.value
    if len(call.args) > index and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return call.args[index]
    return None


def _needs_wrap(arg: ast.expr, table: _aliases.AliasTable) -> bool:
    """False for `None` (a session without a config keeps the devices) and for
    a config already wrapped."""
    if isinstance(arg, ast.Constant) and arg.value is None:
        return False
    return not (isinstance(arg, ast.Call) and table.resolve(arg.func) == _WRAPPER)


def uses(tree: ast.AST, table: _aliases.AliasTable) -> list[Use]:
    """The explicit session configs not yet wrapped, in source order."""
    supervisors = _supervisors(tree, table)
    out = []
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        api = _api(node, table, supervisors)
        arg = _argument(node, api) if api else None
        if arg is not None and _needs_wrap(arg, table):
            out.append(Use(node, api, arg))
    return sorted(out, key=lambda u: (u.arg.lineno, u.arg.col_offset))


def resolves(tree: ast.AST, table: _aliases.AliasTable) -> bool:
    """True if the module calls `emg.devices.resolve` or `emg.devices.simulate`."""
    return any(
        isinstance(n, ast.Call) and table.resolve(n.func) in _RESOLVERS
        for n in _astutil.walk(tree)
    )


def _rule(off: Offsets, use: Use) -> _guide_rules.GuideRule:
    keyword = (_CALLS.get(use.api) or ("config",))[0]
    text = off.segment(use.arg)
    new = f"{keyword}=emg.devices.session_config({text})"
    return dataclasses.replace(RULE, replacement=new)


def find(tree: ast.Module, table: _aliases.AliasTable, off: Offsets, findings: list):
    """Yields (node, api, text, rule) for each explicit session config in a
    module that resolves devices, or will after `--fix` (`findings` has a
    tower loop, slim clones or a device count)."""
    if not (
        resolves(tree, table)
        or any(f.rule.rule_id in _RESOLVING_RULES for f in findings)
    ):
        return
    for use in uses(tree, table):
        yield use.arg, f"{use.api} config", off.segment(use.arg), _rule(off, use)


def _assigned(tree: ast.Module, name: str) -> ast.expr | None:
    """The value of the last module-level `name = ...`, else None."""
    values = [
        s.value
        for s in tree.body
        if isinstance(s, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
    ]
    return values[-1] if values else None


def _renamed(tree, table, use: Use, off: Offsets, prior: list[Edit], emg: str) -> bool:
    """True for a tf.estimator.RunConfig the rewrite renames to emg's (where
    it is called, or where the name it is called by is assigned)."""
    if use.api != _RUN_CONFIG:
        return False
    func = use.call.func
    if isinstance(func, ast.Name) and func.id in table.assigned:
        func = _assigned(tree, func.id) or func
    return off.text(func, prior).startswith(f"{emg}.")


def edits(tree, table, off: Offsets, findings, prior: list[Edit], emg: str):
    """Wraps the session configs when the rewritten module resolves devices.

    Args:
      tree: the module.
      table: its aliases.
      off: positions in its source.
      findings: the module's findings; the session-config ones this resolves
        are marked fixed.
      prior: the edits already made.
      emg: how the module spells `estimator_multigpu`.

    Returns:
      `prior` plus the new edits.
    """
    if not resolves(tree, table) and not any(
        f"{emg}.devices.resolve(" in e.text for e in prior
    ):
        return prior
    by_node = {id(f.node): f for f in findings if f.rule.rule_id == RULE_ID}
    out, placed = list(prior), EditSet(prior)
    for use in uses(tree, table):
        finding = by_node.get(id(use.arg))
        if finding is None:  # ignored (or not reported): left as it is
            continue
        if not _renamed(tree, table, use, off, prior, emg):  # else emg's applies it
            text = f"{emg}.devices.session_config({off.text(use.arg)})"
            new = off.replace(use.arg, text)
            if placed.overlaps(new):
                continue
            placed.add(new)
            out.append(new)
        finding.fixed = True
    return out
