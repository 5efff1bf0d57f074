"""The scan's rules: each finds one shape of legacy code (`find(module, ctx)`)."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _api_uses,
    _astutil,
    _auto_parallel,
    _compat_v1,
    _contrib_calls,
    _contrib_names,
    _era,
    _keras_input_shape,
    _model_fn_towers,
    _queue_loops,
    _rules,
    _session_config,
    _slim,
    _star_imports,
    _tf_examples,
    _tower_loops,
    _tower_rewrite,
)
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding, at


def finding(m: Module, node: ast.AST, api: str, rule, matched=None) -> Finding:
    """A finding of `rule` at `node` in `m` (`matched`: the name it matched)."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        text = f"import of {api}"
    elif isinstance(node, ast.For):
        text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}:"
    elif isinstance(node, ast.FunctionDef):
        text = f"def {node.name}(...)"
    else:
        text = m.off.segment(node) or api
    col = m.off.column(node) + 1
    return Finding(m.path, node.lineno, col, api, text, rule, matched or node)


def _hits(m: Module, hits) -> list:
    return m.findings + [at(m, *hit) for hit in hits]


def _renamable(m: Module, use: _api_uses.SymbolUse):
    """(the rule, the node its rename replaces): no rename where an alias
    binds deeper than the row's prefix, or the name is bound by an
    assignment (`Estimator = tf.estimator.Estimator` is fixed where it is
    assigned)."""
    rule, matched = use.rule, use.node
    for _ in range(use.api.count(".") - use.prefix.count(".")):
        if not isinstance(matched, ast.Attribute):
            return dataclasses.replace(rule, rename=None), matched
        matched = matched.value
    if isinstance(matched, ast.Name) and matched.id in m.table.assigned:
        rule = dataclasses.replace(rule, rename=None)
    return rule, matched


def legacy_names(m: Module, ctx: ProgramContext) -> list:
    """Every use of a name the rule table lists (the longest prefix wins)."""
    out = list(m.findings)
    for use in m.uses.symbols:
        rule, matched = _renamable(m, use)
        out.append(finding(m, use.node, use.api, rule, matched))
    return out


def unused_imports(m: Module, ctx: ProgramContext) -> list:
    """Legacy imports whose names are never used.

    Such an import still fails on TF 2 (`from tensorflow.contrib import slim`),
    and no use of the name reports it.
    """
    uses = _astutil.reads(m.tree)
    out = list(m.findings)
    for found in m.uses.symbol_imports:
        if found.name == "*" or not uses[found.name]:
            rule = dataclasses.replace(found.rule, rename=None)
            out.append(finding(m, found.node, found.api, rule))
    return out


def tower_loops(m: Module, ctx: ProgramContext) -> list:
    """Hand-written tower loops and gradient averaging."""
    loops = _tower_rewrite.find(m.tree, m.table, m.off)
    out = list(m.findings)
    for node, is_loop in _tower_loops.find(m.tree, m.table):
        rule = _rules.TOWER_RULE if is_loop else _rules.AVERAGING_RULE
        rule = loops.get(id(node), (None, rule))[1]
        api = "tower loop" if is_loop else "gradient averaging"
        out.append(finding(m, node, api, rule))
    return out


def queue_runner_loops(m: Module, ctx: ProgramContext) -> list:
    """Loops that start the queue runners by hand."""
    found = _queue_loops.find(m.tree, m.table)
    return m.findings + [
        finding(m, node, _queue_loops.API, _queue_loops.RULE) for node in found
    ]


def contrib_calls(m: Module, ctx: ProgramContext) -> list:
    """tf.contrib calls with a known rewrite; each replaces the names it covers."""
    out = list(m.findings)
    for node, api, rule, covered in _contrib_calls.find(m.tree, m.table, m.off):
        out = [f for f in out if id(f.node) not in covered]
        out.append(finding(m, node, api, rule))
    return out


def slim_uses(m: Module, ctx: ProgramContext) -> list:
    """Uses of tf_slim names it lacks on TF 2."""
    return _hits(m, _slim.tf_slim_uses(m.tree, m.table))


def era_refine(m: Module, ctx: ProgramContext) -> list:
    """Table findings that an era shape explains better, reworded."""
    return _era.refine(m.tree, m.table, m.findings)


def contrib_names(m: Module, ctx: ProgramContext) -> list:
    """tf.contrib names reworded by their successor table."""
    return _contrib_names.refine(m.findings)


def slim_group(m: Module, ctx: ProgramContext) -> list:
    """Per-use slim findings grouped into one per slim module."""
    return _slim.group(m.findings)


def model_fn_towers(m: Module, ctx: ProgramContext) -> list:
    """Tower loops inside a model_fn, described by the edits that rewrite them."""
    return _model_fn_towers.refine(m.tree, m.findings, m.table, m.off)


def era_shapes(m: Module, ctx: ProgramContext) -> list:
    """TF 1.x era shapes; their nodes are left to this rule (`facts`)."""
    hits = list(_era.find(m.tree, m.table))
    m.facts["era-shapes"] = {id(h[0]) for h in hits}
    return _hits(m, hits)


def slim_clones(m: Module, ctx: ProgramContext) -> list:
    """slim's model_deploy clones."""
    return _hits(m, _slim.clone_calls(m.tree, m.table))


def tf_examples(m: Module, ctx: ProgramContext) -> list:
    """Imports of the tutorials' tensorflow.examples modules."""
    return _hits(m, _tf_examples.find(m.tree))


def keras_input_shape(m: Module, ctx: ProgramContext) -> list:
    """Keras first layers whose declared input shape the data contradicts."""
    return _hits(m, _keras_input_shape.find(m.tree))


def auto_parallel(m: Module, ctx: ProgramContext) -> list:
    """Grappler AutoParallel settings, pointed at towers."""
    return _hits(m, _auto_parallel.find(m.tree))


def star_imports(m: Module, ctx: ProgramContext) -> list:
    """`from tensorflow import *`."""
    return _hits(m, _star_imports.find(m.tree))


def session_configs(m: Module, ctx: ProgramContext) -> list:
    """Session configs that must see the devices the rewrite resolves."""
    return _hits(m, _session_config.find(m.tree, m.table, m.off, m.findings))


def compat_v1(m: Module, ctx: ProgramContext) -> list:
    """Bare TF 1.x names: one finding for the import switch, or one per use."""
    taken = m.facts.get("era-shapes", set())

    def skip(api, node):
        return _era.covers(api) or id(node) in taken

    uses, v2_uses = _compat_v1.find(m.tree, m.table, skip)
    stmt = _compat_v1.tf_import(m.tree)
    name = stmt.names[0].asname if stmt else None
    grouped = [u for u in uses if u.root == name]
    out = m.findings + [
        at(m, u.node, u.api, m.off.segment(u.node), _compat_v1.per_use_rule(u))
        for u in uses
        if u.root != name
    ]
    if grouped:
        why = _compat_v1.blocker(m.tree, m.table, grouped, v2_uses)
        rule = _compat_v1.group_rule(name, why)
        text = _compat_v1.text(grouped)
        out.append(at(m, stmt, "tf (TF 1.x names)", text, rule))
    return out
