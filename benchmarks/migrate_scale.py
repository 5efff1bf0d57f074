"""Migrate scanner scaling: seconds per 1k lines on generated legacy files.

Generates one legacy TF 1.x module per size (--sizes, in lines) by repeating
a block of realistic code: a queue input function (string_input_producer ->
TFRecordReader -> per-example decode -> shuffle_batch, which `--fix`
rewrites), an Estimator `model_fn` (tf.layers, tf.estimator, which it
renames or reports), a hand-written tower loop with gradient averaging, a
CIFAR-tutorial record-object reader and its caller (flattened), slim
model_deploy clones (rewritten, their device count resolved first), a
Keras model exported through a placeholder of another shape (its declared
input shape dropped) and module-level graph statements that assign the same names in every block
(beside a contrib slim import). Each block has its own function names, as
in a real module; these shapes are the ones where a step once cost a pass
over the whole file per block. For every size it times (CPU time of this
process, so other load on the machine counts less) `migrate.process` (read,
parse, scan, compute the rewrite), --repeats times, and prints the median
seconds per 1,000 lines and the ratio of the largest
size to the smallest (near 1 when the tool scales linearly).

Pure `ast`: never imports TensorFlow.

Run: python -m benchmarks.migrate_scale
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from absl import app, flags

_SIZES = flags.DEFINE_list(
    "sizes", ["1000", "8000", "50000"], "File sizes to time, in lines."
)
_REPEATS = flags.DEFINE_integer("repeats", 3, "Timed runs per size.", lower_bound=1)

HEADER = """\
import os

import tensorflow as tf
from deployment import model_deploy
from tensorflow.contrib import slim

FLAGS = tf.app.flags.FLAGS
"""

BLOCK = """\


def inputs_{i}(filenames, batch_size):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=2)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(
        serialized,
        features={{
            "image": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        }},
    )
    image = tf.decode_raw(features["image"], tf.uint8)
    image = tf.cast(tf.reshape(image, [32, 32, 3]), tf.float32) / 255.0
    label = tf.cast(features["label"], tf.int32)
    images, labels = tf.train.shuffle_batch(
        [image, label],
        batch_size=batch_size,
        capacity=1000 + 3 * batch_size,
        min_after_dequeue=1000,
    )
    return images, labels


def model_fn_{i}(features, labels, mode, params):
    net = tf.layers.conv2d(features, 32, 3, activation=tf.nn.relu)
    net = tf.layers.flatten(net)
    logits = tf.layers.dense(net, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    optimizer = tf.train.GradientDescentOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def average_gradients_{i}(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train_{i}(images, labels, opt):
    tower_grads = []
    for d in range(FLAGS.num_gpus):
        with tf.device("/gpu:%d" % d):
            with tf.name_scope("tower_%d" % d):
                logits = tf.layers.dense(images, 10)
                loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
                tf.get_variable_scope().reuse_variables()
                tower_grads.append(opt.compute_gradients(loss))
    return opt.apply_gradients(average_gradients_{i}(tower_grads))


def read_record_{i}(filename_queue):
    class Record(object):
        pass

    result = Record()
    reader = tf.FixedLengthRecordReader(record_bytes=3073)
    result.key, value = reader.read(filename_queue)
    record_bytes = tf.decode_raw(value, tf.uint8)
    result.label = tf.cast(tf.strided_slice(record_bytes, [0], [1]), tf.int32)
    result.image = tf.reshape(tf.strided_slice(record_bytes, [1], [3073]), [32, 32, 3])
    return result


def record_inputs_{i}(data_dir, batch_size):
    filenames = [os.path.join(data_dir, "data_batch_%d.bin" % j) for j in range(1, 6)]
    filename_queue = tf.train.string_input_producer(filenames)
    read_input = read_record_{i}(filename_queue)
    image = tf.cast(read_input.image, tf.float32)
    read_input.label.set_shape([1])
    return tf.train.batch([image, read_input.label], batch_size=batch_size)


def clones_{i}(batch_queue, num_clones):
    with tf.Graph().as_default():
        deploy_config = model_deploy.DeploymentConfig(num_clones=num_clones)
        with tf.device(deploy_config.variables_device()):
            global_step = tf.train.create_global_step()

        def clone_fn(batch_queue):
            images, labels = batch_queue.get_next()
            logits = slim.fully_connected(images, 10)
            tf.losses.sparse_softmax_cross_entropy(labels, logits)
            return logits

        clones = model_deploy.create_clones(deploy_config, clone_fn, [batch_queue])
        with tf.device(deploy_config.optimizer_device()):
            optimizer = tf.train.GradientDescentOptimizer(0.5)
        total_loss, clones_gradients = model_deploy.optimize_clones(
            clones, optimizer, var_list=tf.trainable_variables()
        )
        grad_updates = optimizer.apply_gradients(
            clones_gradients, global_step=global_step
        )
        return grad_updates


def create_model_{i}():
    return tf.keras.Sequential(
        [
            tf.keras.layers.Reshape(target_shape=[28, 28, 1], input_shape=(28 * 28,)),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(10),
        ]
    )


def export_{i}(classifier, export_dir):
    image_{i} = tf.placeholder(tf.float32, [None, 28, 28])
    input_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {{"image": image_{i}}}
    )
    classifier.export_savedmodel(export_dir, input_fn)


x = tf.placeholder(tf.float32, [None, 4])
w = tf.get_variable("w_{i}", [4, 3], initializer=tf.zeros_initializer())
logits = tf.matmul(x, w)
summary = tf.summary.scalar("logits_{i}", tf.reduce_mean(logits))
"""

# What one block holds, for the generated file's expected findings.
BLOCK_LINES = BLOCK.count("\n")
FINDINGS_PER_BLOCK = 21


def legacy_source(lines: int) -> str:
    """Returns a legacy module of at least `lines` lines (whole blocks)."""
    blocks = max(1, -(-(lines - HEADER.count("\n")) // BLOCK_LINES))
    return HEADER + "".join(BLOCK.format(i=i) for i in range(blocks))


def _time_process(path: str) -> float:
    from estimator_multigpu.migrate import _runner as runner

    start = time.process_time()
    result = runner.process(path)
    elapsed = time.process_time() - start
    if result.error or not result.findings:
        raise RuntimeError(f"{path}: no findings ({result.error})")
    return elapsed


def _per_1k(folder: str, size: int) -> tuple[int, float]:
    """Returns (lines, median seconds per 1,000 lines) for a file of `size`."""
    source = legacy_source(size)
    path = os.path.join(folder, f"legacy_{size}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    lines = source.count("\n")
    runs = [_time_process(path) for _ in range(_REPEATS.value)]
    return lines, statistics.median(runs) * 1000 / lines


def main(argv: list[str]) -> None:
    del argv
    sizes = [int(s) for s in _SIZES.value]
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            lines, per_1k = _per_1k(folder, size)
            results.append(per_1k)
            print(f"{lines:>7,} lines: {per_1k:.3f} s per 1k lines")
    print(f"ratio {sizes[-1]:,}/{sizes[0]:,} lines: {results[-1] / results[0]:.2f}")


if __name__ == "__main__":
    app.run(main)
