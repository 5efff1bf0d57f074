"""TF 0.x names that TF 1.0 renamed, written by their TF 1.x successors.

Code of 2016 (TF 0.10-0.12) calls `tf.mul`, `tf.pack`, `tf.select`,
`tf.train.SummaryWriter`, `tf.merge_all_summaries`, `tf.scalar_summary`...
TF 1.0 renamed them (its own `tf_upgrade.py` wrote the new names), and no
TF 1.x or 2.x module has the old ones, not even `tf.compat.v1`: the call
fails with AttributeError when its line runs. Each row below is a successor
with the same positional parameters, or a rename of the keywords that differ
(`tf.select(cond, t=, e=)` -> `tf.where(cond, x=, y=)`), with how many
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
import dataclasses

from estimator_multigpu.migrate import _astutil, _compat_v1
from estimator_multigpu.migrate._edits import Edit, EditSet
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import Finding
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "tf0-name"
ANCHOR = "tf-0x-names"
_ANY = 99  # no limit on positional arguments


@dataclasses.dataclass(frozen=True)
class Renamed:
    """One TF 0.x name's successor (after `tf.`), its keywords' new names,
    how many positional arguments mean the same in both, and whether the
    successor's TF 1.x behaviour lives in tf.compat.v1 only (`v1`)."""

    new: str
    keywords: tuple[tuple[str, str], ...] = ()
    positional: int = _ANY
    v1: bool = False


RENAMES = {
    "tf.mul": Renamed("multiply"),
    "tf.sub": Renamed("subtract"),
    "tf.neg": Renamed("negative"),
    "tf.inv": Renamed("reciprocal"),
    "tf.complex_abs": Renamed("abs"),
    "tf.pack": Renamed("stack"),
    "tf.unpack": Renamed("unstack"),
    "tf.select": Renamed("where", (("t", "x"), ("e", "y")), v1=True),
    "tf.listdiff": Renamed("setdiff1d", (("out_idx", "index_dtype"),), v1=True),
    "tf.batch_matmul": Renamed(
        "matmul",
        (("x", "a"), ("y", "b"), ("adj_x", "adjoint_a"), ("adj_y", "adjoint_b")),
        2,
    ),
    "tf.image.per_image_whitening": Renamed("image.per_image_standardization"),
    "tf.train.SummaryWriter": Renamed("summary.FileWriter", v1=True),
    "tf.merge_all_summaries": Renamed("summary.merge_all", v1=True),
    "tf.merge_summary": Renamed("summary.merge", v1=True),
    "tf.scalar_summary": Renamed(
        "summary.scalar", (("tags", "name"), ("values", "tensor")), 3, v1=True
    ),
    "tf.histogram_summary": Renamed(
        "summary.histogram", (("tag", "name"),), 3, v1=True
    ),
    "tf.image_summary": Renamed(
        "summary.image", (("tag", "name"), ("max_images", "max_outputs")), 4, v1=True
    ),
    "tf.audio_summary": Renamed("summary.audio", (("tag", "name"),), 5, v1=True),
}


def _rule(old: str, fixable: bool):
    new = f"tf.{RENAMES[old].new}"
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


def _calls(tree: ast.Module) -> dict[int, ast.Call]:
    return {id(n.func): n for n in _astutil.nodes(tree, ast.Call)}


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


def _uses(m: Module):
    """(node, old api) for each outermost name chain that is a TF 0.x name."""
    for node in _astutil.walk(m.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            api = m.table.resolve_tf(node)
            if api in RENAMES:
                yield node, api


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per TF 0.x name used."""
    del ctx
    calls = _calls(m.tree)
    out = list(m.findings)
    for node, api in _uses(m):
        fixable = _fits(calls.get(id(node)), RENAMES[api])
        out.append(
            Finding(
                m.path,
                node.lineno,
                m.off.column(node) + 1,
                api,
                m.off.segment(node) or api,
                _rule(api, fixable),
                node,
            )
        )
    return out


def _name_edit(m: Module, node: ast.Attribute, api: str) -> Edit | None:
    """The old name's tail after its root, replaced by the successor's."""
    text = m.off.segment(node) or ""
    tail = api[len("tf.") :]
    if not text.endswith(tail):
        return None  # reached through an alias of a submodule: left alone
    head = text[: -len(tail)]
    new = RENAMES[api].new
    if RENAMES[api].v1 and _compat_v1.is_bare(m.table, node):
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
    calls = _calls(m.tree)
    out, placed = list(m.edits), EditSet(m.edits)
    for f in m.findings:
        if f.rule.rule_id != RULE_ID or f.fixed or not f.rule.fixable:
            continue
        name = _name_edit(m, f.node, f.api)
        if name is None:
            continue
        new = [name, *_keyword_edits(m, calls.get(id(f.node)), RENAMES[f.api])]
        if any(placed.overlaps(e) for e in new):
            continue
        for e in new:
            placed.add(e)
        out.extend(new)
        f.fixed = True
    return out
