"""Comments inside text `--fix` replaces: carried into the output, never lost.

Some rewrites replace a whole structure (a tower loop, a queue chain, a
deleted import) with text written from the tree, which has no comments.
When the edits are applied, each comment token inside a replaced span whose
text the replacement does not contain is carried: written as a whole-line
comment `# (before --fix) <the comment as it was>` just before the line where
the replaced text started, at that line's indentation, in the original order.

A line can take a comment line before it when its start lies between two
tokens and no backslash joins it to the line above (the line before ends in
a NEWLINE or NL token); else the comment goes up to the nearest such line,
and out of any other edit that covers that line's start. The result must
parse: if it does not, the comments go to the nearest statement boundary
above; should that fail too while the plain edits parse, the rewrite is
refused (the runner then leaves the file as it is) rather than drop them.

The prefix says the comment stood on code `--fix` rewrote (it may no longer
describe the line below it); and markers read from a comment's start (a
`# noqa`, `# type:`, `# expect:` or `# emg-migrate: ignore` that named the
old line) no longer start the comment, so they attach to nothing.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import re
import tokenize
from collections.abc import Callable

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit, Offsets, apply

PREFIX = "# (before --fix) "
_INDENT = re.compile(r"[ \t]*")


def original(comment: str) -> str:
    """The comment as the user wrote it (`comment` without `PREFIX`)."""
    return comment[len(PREFIX) :] if comment.startswith(PREFIX) else comment


@dataclasses.dataclass(frozen=True)
class _Tokens:
    """The comments of a source, (offset, text) in order, and the lines a
    whole-line comment may be put before (1-based)."""

    comments: list[tuple[int, str]]
    safe: frozenset[int]


def _tokens(off: Offsets) -> _Tokens | None:
    """The source's comments and safe lines; None if it does not tokenize."""
    comments, safe = [], {1}
    readline = functools.partial(next, iter(off.lines), "")  # its line ends
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type == tokenize.COMMENT:
                line, col = tok.start
                comments.append((off.line_start(line) + col, tok.string))
            elif tok.type in (tokenize.NEWLINE, tokenize.NL):
                safe.add(tok.start[0] + 1)
    except (tokenize.TokenError, SyntaxError):
        return None
    return _Tokens(comments, frozenset(safe))


def _dropped(comments: list[tuple[int, str]], edit: Edit) -> list[str]:
    """The texts of the `comments` inside `edit`'s span that its replacement
    lacks: of n equal comments there, the replacement's k copies keep the
    first k."""
    lo = bisect.bisect_left(comments, (edit.start, ""))
    kept: dict[str, int] = {}
    out = []
    for offset, text in comments[lo:]:
        if offset >= edit.end:
            break
        seen = kept.get(text, 0)
        kept[text] = seen + 1
        if seen >= edit.text.count(text):
            out.append(text if text.startswith(PREFIX) else PREFIX + text)
    return out


def _covering(spans: list[Edit], starts: list[int], offset: int) -> Edit | None:
    """The edit of `spans` (sorted, non-overlapping) whose span has `offset`
    strictly inside, if any."""
    k = bisect.bisect_left(starts, offset) - 1
    if k >= 0 and spans[k].start < offset < spans[k].end:
        return spans[k]
    return None


def _indent(off: Offsets, line: int) -> str | None:
    """The indentation of `line`; None when it is blank."""
    text = off.lines[line - 1] if line <= len(off.lines) else ""
    return _INDENT.match(text).group() if text.strip() else None


class _Placer:
    """Where the comments an edit drops go: the start of a line that takes a
    comment line (`up` gives the nearest one at or above a line), outside
    every other edit."""

    def __init__(self, off: Offsets, edits: list[Edit], up: Callable[[int], int]):
        self.off, self.up = off, up
        self.spans = sorted((e for e in edits if e.end > e.start), key=_key)
        self.starts = [e.start for e in self.spans]

    def line(self, edit: Edit) -> int:
        line = self.up(self.off.line_of(edit.start))
        while True:
            cover = _covering(self.spans, self.starts, self.off.line_start(line))
            if cover is None:
                return line
            line = self.up(self.off.line_of(cover.start))

    def insert(self, edit: Edit, texts: list[str]) -> Edit:
        line = self.line(edit)
        indent = _indent(self.off, line)
        if indent is None:
            indent = _indent(self.off, self.off.line_of(edit.start)) or ""
        nl = self.off.newline
        at = self.off.line_start(line)
        return Edit(at, at, "".join(f"{indent}{t}{nl}" for t in texts))


def _key(edit: Edit) -> tuple[int, int]:
    return edit.start, edit.end


def _nearest(lines: frozenset[int] | set[int]) -> Callable[[int], int]:
    """`up(line)`: the greatest of `lines` at or above `line` (line 1 at least)."""
    ordered = sorted(lines | {1})
    return lambda line: ordered[bisect.bisect_right(ordered, line) - 1]


def statement_lines(source: str) -> set[int]:
    """The lines a statement starts, nothing but indentation before it."""
    off = Offsets(source)
    out = set()
    for stmt in _astutil.nodes(_astutil.parse(source), ast.stmt):
        if not off.lines[stmt.lineno - 1][: off.column(stmt)].strip():
            out.add(stmt.lineno)
    return out


def _parses(source: str) -> bool:
    try:
        _astutil.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def apply_keeping_comments(source: str, edits: list[Edit]) -> str:
    """`apply(source, edits)`, with the comments the edits drop carried.

    Args:
      source: the module text (it parses).
      edits: non-overlapping edits of it.

    Raises:
      ValueError: two edits overlap; or no place for the carried comments
        gives text that parses, while the edits alone do.
    """
    if not any("#" in source[e.start : e.end] for e in edits):
        return apply(source, edits)
    off = Offsets(source)
    tokens = _tokens(off)
    ordered = sorted(edits, key=_key)  # carried in the order of the source
    lost = [(e, _dropped(tokens.comments, e)) for e in ordered] if tokens else []
    lost = [(e, texts) for e, texts in lost if texts]
    if not lost:
        return apply(source, edits)
    tries = []
    for lines in (lambda: tokens.safe, lambda: statement_lines(source)):
        placer = _Placer(off, edits, _nearest(lines()))
        out = apply(source, list(edits) + [placer.insert(e, t) for e, t in lost])
        if _parses(out):
            return out
        tries.append(out)
    if _parses(apply(source, edits)):
        lines = sorted(off.line_of(e.start) for e, _ in lost)
        raise ValueError(
            f"the comments in the code rewritten at lines {lines} found no "
            "place that keeps the file valid Python; rewrite it by hand"
        )
    return tries[0]  # the edits alone do not parse: not the comments' doing
