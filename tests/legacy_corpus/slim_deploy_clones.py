"""slim's train_image_classifier.py clone shape: model_deploy clones, the optimizer chosen after them.

The DeploymentConfig's num_clones comes from the command line, each clone
takes its own batch, the first clone's scope filters UPDATE_OPS and losses,
`clones[0].outputs` feeds summaries, the regularization loss is added once
by optimize_clones(var_list=...), and the update is grouped with the first
clone's update ops.
Usage: python slim_deploy_clones.py WORKDIR [NUM_CLONES]
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf
from deployment import model_deploy

tf.disable_v2_behavior()
NUM_CLONES = int(sys.argv[2]) if len(sys.argv) > 2 else 1
BATCH_SIZE = 8 // NUM_CLONES  # Per clone.


def network_fn(images):
    w = tf.get_variable(
        "w",
        [4, 3],
        initializer=tf.ones_initializer(),
        regularizer=lambda w: 0.01 * tf.nn.l2_loss(w),
    )
    b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    logits = tf.matmul(images, w) + b
    return logits, {"Logits": logits}


def _get_variables_to_train():
    return tf.trainable_variables()


def main():
    with tf.Graph().as_default():
        deploy_config = model_deploy.DeploymentConfig(  # port: slim-clones
            num_clones=NUM_CLONES, clone_on_cpu=False
        )
        with tf.device(deploy_config.variables_device()):
            global_step = tf.train.create_global_step()
        with tf.device(deploy_config.inputs_device()):
            rng = np.random.RandomState(0)
            x = rng.randn(8, 4).astype(np.float32)
            y = rng.randint(0, 3, 8).astype(np.int32)
            dataset = tf.data.Dataset.from_tensor_slices((x, y))
            batch_queue = tf.data.make_one_shot_iterator(
                dataset.batch(BATCH_SIZE).repeat()
            )

        def clone_fn(batch_queue):
            images, labels = batch_queue.get_next()
            logits, end_points = network_fn(images)
            tf.losses.sparse_softmax_cross_entropy(labels, logits)
            return end_points

        summaries = set(tf.get_collection(tf.GraphKeys.SUMMARIES))
        clones = model_deploy.create_clones(deploy_config, clone_fn, [batch_queue])  # port: slim-clones
        first_clone_scope = deploy_config.clone_scope(0)
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS, first_clone_scope)
        end_points = clones[0].outputs
        for end_point in end_points:
            x = end_points[end_point]
            summaries.add(tf.summary.histogram("activations/" + end_point, x))
        for loss in tf.get_collection(tf.GraphKeys.LOSSES, first_clone_scope):
            summaries.add(tf.summary.scalar("losses/%s" % loss.op.name, loss))
        with tf.device(deploy_config.optimizer_device()):
            optimizer = tf.train.GradientDescentOptimizer(0.5)
        variables_to_train = _get_variables_to_train()
        total_loss, clones_gradients = model_deploy.optimize_clones(  # port: slim-clones
            clones, optimizer, var_list=variables_to_train
        )
        summaries.add(tf.summary.scalar("total_loss", total_loss))
        grad_updates = optimizer.apply_gradients(
            clones_gradients, global_step=global_step
        )
        update_ops.append(grad_updates)
        update_op = tf.group(*update_ops)
        with tf.control_dependencies([update_op]):
            train_tensor = tf.identity(total_loss, name="train_op")
        summaries |= set(tf.get_collection(tf.GraphKeys.SUMMARIES, first_clone_scope))
        summary_op = tf.summary.merge(list(summaries), name="summary_op")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                print("loss %d %.6f" % (step, sess.run(train_tensor)))
            sess.run(summary_op)
            print("clones", len(clones))
            print("step", sess.run(global_step))
            print("w", " ".join("%.6f" % v for v in sess.run("w:0").ravel()))


if __name__ == "__main__":
    main()
