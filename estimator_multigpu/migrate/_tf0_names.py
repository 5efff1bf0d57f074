"""TF 0.x names that TF 1.0 renamed, written by their TF 1.x successors.

Code of 2016 (TF 0.10-0.12) calls `tf.mul`, `tf.pack`, `tf.select`,
`tf.train.SummaryWriter`, `tf.merge_all_summaries`, `tf.scalar_summary`...
TF 1.0 renamed them (its own `tf_upgrade.py` wrote the new names), and no
TF 1.x or 2.x module has the old ones, not even `tf.compat.v1`: the call
fails with AttributeError when its line runs. Each row of
`_api_spec.TF0_RENAMES` (matched by the one visitor, `_api_uses`) is a
successor with the same positional parameters, or a rename of the keywords
that differ (`tf.select(cond, t=, e=)` -> `tf.where(cond, x=, y=)`), with how many
positional arguments the call may pass before the two lists part ways
(`tf.batch_matmul`'s third is `adj_x`, `tf.matmul`'s `transpose_a`). A call
past that, or `*args`/`**kwargs`, is reported and left as it was.

The successor is written where the old name was, through the same root:
`tf.train.SummaryWriter` -> `tf.summary.FileWriter` under
`import tensorflow.compat.v1 as tf`, and `tf.compat.v1.summary.FileWriter`
where `tf` is TensorFlow 2's root and the TF 1.x behaviour lives in
compat.v1 only (the graph-mode summaries, `where` without broadcasting); the
compat.v1 import switch keeps that spelling working. The others (`tf.multiply`,
`tf.stack`) are the same in both and written as they are.

The graph-mode summaries take a name where TF 0.x took a tag: the same
string, under the enclosing name scopes, so a summary made inside a scope
shows in TensorBoard under the scope's prefix.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _compat_v1
from estimator_multigpu.migrate._api_spec import SPEC, Renamed
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "tf0-name"
ANCHOR = "tf-0x-names"


def _rule(old: str, fixable: bool):
    new = f"tf.{SPEC.tf0_renames[old].new}"
    if fixable:
        instead = f"{new} (the same arguments; emg-migrate --fix writes it)"
    else:
        instead = (
            f"{new}, its arguments checked by hand (the call passes more "
            "positional arguments than mean the same in both, or *args/**kwargs)"
        )
    return rule(
        RULE_ID,
        f"{old} is a TF 0.x name that TF 1.0 renamed: no TF 1.x or 2.x module "
        "has it (AttributeError when the line runs)",
        instead,
        ANCHOR,
        fixable=fixable,
    )


def _fits(call: ast.Call | None, renamed: Renamed) -> bool:
    """True unless the call passes arguments the rename cannot carry over."""
    if call is None:
        return True
    star = any(isinstance(a, ast.Starred) for a in call.args)
    return (
        not star
        and all(k.arg for k in call.keywords)
        and len(call.args) <= renamed.positional
    )


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per TF 0.x name used."""
    del ctx
    out = list(m.findings)
    for node, api in m.uses.tf0:
        fixable = _fits(m.uses.call(node), SPEC.tf0_renames[api])
        out.append(at(m, node, api, m.off.segment(node) or api, _rule(api, fixable)))
    return out


def _name_edit(m: Module, node: ast.Attribute, api: str) -> Edit | None:
    """The old name's tail after its root, replaced by the successor's."""
    text = m.off.segment(node) or ""
    tail = api[len("tf.") :]
    if not text.endswith(tail):
        return None  # reached through an alias of a submodule: left alone
    head = text[: -len(tail)]
    new = SPEC.tf0_renames[api].new
    if SPEC.tf0_renames[api].v1 and _compat_v1.is_bare(m.table, node):
        new = f"compat.v1.{new}"
    return m.off.replace(node, head + new)


def _keyword_edits(m: Module, call: ast.Call | None, renamed: Renamed) -> list[Edit]:
    if call is None:
        return []
    names = dict(renamed.keywords)
    out = []
    for k in call.keywords:
        if k.arg in names:
            start = m.off.span(k)[0]
            out.append(Edit(start, start + len(k.arg), names[k.arg]))
    return out


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus each fixable finding's rename (where nothing overlaps)."""
    del ctx
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if f.rule.rule_id != RULE_ID or f.fixed or not f.rule.fixable:
            continue
        name = _name_edit(m, f.node, f.api)
        if name is None:
            continue
        new = [name, *_keyword_edits(m, m.uses.call(f.node), SPEC.tf0_renames[f.api])]
        if any(placed.overlaps(e) for e in new):
            continue
        for e in new:
            placed.add(e)
        out.extend(new)
        f.fixed = True
    return out
