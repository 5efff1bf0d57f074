"""Text edits addressed by AST node, applied without touching other text."""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
from collections.abc import Iterable

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(source: str) -> list[str]:
    """Splits like the Python tokenizer (only \\n, \\r\\n, \\r end lines), keeping ends."""
    return _LINE.findall(source)


class Unsafe(Exception):
    """A use `--fix` has no exact edit for: it stays reported as it is.

    The message says why, and what to write by hand.
    """


@dataclasses.dataclass(frozen=True)
class Edit:
    """Replace `source[start:end]` (character offsets) with `text`."""

    start: int
    end: int
    text: str


def _newline(line: str) -> str:
    """The line ending `line` uses (`'\\n'` when it has none)."""
    for end in ("\r\n", "\n", "\r"):
        if line.endswith(end):
            return end
    return "\n"


class Offsets:
    """Converts AST positions (line, UTF-8 byte column) to character offsets.

    Built once per source (one pass over its lines); every lookup after that
    costs the length of one line, so taking the text of each of n nodes is
    linear in the file, where `ast.get_source_segment` re-splits the whole
    source for every node.
    """

    def __init__(self, source: str):
        self.source = source
        self.lines = split_lines(source)
        self.newline = _newline(self.lines[0] if self.lines else "")
        self._starts = [0]
        for line in self.lines:
            self._starts.append(self._starts[-1] + len(line))

    def at(self, lineno: int, byte_col: int) -> int:
        line = self.lines[lineno - 1] if lineno <= len(self.lines) else ""
        chars = line.encode("utf-8")[:byte_col].decode("utf-8", "replace")
        return self._starts[lineno - 1] + len(chars)

    def span(self, node: ast.AST) -> tuple[int, int]:
        """Returns (start, end) character offsets of `node`."""
        start = self.at(node.lineno, node.col_offset)
        return start, self.at(node.end_lineno, node.end_col_offset)

    def column(self, node: ast.AST) -> int:
        """Returns the 0-based character column of `node` (ast counts bytes)."""
        return self.at(node.lineno, node.col_offset) - self._starts[node.lineno - 1]

    def segment(self, node: ast.AST) -> str | None:
        """The source text of `node` (`ast.get_source_segment` without the cost)."""
        if getattr(node, "end_lineno", None) is None:
            return None
        start, end = self.span(node)
        return self.source[start:end]

    def line_start(self, lineno: int) -> int:
        return self._starts[lineno - 1]

    def line_of(self, offset: int) -> int:
        """The 1-based line character `offset` is on (the last line at most)."""
        return min(bisect.bisect_right(self._starts, offset), max(len(self.lines), 1))

    def line_end(self, lineno: int) -> int:
        """Offset just past the newline that ends line `lineno`."""
        return self._starts[lineno]

    def replace(self, node: ast.AST, text: str) -> Edit:
        return Edit(*self.span(node), text)

    def text(self, node: ast.AST, edits: list[Edit] = ()) -> str:
        """Returns the source of `node` with those `edits` inside it applied."""
        start, end = self.span(node)
        inner = [e for e in edits if start <= e.start and e.end <= end]
        return apply(self.source[start:end], inner, offset=start)


class EditSet:
    """Non-overlapping edits, kept sorted, with a logarithmic overlap test.

    Two edits overlap when each starts before the other ends. Sorted by start,
    non-overlapping edits also have sorted ends, so the only candidate for an
    overlap with `[start, end)` is the first edit that ends after `start`.
    """

    def __init__(self, edits: list[Edit] = ()):
        self._keys: list[tuple[int, int]] = []
        self._ends: list[int] = []
        for edit in edits:
            self.add(edit)

    def overlaps(self, edit: Edit) -> bool:
        """True if `edit` overlaps an edit in the set."""
        k = bisect.bisect_right(self._ends, edit.start)
        return k < len(self._keys) and self._keys[k][0] < edit.end

    def add(self, edit: Edit) -> None:
        """Adds `edit`.

        Raises:
          ValueError: if it overlaps an edit in the set.
        """
        if self.overlaps(edit):
            raise ValueError(f"edits overlap at offset {edit.start}: {edit!r}")
        k = bisect.bisect_right(self._keys, (edit.start, edit.end))
        self._keys.insert(k, (edit.start, edit.end))
        self._ends.insert(k, edit.end)


def place(prior: list[Edit], plans: Iterable[tuple[Edit, list]]) -> list[Edit]:
    """`prior` plus each planned edit that overlaps none placed before it.

    Args:
      prior: the edits already made.
      plans: (edit, findings) pairs, tried in order; the findings of each
        edit placed are marked fixed, those of an edit left stay as they are.

    Returns:
      `prior`'s edits, then the placed ones (a new list).
    """
    out, placed = list(prior), EditSet(prior)
    for edit, findings in plans:
        if placed.overlaps(edit):
            continue
        placed.add(edit)
        out.append(edit)
        for f in findings:
            f.fixed = True
    return out


def apply(source: str, edits: list[Edit], offset: int = 0) -> str:
    """Returns `source` with non-overlapping `edits` applied.

    Args:
      source: the text.
      edits: edits whose offsets are relative to `offset` in a larger text.
      offset: where `source` starts in that larger text.

    Raises:
      ValueError: if two edits overlap.
    """
    out, pos = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        start, end = edit.start - offset, edit.end - offset
        if start < pos:
            raise ValueError(f"edits overlap at offset {edit.start}: {edit!r}")
        out.append(source[pos:start])
        out.append(edit.text)
        pos = end
    out.append(source[pos:])
    return "".join(out)
