"""Advice texts say what keeps the program's meaning: one_hot labels, simulated
devices, and replicate_model_fn's Reduction.NONE (refused, as contrib did)."""

import numpy as np
import pytest

from estimator_multigpu.migrate import _runner


def _findings(tmp_path, text, rule_id):
    path = tmp_path / "train.py"
    path.write_text(text)
    result = _runner.process(str(path))
    return result, [f for f in result.findings if f.rule.rule_id == rule_id]


MNIST = "from tensorflow.examples.tutorials.mnist import input_data\n"


@pytest.mark.parametrize(
    "call, labels",
    [
        ("input_data.read_data_sets('d', one_hot=True)", "tf.one_hot(y_train, 10)"),
        (
            "input_data.read_data_sets('d', one_hot=hot)",
            "tf.one_hot(y_train, 10) if hot else y_train",
        ),
        ("input_data.read_data_sets('d')", "y_train"),
    ],
    ids=["one_hot", "one_hot_flag", "class_ids"],
)
def test_input_data_advice_keeps_the_label_encoding(tmp_path, call, labels):
    _, (hit,) = _findings(tmp_path, f"{MNIST}mnist = {call}\n", "tf-examples")
    advice = hit.rule.replacement
    assert f"x_train.reshape(-1, 784).astype('float32') / 255.0, {labels}))" in advice


def test_the_one_hot_advice_gives_read_data_sets_labels():
    import tensorflow as tf

    y_train = np.array([3, 0], np.uint8)
    got = tf.one_hot(y_train, 10).numpy()
    want = np.zeros((2, 10), np.float32)
    want[0, 3] = want[1, 0] = 1.0  # what read_data_sets(one_hot=True) returned
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32


def test_is_gpu_available_advice_accepts_simulated_devices(tmp_path):
    text = "import tensorflow as tf\nif not tf.test.is_gpu_available():\n    raise SystemExit\n"
    _, (hit,) = _findings(tmp_path, text, "device-lib")
    advice = hit.rule.replacement
    assert advice.startswith("emg.devices.resolve()")
    assert "False on simulated devices" in advice


def test_is_gpu_available_first_replacement_is_true_on_simulated_devices():
    import estimator_multigpu as emg

    devices = emg.devices.resolve()
    assert len(devices) > 1  # conftest simulates 4 CPU devices; no GPU here


@pytest.mark.parametrize(
    "args",
    [
        "model_fn, tf.losses.Reduction.NONE",
        "model_fn, loss_reduction=tf.losses.Reduction.NONE",
        "model_fn, loss_reduction=tf.compat.v1.losses.Reduction.NONE, devices=d",
    ],
    ids=["positional", "keyword", "compat_keyword"],
)
def test_reduction_none_is_refused_with_the_reason(tmp_path, args):
    text = f"import tensorflow as tf\nf = tf.contrib.estimator.replicate_model_fn({args})\n"
    result, hits = _findings(tmp_path, text, "replicate-model-fn")
    assert len(hits) == 1 and not hits[0].fixed
    assert "'mean'" not in (result.rewritten or "")
    assert "replicate_model_fn(" in (result.rewritten or text)
    advice = hits[0].rule.replacement
    assert "Reduction.NONE" in advice and "contrib raised ValueError" in advice
    assert "loss_reduction='sum'" in advice and "loss_reduction='mean'" in advice


MODEL_FN_LOOP = """
import tensorflow as tf

def get_model_fn(num_gpus):
    def _model_fn(features, labels, mode, params):
        num_devices = num_gpus * 2
        tower_losses = []
        for i in range(num_devices):
            with tf.device('/gpu:%d' % i):
                tower_losses.append(tf.reduce_sum(features[i]))
        loss = tf.add_n(tower_losses)
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    return _model_fn
"""


def test_model_fn_loop_advice_never_names_a_local_at_the_estimator(tmp_path):
    _, hits = _findings(tmp_path, MODEL_FN_LOOP, "tower-loop")
    (loop,) = [f for f in hits if f.line == 8]
    advice = loop.rule.replacement
    assert "num_gpus=num_devices)" not in advice
    assert "emg.devices.resolve(num_gpus=N)" in advice
    assert "`num_devices` is a local of _model_fn (here num_gpus * 2)" in advice
