"""`--upgrade-v2`: TensorFlow's own `tf_upgrade_v2` renamer, run in subprocesses.

The scanner never imports TensorFlow; only the child processes started here
do (one per batch of files). Each file is read and decoded here (PEP 263
coding line or BOM), its text goes to the child through a file (never the
command line), and the child's text comes back with the file's own line
endings, line by line (a mixed CRLF/LF file stays mixed); the caller encodes it as the file was encoded. An empty or failed
output is never taken: the file gets the reason instead.
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import json
import os
import subprocess
import sys
import tempfile
import tokenize

from estimator_multigpu.migrate import _files, _notebooks
from estimator_multigpu.migrate._edits import split_lines

# Files per child process (each child imports TensorFlow once).
BATCH = 500
_DRIVER = """
import json, sys
from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2
upgrader = ast_edits.ASTCodeUpgrader(tf_upgrade_v2.TFAPIChangeSpec())
with open(sys.argv[1], encoding="utf-8") as f:
    todo = json.load(f)
out = {}
for key, text in todo.items():
    try:
        done, new, log, errors = upgrader.update_string_pasta(text, key)
        errors = [str(e) for e in errors] + ([] if done else [str(e) for e in log])
        out[key] = {"text": new if done else None, "errors": errors}
    except Exception as e:
        out[key] = {"text": None, "errors": [f"{type(e).__name__}: {e}"]}
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(out, f)
"""


class UpgradeError(RuntimeError):
    """tf_upgrade_v2 could not run at all (e.g. TensorFlow is not installed)."""


@dataclasses.dataclass
class Upgraded:
    """tf_upgrade_v2's result for one file.

    Attributes:
      text: the new text (line endings as in the file), or None if failed.
      errors: the upgrader's warnings and errors.
      failure: why `text` is not usable, else None.
    """

    text: str | None
    errors: list[str]
    failure: str | None = None


def _newline(text: str) -> str:
    """The line ending `text` uses most (`\\n` when it has none)."""
    counts = {"\r\n": text.count("\r\n")}
    counts["\r"] = text.count("\r") - counts["\r\n"]
    counts["\n"] = text.count("\n") - counts["\r\n"]
    best = max(counts, key=counts.get)
    return best if counts[best] else "\n"


def _ending(line: str) -> str:
    """`line`'s own line ending ("" for a last line without one)."""
    return line[len(line.rstrip("\r\n")) :]


def _endings(source: str, new: str) -> str:
    """`new` (`\\n` line ends, the upgrader's output for `source`) with each
    line ending as in `source`: a line the upgrader kept or rewrote keeps the
    ending of the line it came from; a line it added takes the ending of the
    line before it (or the file's most used one)."""
    old = split_lines(source)
    lines = new.splitlines(True)
    ends = [_ending(line) for line in old]
    if len(lines) != len(old):
        ends = _aligned(old, lines, ends, _newline(source))
    out = []
    for line, end in zip(lines, ends):
        body = line[:-1] if line.endswith("\n") else line
        out.append(body + (end if line.endswith("\n") else ""))
    return "".join(out)


def _aligned(old: list[str], lines: list[str], ends: list[str], default: str):
    """One ending per line of `lines`, taken from the `old` line it matches."""
    plain = [line.rstrip("\r\n") for line in old]
    matcher = difflib.SequenceMatcher(None, plain, [x.rstrip("\n") for x in lines])
    out: list[str] = []
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(j2 - j1):
            if i1 + k < i2:
                out.append(ends[i1 + k] or default)
            else:
                out.append(out[-1] if out else default)
    return out


def _read(path: str) -> str | None:
    """The decoded text of `path` (BOM dropped), or None if it cannot be read.

    A file that cannot be read or decoded is reported by the scan itself.
    """
    try:
        raw = _files.read_source(path)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding)
    except (_files.Skipped, OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return None


def _run(todo: dict[str, str], work: str, timeout: float) -> dict:
    """Runs one child on `todo` (key -> text); returns key -> its result."""
    src, dst = os.path.join(work, "in.json"), os.path.join(work, "out.json")
    with open(src, "w", encoding="utf-8") as f:
        json.dump(todo, f)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, src, dst],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if proc.returncode == 0 and os.path.exists(dst):
        with open(dst, encoding="utf-8") as f:
            return json.load(f)
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    raise UpgradeError(
        f"--upgrade-v2 runs TensorFlow's tf_upgrade_v2 with {sys.executable}, "
        f"which failed ({tail[0]}); install TensorFlow there or drop --upgrade-v2"
    )


def _failure(source: str, got: dict | None) -> str | None:
    """Why the child's result for `source` must not be used, or None."""
    if got is None:
        return "tf_upgrade_v2 gave no result for this file"
    if got["text"] is None:
        lines = "\n".join(got["errors"]).strip().splitlines() or ["no reason given"]
        why = lines[0] if len(lines) == 1 else f"{lines[0]} ({lines[-1].strip()})"
        return f"tf_upgrade_v2 failed on this file: {why}"
    if not got["text"].strip() and source.strip():
        return "tf_upgrade_v2 returned an empty text"
    return None


def _outcome(source: str, got: dict | None) -> Upgraded:
    errors = list(got["errors"]) if got else []
    why = _failure(source, got)
    if why:
        return Upgraded(None, errors, why)
    return Upgraded(_endings(source, got["text"]), errors)


def _batches(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def upgrade(
    paths: list[str], timeout: float = 600, batch: int = BATCH
) -> dict[str, Upgraded]:
    """Runs tf_upgrade_v2 on each readable file; returns path -> `Upgraded`.

    The files themselves are only read. Files that cannot be read or decoded
    are left out (the scan reports them).

    Args:
      paths: the files.
      timeout: seconds for each child process.
      batch: files per child process.

    Raises:
      UpgradeError: a child process could not run the upgrader.
    """
    paths = [p for p in paths if not _notebooks.is_notebook(p)]  # never rewritten
    texts = {p: t for p in paths if (t := _read(p)) is not None}
    # tf_upgrade_v2 reads files with universal newlines; it gets the same.
    plain = {p: t.replace("\r\n", "\n").replace("\r", "\n") for p, t in texts.items()}
    out = {}
    with tempfile.TemporaryDirectory(prefix="emg-upgrade-") as work:
        for chunk in _batches(list(plain), batch):
            done = _run({p: plain[p] for p in chunk}, work, timeout)
            for path in chunk:
                out[path] = _outcome(texts[path], done.get(path))
    return out


def texts(done: dict[str, Upgraded]) -> dict[str, str]:
    """path -> the usable tf_upgrade_v2 text (failed files left out)."""
    return {path: u.text for path, u in done.items() if u.text is not None}


def keep_failed(results: list, done: dict[str, Upgraded]) -> None:
    """Leaves each file whose upgrade failed unchanged, its `error` saying why.

    Args:
      results: `runner.FileResult`s (their findings count as not fixed).
      done: from `upgrade`.
    """
    for result in results:
        failure = getattr(done.get(result.path), "failure", None)
        if failure and result.error is None:
            for f in result.findings:
                f.fixed = False
            result.rewritten = None
            result.error = (
                f"{failure}; file left unchanged (run without --upgrade-v2 to "
                "switch the import to tensorflow.compat.v1 instead)"
            )
