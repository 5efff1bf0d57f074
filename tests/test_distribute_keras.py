"""emg.distribute dataset_fns under Keras fit: Keras 3 and Keras 2's DatasetCreator."""

import json
import os
import subprocess
import sys
import threading

import keras
import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu.distribute as ed

pytestmark = pytest.mark.tf_compat


def mirrored():
    """MirroredStrategy on 2 logical CPUs, without collective ops.

    Every MirroredStrategy numbers its collective ops from the same keys, so
    two of them in one process that all-reduce different shapes collide
    ("Shape mismatch in the collective instance 100"); tests make many.
    """
    return tf.distribute.MirroredStrategy(
        ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.ReductionToOneDevice()
    )


MODES = ["per_worker", "per_replica"]
FIT_MODES = {
    "per_worker": {},
    "per_replica": {"replication_mode": "per_replica"},
    "on_device": {"replication_mode": "per_replica", "place_dataset_on_device": True},
}


def examples(ctx, num_examples):
    """`num_examples` examples `((x, id), 3x + 1)`, x in {0, 1}."""
    ids = tf.range(num_examples, dtype=tf.int64)
    x = tf.cast(tf.reshape(ids % 2, [-1, 1]), tf.float32)
    return tf.data.Dataset.from_tensor_slices(((x, ids), 3.0 * x + 1.0))


class Recorder:
    """Collects the example ids each replica trains on, per epoch."""

    def __init__(self):
        self.lock, self.epochs, self.current = threading.Lock(), [], []

    def record(self, ids):
        with self.lock:
            self.current.extend(ids.tolist())
        return np.int64(0)

    def end_epoch(self):
        self.epochs.append(sorted(self.current))
        self.current = []


def make_model(keras, recorder):
    class IdModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs[0])

        def train_step(self, data):
            tf.numpy_function(recorder.record, [data[0][1]], tf.int64)
            return super().train_step(data)

    return IdModel()


def epoch_callback(keras, recorder):
    return keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: recorder.end_epoch()
    )


KERAS_3 = int(keras.__version__.split(".")[0]) >= 3
# (examples, shuffle/batch settings, fit arguments): a finite pass per epoch
# (Keras 3 only: Keras 2 needs steps_per_epoch for distributed datasets), and
# a repeated dataset with steps_per_epoch (both).
FITS = {
    "finite": (22, {}, {}),
    "repeated": (24, {"num_epochs": None}, {"steps_per_epoch": 3}),
}


@pytest.mark.parametrize("mode", sorted(FIT_MODES), ids=sorted(FIT_MODES))
@pytest.mark.parametrize("fit", sorted(FITS), ids=sorted(FITS))
def test_keras_fit_sees_each_example_once_per_epoch(mode, fit):
    num_examples, settings, fit_kwargs = FITS[fit]
    if fit == "finite" and not KERAS_3:
        pytest.skip("Keras 2 fit needs steps_per_epoch with a distributed dataset")
    strategy = mirrored()
    recorder = Recorder()
    dataset = ed.distribute_dataset_fn(
        lambda ctx: examples(ctx, num_examples),
        strategy,
        global_batch_size=8,
        options=ed.input_options(strategy, **FIT_MODES[mode]),
        shuffle_buffer_size=32,
        seed=1,
        **settings,
    )
    with strategy.scope():
        model = make_model(keras, recorder)
        model.compile(keras.optimizers.SGD(0.1), "mse")
    history = model.fit(
        dataset,
        epochs=3,
        verbose=0,
        callbacks=[epoch_callback(keras, recorder)],
        **fit_kwargs,
    )
    assert recorder.epochs == [list(range(num_examples))] * 3
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.fixture(scope="module")
def keras2_runs():
    """Both modes through Keras 2 `fit(DatasetCreator)`, in one fresh process.

    TF_USE_LEGACY_KERAS must be set before TensorFlow is imported; on TF 2.15
    tf.keras is Keras 2 already.
    """
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    if KERAS_3:  # TF 2.16+: Keras 2 is the tf-keras package.
        env["TF_USE_LEGACY_KERAS"] = "1"
    result = subprocess.run(
        [sys.executable, __file__, *MODES],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # a fresh TensorFlow process
@pytest.mark.parametrize("mode", MODES, ids=MODES)
def test_keras2_dataset_creator_sees_each_example_once(keras2_runs, mode):
    out = keras2_runs[mode]
    assert out["keras"].endswith("_v2.keras")  # Keras 2, not Keras 3
    # 2 epochs of 2 steps of 8 = one pass over the 32 examples, each once.
    assert len(out["epochs"][0]) == 16
    assert sorted(out["epochs"][0] + out["epochs"][1]) == list(range(32))
    assert np.isfinite(out["loss"]).all()


def _keras2_fit(mode):
    """Keras 2 `fit(DatasetCreator)` of 2 epochs x 2 steps x 8 of 32 examples."""
    keras = tf.keras
    strategy = mirrored()
    options = ed.input_options(strategy, replication_mode=mode)
    recorder = Recorder()
    dataset_fn = ed.per_replica_dataset_fn(
        lambda ctx: examples(ctx, 32),
        strategy,
        global_batch_size=8,
        options=options,
        shuffle_buffer_size=32,
        seed=1,
        num_epochs=None,
        drop_remainder=True,
    )
    with strategy.scope():
        model = make_model(keras, recorder)
        model.compile(keras.optimizers.SGD(0.1), "mse")
    creator = keras.utils.experimental.DatasetCreator(dataset_fn, input_options=options)
    history = model.fit(
        creator,
        epochs=2,
        steps_per_epoch=2,
        verbose=0,
        callbacks=[epoch_callback(keras, recorder)],
    )
    return {
        "keras": keras.__name__,
        "epochs": recorder.epochs,
        "loss": history.history["loss"],
    }


if __name__ == "__main__":  # The Keras 2 child process of keras2_runs.
    from estimator_multigpu import devices

    devices.simulate(2)
    print(json.dumps({mode: _keras2_fit(mode) for mode in sys.argv[1:]}))
