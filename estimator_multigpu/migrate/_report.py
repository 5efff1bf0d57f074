"""Formats scan results as human-readable text or as JSON for tools."""

from __future__ import annotations

import json

from estimator_multigpu.migrate._runner import FileResult


def summary(results: list[FileResult], applied: bool = True) -> dict:
    """Counts; with `applied=False` (a dry run) nothing counts as fixed."""
    findings = [f for r in results for f in r.findings]
    fixed = sum(f.fixed for f in findings) if applied else 0
    return {
        "files": len(results),
        "findings": len(findings),
        "fixed": fixed,
        "fixable": sum(f.fixed for f in findings) - fixed,
        "remaining": len(findings) - fixed,
        "errors": sum(r.error is not None for r in results),
        "skipped": sum(r.skipped is not None for r in results),
    }


def _line(f, applied: bool) -> str:
    status = ("fixed" if applied else "fixable") if f.fixed else "manual"
    return (
        f"{f.path}:{f.line}:{f.col}: {f.rule.rule_id} [{status}] `{f.text}` - "
        f"{f.rule.summary}. Use: {f.rule.replacement}. See {f.rule.guide}"
    )


def _note(path: str, line: int, text: str) -> str:
    """`path:line: note: text` (no line for line 0, the whole file)."""
    return f"{path}:{line}: note: {text}" if line else f"{path}: note: {text}"


def _file_lines(r: FileResult, applied: bool) -> list[str]:
    out = [f"{r.path}: error: {r.error}"] if r.error else []
    if r.skipped:
        out.append(f"{r.path}: note: skipped: {r.skipped}")
    out.extend(_line(f, applied) for f in r.findings)
    out.extend(_note(r.path, line, text) for line, text in r.info)
    out.extend(_note(r.path, line, f"not rewritten: {why}") for line, why in r.notes)
    if r.backup:
        out.append(f"{r.path}: note: original saved as {r.backup}")
    return out


def as_text(results: list[FileResult], applied: bool = True) -> str:
    """One line per finding, note and error, then a summary line."""
    out = [line for r in results for line in _file_lines(r, applied)]
    s = summary(results, applied)
    out.append(
        f"{s['findings']} finding(s) in {s['files']} file(s): {s['fixed']} fixed, "
        f"{s['remaining']} remaining ({s['fixable']} fixable with --fix); "
        f"{s['errors']} file(s) with errors, {s['skipped']} skipped."
    )
    return "\n".join(out) + "\n"


def as_json(results: list[FileResult], applied: bool = True) -> str:
    """A JSON document: {"files": [...], "summary": {...}}."""
    files = [
        {
            "path": r.path,
            "error": r.error,
            "skipped": r.skipped,
            "backup": r.backup,
            "findings": [f.to_dict(applied) for f in r.findings],
            "notes": [{"line": line, "reason": reason} for line, reason in r.notes],
            "info": [{"line": line, "text": text} for line, text in r.info],
            "rewritten": applied and r.rewritten not in (None, r.original),
        }
        for r in results
    ]
    doc = {"files": files, "summary": summary(results, applied)}
    return json.dumps(doc, indent=2) + "\n"
