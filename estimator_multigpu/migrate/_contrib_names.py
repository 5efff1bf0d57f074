"""Exact replacements for the tf.contrib names TF 1.x code of the era used most."""

from __future__ import annotations

import dataclasses

from estimator_multigpu.migrate import _contrib_outcomes, _contrib_surface, _rules
from estimator_multigpu.migrate._guide_rules import rule
from estimator_multigpu.migrate._learn_names import UID_LIST
from estimator_multigpu.migrate._slim_layers import CONTRIB, NAMES

_DATA = "tf.data.experimental.{name}"
_PLACER = (
    "emg.estimator.{name} (contrib's, for tf.compat.v1.train."
    "replica_device_setter(ps_strategy=...); emg-migrate --fix writes it)"
)
_MNIST = (
    "estimator_multigpu.tutorials.input_data (the same read_data_sets and "
    "DataSet as a drop-in; emg-migrate --fix writes it)"
)
_VOCABULARY = (
    "emg.estimator.preprocessing.VocabularyProcessor (the drop-in: the same "
    "tokenizer, word ids, fit/transform/reverse and save/restore; emg-migrate "
    "--fix writes it)"
)
# contrib name (under `tf.contrib.`) -> what to write on TF 2.x.
REPLACEMENTS = {
    "framework.get_or_create_global_step": "tf.compat.v1.train.get_or_create_global_step()",
    "framework.get_global_step": "tf.compat.v1.train.get_global_step()",
    "framework.arg_scope": "tf_slim.arg_scope (pip install tf-slim)",
    "framework.add_arg_scope": "tf_slim.add_arg_scope (pip install tf-slim)",
    "framework.nest": "tf.nest",
    "layers.l2_regularizer": "lambda w: scale * tf.nn.l2_loss(w) (the same value), "
    "or tf.keras.regularizers.l2(scale / 2)",
    "layers.l1_regularizer": "tf.keras.regularizers.l1(scale)",
    "metrics.streaming_accuracy": "tf.compat.v1.metrics.accuracy",
    "metrics.streaming_mean": "tf.compat.v1.metrics.mean",
    "rnn": "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
    "DropoutWrapper; with tf-keras on TF 2.16+) or tf.keras.layers.LSTM/GRU",
    "distribute.MirroredStrategy": "tf.distribute.MirroredStrategy",
    "data.AUTOTUNE": "tf.data.AUTOTUNE",
    "data.map_and_batch": "tf.data.experimental.map_and_batch(map_func, "
    "batch_size, num_parallel_batches=None, drop_remainder=False, "
    "num_parallel_calls=None) (the same arguments; emg-migrate --fix writes it), "
    "or dataset.map(map_func, num_parallel_calls=...)"
    ".batch(batch_size, drop_remainder=...)",
    "data.shuffle_and_repeat": "tf.data.experimental.shuffle_and_repeat("
    "buffer_size, count=None, seed=None) (the same arguments; emg-migrate "
    "--fix writes it), or dataset.shuffle(buffer_size, seed).repeat(count)",
    "data.batch_and_drop_remainder": "dataset.batch(batch_size, drop_remainder=True)",
    "data.parallel_interleave": "tf.data.experimental.parallel_interleave("
    "map_func, cycle_length, block_length=1, sloppy=False, "
    "buffer_output_elements=None, prefetch_input_elements=None) (the same "
    "arguments; emg-migrate --fix writes it), or dataset.interleave(map_func, "
    "cycle_length, block_length, num_parallel_calls=tf.data.AUTOTUNE, "
    "deterministic=not sloppy)",
    "data.prefetch_to_device": "tf.data.experimental.prefetch_to_device("
    "device, buffer_size=None) (the same arguments; emg-migrate --fix writes it)",
    "data.copy_to_device": "tf.data.experimental.copy_to_device(target_device, "
    "source_device='/cpu:0') (the same arguments; emg-migrate --fix writes it)",
    "data.ignore_errors": _DATA.format(name="ignore_errors()")
    + " or dataset.ignore_errors()",
    "data.TFRecordDataset": "tf.data.TFRecordDataset",
    "learn.datasets.mnist": _MNIST,
    "learn.python.learn.datasets.mnist": _MNIST,
    "learn.datasets.base.maybe_download": "tf.keras.utils.get_file(filename, "
    "origin=source_url, cache_dir=work_directory, cache_subdir='') (the same "
    "path, work_directory/filename, downloaded only when missing; emg-migrate "
    "--fix writes it)",
    "learn.python.learn.run_config._DEFAULT_UID_WHITE_LIST": (
        f"{UID_LIST} (contrib's list written out, for a RunConfig.uid() override; "
        "emg-migrate --fix writes it)"
    ),
    "training.GreedyLoadBalancingStrategy": _PLACER.format(
        name="GreedyLoadBalancingStrategy"
    ),
    "training.byte_size_load_fn": _PLACER.format(name="byte_size_load_fn"),
    "learn.preprocessing.VocabularyProcessor": _VOCABULARY,
    "learn.preprocessing.text.VocabularyProcessor": _VOCABULARY,
}


def _key(api: str) -> str | None:
    """The longest key of REPLACEMENTS that `api` (`tf.contrib.X...`) starts with."""
    parts = api.split(".")[2:]
    for end in range(len(parts), 0, -1):
        key = ".".join(parts[:end])
        if key in REPLACEMENTS:
            return key
    return None


def exact(finding) -> _rules.Rule | None:
    """A `contrib` rule with the exact replacement for `finding`, if one is known:
    this module's, else the surface table's (`_contrib_outcomes`), by any
    spelling of the name (`tf.contrib.x.python.ops.y.z` is `tf.contrib.x.z`).
    A table rule that renames (`tf.contrib.framework.nest.flatten`) stays."""
    if finding.rule.rule_id != "contrib" or not finding.api.startswith("tf.contrib."):
        return None
    if finding.rule.rename:
        return None
    found = _contrib_surface.public(finding.api)
    if found is None or finding.rule != _rules.TABLE["tf.contrib"]:
        return _known(finding.api)  # (a call shape's own rule stays its own)
    symbol, prefix = found
    known = _known(symbol + finding.api[len(prefix) :])
    if (
        known is None
        or _own_row(symbol)
        or _calls_the_successor(symbol)
        or (prefix != symbol and _contrib_surface.fixable(symbol))
    ):
        return _contrib_outcomes.rule_for(finding.api)
    if prefix != symbol:  # a module path: the same advice, naming the path
        summary = f"{known.summary} (written {prefix})"
        return dataclasses.replace(known, summary=summary)
    return known


def _calls_the_successor(symbol: str) -> bool:
    """True when this module's text for `symbol` only calls the surface row's
    exact successor (`tf.compat.v1.train.get_global_step()`): the surface
    rule says the same and `--fix` writes it."""
    key, row = _key(symbol), _contrib_surface.row(symbol)
    return (
        key is not None
        and row is not None
        and _contrib_surface.fixable(symbol)
        and REPLACEMENTS[key] == f"{row.successor}()"
    )


def _own_row(symbol: str) -> bool:
    """True when the surface row of `symbol` says something of its own, which
    wins over the advice this module gives its whole contrib module (`rnn`)."""
    key, row = _key(symbol), _contrib_surface.row(symbol)
    whole = key is not None and "." not in key
    return whole and row is not None and row.note != REPLACEMENTS[key]


def _known(api: str) -> _rules.Rule | None:
    """This module's rule for public name `api`, if it has one."""
    key = _key(api)
    layer = api.split(".")[3] if api.count(".") >= 3 else ""
    if key is None and api.startswith(CONTRIB) and layer in NAMES:
        return rule(
            "contrib",
            f"tf.contrib.layers.{layer} is gone since TF 2.0",
            f"tf_slim.{layer} (contrib's own function, kept by tf-slim; "
            "pip install tf-slim; emg-migrate --fix writes it)",
            "tf-contrib",
        )
    if key is None:
        return None
    return rule(
        "contrib",
        f"tf.contrib.{key} is gone since TF 2.0",
        REPLACEMENTS[key],
        "tf-contrib",
    )


def refine(findings: list) -> list:
    """Gives each generic `contrib` finding its exact replacement where known."""
    for f in findings:
        better = exact(f)
        if better is not None:
            f.rule = better
    return findings


def replaced(api: str) -> bool:
    """True when REPLACEMENTS gives public name `api` (or its module) a text."""
    return _key(api) is not None
