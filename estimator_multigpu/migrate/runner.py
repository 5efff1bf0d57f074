"""Scans (and optionally rewrites) files: reading, parsing, diffing, writing."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import io
import os
import tokenize

from estimator_multigpu.migrate import fixer, scanner

_SKIP_DIRS = {"__pycache__", "build", "dist", "node_modules", "site-packages"}


@dataclasses.dataclass
class FileResult:
    """What happened to one file.

    Attributes:
      path: the file.
      findings: legacy API uses (positions refer to the original text).
      error: why the file could not be scanned (unreadable, unparsable), else None.
      notes: (line, reason) for queue chains `--fix` left for a manual rewrite.
      original: the text read.
      encoding: its encoding (from the coding line; UTF-8 by default).
      rewritten: the text after the safe rewrites (None if there were none).
    """

    path: str
    findings: list[scanner.Finding] = dataclasses.field(default_factory=list)
    error: str | None = None
    notes: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    original: str | None = None
    encoding: str = "utf-8"
    rewritten: str | None = None

    @property
    def remaining(self) -> list[scanner.Finding]:
        return [f for f in self.findings if not f.fixed]


def collect(paths: list[str]) -> list[str]:
    """Expands directories into their `.py` files (sorted); keeps files as given."""
    out = []
    for path in paths:
        if not os.path.isdir(path):
            out.append(path)
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")
            )
            out.extend(
                os.path.join(root, f) for f in sorted(files) if f.endswith(".py")
            )
    return out


def _read(path: str) -> tuple[str, str]:
    """Returns (text, encoding), honouring a PEP 263 coding line or BOM."""
    with open(path, "rb") as f:
        raw = f.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding), encoding


def process(path: str) -> FileResult:
    """Scans `path` and computes the safe rewrite (`write` puts it on disk)."""
    result = FileResult(path)
    try:
        result.original, result.encoding = _read(path)
    except (OSError, UnicodeDecodeError, SyntaxError) as e:
        result.error = f"cannot read: {e}"
        return result
    try:
        tree = ast.parse(result.original, filename=path)
    except (SyntaxError, ValueError, RecursionError) as e:  # ValueError: null bytes
        line = getattr(e, "lineno", None)
        where = f" (line {line})" if line else ""
        message = e.msg if isinstance(e, SyntaxError) else str(e)
        result.error = f"cannot parse{where}: {message}; file left unchanged"
        return result
    result.findings = scanner.scan_tree(tree, result.original, path)
    if result.findings:
        _fix(result, tree)
    return result


def _fix(result: FileResult, tree: ast.Module) -> None:
    """Computes the rewrite; any failure leaves the file as it is, with a note."""
    try:
        fixed = fixer.fix(result.original, tree, result.findings)
        ast.parse(fixed.source)
    except Exception as e:  # one odd file must not stop a whole scan
        for f in result.findings:
            f.fixed = False
        line = getattr(e, "lineno", None) or 0
        reason = f"no rewrite ({type(e).__name__}: {e}); file left unchanged"
        result.notes.append((line, reason))
        return
    result.notes = fixed.notes
    result.rewritten = fixed.source


def diff(result: FileResult) -> str:
    """Returns a unified diff from the original to the rewritten text."""
    if result.rewritten is None or result.rewritten == result.original:
        return ""
    return "".join(
        difflib.unified_diff(
            result.original.splitlines(True),
            result.rewritten.splitlines(True),
            fromfile=result.path,
            tofile=result.path,
        )
    )


def write(result: FileResult, backup: bool = True) -> bool:
    """Writes the rewritten text in place (after `<path>.bak`); True if written."""
    if result.rewritten is None or result.rewritten == result.original:
        return False
    if backup:
        with open(result.path + ".bak", "wb") as f:
            f.write(result.original.encode(result.encoding))
    with open(result.path, "wb") as f:
        f.write(result.rewritten.encode(result.encoding))
    return True
