"""emg.tf_slim(): tf_slim 1.1's data modules decode records on today's TF."""

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import _slim_compat


def _example(image: np.ndarray, label: int) -> bytes:
    png = tf.io.encode_png(image).numpy()
    feature = {
        "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png])),
        "image/format": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"png"])),
        "image/class/label": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[label])
        ),
    }
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    return example.SerializeToString()


def _decoder(slim):
    keys = {
        "image/encoded": tf.io.FixedLenFeature((), tf.string, default_value=""),
        "image/format": tf.io.FixedLenFeature((), tf.string, default_value="png"),
        "image/class/label": tf.io.FixedLenFeature((), tf.int64, default_value=0),
    }
    items = {
        "image": slim.tfexample_decoder.Image(shape=[4, 5, 3], channels=3),
        "label": slim.tfexample_decoder.Tensor("image/class/label"),
    }
    return slim.tfexample_decoder.TFExampleDecoder(keys, items)


def test_tf_slim_is_the_module_and_exported():
    import tf_slim

    assert emg.tf_slim is _slim_compat.tf_slim
    assert emg.tf_slim() is tf_slim


def test_tfexample_decoder_decodes_an_example():
    slim = emg.tf_slim()
    image = np.arange(60, dtype=np.uint8).reshape(4, 5, 3)
    record = _example(image, 3)
    with tf.Graph().as_default():
        serialized = tf.constant(record)
        decoded, label = _decoder(slim).decode(serialized, ["image", "label"])
        with tf.compat.v1.Session() as session:
            got_image, got_label = session.run([decoded, label])
    np.testing.assert_array_equal(got_image, image)
    assert got_label == 3


def test_missing_tf_slim_names_the_install_command(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tf_slim", None)
    with pytest.raises(ImportError, match=r"estimator-multigpu\[slim\]"):
        emg.tf_slim()


_KEYS = tf.compat.v1.GraphKeys


def _conv_with_batch_norm(slim, images, **batch_norm_params):
    """slim.conv2d with normalizer_fn=slim.batch_norm, as slim's nets write it."""
    params = {"is_training": True, "decay": 0.5, **batch_norm_params}
    weights = tf.compat.v1.constant_initializer(np.arange(12.0).reshape(1, 1, 3, 4))
    return slim.conv2d(
        images,
        4,
        [1, 1],
        weights_initializer=weights,
        activation_fn=None,
        normalizer_fn=slim.batch_norm,
        normalizer_params=params,
    )


def _expected_batch_norm(images):
    """The conv's outputs normalised by their batch moments, and those moments."""
    conv = images.reshape(-1, 3) @ np.arange(12.0).reshape(3, 4)
    mean, variance = conv.mean(0), conv.var(0)
    normalized = (conv - mean) / np.sqrt(variance + 0.001)
    return normalized.reshape(images.shape[:-1] + (4,)), mean


@pytest.mark.parametrize(
    "batch_norm_params",
    [{}, {"updates_collections": None}, {"fused": False}],
    ids=["layer_update_ops", "fused_in_place", "unfused_layer"],
)
def test_batch_norm_as_normalizer_fn_normalizes_and_updates(batch_norm_params):
    slim = emg.tf_slim()
    images = np.random.RandomState(0).rand(2, 3, 3, 3).astype(np.float32)
    with tf.Graph().as_default():
        outputs = _conv_with_batch_norm(slim, tf.constant(images), **batch_norm_params)
        (moving_mean,) = [
            v for v in tf.compat.v1.global_variables() if "moving_mean" in v.name
        ]
        train = tf.group(tf.compat.v1.get_collection(_KEYS.UPDATE_OPS) + [outputs])
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            got, _ = session.run([outputs, train])
            got_mean = session.run(moving_mean)
    expected, batch_mean = _expected_batch_norm(images.astype(np.float64))
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)
    # decay 0.5 from zeros: half the batch mean after the step.
    np.testing.assert_allclose(got_mean, 0.5 * batch_mean, rtol=1e-4)


def test_batch_norm_of_a_fully_connected_layer_builds():
    slim = emg.tf_slim()
    with tf.Graph().as_default():
        outputs = slim.fully_connected(
            tf.ones([4, 3]), 2, normalizer_fn=slim.batch_norm
        )
        names = [v.op.name for v in tf.compat.v1.global_variables()]
    assert outputs.shape == (4, 2)
    assert "fully_connected/BatchNorm/moving_variance" in names


def test_batch_norm_without_tf_keras_names_the_install(monkeypatch):
    import sys

    from tensorflow.python.layers import normalization

    slim = emg.tf_slim()
    for name in (
        "BatchNormalization",
        "BatchNorm",
        "batch_normalization",
        "batch_norm",
    ):
        monkeypatch.delattr(normalization, name, raising=False)
    monkeypatch.setattr(normalization, "normalization", None)  # Its lazy import.
    monkeypatch.setitem(
        sys.modules, "tf_keras.src.legacy_tf_layers.normalization", None
    )
    slim = emg.tf_slim()
    with (
        tf.Graph().as_default(),
        pytest.raises(
            ImportError,
            match=r"slim\.batch_norm .*needs tf-keras.*`pip install tf-keras`",
        ),
    ):
        _conv_with_batch_norm(slim, tf.ones([1, 2, 2, 3]))


def test_local_variable_is_local_and_not_trained():
    slim = emg.tf_slim()
    with tf.Graph().as_default():
        count = slim.local_variable(3.0, name="count")
        assert tf.compat.v1.get_collection(_KEYS.LOCAL_VARIABLES) == [count]
        assert count not in tf.compat.v1.global_variables()
        assert count not in tf.compat.v1.trainable_variables()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            assert session.run(count.assign_add(1.0)) == 4.0
