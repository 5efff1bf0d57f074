"""The generated legacy TF 1.x code that the migrate scaling benchmark and its test scan.

Each piece is a template of one shape of legacy code (`{i}` numbers its
names, so each repetition has its own functions, as in a real module); these
are the shapes where a step once cost a pass over the whole file per block.
`benchmarks/migrate_scale.py` times `BLOCK` (all of them) repeated;
`tests/test_migrate_scale.py` counts the work of each shape repeated alone.

Pure text: imports neither TensorFlow nor absl flags.
"""

HEADER = """\
import os

import tensorflow as tf
from deployment import model_deploy
from tensorflow.contrib import slim

FLAGS = tf.app.flags.FLAGS
"""

# A queue input function: string_input_producer -> TFRecordReader ->
# per-example decode -> shuffle_batch (rewritten by --fix).
QUEUE_INPUT = """\


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
"""

# An Estimator model_fn on tf.layers and tf.estimator (renamed or reported).
MODEL_FN = """\


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
"""

# The tower loop's gradient averaging helper and the hand-written tower loop.
AVERAGE_GRADIENTS = """\


def average_gradients_{i}(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads
"""

TOWER_LOOP = """\


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
"""

# A CIFAR-tutorial record-object reader and its caller (flattened).
RECORD_READER = """\


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
"""

# slim model_deploy clones (rewritten, their device count resolved first).
SLIM_CLONES = """\


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
"""

# A Keras model exported through a placeholder of another shape (its declared
# input shape dropped).
KERAS_EXPORT = """\


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
"""

# Module-level graph statements that assign the same names in every block.
MODULE_GRAPH = """\


x = tf.placeholder(tf.float32, [None, 4])
w = tf.get_variable("w_{i}", [4, 3], initializer=tf.zeros_initializer())
logits = tf.matmul(x, w)
summary = tf.summary.scalar("logits_{i}", tf.reduce_mean(logits))
"""

BLOCK = (
    QUEUE_INPUT
    + MODEL_FN
    + AVERAGE_GRADIENTS
    + TOWER_LOOP
    + RECORD_READER
    + SLIM_CLONES
    + KERAS_EXPORT
    + MODULE_GRAPH
)
# What one block holds, for the generated file's expected findings.
BLOCK_LINES = BLOCK.count("\n")
FINDINGS_PER_BLOCK = 21


def legacy_source(lines: int) -> str:
    """Returns a legacy module of at least `lines` lines (whole blocks).

    Args:
      lines: the least number of lines the module has.

    Returns:
      `HEADER` and as many `BLOCK`s as make `lines`, at least one.
    """
    blocks = max(1, -(-(lines - HEADER.count("\n")) // BLOCK_LINES))
    return HEADER + "".join(BLOCK.format(i=i) for i in range(blocks))
