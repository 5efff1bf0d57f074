"""Legacy API spelled every way people import TensorFlow (scan-only)."""

import tensorflow
import tensorflow as tf
import tensorflow.compat.v1 as tfv1
import tensorflow.contrib.slim as slim
from tensorflow import estimator as tf_estimator
from tensorflow.compat import v1 as compat_v1
from tensorflow.compat.v1 import train
from tensorflow.contrib import layers as contrib_layers
from tensorflow.contrib.estimator import replicate_model_fn as replicate
from tensorflow.python.client import device_lib
from tensorflow.train import Coordinator, shuffle_batch, string_input_producer

tf1 = tf.compat.v1
v1_train = tf.compat.v1.train


def producers(files):
    a = tensorflow.train.string_input_producer(files)  # expect: queue-producer
    b = tfv1.train.range_input_producer(10)  # expect: queue-producer
    c = compat_v1.train.input_producer(files)  # expect: queue-producer
    d = train.slice_input_producer([files])  # expect: queue-producer
    e = string_input_producer(files)  # expect: queue-producer
    f = tf1.train.limit_epochs(files, 2)  # expect: queue-producer
    g = v1_train.string_input_producer(files)  # expect: queue-producer
    h = tf.compat.v1.train.match_filenames_once("*.csv")  # expect: queue-producer
    return a, b, c, d, e, f, g, h


def readers_and_batchers(queue, example):
    readers = [
        tf.TFRecordReader(),  # expect: queue-reader
        tfv1.WholeFileReader(),  # expect: queue-reader
        tf.compat.v1.TextLineReader(),  # expect: queue-reader
        tf1.io.TFRecordReader(),  # expect: queue-reader
        tf.IdentityReader(),  # expect: queue-reader
    ]
    batches = [
        shuffle_batch([example], 4, 10, 5),  # expect: queue-batcher
        tfv1.train.maybe_batch([example], True, 4),  # expect: queue-batcher
        tf1.train.maybe_shuffle_batch_join([[example]], 4, 10, 5, True),  # expect: queue-batcher
        tensorflow.compat.v1.train.batch_join([[example]], 4),  # expect: queue-batcher
    ]
    queues = [
        tf.queue.FIFOQueue(3, tf.int32),  # expect: queue
        tfv1.RandomShuffleQueue(3, 1, tf.int32),  # expect: queue
        tf.io.PaddingFIFOQueue(3, tf.int32, shapes=[[None]]),  # expect: queue
    ]
    return readers, batches, queues


def runners(sess, queue, enqueue):
    coord = Coordinator()  # expect: queue-runner
    runner = tf.compat.v1.train.queue_runner.QueueRunner(queue, [enqueue])  # expect: queue-runner
    tfv1.train.queue_runner.add_queue_runner(runner)  # expect: queue-runner
    return tf1.train.start_queue_runners(sess, coord)  # expect: queue-runner


def everything_else(net, model_fn):
    net = slim.conv2d(net, 8, 3)  # expect: contrib-slim
    net = contrib_layers.flatten(net)  # expect: contrib
    net = tfv1.layers.dense(net, 4)  # expect: layers
    net = tf.compat.v1.layers.Dense(4)(net)  # expect: layers
    spec = tf_estimator.EstimatorSpec  # expect: estimator
    mode = tf.compat.v1.estimator.ModeKeys.TRAIN  # expect: estimator
    fn = replicate(model_fn)  # expect: replicate-model-fn
    opt = tfv1.contrib.estimator.TowerOptimizer(tf.train.AdamOptimizer())  # expect: replicate-model-fn
    sv = tf1.train.Supervisor(logdir="/tmp")  # expect: supervisor
    gpus = device_lib.list_local_devices()  # expect: device-lib
    kept = [tf.keras.layers.Dense(3), tf.data.Dataset.range(3), tf1.Session()]
    return net, spec, mode, fn, opt, sv, gpus, kept


def shadowed_names(batch):
    layers = [1, 2]
    return batch.shuffle_batch(layers)
