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
