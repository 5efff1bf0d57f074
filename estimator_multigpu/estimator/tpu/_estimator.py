"""`TPUEstimator` with use_tpu=False, on one or several GPUs (or CPUs)."""

from __future__ import annotations

import copy
import dataclasses
import math
import weakref
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import towers
from estimator_multigpu._model_fn import fn_args
from estimator_multigpu.estimator import _finite_saver
from estimator_multigpu.estimator._estimator import Estimator
from estimator_multigpu.estimator._spec import ModeKeys
from estimator_multigpu.estimator.tpu import _config, _host_calls, _spec
from estimator_multigpu.estimator.tpu._hooks import ExamplesPerSecondHook

BATCH_SIZE_KEY = "batch_size"
CTX_KEY = "context"
USE_TPU_KEY = "use_tpu"
RESERVED_PARAMS_KEYS = [BATCH_SIZE_KEY, CTX_KEY]

_NO_TPU = (
    "TPUEstimator(use_tpu=True) needs a TPU, and emg.estimator.tpu runs "
    "TPUEstimator code on GPUs and CPUs only. Pass use_tpu=False (the "
    "`--use_tpu=False` of such scripts); for several GPUs add "
    "config=emg.estimator.tpu.RunConfig(num_gpus=N) (or devices=[...]): each "
    "global batch is then split over the devices. On a TPU, use "
    "tf.distribute.TPUStrategy instead."
)


@dataclasses.dataclass
class _Call:
    """What one model_fn call (all its towers) shares."""

    mode: str
    export: bool
    towers: int
    host_calls: list = dataclasses.field(default_factory=list)


def add_item_to_params(params, key: str, value) -> None:
    """`params[key] = value`, for a dict or an `HParams`."""
    if hasattr(params, "set_hparam"):
        if key in params:
            params.set_hparam(key, value)
        else:
            params.add_hparam(key, value)
    else:
        params[key] = value


def _check_config(config) -> None:
    if config is None or not isinstance(config, _config.RunConfig):
        raise ValueError(
            "`config` must be provided with type `tpu_config.RunConfig` (pass "
            f"emg.estimator.tpu.RunConfig(...); received {config!r})."
        )


def _check_params(params) -> None:
    if params is not None and any(k in params for k in RESERVED_PARAMS_KEYS):
        raise ValueError(
            f"{RESERVED_PARAMS_KEYS} are reserved keys but existed in params "
            f"{params}. TPUEstimator sets params['batch_size'] itself, from "
            "train_batch_size/eval_batch_size/predict_batch_size: pass the batch "
            "sizes there and drop these keys from params."
        )


def _check_takes_params(fn: Callable, what: str) -> None:
    if "params" not in fn_args(fn):
        raise ValueError(
            f"{what} ({fn}) does not include params argument, required by "
            "TPUEstimator to pass batch size as params['batch_size']"
        )


def _check_api_version(version) -> None:
    if version not in (1, 2):
        raise ValueError(
            f"export_saved_model_api_version should be 1 or 2; got {version}."
        )


def _logging_rate(config, iterations_per_loop) -> tuple:
    """`(every_n_steps, every_n_secs)` of the examples hook, TPUEstimator's rule."""
    every_n_steps = config.log_step_count_steps
    counter = _config.parse_iterations_per_loop(iterations_per_loop)
    if counter.unit == "seconds":
        return None, counter.value
    if every_n_steps is not None:
        every_n_steps = int(math.ceil(float(every_n_steps) / counter.value))
    return every_n_steps, None


class TPUEstimator(Estimator):
    """`tf.compat.v1.estimator.tpu.TPUEstimator` with `use_tpu=False`, on N devices.

    Runs as TPUEstimator(use_tpu=False) does on one device: the `input_fn`
    and `model_fn` get `params['batch_size']` (the global batch size of the
    mode: `train_batch_size`, `eval_batch_size` or `predict_batch_size`;
    not set when that is None or in exports) and the model_fn
    `params['use_tpu'] = False`; a `TPUEstimatorSpec` runs through its
    `as_estimator_spec()`. A config with `devices` or `num_gpus` runs the
    model_fn as towers (`emg.replicate_model_fn`): the input_fn still makes
    the global batch, each tower's model_fn gets its share and
    `params['batch_size']` = global // devices (a TPU core's shard),
    gradients are averaged, `eval_metrics` merged exactly, and the
    `host_call` runs once on its tensors concatenated over the towers.
    """

    _public_base = True  # Its subclasses may not override what it wraps.

    def __init__(
        self,
        model_fn: Callable | None = None,
        model_dir=None,
        config: _config.RunConfig | None = None,
        params: dict | None = None,
        use_tpu: bool = True,
        train_batch_size: int | None = None,
        eval_batch_size: int | None = None,
        predict_batch_size: int | None = None,
        batch_axis=None,
        eval_on_tpu: bool = True,
        export_to_tpu: bool = True,
        export_to_cpu: bool = True,
        warm_start_from=None,
        embedding_config_spec=None,
        export_saved_model_api_version=1,
    ):
        """Builds a TPUEstimator; TPUEstimator's arguments, in its order.

        Args:
          model_fn: `model_fn(features, labels, mode, params, config)`
            returning a `TPUEstimatorSpec` or an `EstimatorSpec`; must take
            `params`.
          model_dir: as `emg.estimator.Estimator`'s.
          config: an `emg.estimator.tpu.RunConfig` (required, as in TF).
          params: hyper-parameters; `batch_size` and `context` are reserved.
          use_tpu: must be False (True raises: there is no TPU here).
          train_batch_size, eval_batch_size, predict_batch_size: global
            batch sizes per mode, given to the input_fn and model_fn as
            `params['batch_size']`.
          batch_axis, eval_on_tpu, export_to_tpu: accepted; TPU-only.
          export_to_cpu: must be True: the export is the CPU/GPU graph.
          warm_start_from: as `emg.estimator.Estimator`'s.
          embedding_config_spec: must be None (TPU embeddings need a TPU).
          export_saved_model_api_version: 1 or 2 (both export the same graph
            off TPU).

        Raises:
          ValueError: for `use_tpu=True`, a missing or wrong `config`,
            reserved `params` keys, a model_fn without `params`, or the
            TPU-only options above.
        """
        _check_config(config)
        _check_params(params)
        if use_tpu:
            raise ValueError(f"{_NO_TPU} (received use_tpu={use_tpu!r})")
        _check_tpu_only(embedding_config_spec, export_to_cpu)
        _check_api_version(export_saved_model_api_version)
        if model_fn is not None:
            _check_takes_params(model_fn, "model_fn")
        self._user_model_fn = model_fn
        self._log_every = _logging_rate(config, config.tpu_config.iterations_per_loop)
        self._batch_sizes = {
            ModeKeys.TRAIN: train_batch_size,
            ModeKeys.EVAL: eval_batch_size,
            ModeKeys.PREDICT: predict_batch_size,
        }
        self._input_graphs = weakref.WeakSet()
        self._call = None
        super().__init__(
            model_fn=self._tower_model_fn if model_fn is not None else None,
            model_dir=model_dir,
            config=config.replace(log_step_count_steps=None),
            params=params or {},
            warm_start_from=warm_start_from,
        )
        self._export_to_tpu = export_to_tpu
        self._export_saved_model_api_version = export_saved_model_api_version

    def train(
        self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None
    ):
        """`Estimator.train`, the input_fn given `params['batch_size']`."""
        return super().train(
            self._input_fn(input_fn), hooks, steps, max_steps, saving_listeners
        )

    def evaluate(
        self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None
    ):
        """`Estimator.evaluate`, the input_fn given `params['batch_size']`."""
        return super().evaluate(
            self._input_fn(input_fn), steps, hooks, checkpoint_path, name
        )

    def predict(
        self,
        input_fn,
        predict_keys=None,
        hooks=None,
        checkpoint_path=None,
        yield_single_examples=True,
    ):
        """`Estimator.predict`, the input_fn given `params['batch_size']`."""
        return super().predict(
            self._input_fn(input_fn),
            predict_keys,
            hooks,
            checkpoint_path,
            yield_single_examples,
        )

    def _input_fn(self, input_fn: Callable) -> Callable:
        """`input_fn` called as TPUEstimator calls it off TPU."""
        if not callable(input_fn):
            return input_fn  # Estimator's own check names the fix.
        _check_takes_params(input_fn, "input_fn")
        wanted = fn_args(input_fn)

        def tpu_input_fn(mode, config):
            self._input_graphs.add(tf.compat.v1.get_default_graph())
            params = self.params
            kwargs = {"params": params}
            if "config" in wanted:
                kwargs["config"] = config
            if "mode" in wanted:
                kwargs["mode"] = mode
            batch_size = self._batch_sizes.get(mode)
            if batch_size is not None:
                add_item_to_params(params, BATCH_SIZE_KEY, batch_size)
            return input_fn(**kwargs)

        tpu_input_fn.__qualname__ = getattr(input_fn, "__qualname__", "input_fn")
        tpu_input_fn.__module__ = getattr(input_fn, "__module__", None)
        return tpu_input_fn

    def _call_model_fn(self, features, labels, mode, config=None, replicate=True):
        """The (replicated) model_fn, then the host_call over all towers."""
        graph = tf.compat.v1.get_default_graph()
        devices = self._config.compute_devices if replicate else None
        if devices is not None and len(devices) == 1:
            # As TPUEstimator(use_tpu=False) ran: unpinned, so the saver
            # writes one shard (pinned variables and the global step would
            # make two), the checkpoint layout scripts rename by hand.
            replicate, devices = False, None
        self._call = _Call(
            mode=mode,
            export=graph not in self._input_graphs,
            towers=len(devices or [None]),
        )
        try:
            spec = super()._call_model_fn(features, labels, mode, config, replicate)
            host = "/cpu:0" if devices and len(devices) > 1 else None
            spec = _host_calls.attach(spec, self._call.host_calls, host)
            if devices and mode == ModeKeys.TRAIN:
                _add_one_shard_saver(self._config)
        finally:
            self._call = None
        return self._with_examples_hook(spec, mode)

    def _with_examples_hook(self, spec, mode):
        every_n_steps, every_n_secs = self._log_every
        if every_n_steps is None and every_n_secs is None:
            return spec
        config = self._config
        hook = ExamplesPerSecondHook(
            self._batch_sizes.get(mode),
            every_n_steps=every_n_steps,
            every_n_secs=every_n_secs,
            output_dir=self.model_dir if config.save_summary_steps else None,
        )
        return spec._replace(training_hooks=tuple(spec.training_hooks) + (hook,))

    def _tower_model_fn(self, features, labels, mode, params, config):
        """The user's model_fn in one tower, its spec as an `EstimatorSpec`."""
        call = self._call
        params = copy.deepcopy(params)
        batch_size = None if call.export else self._batch_sizes.get(mode)
        if batch_size is not None:
            add_item_to_params(params, BATCH_SIZE_KEY, batch_size // call.towers)
        add_item_to_params(params, USE_TPU_KEY, False)
        spec = _call_user_model_fn(
            self._user_model_fn, features, labels, mode, params, config
        )
        if not isinstance(spec, _spec.TPUEstimatorSpec):
            return spec
        return _tower_spec(spec, call)


def _add_one_shard_saver(config) -> None:
    """The Estimator's saver, writing one shard as TPUEstimator's checkpoints are.

    TPUEstimator's variables live on one host, so its checkpoints are
    `model.ckpt-N.data-00000-of-00001`, which scripts (ALBERT's
    run_classifier) rename by name; a sharded saver over towers' devices
    would write one file per device.
    """
    if tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS):
        return
    saver = _finite_saver.FiniteSaver(
        sharded=False,
        max_to_keep=config.keep_checkpoint_max,
        keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
        defer_build=True,
        save_relative_paths=True,
    )
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, saver)


def _check_tpu_only(embedding_config_spec, export_to_cpu) -> None:
    if embedding_config_spec is not None:
        raise ValueError(
            "TPUEstimator `embedding_config_spec` sets up TPU embeddings, which "
            f"need a TPU (received {embedding_config_spec!r}). Off TPU, look "
            "embeddings up in the model_fn (tf.nn.embedding_lookup or "
            "feature columns) and pass embedding_config_spec=None."
        )
    if not export_to_cpu:
        raise ValueError(
            "TPUEstimator(export_to_cpu=False) would export a TPU graph only; "
            "off TPU the export is the CPU/GPU graph, so pass "
            "export_to_cpu=True (the default)."
        )


def _call_user_model_fn(model_fn, features, labels, mode, params, config):
    """Calls `model_fn` with the arguments it takes, as TPUEstimator does."""
    args = fn_args(model_fn)
    kwargs = {}
    if "labels" in args:
        kwargs["labels"] = labels
    elif labels is not None:
        raise ValueError(
            "model_fn does not take labels, but input_fn returns labels. Add "
            "a `labels` argument to the model_fn, or return features only."
        )
    for name, value in (("mode", mode), ("config", config), ("params", params)):
        if name in args:
            kwargs[name] = value
    return model_fn(features=features, **kwargs)


def _tower_spec(spec: _spec.TPUEstimatorSpec, call: _Call):
    """`spec.as_estimator_spec()` for one tower; its host_call kept for later.

    The scaffold_fn runs in tower 0 only (the towers share its variables).
    """
    eval_metric_ops = None
    if spec.eval_metrics is not None:
        eval_metric_ops = _spec.call_host_fn("eval_metrics", spec.eval_metrics)
    if spec.host_call is not None:
        call.host_calls.append(spec.host_call)
    scaffold = _spec.call_scaffold(spec) if towers.tower_index() == 0 else None
    return _spec.to_estimator_spec(spec, eval_metric_ops, (), scaffold)
