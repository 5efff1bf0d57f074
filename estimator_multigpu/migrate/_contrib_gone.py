"""Uses of tf.contrib names with no TF 2 successor: they fail where reached, not on import.

A module that keeps `from tensorflow.contrib import rnn` for one `rnn.NASCell`
behind a flag fails on import on TF 2.x for every code path. Once the edits
before this rule rewrote every other use of the import, each use left of a
name with no successor (`rnn.NASCell`, `nccl.all_sum`, `tf.contrib.x.y`, a
name imported from a contrib module) becomes
`emg.migrate_gone("tf.contrib.rnn.NASCell", "<the finding's advice>")`, which
raises `emg.gone.GoneError` with that advice when the program calls it, reads
an attribute of it or subclasses it, and the import goes. The finding stays
left (not fixed), its advice saying the use now fails only when reached.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from collections import Counter

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _contrib_names,
    _contrib_surface,
    _contrib_unused_imports,
    _imports,
    _slim,
)
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import GuideRule, rule

_CONTRIB = "tf.contrib."
# The `kind` of the finding on a stand-in a `--fix` before wrote.
KIND = "stand-in"
NOTE = (
    "emg-migrate --fix puts emg.migrate_gone(...) in its place, so that the "
    "module imports and only a code path that reaches this use fails, with "
    "this advice"
)


def no_successor(api: str) -> bool:
    """True when tf.contrib name `api` (by any module path) has no TF 2.x
    successor: its surface row says `'none'`, or no table gives it any
    replacement (a contrib module TF 1.15 no longer had, such as nccl)."""
    if not api.startswith(_CONTRIB):
        return False
    found = _contrib_surface.public(api)
    symbol = found[0] if found is not None else api
    row = _contrib_surface.row(symbol)
    if row is not None:
        return row.outcome == "none"
    return not _contrib_names.replaced(symbol) and not _contrib_names.replaced(api)


def _root(node: ast.AST) -> ast.Name | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _spellings(tree: ast.Module) -> dict[tuple[int, int, str], ast.AST]:
    """(line, column, dotted text) -> the name or attribute chain there."""
    out = {}
    for n in _astutil.walk(tree):
        if isinstance(n, ast.Attribute | ast.Name) and isinstance(n.ctx, ast.Load):
            text = _dotted(n)
            if text is not None:
                out[(n.lineno, n.col_offset, text)] = n
    return out


def _candidates(m: Module) -> list:
    """The findings left on tf.contrib names with no successor, each a use
    rooted in a name (the slim port, after the edits, handles slim's)."""
    return [
        f
        for f in m.findings
        if not f.fixed
        and f.rule.rename is None
        and f.rule.rule_id != _slim.RULE_ID
        and _root(f.node) is not None
        and no_successor(f.api)
    ]


def _contrib_bound(m: Module, name: str) -> bool:
    """True when top-level name `name` is bound to a tf.contrib module or name."""
    api = _aliases.canonical(m.table.bindings.get(name)) or ""
    return api.startswith(_CONTRIB)


def _chosen(m: Module, found: list, fixed: dict[str, int]) -> list:
    """The findings to put a stand-in for: each through `tf.contrib`, and
    those through a name bound to contrib when every read of the name is one
    of them or was rewritten."""
    by_name = Counter(_root(f.node).id for f in found)
    reads = _astutil.module_reads(m.tree)
    return [
        f
        for f in found
        if not _contrib_bound(m, _root(f.node).id)
        or reads[_root(f.node).id]
        == by_name[_root(f.node).id] + fixed.get(_root(f.node).id, 0)
    ]


def _stand_in(m: Module, f, where: dict) -> Edit:
    node = where.get((f.node.lineno, f.node.col_offset, f.text), f.node)
    found = _contrib_surface.public(f.api)  # the public name, by a module path
    api = json.dumps(found[0] if found is not None else f.api)
    advice = json.dumps(f.rule.replacement, ensure_ascii=False)
    return m.off.replace(node, f"{m.emg}.migrate_gone({api}, {advice})")


def _alias_gone(alias: ast.alias, stmt, m: Module, handled) -> bool:
    """True when `alias` imports from tf.contrib and every read of what it
    binds was rewritten or stood in for."""
    if isinstance(stmt, ast.ImportFrom):
        path = f"{stmt.module}.{alias.name}" if stmt.module and not stmt.level else ""
    else:
        path = alias.name
    api = _aliases.canonical(path) or ""
    name = (alias.asname or alias.name).split(".")[0]
    reads = _astutil.module_reads(m.tree)
    return api.startswith(_CONTRIB) and reads[name] == handled.get(name, 0)


def _import_edits(m: Module, handled: dict[str, int]) -> list[Edit]:
    """One edit per top-level import statement that binds a contrib name
    whose reads are all handled: the statement without that name, and
    without the names the import rules before would drop from it."""
    reads, fixed = _astutil.module_reads(m.tree), _imports.fixed_uses(m.findings)
    exported = _contrib_unused_imports.exported(m.tree)
    out = []
    for stmt in m.tree.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        gone = [
            a
            for a in stmt.names
            if _alias_gone(a, stmt, m, handled)
            and (a.asname or a.name).split(".")[0] not in exported  # `__all__`
        ]
        if not gone and not any(_package(a, stmt) is not a for a in stmt.names):
            continue
        keep = [
            _package(a, stmt)
            for a in stmt.names
            if a not in gone
            and not _imports.droppable(a, m.table, reads, fixed)
            and not _contrib_unused_imports.unused_in(a, stmt, reads, exported)
        ]
        out.append(_contrib_unused_imports.statement_edit(m, stmt, keep))
    return out


def _package(alias: ast.alias, stmt) -> ast.alias:
    """`alias`, or for `import tensorflow.contrib.x` (which binds `tensorflow`,
    read elsewhere too) `import tensorflow`: the same binding, without the
    contrib module that fails to import."""
    api = _aliases.canonical(alias.name) or ""
    if isinstance(stmt, ast.Import) and not alias.asname and api.startswith(_CONTRIB):
        return ast.alias(name=alias.name.split(".")[0])
    return alias


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far, plus a stand-in for each use of a contrib name with
    no successor that is all that keeps a contrib import (or that reads
    `tf.contrib`), and the imports that then go. The findings stay left."""
    del ctx
    fixed = _imports.fixed_uses(m.findings)
    found = _chosen(m, _candidates(m), fixed)
    if not found:
        return m.edits
    placed, out, where = EditSet(m.edits), list(m.edits), _spellings(m.tree)
    handled = Counter(fixed)
    for f in found:
        edit = _stand_in(m, f, where)
        if placed.overlaps(edit):
            continue
        placed.add(edit)
        out.append(edit)
        handled[_root(f.node).id] += 1
        f.rule = dataclasses.replace(
            f.rule, replacement=f"{f.rule.replacement}; {NOTE}"
        )
    for edit in _import_edits(m, handled):
        # an import rule before may have rewritten the same statement: this
        # edit drops what that one dropped, and more
        rest = [e for e in out if (e.start, e.end) != (edit.start, edit.end)]
        if not EditSet(rest).overlaps(edit):
            out = [*rest, edit]
    return out


def _gone_rule(api: str, advice: str) -> GuideRule:
    return rule(
        "contrib",
        f"{api} has no TF 2 successor: emg.migrate_gone stands in for it, so "
        "the module imports and the code path that reaches this line fails",
        advice,
        "tf-contrib",
        fixable=False,
        kind=KIND,
    )


def _stand_ins(m: Module):
    """Yields (call, api, advice) of each `emg.migrate_gone("api", "advice")`."""
    package = m.table.name_for(_imports.PACKAGE)
    names = {f"{package}.migrate_gone", f"{package}.gone.migrate_gone"}
    for node in _astutil.walk(m.tree):
        if not isinstance(node, ast.Call) or _dotted(node.func) not in names:
            continue
        texts = [a.value for a in node.args[:2] if isinstance(a, ast.Constant)]
        if len(texts) == 2 and all(isinstance(t, str) for t in texts):
            yield node, texts[0], texts[1]


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far, plus one per stand-in an earlier `--fix` wrote:
    the name is still left, and the code path that reaches it fails."""
    del ctx
    out = list(m.findings)
    for node, api, advice in _stand_ins(m):
        out.append(
            at(
                m,
                node,
                api,
                m.off.segment(node.func) or "migrate_gone",
                _gone_rule(api, advice),
            )
        )
    return out
