"""Inputs, towers, estimator, queues and the CIFAR-10 trainer under `disable_v2_behavior()`.

`tf.compat.v1.disable_v2_behavior()` is the usual TF1 port. Each module runs
in a fresh process that calls it before anything else (static shapes then
hold `Dimension`s, control flow is v1, variables are reference variables and
nothing runs eagerly). Tests that exercise eager execution itself (iterating
a dataset in Python, refusing an eager call, loading a SavedModel eagerly)
cannot run there and are deselected, each group with its reason.

Each module's rerun costs a fresh TensorFlow process, so all but the few in
`FAST` are marked `slow` (CI runs them with `-m slow`). A slow rerun runs the
whole module, its own slow tests too; a fast rerun runs what the default run
would (`-m "not slow"`), so a module with slow tests is never in `FAST`.
"""

import os
import subprocess
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_RUN = (
    "import sys, tensorflow as tf; tf.compat.v1.disable_v2_behavior(); "
    "import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *sys.argv[1:]]))"
)
# module -> `-k` expression leaving out the tests that need eager execution.
MODULES = {
    "test_inputs.py": "not eager_call_is_refused",  # Refuses eager calls.
    "test_inputs_order.py": None,
    "test_queues_api.py": (
        # These iterate datasets in Python, which needs eager execution.
        "not eager and not seed_makes_order_repeatable and not join_deterministic "
        "and not parallel_readers_deterministic and not allow_smaller_final_batch "
        "and not input_pipeline_matches_manual_chain"
    ),
    "test_queues_equivalence.py": None,
    "test_queues_prefetch_queue.py": None,  # slim ports run TF1-style graphs.
    "test_queues_raw.py": None,
    "test_towers_empty.py": None,
    "test_towers_split.py": None,
    "test_towers_gradients.py": None,
    "test_towers_aggregate.py": None,
    "test_towers_plain_optimizer.py": None,
    "test_towers_minimize.py": None,
    "test_towers_clones.py": None,  # slim model_deploy ports run TF1-style.
    "test_towers_all_towers_mean.py": None,
    "test_towers_eval_predict.py": None,
    "test_towers_errors.py": None,
    "test_towers_keras.py": None,  # mnist.py's Keras model per model_fn call.
    "test_towers_faults.py": None,
    "test_towers_custom_apply.py": None,  # AdamW-style apply_gradients subclasses.
    "test_estimator_save_faults.py": None,
    "test_estimator_inputs.py": None,  # numpy/pandas_input_fn read in graph sessions.
    # These load the SavedModel and call it eagerly.
    "test_estimator.py": "not exported_model_serves_predictions",
    "test_estimator_multidevice.py": "not export_after_two_device_training",
    "test_towers_estimator.py": None,
    "test_estimator_tpu.py": None,  # TPUEstimator code runs TF1-style.
    "test_placement.py": None,  # Where tower ops ran, from the step's trace.
    "test_devices_session_config.py": None,
    "test_estimator_sync_replicas_towers.py": None,  # TF1 SyncReplicasOptimizer.
    "test_estimator_learn.py": None,  # contrib.learn Experiment scripts run TF1-style.
    "test_estimator_ps_strategy.py": None,  # replica_device_setter graphs.
    # The warning test starts its own (v2) process.
    "test_estimator_global_step_read.py": "increment_waits",
    # The trainer end to end (the other tests check flags, not training).
    "test_cifar10_main.py": "two_devices",
    "test_tutorials_mnist.py": None,  # migrated scripts call the drop-ins in v1 mode.
    # Canned estimators and heads (reference variables, v1 lookup tables); the
    # 1 == 2 devices steps take a minute per case and run once, in v2 mode.
    "test_estimator_canned.py": "not two_devices_take_the_one_device_first_step",
    "test_estimator_heads.py": None,
}
# Reruns kept in the default run: the core split, a few seconds past the start.
FAST = {"test_towers_split.py"}


def _params():
    return [
        pytest.param(m, marks=[] if m in FAST else [pytest.mark.slow])
        for m in sorted(MODULES)
    ]


def _has_slow_tests(module: str) -> bool:
    return "pytest.mark.slow" in open(os.path.join(_ROOT, "tests", module)).read()


def test_a_fast_rerun_leaves_no_slow_test_of_its_module_out():
    """A fast rerun runs `-m "not slow"`: a module with slow tests would have
    them never run under disable_v2_behavior()."""
    assert FAST <= set(MODULES)
    assert [m for m in sorted(FAST) if _has_slow_tests(m)] == []


@pytest.mark.parametrize("module", _params())
def test_module_passes_with_v2_behaviour_disabled(module):
    # The `-m` of this run's addopts would reach the subprocess too.
    args = [os.path.join("tests", module), "-m", "not slow" if module in FAST else ""]
    if MODULES[module]:
        args += ["-k", MODULES[module]]
    result = subprocess.run(
        [sys.executable, "-c", _RUN, *args],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
