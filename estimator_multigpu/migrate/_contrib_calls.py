"""Contrib-era call shapes: old `Dataset.map` arguments, the contrib-era
`Dataset.dense_to_sparse_batch` method and `tf.contrib.layers.batch_norm`."""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Protocol

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _contrib_outcomes,
    _exact_calls,
    _learn_names,
    _private_imports,
)
from estimator_multigpu.migrate._edits import Edit, EditSet, Offsets, Unsafe
from estimator_multigpu.migrate._rules import Rule

MAP_RULE = Rule(
    "dataset-map-args",
    "Dataset.map(num_threads=, output_buffer_size=) is the contrib-era tf.data "
    "signature; TF 2 has neither argument",
    ".map(f, num_parallel_calls=N).prefetch(M)",
    "dataset_map",
)
# TF 1.2-1.3's tf.contrib.data Dataset had dense_to_sparse_batch(batch_size,
# row_shape) as a method; TF 2's Dataset has it as sparse_batch, the same
# arguments (tf.data.experimental.dense_to_sparse_batch's transformation).
SPARSE_BATCH_RULE = Rule(
    "dataset-sparse-batch",
    "Dataset.dense_to_sparse_batch(batch_size, row_shape) is a method of the "
    "contrib-era tf.data (TF 1.2-1.3) only; TF 2's Dataset has none",
    "ds.sparse_batch(batch_size, row_shape) (the same arguments; emg-migrate "
    "--fix writes it)",
    "dataset_map",
)
BATCH_NORM_API = "tf.contrib.layers.batch_norm"
_MAP_OLD = ("num_threads", "output_buffer_size")
# contrib batch_norm's positional parameters after `inputs`.
_BN_POSITIONAL = ("decay", "center", "scale", "epsilon", "activation_fn")
_BN_RENAMES = {
    "decay": "momentum",
    "is_training": "training",
    "scope": "name",
    "center": "center",
    "scale": "scale",
    "epsilon": "epsilon",
    "reuse": "reuse",
    "trainable": "trainable",
    "fused": "fused",
}
# contrib's defaults where batch_normalization's differ.
_BN_DEFAULTS = (("momentum", "0.999"), ("scale", "False"), ("training", "True"))
_RUN_CONFIG_ARGS = {
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
}
_BN_DROPPABLE = {"zero_debias_moving_mean": "False", "activation_fn": "None"}


class Source(Protocol):
    """Anything that gives the source text of a node (`edits.Offsets`)."""

    def text(self, node: ast.AST) -> str: ...


def _has_star(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )


def is_old_map(node: ast.AST) -> bool:
    """True for `x.map(f, num_threads=..., output_buffer_size=...)`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "map"
        and any(k.arg in _MAP_OLD for k in node.keywords)
    )


def is_old_sparse_batch(node: ast.AST, table: _aliases.AliasTable) -> bool:
    """True for `ds.dense_to_sparse_batch(...)` on a value, not a module."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "dense_to_sparse_batch"
        and table.resolve(node.func.value) is None
    )


def sparse_batch_text(call: ast.Call, off: Source) -> str:
    """`ds.sparse_batch(...)`, the arguments as written.

    Raises:
      Unsafe: if the call passes `*args`/`**kwargs`.
    """
    if _has_star(call):
        raise Unsafe("the call passes *args or **kwargs; write the arguments out")
    args = [off.text(a) for a in call.args]
    args += [f"{k.arg}={off.text(k.value)}" for k in call.keywords]
    return f"{off.text(call.func.value)}.sparse_batch({', '.join(args)})"


def map_text(call: ast.Call, off: Source) -> str:
    """The TF 2 spelling of an old-style `Dataset.map` call.

    Raises:
      Unsafe: if the call passes `*args`/`**kwargs`.
    """
    if _has_star(call):
        raise Unsafe("the call passes *args or **kwargs; write the arguments out")
    args = [off.text(a) for a in call.args]
    prefetch = None
    for k in call.keywords:
        if k.arg == "num_threads":
            args.append(f"num_parallel_calls={off.text(k.value)}")
        elif k.arg == "output_buffer_size":
            prefetch = off.text(k.value)
        else:
            args.append(f"{k.arg}={off.text(k.value)}")
    text = f"{off.text(call.func)}({', '.join(args)})"
    return f"{text}.prefetch({prefetch})" if prefetch is not None else text


def _bn_arguments(call: ast.Call) -> dict[str, ast.expr]:
    if _has_star(call):
        raise Unsafe("the call passes *args or **kwargs; write the arguments out")
    if not call.args or len(call.args) > 1 + len(_BN_POSITIONAL):
        raise Unsafe("pass `inputs` and at most the first five arguments by position")
    named = dict(zip(_BN_POSITIONAL, call.args[1:]))
    named.update({k.arg: k.value for k in call.keywords})
    return named


def _axis(value: ast.expr, off: Source) -> str:
    if isinstance(value, ast.Constant) and value.value in ("NCHW", "channels_first"):
        return "1"
    if isinstance(value, ast.Constant) and value.value in ("NHWC", "channels_last"):
        return "-1"
    text = off.text(value)
    return f'1 if {text} in ("NCHW", "channels_first") else -1'


def _bn_keywords(named: dict, table: _aliases.AliasTable, off: Source) -> list[str]:
    out = {}
    for name, value in named.items():
        if name in _BN_RENAMES:
            out[_BN_RENAMES[name]] = off.text(value)
        elif name == "data_format":
            out["axis"] = _axis(value, off)
        elif name == "updates_collections":
            if table.resolve_tf(value) != "tf.GraphKeys.UPDATE_OPS":
                raise Unsafe(
                    "updates_collections other than tf.GraphKeys.UPDATE_OPS: "
                    "batch_normalization always adds its updates to UPDATE_OPS; "
                    "run them with tf.control_dependencies(UPDATE_OPS) instead"
                )
        elif name not in _BN_DROPPABLE or off.text(value) != _BN_DROPPABLE[name]:
            if name != "activation_fn":
                raise Unsafe(f"`{name}=` has no batch_normalization equivalent")
    for name, default in _BN_DEFAULTS:
        out.setdefault(name, default)
    return [f"{k}={v}" for k, v in out.items()]


def tf_root(table: _aliases.AliasTable) -> str | None:
    """A name bound to `tensorflow` or `tensorflow.compat.v1`, if any."""
    for name, path in table.bindings.items():
        if path in ("tensorflow", "tensorflow.compat.v1"):
            return name
    return None


def batch_norm_text(call: ast.Call, table: _aliases.AliasTable, off: Source) -> str:
    """The `tf.compat.v1.layers.batch_normalization` spelling of a contrib call.

    Raises:
      Unsafe: with what to write by hand, when the mapping is not one to one.
    """
    named = _bn_arguments(call)
    root = tf_root(table)
    if root is None:
        raise Unsafe("no `import tensorflow as tf` to spell the replacement with")
    keywords = _bn_keywords(named, table, off)
    inputs = off.text(call.args[0])
    text = (
        f"{root}.compat.v1.layers.batch_normalization({', '.join([inputs] + keywords)})"
    )
    act = named.get("activation_fn")
    if act is not None and off.text(act) != "None":
        text = f"{off.text(act)}({text})"
    return text


def slim_batch_norm_text(call: ast.Call, off: Source, emg: str = "emg") -> str:
    """The call with its function replaced by tf_slim's batch_norm, which is
    contrib.layers.batch_norm moved out of contrib (the same signature and
    defaults), so every argument stays as written."""
    whole, func = off.text(call), off.text(call.func)
    return f"{emg}.tf_slim().batch_norm{whole[len(func) :]}"


def batch_norm_rule(call: ast.Call, table, off: Offsets) -> Rule:
    """The finding's rule for one batch_norm call: its exact replacement."""
    try:
        replacement = batch_norm_text(call, table, off)
    except Unsafe as why:
        replacement = (
            f"{slim_batch_norm_text(call, off)} (pip install tf-slim; "
            f"tf.compat.v1.layers.batch_normalization cannot say it: {why})"
        )
    return Rule(
        "contrib-batch-norm",
        "tf.contrib.layers.batch_norm is gone since TF 2.0 (tf.compat.v1.layers "
        "needs tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+)",
        replacement,
        "batch_norm",
    )


_LEARN = (
    "tf.contrib.learn.Experiment",
    "tf.contrib.learn.learn_runner.run",
    "tf.contrib.learn.python.learn.learn_runner.run",
    "tf.contrib.training.HParams",
)


def _learn_rule(api: str, call: ast.Call, off: Source) -> Rule | None:
    """The finding's rule: the drop-in `--fix` writes when this call's arguments
    fit it, else None (the table's general advice)."""
    del off
    try:
        _learn_names.check_call(api, call)
    except Unsafe:
        return None
    return Rule(
        "contrib-learn",
        f"{api} is gone since TF 2.0",
        _learn_names.replacement(api),
        "contrib_learn",
    )


def _calls(tree: ast.AST):
    return [n for n in _astutil.nodes(tree, ast.Call)]


def find(tree: ast.AST, table: _aliases.AliasTable, off: Offsets):
    """Yields (call, api, rule, covered) for the call shapes this module knows.

    `covered` is the set of node ids inside the call's function whose generic
    findings (e.g. `tf.contrib`) this finding replaces.
    """
    for call in _calls(tree):
        if is_old_map(call):
            yield call, "Dataset.map(num_threads/output_buffer_size)", MAP_RULE, set()
        elif is_old_sparse_batch(call, table):
            yield call, "Dataset.dense_to_sparse_batch", SPARSE_BATCH_RULE, set()
        elif _learn_names.learn_key(table.resolve_tf(call.func)) in _LEARN:
            api = table.resolve_tf(call.func)
            rule = _learn_rule(api, call, off)
            if rule is not None:
                yield call.func, api, rule, {id(n) for n in _astutil.walk(call.func)}
        elif table.resolve_tf(call.func) == BATCH_NORM_API:
            covered = {id(n) for n in _astutil.walk(call.func)}
            yield call, BATCH_NORM_API, batch_norm_rule(call, table, off), covered
    yield from _exact_calls.find(tree, table)
    yield from _private_imports.find(tree, table)


def _run_config_text(node: ast.AST, calls: dict, emg: str) -> str:
    """`emg.estimator.RunConfig` where every argument means the same there."""
    call = calls.get(id(node))
    if call is not None and (
        call.args or {k.arg for k in call.keywords} - _RUN_CONFIG_ARGS
    ):
        raise Unsafe("arguments emg.estimator.RunConfig does not take")
    return f"{emg}.estimator.RunConfig"


def _replacement(f, table, off: Source, calls: dict, emg: str) -> str:
    if f.rule.rule_id == "dataset-map-args":
        return map_text(f.node, off)
    if f.rule.rule_id == "dataset-sparse-batch":
        return sparse_batch_text(f.node, off)
    if f.rule.rule_id == "contrib-batch-norm":
        try:
            return batch_norm_text(f.node, table, off)
        except Unsafe:
            return slim_batch_norm_text(f.node, off, emg)
    if f.api == "tf.contrib.learn.RunConfig":
        return _run_config_text(f.node, calls, emg)
    raise Unsafe("no rewrite")


def _has_comment(text: str) -> bool:
    """True if the expression `text` holds a comment (a rewrite would drop it)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(f"({text})").readline))
    except (tokenize.TokenError, SyntaxError):
        return True
    return any(t.type == tokenize.COMMENT for t in tokens)


class _Texts:
    """Source text of nodes with the edits already made inside them applied."""

    def __init__(self, off: Offsets, prior: list[Edit]):
        self._off, self._prior = off, prior

    def text(self, node: ast.AST) -> str:
        return self._off.text(node, self._prior)


def _straddles(edit: Edit, prior: list[Edit]) -> list[Edit] | None:
    """The prior edits inside `edit`'s span, or None if one crosses its edge."""
    inner = []
    for e in prior:
        if edit.start <= e.start and e.end <= edit.end:
            inner.append(e)
        elif e.start < edit.end and edit.start < e.end:
            return None
    return inner


def edits(tree: ast.AST, table, off: Offsets, findings, prior, emg: str) -> list[Edit]:
    """Rewrites the safe calls among `findings`; marks them fixed.

    Args:
      tree: the module.
      table: its aliases.
      off: positions in its source.
      findings: the module's findings.
      prior: the edits already made; those inside a rewritten call are
        folded into its new text.
      emg: how the module spells `estimator_multigpu`.

    Returns:
      `prior` without the folded edits, plus the new ones.
    """
    out = list(prior)
    calls = {id(c.func): c for c in _calls(tree)}
    needed = set()
    for f in findings:
        if f.fixed:
            continue
        exact = _exact(f, tree, table, off, out, emg)
        if exact is not None:
            out += exact[0]
            needed |= {exact[1]} - {None}
            f.fixed = True
            continue
        try:
            text = _replacement(f, table, _Texts(off, out), calls, emg)
        except Unsafe:
            continue
        if _has_comment(off.segment(f.node)):
            continue
        edit = off.replace(f.node, text)
        inner = _straddles(edit, out)
        if inner is None:
            continue
        out = [e for e in out if e not in inner] + [edit]
        f.fixed = True
    from estimator_multigpu.migrate import (
        _imports,
    )  # imports needs the scanner

    return out + [_imports.import_edit(tree, off, m, m) for m in sorted(needed)]


def _exact(f, tree, table, off: Offsets, prior, emg: str):
    """(edits, module to import) of `f`'s exact rewrite, or None."""
    try:
        if isinstance(f.rule, _contrib_outcomes.SurfaceRule) and f.rule.successor:
            new, module = _contrib_outcomes.edits(f, tree, table, off, emg)
        else:
            new, module = _exact_calls.edits_for(f, tree, table, off, emg)
    except Unsafe:
        return None
    placed = EditSet(prior)
    return (new, module) if not any(placed.overlaps(e) for e in new) else None
