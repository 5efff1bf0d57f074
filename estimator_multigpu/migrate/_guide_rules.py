"""Rules whose guide section is named directly (the compat.v1 port and era shapes)."""

from __future__ import annotations

import dataclasses

from estimator_multigpu.migrate import _rules


@dataclasses.dataclass(frozen=True)
class GuideRule(_rules.Rule):
    """A `rules.Rule` that links straight to `anchor` in the migration guide."""

    anchor: str = ""

    @property
    def guide(self) -> str:
        return f"{_rules.GUIDE}#{self.anchor}"


def rule(
    rule_id: str, summary: str, replacement: str, anchor: str, **fields
) -> GuideRule:
    """A rule with no automatic rename, linked to `migration_guide.md#<anchor>`.

    `fields` are the other `rules.Rule` attributes (`fixable`, `kind`).
    """
    return GuideRule(rule_id, summary, replacement, "contrib", anchor=anchor, **fields)


COMPAT_ANCHOR = "step-0-the-compatv1-port"


@dataclasses.dataclass(frozen=True)
class PortedRule(GuideRule):
    """A rule on a bare TF1 name that the compat.v1 import switch resolves."""


def ported(base: _rules.Rule, note: str = "") -> PortedRule:
    """`base`, marked as resolved by the compat.v1 port, with `note` added."""
    return PortedRule(
        base.rule_id,
        base.summary,
        f"{base.replacement}; {note}" if note else base.replacement,
        base.topic,
        anchor=base.guide.split("#", 1)[1],
    )
