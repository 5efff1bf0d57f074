"""The whole scan (rules, then the compat.v1, era and slim passes) and the port's rewrite."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import (
    _aliases,
    _compat_v1,
    _contrib_names,
    _era,
    _keras_input_shape,
    _model_fn_towers,
    _scanner,
    _session_config,
    _slim,
    _star_imports,
    _tf_examples,
)
from estimator_multigpu.migrate._edits import Offsets, apply
from estimator_multigpu.migrate._guide_rules import PortedRule


def _finding(path, off, node, api, text, rule) -> _scanner.Finding:
    col = off.column(node) + 1
    return _scanner.Finding(path, node.lineno, col, api, text, rule, node)


def _compat_findings(tree, table, off, path, taken) -> list[_scanner.Finding]:
    def skip(api, node):
        return _era.covers(api) or id(node) in taken

    uses, v2_uses = _compat_v1.find(tree, table, skip)
    stmt = _compat_v1.tf_import(tree)
    name = stmt.names[0].asname if stmt else None
    grouped = [u for u in uses if u.root == name]
    out = [
        _finding(
            path, off, u.node, u.api, off.segment(u.node), _compat_v1.per_use_rule(u)
        )
        for u in uses
        if u.root != name
    ]
    if grouped:
        why = _compat_v1.blocker(tree, table, grouped, v2_uses)
        rule = _compat_v1.group_rule(name, why)
        text = _compat_v1.text(grouped)
        out.append(_finding(path, off, stmt, "tf (TF 1.x names)", text, rule))
    return out


def scan_tree(tree: ast.Module, source: str, path: str) -> list[_scanner.Finding]:
    """Returns every finding in a parsed module, sorted by position.

    The one scan behind `emg-migrate`, `runner.process` and the public
    `emg.migrate.scan_tree`: the rule table's findings refined by the passes
    (era shapes, slim grouping), plus the passes' own (compat.v1 port, era
    shapes, slim clones). Inline `# emg-migrate: ignore` comments are not
    applied here (`runner.process` applies them).

    Args:
      tree: the module, from `ast.parse(source)`.
      source: its text (for columns and spellings).
      path: the file name to put in findings.
    """
    return scan(tree, source, path, _scanner.scan_rules(tree, source, path))


def scan(tree: ast.Module, source: str, path: str, findings: list) -> list:
    """Returns `findings` refined (era shapes) plus the compat.v1 port findings.

    Args:
      tree: the module.
      source: its text.
      path: the file name for new findings.
      findings: from `scanner.scan_rules`.
    """
    table = _aliases.AliasTable(tree)
    off = Offsets(source)
    findings = findings + [
        _finding(path, off, *hit) for hit in _slim.tf_slim_uses(tree, table)
    ]
    out = _slim.group(_contrib_names.refine(_era.refine(tree, table, findings)))
    out = _model_fn_towers.refine(tree, out, table, off)
    era_hits = list(_era.find(tree, table))
    out += [_finding(path, off, *hit) for hit in era_hits]
    out += [_finding(path, off, *hit) for hit in _slim.clone_calls(tree, table)]
    out += [_finding(path, off, *hit) for hit in _tf_examples.find(tree)]
    out += [_finding(path, off, *hit) for hit in _keras_input_shape.find(tree)]
    out += [_finding(path, off, *hit) for hit in _star_imports.find(tree)]
    configs = _session_config.find(tree, table, off, out)
    out += [_finding(path, off, *hit) for hit in configs]
    out += _compat_findings(tree, table, off, path, {id(h[0]) for h in era_hits})
    out.sort(key=lambda f: (f.line, f.col))
    return out


def _portable(findings: list) -> list:
    """The findings the compat.v1 import switch resolves."""
    out = []
    for f in findings:
        if (
            f.rule.rule_id == _compat_v1.RULE_ID
            and "--fix cannot" in f.rule.replacement
        ):
            continue
        if f.rule.rule_id == _compat_v1.RULE_ID and f.api == "tf (TF 1.x names)":
            out.append(f)
        elif isinstance(f.rule, PortedRule):
            out.append(f)
    return out


def _rename_summaries(source: str, findings: list) -> str:
    """Without the import switch, renames bare summaries one by one."""
    edits = _era.summary_edits(source)
    if not edits:
        return source
    for f in findings:
        if f.rule.rule_id == "summary-v1":
            f.fixed = True
    return apply(source, edits)


def fix(source: str, findings: list, notes: list, per_use: bool = False) -> str:
    """Applies the compat.v1 and tf_slim ports to `source` (already rewritten
    by the fixer).

    Marks the findings they resolve as fixed; a port that is not safe adds
    its reason to `notes` and leaves its part of `source` unchanged. With
    `per_use` (after tf_upgrade_v2) each TF1 name is renamed to
    `tf.compat.v1.<name>` instead of switching the import.
    """
    port = _rename_compat if per_use else _port_compat
    return _port_slim(port(source, findings, notes), findings, notes)


def _rename_compat(source: str, findings: list, notes: list) -> str:
    todo = _portable(findings)
    if not todo:
        return source
    new = _compat_v1.rename(_rename_summaries(source, findings))
    for f in todo:
        f.fixed = True
    return new


def _port_slim(source: str, findings: list, notes: list) -> str:
    uses = [f for f in findings if f.rule.rule_id == _slim.RULE_ID]
    core = [f for f in uses if f.rule.summary == _slim.group_rule(_slim.CORE).summary]
    if not uses:
        return source
    new, why = _slim.port(source)
    if why:
        notes.append((uses[0].line, f"slim import not replaced by tf_slim: {why}"))
        return source
    for f in core[:1] + [f for f in uses if _slim.fixed_by_port(f, new)]:
        f.fixed = True
    return new


def _port_compat(source: str, findings: list, notes: list) -> str:
    todo = _portable(findings)
    if not todo:
        return source
    new, why = _compat_v1.port(source)
    if why:
        lines = [f.line for f in findings if f.rule.rule_id == _compat_v1.RULE_ID]
        line = min(lines, default=todo[0].line)
        notes.append((line, f"compat.v1 import not switched: {why}"))
        return _rename_summaries(source, findings)
    for f in todo:
        f.fixed = True
    return new
