"""The doctor's rules: each reads a `Pipeline` and yields `Finding`s."""

from __future__ import annotations

from estimator_multigpu.diagnose.findings import Finding
from estimator_multigpu.diagnose.pipeline import Pipeline
from estimator_multigpu.diagnose.rules import (
    cache,
    content,
    distribution,
    order,
    parallelism,
)
from estimator_multigpu.diagnose.rules._common import Context

RULES = order.RULES + cache.RULES + parallelism.RULES + content.RULES
RULES += distribution.RULES

__all__ = ["RULES", "Context", "run_rules"]


def run_rules(pipeline: Pipeline, ctx: Context) -> list[Finding]:
    """Every rule's findings; identical ones (per-device copies) once."""
    found, seen = [], set()
    for rule in RULES:
        for item in rule(pipeline, ctx):
            key = (item.rule, item.transformation, item.message, item.stage)
            if key not in seen:
                seen.add(key)
                found.append(item)
    return found
