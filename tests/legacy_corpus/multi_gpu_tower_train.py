"""Multi-GPU training with a hand-written tower loop (cifar10_multi_gpu_train style)."""

import re
import time

import tensorflow as tf
from tensorflow.python.client import device_lib

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer("num_gpus", 2, "How many GPUs to use.")
tf.app.flags.DEFINE_integer("max_steps", 1000, "Number of batches to run.")
TOWER_NAME = "tower"


def get_available_gpus():
    local_device_protos = device_lib.list_local_devices()  # expect: device-lib
    return [x.name for x in local_device_protos if x.device_type == "GPU"]


def inference(images):
    net = tf.layers.conv2d(images, 32, 3, activation=tf.nn.relu)  # expect: layers
    net = tf.layers.max_pooling2d(net, 2, 2)  # expect: layers
    net = tf.layers.flatten(net)  # expect: layers
    return tf.layers.dense(net, 10)  # expect: layers


def tower_loss(scope, images, labels):
    logits = inference(images)
    tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    losses = tf.get_collection("losses", scope)
    total_loss = tf.add_n(losses, name="total_loss")
    for l in losses + [total_loss]:
        loss_name = re.sub("%s_[0-9]*/" % TOWER_NAME, "", l.op.name)
        tf.summary.scalar(loss_name, l)
    return total_loss


def average_gradients(tower_grads):  # expect: tower-loop
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def train(images, labels):
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.1)
        batch_queue = tf.contrib.slim.prefetch_queue.prefetch_queue(  # expect: slim-prefetch-queue
            [images, labels], capacity=2 * FLAGS.num_gpus
        )
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(FLAGS.num_gpus):  # expect: tower-loop
                with tf.device("/gpu:%d" % i):
                    with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:
                        image_batch, label_batch = batch_queue.dequeue()
                        loss = tower_loss(scope, image_batch, label_batch)
                        tf.get_variable_scope().reuse_variables()
                        grads = opt.compute_gradients(loss)
                        tower_grads.append(grads)
        grads = average_gradients(tower_grads)
        train_op = opt.apply_gradients(grads, global_step=global_step)
        sv = tf.train.Supervisor(logdir="/tmp/train", global_step=global_step)  # expect: supervisor
        with sv.managed_session() as sess:
            for step in range(FLAGS.max_steps):
                start_time = time.time()
                _, loss_value = sess.run([train_op, loss])
                duration = time.time() - start_time
                if step % 10 == 0:
                    print("step %d, loss = %.2f (%.3f sec/batch)" % (step, loss_value, duration))


def train_with_device_list(devices, model_fn, optimizer, features):
    tower_losses = []
    for index, device in enumerate(devices):  # expect: tower-loop
        with tf.device(device), tf.variable_scope("model", reuse=index > 0):
            tower_losses.append(model_fn(features[index]))
    grads = optimizer.compute_gradients(tf.add_n(tower_losses))
    return optimizer.apply_gradients(grads)


def not_a_tower_loop(steps, sess, train_op):
    for step in range(steps):
        with tf.device("/cpu:0"):
            sess.run(train_op)
