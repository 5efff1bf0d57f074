"""Exact rewrites onto emg.estimator's tf.contrib.learn/training drop-ins, the
contrib uid list, maybe_download, and GPU probes that only gate a run."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _contrib_surface
from estimator_multigpu.migrate._edits import Offsets, Unsafe

_LEARN = "tf.contrib.learn."
VOCABULARY = "estimator.preprocessing.VocabularyProcessor"
# contrib name -> its drop-in under `emg.`.
EMG_NAMES = {
    _LEARN + "Experiment": "estimator.Experiment",
    _LEARN + "learn_runner.run": "estimator.learn_runner.run",
    _LEARN + "python.learn.learn_runner.run": "estimator.learn_runner.run",
    _LEARN + "ModeKeys": "estimator.LearnModeKeys",
    "tf.contrib.training.HParams": "estimator.HParams",
    "tf.contrib.training.GreedyLoadBalancingStrategy": (
        "estimator.GreedyLoadBalancingStrategy"
    ),
    "tf.contrib.training.byte_size_load_fn": "estimator.byte_size_load_fn",
    _LEARN + "preprocessing.VocabularyProcessor": VOCABULARY,
    _LEARN + "python.learn.preprocessing.VocabularyProcessor": VOCABULARY,
    _LEARN + "preprocessing.text.VocabularyProcessor": VOCABULARY,
    _LEARN + "python.learn.preprocessing.text.VocabularyProcessor": VOCABULARY,
}
# Classes whose attributes (VocabularyProcessor.restore, ModeKeys.INFER) the
# drop-in has too.
_CLASSES = frozenset(
    k for k, v in EMG_NAMES.items() if v in (VOCABULARY, "estimator.LearnModeKeys")
)
# contrib.learn's RunConfig._DEFAULT_UID_WHITE_LIST (TF 1.x), written out.
UID_LIST_API = _LEARN + "python.learn.run_config._DEFAULT_UID_WHITE_LIST"
UID_LIST = (
    "['tf_random_seed', 'save_summary_steps', 'save_checkpoints_steps', "
    "'save_checkpoints_secs', 'session_config', 'keep_checkpoint_max', "
    "'keep_checkpoint_every_n_hours', 'log_step_count_steps']"
)
MAYBE_DOWNLOAD = _LEARN + "datasets.base.maybe_download"
_DOWNLOAD_ARGS = ("filename", "work_directory", "source_url")
GPU_PROBE = "tf.test.is_gpu_available"
# Experiment arguments emg.estimator.Experiment takes (contrib's order first).
_EXPERIMENT_ARGS = (
    "estimator",
    "train_input_fn",
    "eval_input_fn",
    "train_steps",
    "eval_steps",
    "train_monitors",
    "eval_hooks",
    "eval_delay_secs",
    "continuous_eval_throttle_secs",
    "min_eval_frequency",
    "saving_listeners",
    "check_interval_secs",
)


def learn_key(api: str) -> str | None:
    """The EMG_NAMES key `api` is, by any module path of it (contrib's
    `tf.contrib.training.python.training.hparam.HParams` is
    `tf.contrib.training.HParams`), or None."""
    if not api or api in EMG_NAMES:
        return api or None
    found = _contrib_surface.public(api)
    if found is not None and found[1] == api and found[0] in EMG_NAMES:
        return found[0]
    return None


def _named(api: str) -> str | None:
    """The EMG_NAMES key `api` is, or the class of `_CLASSES` whose attribute it is."""
    key = learn_key(api)
    if key is not None:
        return key
    owner = learn_key(api.rpartition(".")[0])
    return owner if owner in _CLASSES else None


def handles(api: str) -> bool:
    """True for the names this module rewrites."""
    return _named(api) is not None or api in (UID_LIST_API, MAYBE_DOWNLOAD, GPU_PROBE)


def _has_star(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )


def check_call(api: str, call: ast.Call | None) -> None:
    """Raises Unsafe when `call`'s arguments differ from what the drop-in takes."""
    if call is None:
        return
    if api.endswith("Experiment"):
        if len(call.args) > 3 or _has_star(call):
            raise Unsafe("positional eval_metrics or unpacked arguments")
        unknown = {k.arg for k in call.keywords} - set(_EXPERIMENT_ARGS)
        if unknown:
            raise Unsafe(f"{sorted(unknown)}: contrib machinery the drop-in refuses")
    elif api.endswith("HParams") and call.args:
        raise Unsafe("an HParamDef passed positionally")


def _root(table) -> str:
    for name, path in table.bindings.items():
        if path in ("tensorflow", "tensorflow.compat.v1"):
            return name
    raise Unsafe("no `import tensorflow as tf` to spell the replacement with")


def _download_text(call: ast.Call | None, off: Offsets, table) -> str:
    """maybe_download(filename, work_directory, source_url) as keras' get_file."""
    if call is None or _has_star(call) or len(call.args) > 3:
        raise Unsafe("not a plain maybe_download call")
    named = dict(zip(_DOWNLOAD_ARGS, call.args))
    named.update({k.arg: k.value for k in call.keywords})
    if set(named) != set(_DOWNLOAD_ARGS):
        raise Unsafe("maybe_download without its three arguments")
    text = {k: off.segment(v) for k, v in named.items()}
    return (
        f"{_root(table)}.keras.utils.get_file({text['filename']}, "
        f"origin={text['source_url']}, cache_dir={text['work_directory']}, "
        "cache_subdir='')"
    )


def gates(call: ast.Call | None, parents: dict) -> bool:
    """True if `call` (no arguments) is the whole test of an `assert` or `if`,
    or negated there: it only decides whether the program runs."""
    if call is None or call.args or call.keywords:
        return False
    node, parent = call, parents.get(id(call))
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        node, parent = parent, parents.get(id(parent))
    return isinstance(parent, ast.Assert | ast.If) and parent.test is node


def edits(f, table, off: Offsets, calls: dict, parents: dict, emg: str, full_node):
    """The edits rewriting finding `f` (see `handles`).

    Raises:
      Unsafe: when this use has no exact rewrite.
    """
    call = calls.get(id(f.node))
    if f.api == GPU_PROBE:
        if not gates(call, parents):
            raise Unsafe("the probe's value is used, not only checked")
        return [off.replace(call, f"{emg}.devices.available()")]
    if f.api == MAYBE_DOWNLOAD:
        node = full_node(f.node, f.api, table, parents)
        call = calls.get(id(node))
        return [off.replace(call, _download_text(call, off, table))] if call else []
    if f.api == UID_LIST_API:
        return [off.replace(full_node(f.node, f.api, table, parents), UID_LIST)]
    name = _named(f.api)
    node = full_node(f.node, f.api if learn_key(f.api) else name, table, parents)
    check_call(name, calls.get(id(node)))
    return [off.replace(node, f"{emg}.{EMG_NAMES[name]}")]


def replacement(api: str) -> str:
    """The finding text: what `--fix` writes for `api`."""
    if api == UID_LIST_API:
        return f"{UID_LIST} (contrib's list, written out; --fix writes it)"
    return f"emg.{EMG_NAMES[_named(api)]} (same arguments; emg-migrate --fix writes it)"
