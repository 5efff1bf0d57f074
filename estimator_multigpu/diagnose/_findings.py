"""A finding of the pipeline doctor, and its table and JSON forms."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from collections.abc import Sequence

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)


@dataclasses.dataclass(frozen=True)
class Finding:
    """One thing the doctor found in a pipeline.

    Attributes:
      rule: stable id of the rule, e.g. `'no-final-prefetch'`.
      severity: `'error'` (wrong results or a crash), `'warning'` (costs
        speed or memory) or `'info'` (a trade-off worth knowing).
      transformation: the transformation concerned, as written and as the
        op TensorFlow runs, e.g. `'map (ParallelMapDatasetV2)'`.
      message: what is wrong and why it costs.
      fix: the change, as code.
      stage: position of the transformation, counted from the source (1).
      node: the node's name in the dataset graph.
    """

    rule: str
    severity: str
    transformation: str
    message: str
    fix: str
    stage: int = 0
    node: str = ""

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; by stage within a severity."""
    return sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), f.stage))


def count_findings(findings: Sequence[Finding]) -> dict[str, int]:
    return {s: sum(f.severity == s for f in findings) for s in SEVERITIES}


def _summary(findings: Sequence[Finding]) -> str:
    counts = count_findings(findings)
    return ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())


def _block(finding: Finding, width: int) -> list[str]:
    where = f"{finding.transformation}, stage {finding.stage}"
    lines = [f"{finding.severity.upper():<8} {finding.rule:<32} {where}"]
    wrap = textwrap.TextWrapper(
        width, initial_indent=" " * 9, subsequent_indent=" " * 9
    )
    lines.extend(wrap.wrap(finding.message))
    fix = finding.fix.splitlines() or [""]
    lines.append(" " * 9 + "fix: " + fix[0])
    lines.extend(" " * 14 + line for line in fix[1:])
    return lines


def format_findings(findings: Sequence[Finding], width: int = 100) -> str:
    """The findings as a table: severity, rule and stage, then why and the fix.

    Args:
      findings: from `check` or `check_input_fn`.
      width: wrap the messages at this many characters.

    Returns:
      Text ending in a newline, with a summary line; a single line saying
      the pipeline looks fine when there are no findings.
    """
    if not findings:
        return "No findings: the input pipeline follows every rule checked.\n"
    lines = [f"{'SEVERITY':<8} {'RULE':<32} TRANSFORMATION"]
    for finding in sort_findings(findings):
        lines.extend(_block(finding, width))
    lines.append(f"{len(findings)} finding(s): {_summary(findings)}.")
    return "\n".join(lines) + "\n"


def findings_as_json(findings: Sequence[Finding]) -> str:
    """The findings as a JSON document: `{"findings": [...], "summary": {...}}`."""
    document = {
        "findings": [f.to_dict() for f in sort_findings(findings)],
        "summary": count_findings(findings),
    }
    return json.dumps(document, indent=2) + "\n"
