"""Scans (and optionally rewrites) files: reading, parsing, diffing, writing."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import gc
import io
import os
import sys
import tokenize

from estimator_multigpu.migrate import (
    _astutil,
    _compat_v1,
    _engine,
    _files,
    _fixer,
    _ignore,
    _notebooks,
    _passes,
    _queue_loops,
    _scanner,
)

_SUFFIXES = (".py", ".ipynb")  # notebooks: code cells scanned, never rewritten
_SKIP_DIRS = {"__pycache__", "build", "dist", "node_modules", "site-packages"}
_TOO_DEEP = "the code nests too deeply for Python's parser"


@dataclasses.dataclass
class FileResult:
    """What happened to one file.

    Attributes:
      path: the file.
      findings: legacy API uses (positions refer to the original text).
      error: why the file could not be scanned (unreadable, unparsable) or
        written, else None.
      notes: (line, reason) for what `--fix` left for a manual rewrite (line
        0: the whole file).
      info: (line, text) for notes that leave nothing to do (how the file was
        read, e.g. that tf_upgrade_v2 ran first).
      original: the text read.
      encoding: its encoding (from the coding line; UTF-8 by default).
      rewritten: the text after the safe rewrites (None if there were none).
      raw: the bytes read.
      skipped: why the path was not read (not a regular file), else None.
      backup: where `write` kept the original, else None.
      base: with `--upgrade-v2`, tf_upgrade_v2's output, which was scanned
        and rewritten instead of `original`; else None.
      queues: the findings (ignored ones included) that still make a queue
        after the rewrite; queue-runner starters stay while any is left.
    """

    path: str
    findings: list[_scanner.Finding] = dataclasses.field(default_factory=list)
    error: str | None = None
    notes: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    info: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    original: str | None = None
    encoding: str = "utf-8"
    rewritten: str | None = None
    raw: bytes | None = dataclasses.field(default=None, repr=False)
    skipped: str | None = None
    backup: str | None = None
    base: str | None = None
    queues: list[_scanner.Finding] = dataclasses.field(default_factory=list)

    @property
    def remaining(self) -> list[_scanner.Finding]:
        return [f for f in self.findings if not f.fixed]


def _walk(path: str) -> list[str]:
    out = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(
            d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")
        )
        out.extend(
            os.path.join(root, f) for f in sorted(names) if f.endswith(_SUFFIXES)
        )
    return out


def collect(paths: list[str]) -> list[str]:
    """Expands directories into their `.py` files (sorted); keeps files as given.

    A file named twice (`src src/a.py`) is listed once, where it came first.
    """
    out, seen = [], set()
    for path in paths:
        for found in _walk(path) if os.path.isdir(path) else [path]:
            key = os.path.abspath(found)
            if key not in seen:
                seen.add(key)
                out.append(found)
    return out


def _decode(raw: bytes) -> tuple[str, str]:
    """Returns (text, encoding), honouring a PEP 263 coding line or BOM."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding), encoding


def process(
    path: str, ignored: frozenset = frozenset(), upgraded: str | None = None
) -> FileResult:
    """Scans `path` and computes the safe rewrite (`write` puts it on disk).

    Only regular files (or links to them) are read; anything else is skipped
    with the reason in `skipped`. A file that cannot be read, parsed or
    scanned gets the reason in `error`; it never stops a whole run.

    Args:
      path: the file.
      ignored: rule ids not to report (`--ignore`); lines marked
        `# emg-migrate: ignore` or `# emg-migrate: ignore[rule]` are not
        reported either.
      upgraded: the file's text after tf_upgrade_v2 (`--upgrade-v2`); it is
        scanned and rewritten in place of the text read (finding lines then
        refer to it).

    The file is taken as a whole program; `emg-migrate` runs its files as
    one (`queue_program.process_all`), so that what one file needs of
    another (a queue it starts, a model it reads) is kept.
    """
    return process_in(path, ignored, upgraded, _engine.ProgramContext())


def process_in(
    path: str, ignored: frozenset, upgraded: str | None, ctx: _engine.ProgramContext
) -> FileResult:
    """`process` of one file of a program whose other files `ctx` describes.

    The cycle collector is paused while the file is read: a scan makes few
    reference cycles (collected once it is back on), while a large module's
    trees (and the node lists the rules keep on them) made each of the
    collector's passes longer, a quarter of the time at 10k lines. Its
    previous state is restored.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _process_in(path, ignored, upgraded, ctx)
    finally:
        if paused:
            gc.enable()


def _process_in(
    path: str, ignored: frozenset, upgraded: str | None, ctx: _engine.ProgramContext
) -> FileResult:
    result = FileResult(path)
    tree = _load(result)
    if tree is None:
        return result
    if upgraded is not None and upgraded != result.original:
        tree = _upgraded(result, upgraded)
        if tree is None:
            return result
    try:
        text = result.base or result.original
        found = _passes.scan_tree(tree, text, path)
        result.findings = _ignore.drop(found, text, ignored)
        kept = {id(f) for f in result.findings}
        dropped = [f for f in found if id(f) not in kept]
    except RecursionError:
        result.error = (
            "cannot scan: the code nests deeper than the scanner can follow "
            f"(Python's recursion limit, {sys.getrecursionlimit()}); "
            "file left unchanged"
        )
        return result
    if result.findings and not _notebooks.is_notebook(path):
        why = ctx.keep_runners or _queue_loops.reason(_queue_loops.queues_left(dropped))
        _fix(result, tree, dataclasses.replace(ctx, keep_runners=why))
        _keep_ignored(result, dropped)
    result.queues = _queue_loops.queues_left(result.findings + dropped)
    if result.rewritten not in (None, result.original) and os.path.islink(path):
        _keep(result, None)
        target = os.path.realpath(path)
        result.notes.append(
            (0, f"a symbolic link to `{target}`; run --fix on that file itself")
        )
    return result


def _keep_ignored(result: FileResult, dropped: list) -> None:
    """Leaves the file unchanged if the rewrite would touch an ignored line."""
    if result.rewritten in (None, result.original) or not dropped:
        return
    base = (result.base or result.original).splitlines()
    kept = set(result.rewritten.splitlines())
    for f in dropped:
        if base[f.line - 1] not in kept:
            _keep(result, None)
            why = (
                f"the rewrite would change line {f.line}, whose {f.rule.rule_id} "
                "finding is ignored; file left unchanged (rewrite the rest by hand, "
                "or stop ignoring it)"
            )
            result.notes.append((f.line, why))
            return


def _upgraded(result: FileResult, text: str) -> ast.Module | None:
    """Takes tf_upgrade_v2's `text` (in graph mode) as the base of the rewrite."""
    try:
        text = _compat_v1.graph_mode(text)
        tree = ast.parse(text)
    except SyntaxError as e:
        why = f"tf_upgrade_v2 output does not parse ({e}); not used"
        result.info.append((0, why))
        return ast.parse(result.original)
    why = "tf_upgrade_v2 renamed TF 1.x names first; lines refer to its output"
    result.info.append((0, why))
    result.rewritten = text
    result.base = text
    return tree


def _load(result: FileResult) -> ast.Module | None:
    """Reads and parses `result.path`; None (with `skipped` or `error`) if not."""
    try:
        result.raw = _files.read_source(result.path)
        result.original, result.encoding = _decode(result.raw)
        if _notebooks.is_notebook(result.path):
            result.original = _notebooks.script(result.original)
            result.info.append((0, _notebooks.NOTE))
    except _files.Skipped as e:
        result.skipped = str(e)
        return None
    except (OSError, ValueError, SyntaxError) as e:  # ValueError: bad notebook too
        result.error = f"cannot read: {e}"
        return None
    try:
        return ast.parse(result.original, filename=result.path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        # ValueError: null bytes; MemoryError: nesting the parser's stack refuses
        line = getattr(e, "lineno", None)
        where = f" (line {line})" if line else ""
        message = e.msg if isinstance(e, SyntaxError) else str(e) or _TOO_DEEP
        result.error = f"cannot parse{where}: {message}; file left unchanged"
        return None


def _keep(result: FileResult, error: str | None) -> None:
    """Records that the file keeps its text: no finding counts as fixed."""
    for f in result.findings:
        f.fixed = False
    result.rewritten = None
    result.error = error


def _fix(result: FileResult, tree: ast.Module, ctx: _engine.ProgramContext):
    """Computes the rewrite; any failure leaves the file as it is, with a note."""
    try:
        text = result.base or result.original
        fixed = _fixer.fix(text, tree, result.findings, ctx)
        per_use = result.base is not None
        fixed.source = _passes.fix(fixed.source, result.findings, fixed.notes, per_use)
        _astutil.parse(fixed.source)
    except Exception as e:  # one odd file must not stop a whole scan
        for f in result.findings:
            f.fixed = False
        line = getattr(e, "lineno", None) or 0
        reason = f"no rewrite ({type(e).__name__}: {e}); file left unchanged"
        result.notes.append((line, reason))
        return
    result.notes.extend(fixed.notes)
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
    """Replaces the file by the rewritten text; True if written.

    The file is replaced atomically (see `files.replace`), keeping its mode;
    with `backup`, the original bytes go to `<path>.bak` or, if that name is
    taken, the first free `<path>.bak.N` (in `result.backup`). A file that
    cannot be written keeps its bytes: `result.error` says why, and no
    finding counts as fixed.
    """
    if result.rewritten is None or result.rewritten == result.original:
        return False
    data = result.rewritten.encode(result.encoding)
    try:
        result.backup = _files.replace(result.path, data, result.raw, backup)
    except _files.Refused as e:
        _keep(result, f"not rewritten: {e}; file left unchanged")
        return False
    except OSError as e:
        _keep(result, f"cannot write: {e}; file left unchanged")
        return False
    return True
