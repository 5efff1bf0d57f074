"""Formats scan results as human-readable text or as JSON for tools."""

from __future__ import annotations

import json

from estimator_multigpu.migrate.runner import FileResult


def summary(results: list[FileResult]) -> dict:
    findings = [f for r in results for f in r.findings]
    return {
        "files": len(results),
        "findings": len(findings),
        "fixed": sum(f.fixed for f in findings),
        "remaining": sum(not f.fixed for f in findings),
        "errors": sum(r.error is not None for r in results),
    }


def _line(f) -> str:
    status = "fixed" if f.fixed else "manual"
    return (
        f"{f.path}:{f.line}:{f.col}: {f.rule.rule_id} [{status}] `{f.text}` - "
        f"{f.rule.summary}. Use: {f.rule.replacement}. See {f.rule.guide}"
    )


def as_text(results: list[FileResult]) -> str:
    """One line per finding, note and error, then a summary line."""
    out = []
    for r in results:
        if r.error:
            out.append(f"{r.path}: error: {r.error}")
        out.extend(_line(f) for f in r.findings)
        out.extend(
            f"{r.path}:{line}: note: queue chain not rewritten: {reason}"
            for line, reason in r.notes
        )
    s = summary(results)
    out.append(
        f"{s['findings']} finding(s) in {s['files']} file(s): {s['fixed']} fixed, "
        f"{s['remaining']} left to do by hand; {s['errors']} file(s) not parsed."
    )
    return "\n".join(out) + "\n"


def as_json(results: list[FileResult]) -> str:
    """A JSON document: {"files": [...], "summary": {...}}."""
    files = [
        {
            "path": r.path,
            "error": r.error,
            "findings": [f.to_dict() for f in r.findings],
            "notes": [{"line": line, "reason": reason} for line, reason in r.notes],
            "rewritten": r.rewritten is not None and r.rewritten != r.original,
        }
        for r in results
    ]
    return json.dumps({"files": files, "summary": summary(results)}, indent=2) + "\n"
