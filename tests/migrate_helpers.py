"""Shared helpers for the migrate tests: the corpus and its `# expect:` markers."""

import ast
import pathlib
import re

CORPUS = pathlib.Path(__file__).parent / "legacy_corpus"
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*([\w\-, ]+)")


def expected_findings(path: pathlib.Path) -> list[tuple[int, str]]:
    """Returns the sorted (line, rule_id) pairs that `# expect:` comments name."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            out.extend((number, rule.strip()) for rule in match.group(1).split(","))
    return sorted(out)


def parse_ok(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True
