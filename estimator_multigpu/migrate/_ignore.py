"""Inline `# emg-migrate: ignore[rule]` comments and `--ignore RULE`: findings a user accepted."""

from __future__ import annotations

import io
import re
import tokenize

_COMMENT = re.compile(r"#\s*emg-migrate:\s*ignore(?:\[(?P<rules>[^\]]*)\])?", re.I)
ALL = "*"


def comments(source: str) -> dict[int, set[str]]:
    """Maps each line that carries an ignore comment to the rule ids it names.

    `# emg-migrate: ignore` names every rule (`{'*'}`);
    `# emg-migrate: ignore[queue-runner, layers]` names those two. Only real
    comments count: the same text inside a string does not.

    Args:
      source: the module text.

    Returns:
      e.g. `{12: {'queue-runner'}, 30: {'*'}}`.
    """
    found: dict[int, set[str]] = {}
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    try:
        for tok in tokens:
            if tok.type != tokenize.COMMENT:
                continue
            for match in _COMMENT.finditer(tok.string):
                rules = match["rules"]
                names = {r.strip() for r in rules.split(",")} if rules else {ALL}
                found.setdefault(tok.start[0], set()).update(names - {""})
    except (tokenize.TokenError, SyntaxError):
        pass  # the parser already accepted the file; keep what was read
    return found


def is_ignored(finding, marks: dict[int, set[str]], rules: frozenset) -> bool:
    """True if `--ignore` or a comment on the finding's line names its rule."""
    rule = finding.rule.rule_id
    names = marks.get(finding.line, ())
    return rule in rules or ALL in names or rule in names


def drop(findings: list, source: str, rules=frozenset()) -> list:
    """Returns the `findings` that neither `rules` nor a comment in `source` ignores."""
    marks = comments(source) if _COMMENT.search(source) else {}
    if not marks and not rules:
        return findings
    return [f for f in findings if not is_ignored(f, marks, frozenset(rules))]


def known_rules() -> set[str]:
    """Every rule id the tool reports (what `--ignore` accepts)."""
    from estimator_multigpu.migrate import (
        _compat_v1,
        _era,
        _rules,
        _slim,
    )

    found = {r.rule_id for r in _rules.TABLE.values()}
    for module in (_rules, _era, _slim):
        found |= {
            v.rule_id for v in vars(module).values() if isinstance(v, _rules.Rule)
        }
    found |= {_compat_v1.RULE_ID, "summary-v1", "name-scope-v1", "contrib-slim"}
    return found
