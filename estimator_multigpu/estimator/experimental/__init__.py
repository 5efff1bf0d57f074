"""`emg.estimator.experimental`: tf.estimator.experimental's hooks and helpers."""

from estimator_multigpu.estimator.experimental._early_stopping import (
    make_early_stopping_hook,
    read_eval_metrics,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from estimator_multigpu.estimator.experimental._in_memory import (
    InMemoryEvaluatorHook,
    make_stop_at_checkpoint_step_hook,
)
from estimator_multigpu.estimator.export import build_raw_supervised_input_receiver_fn

__all__ = [
    "InMemoryEvaluatorHook",
    "build_raw_supervised_input_receiver_fn",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]
