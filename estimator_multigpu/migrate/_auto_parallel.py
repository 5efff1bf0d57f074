"""Grappler's AutoParallel (`RewriterConfig.auto_parallel`): towers are its successor."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "auto-parallel"
_FIELD = "auto_parallel"
_OPTIONS = "AutoParallelOptions"
RULE = rule(
    RULE_ID,
    "Grappler's AutoParallel (RewriterConfig.auto_parallel, AutoParallelOptions"
    "(enable=True, num_replicas=n)) is an experimental graph rewrite, off by "
    "default, that replicates a Session's graph n times and averages the "
    "gradients itself; emg's towers do the same explicitly (the step equal to "
    "one device's, checkpoints that move between device counts)",
    "drop the auto_parallel setting and build towers: emg.replicate_model_fn("
    "model_fn, devices=emg.devices.resolve(num_gpus=n)) for an Estimator "
    "model_fn, emg.towers.minimize(loss_fn, optimizer, batch, devices="
    "emg.devices.resolve(num_gpus=n)) for a Session loop (emg-migrate --fix "
    "rewrites hand-written tower loops); n is num_replicas",
    "tower-loops",
    fixable=False,
)


def _names_options(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == _OPTIONS
    return isinstance(node, ast.Name) and node.id == _OPTIONS


def _uses(node: ast.AST) -> bool:
    """Whether `node` sets or builds AutoParallel options."""
    if isinstance(node, ast.Attribute) and node.attr == _FIELD:
        return True  # config.auto_parallel.enable = True, ...
    if isinstance(node, ast.keyword) and node.arg == _FIELD:
        return True  # RewriterConfig(auto_parallel=...)
    return isinstance(node, ast.Call) and _names_options(node.func)


def _outermost(tree: ast.Module) -> list[ast.AST]:
    """The uses, without those inside another (one finding per expression)."""
    found, inside = [], set()
    for node in _astutil.nodes(tree, ast.Attribute, ast.keyword, ast.Call):
        if id(node) in inside or not _uses(node):
            continue
        found.append(node)
        inside.update(id(n) for n in _astutil.walk(node))
    return found


def find(tree: ast.Module):
    """Yields (node, api, text, rule) for each AutoParallel setting.

    The line the finding points at is the setting's: `auto_parallel=` in a
    `RewriterConfig(...)` call, an `AutoParallelOptions(...)` call, or an
    `x.auto_parallel` attribute (`rewrite_options.auto_parallel.enable = True`).
    """
    for node in _outermost(tree):
        anchor = node.value if isinstance(node, ast.keyword) else node
        text = ast.unparse(node)
        yield anchor, "RewriterConfig.auto_parallel", text, RULE
