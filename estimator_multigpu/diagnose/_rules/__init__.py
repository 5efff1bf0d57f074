"""The doctor's rules: each reads a `Pipeline` and yields `Finding`s."""

from __future__ import annotations

from estimator_multigpu.diagnose._findings import Finding
from estimator_multigpu.diagnose._pipeline import Pipeline
from estimator_multigpu.diagnose._rules import (
    cache,
    content,
    distribution,
    order,
    parallelism,
)
from estimator_multigpu.diagnose._rules._common import Context

RULES = order.RULES + cache.RULES + parallelism.RULES + content.RULES
RULES += distribution.RULES

# Every rule id a finding can carry: stable, for CI filters and suppressions.
RULE_IDS = (
    "no-final-prefetch",
    "prefetch-to-device-not-last",
    "shuffle-after-batch",
    "shard-after-unseeded-shuffle",
    "shuffle-before-shard",
    "shuffle-buffer-one",
    "shuffle-buffer-exceeds-data",
    "repeat-before-shuffle",
    "shuffle-before-repeat",
    "cache-after-random",
    "cache-before-expensive-map",
    "sequential-map",
    "sequential-interleave",
    "interleave-cycle-length-one",
    "deterministic-order",
    "per-example-parse",
    "per-record-decode-raw",
    "py-function",
    "large-constant",
    "batch-not-divisible",
    "batch-remainder-multi-device",
    "files-not-sharded",
    "records-sharded-not-files",
)

__all__ = ["RULES", "RULE_IDS", "Context", "run_rules"]


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
