"""The evaluator task of a cluster: each new checkpoint evaluated until `max_steps`."""

from __future__ import annotations

import time

import tensorflow as tf

from estimator_multigpu.estimator._eval_listener import Evaluator

_POLL_SECS = 0.5


def run_evaluator(estimator, train_spec, eval_spec) -> None:
    """Evaluates each new checkpoint until one reaches `max_steps`."""
    if eval_spec.start_delay_secs:
        tf.get_logger().info(
            "Waiting %f secs before starting eval.", eval_spec.start_delay_secs
        )
        time.sleep(eval_spec.start_delay_secs)
    evaluator = Evaluator(estimator, eval_spec, train_spec.max_steps)
    watch = CheckpointWatch(estimator)
    max_steps = train_spec.max_steps
    while True:
        start = time.time()
        metrics = None
        checkpoint = watch.new_checkpoint()
        if checkpoint:
            metrics = _evaluate_latest(estimator, evaluator)
            watch.evaluated(checkpoint if metrics is not None else None)
        global_step = (metrics or {}).get(tf.compat.v1.GraphKeys.GLOBAL_STEP)
        if global_step and max_steps and global_step >= max_steps:
            tf.get_logger().info(
                "Exiting evaluation, global_step=%s >= train max_steps=%s",
                global_step,
                max_steps,
            )
            return
        throttle(eval_spec.throttle_secs - (time.time() - start), metrics)


class CheckpointWatch:
    """Tells a new checkpoint; while there is none, warns every 10 minutes.

    The evaluator polls often; tf.estimator's warnings ("not trained yet",
    "no new checkpoint") are logged once, then at most every 600 seconds.
    """

    _WARN_EVERY_SECS = 600

    def __init__(self, estimator):
        self._estimator = estimator
        self._evaluated = None
        self._last_warning = None

    def new_checkpoint(self) -> str | None:
        """The latest checkpoint if not yet evaluated, else None."""
        latest = self._estimator.latest_checkpoint()
        if latest and latest != self._evaluated:
            return latest
        if not latest:
            self._warn(
                "Estimator is not trained yet. Will start an evaluation when a "
                "checkpoint is ready."
            )
        else:
            self._warn(
                "No new checkpoint ready for evaluation. Skip the current "
                "evaluation pass as evaluation results are expected to be same "
                "for the same checkpoint."
            )
        return None

    def evaluated(self, checkpoint: str | None) -> None:
        """Records an evaluated checkpoint (None: it was skipped)."""
        if checkpoint:
            self._evaluated = checkpoint
            self._last_warning = None

    def _warn(self, message: str) -> None:
        now = time.monotonic()
        last = self._last_warning
        if last is None or now - last > self._WARN_EVERY_SECS:
            tf.get_logger().warning(message)
            self._last_warning = now


def _evaluate_latest(estimator, evaluator) -> dict | None:
    """Metrics of the newest checkpoint; None if none is new or it was rotated.

    The chief deletes old checkpoints (`keep_checkpoint_max`) while the
    evaluator reads them: one deleted under it is skipped, with a warning,
    for the newer one; any other unreadable checkpoint still raises.
    """
    checkpoint = estimator.latest_checkpoint()
    try:
        metrics, _ = evaluator.evaluate_and_export()
    except (tf.errors.NotFoundError, tf.errors.DataLossError):
        if not checkpoint or not _rotated(estimator, checkpoint):
            raise
        tf.get_logger().warning(
            "Checkpoint %s was deleted (keep_checkpoint_max) before it could "
            "be evaluated; evaluating the newer %s next.",
            checkpoint,
            estimator.latest_checkpoint(),
        )
        return None
    return metrics


def _rotated(estimator, checkpoint: str) -> bool:
    """Whether `checkpoint` is gone and a newer one took its place."""
    gone = not tf.io.gfile.exists(checkpoint + ".index")
    latest = estimator.latest_checkpoint()  # None when its files are missing.
    return gone and latest is not None and latest != checkpoint


def throttle(difference: float, metrics) -> None:
    """Waits out the throttle (`difference` seconds left of it); polls gently
    while no checkpoint is new (`metrics` None: nothing was evaluated)."""
    if difference > 0:
        tf.get_logger().info(
            "Waiting %f secs before starting next eval run.", difference
        )
        time.sleep(difference)
    elif metrics is None:
        time.sleep(_POLL_SECS)
