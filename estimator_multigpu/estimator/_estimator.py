"""`Estimator`: tf.estimator's train/evaluate/predict/export on tf.compat.v1."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import _model_fn
from estimator_multigpu.estimator import (
    _checkpoints,
    _compat,
    _damaged,
    _evaluate,
    _model_fn_args,
    _predict,
    _saved_model,
    _train,
)
from estimator_multigpu.estimator._run_config import (
    RunConfig,
    get_default_session_config,
)
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys


class Estimator:
    """Trains, evaluates, predicts with and exports a `model_fn`.

    A drop-in for `tf.estimator.Estimator` (same arguments, defaults,
    checkpoints and event files) that also runs where tf.estimator is gone.
    A `RunConfig` with `devices` or `num_gpus` replicates the `model_fn` over
    those devices with `replicate_model_fn`.
    """

    def __init__(
        self,
        model_fn: Callable[..., EstimatorSpec],
        model_dir: str | os.PathLike | None = None,
        config: RunConfig | None = None,
        params: dict | None = None,
        warm_start_from=None,
    ):
        """Builds an Estimator.

        Args:
          model_fn: `model_fn(features, labels, mode, params, config)` (any
            subset of those argument names, `features` first) returning an
            `EstimatorSpec`.
          model_dir: where checkpoints and event files go; None: the
            `config`'s, or a new temporary folder.
          config: a `RunConfig` (or, on TF 2.15, tf.estimator's own); its
            `devices`/`num_gpus`/`train_distribute` replicate the model_fn.
          params: hyper-parameters passed to the model_fn as `params`
            (deep-copied).
          warm_start_from: a checkpoint path, a SavedModel folder or a
            `WarmStartSettings` to initialise variables from.

        Raises:
          TypeError: for a non-callable `model_fn` or a `config` that is not a
            `RunConfig`.
          ValueError: for a bad `model_fn` signature, a `model_dir` that is a
            file or differs from `config.model_dir`.
        """
        _assert_members_not_overridden(type(self))
        self._config = _merge_config(config, model_dir)
        _model_fn_args.verify_model_fn_args(model_fn, params)
        self._session_config = self._config.session_config
        self._model_fn = model_fn
        self._replicated_model_fn = None
        self._params = copy.deepcopy(params or {})
        self._model = _model_fn_args.BoundModel(
            call=self._call_model_fn,
            warm_start_settings=_checkpoints.warm_start_settings(warm_start_from),
        )
        tf.get_logger().info("Using config: %s", self._config)

    @property
    def model_dir(self) -> str:
        return self._config.model_dir

    @property
    def config(self) -> RunConfig:
        return copy.deepcopy(self._config)

    @property
    def params(self) -> dict:
        return copy.deepcopy(self._params)

    @property
    def model_fn(self) -> Callable:
        """The model_fn, bound to this Estimator's params and config."""

        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config=config)

        return public_model_fn

    def latest_checkpoint(self) -> str | None:
        """The latest checkpoint in `model_dir`, or None."""
        return _checkpoints.latest_checkpoint(self.model_dir)

    def get_variable_names(self) -> list[str]:
        """Names of the variables in the latest checkpoint."""
        path = _checkpoints.require_checkpoint(self.model_dir)
        with _damaged.explain_restore_errors(path):
            return [name for name, _ in tf.train.list_variables(path)]

    def get_variable_value(self, name: str):
        """Value (numpy) of variable `name` in the latest checkpoint."""
        path = _checkpoints.require_checkpoint(self.model_dir)
        with _damaged.explain_restore_errors(path):
            return tf.train.load_variable(path, name)

    def eval_dir(self, name: str | None = None) -> str:
        """Where `evaluate(name=name)` writes its event files."""
        return _evaluate.eval_dir(self.model_dir, name)

    def train(
        self,
        input_fn: Callable,
        hooks: Sequence | None = None,
        steps: int | None = None,
        max_steps: int | None = None,
        saving_listeners: Sequence | None = None,
    ) -> Estimator:
        """Trains on `input_fn` until it ends, `steps` more or `max_steps` total.

        Resumes from the latest checkpoint in `model_dir` and saves one at the
        end. Returns `self`.
        """
        _train.train(
            self, self._model, input_fn, hooks, steps, max_steps, saving_listeners
        )
        return self

    def evaluate(
        self,
        input_fn: Callable,
        steps: int | None = None,
        hooks: Sequence | None = None,
        checkpoint_path: str | None = None,
        name: str | None = None,
    ) -> dict:
        """Evaluates until `input_fn` ends (or `steps`); returns the metrics."""
        return _evaluate.evaluate(
            self, self._model, input_fn, steps, hooks, checkpoint_path, name
        )

    def predict(
        self,
        input_fn: Callable,
        predict_keys: Sequence[str] | None = None,
        hooks: Sequence | None = None,
        checkpoint_path: str | None = None,
        yield_single_examples: bool = True,
    ) -> Iterator[Any]:
        """Yields predictions (per example by default) until `input_fn` ends."""
        return _predict.predict(
            self,
            self._model,
            input_fn,
            predict_keys,
            hooks,
            checkpoint_path,
            yield_single_examples,
        )

    def export_saved_model(
        self,
        export_dir_base: str,
        serving_input_receiver_fn: Callable,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        experimental_mode: str = ModeKeys.PREDICT,
    ) -> bytes:
        """Writes a timestamped SavedModel under `export_dir_base`; returns its path."""
        return _saved_model.export_saved_model(
            self,
            self._model,
            export_dir_base,
            serving_input_receiver_fn,
            assets_extra,
            as_text,
            checkpoint_path,
            experimental_mode,
        )

    def export_savedmodel(
        self,
        export_dir_base: str,
        serving_input_receiver_fn: Callable,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        strip_default_attrs: bool = False,
    ) -> bytes:
        """The older name of `export_saved_model` (predict graph only).

        As tf.estimator's, it keeps default-valued attributes in the graph
        unless `strip_default_attrs=True` (`export_saved_model` always strips
        them).
        """
        return _saved_model.export_saved_model(
            self,
            self._model,
            export_dir_base,
            serving_input_receiver_fn,
            assets_extra,
            as_text,
            checkpoint_path,
            strip_default_attrs=strip_default_attrs,
        )

    def experimental_export_all_saved_models(
        self,
        export_dir_base: str,
        input_receiver_fn_map: dict,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
    ) -> bytes:
        """One SavedModel with a MetaGraph for each mode of the map.

        Args:
          input_receiver_fn_map: `{ModeKeys.TRAIN: supervised_receiver_fn,
            ModeKeys.EVAL: ..., ModeKeys.PREDICT: serving_receiver_fn}`.
        """
        return _saved_model.export_all_saved_models(
            self,
            self._model,
            export_dir_base,
            input_receiver_fn_map,
            assets_extra,
            as_text,
            checkpoint_path,
        )

    def _call_model_fn(self, features, labels, mode, config=None, replicate=True):
        """Calls the (replicated, unless `replicate=False`) model_fn."""
        model_fn = self._model_fn
        if replicate:
            if self._replicated_model_fn is None:
                self._replicated_model_fn = _model_fn_args.maybe_replicate(
                    self._model_fn, self._config
                )
            model_fn = self._replicated_model_fn
        with _model_fn_args.explain_per_device_errors(features, labels, model_fn):
            tf.get_logger().info("Calling model_fn.")
            spec = _model_fn.call_model_fn(
                model_fn, features, labels, mode, self.params, config or self.config
            )
            tf.get_logger().info("Done calling model_fn.")
            return spec


def model_of(estimator: Estimator) -> _model_fn_args.BoundModel:
    """What `estimator` passes to the train/evaluate/predict/export modules."""
    return estimator._model


def _assert_members_not_overridden(cls: type) -> None:
    """tf.estimator's rule: subclasses may not override the public methods.

    Raises:
      ValueError: naming the overridden members.
    """
    # A drop-in that wraps these members itself (TPUEstimator) is the base
    # its own subclasses are held to.
    base = next(c for c in cls.__mro__ if c is Estimator or "_public_base" in vars(c))
    if cls is base:
        return
    public = {name for name in dir(base) if not name.startswith("_")}
    overridden = sorted(
        name
        for name in public - {"model_fn", "latest_checkpoint"}
        if getattr(cls, name) is not getattr(base, name)
    )
    if overridden:
        raise ValueError(
            f"Subclasses of {base.__name__} cannot override members of "
            f"{base.__name__}. {cls} "
            f"does override {overridden} (wrap the Estimator instead)."
        )


def _merge_config(config: RunConfig | None, model_dir) -> RunConfig:
    """`config` with `model_dir` and a default session config filled in."""
    if config is None:
        tf.get_logger().info("Using default config.")
        config = RunConfig()
    config = _compat.as_emg_run_config(config)
    if not isinstance(config, RunConfig):
        raise ValueError(
            f"config must be an instance of `RunConfig`, but provided {config!r} "
            "(pass an emg.estimator.RunConfig)."
        )
    if config.session_config is None:
        config = config.replace(session_config=get_default_session_config())
    if model_dir is not None:
        model_dir = _checkpoints.as_path(model_dir, "model_dir")
        if config.model_dir is not None and config.model_dir != model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with "
                f"different values. In constructor: '{model_dir}', in `RunConfig`: "
                f"'{config.model_dir}' "
            )
    model_dir = _checkpoints.resolve_model_dir(model_dir or config.model_dir)
    return config.replace(model_dir=model_dir)
