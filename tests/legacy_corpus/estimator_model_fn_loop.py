"""The cifar10_estimator model_fn: a tower loop inside get_model_fn(num_gpus, ...).

`num_devices` comes from `num_gpus`, each tower runs in a `resnet` variable
scope (reuse after the first), a `tower_%d` name scope and a device setter,
returns its loss, tf.gradients pairs and predictions; the averaging is
inline over `itertools.chain(*tower_gradvars)` on the consolidation device,
predictions are concatenated, the loss is `tf.reduce_mean(tower_losses)`,
and the input_fn hands out one shard per tower (`num_shards=num_gpus`).
Usage: python estimator_model_fn_loop.py MODEL_DIR [NUM_GPUS]
"""

import functools
import itertools
import sys

import numpy as np
import tensorflow as tf

NUM_GPUS = int(sys.argv[2]) if len(sys.argv) > 2 else 1


def local_device_setter(worker_device, ps_device="/cpu:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        if node_def.op in ("Variable", "VariableV2", "VarHandleOp"):
            return ps_device
        return worker_device

    return _assign


def _tower_fn(is_training, feature, label):
    w = tf.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
    logits = tf.matmul(feature, w)
    tower_pred = {
        "classes": tf.argmax(input=logits, axis=1),
        "probabilities": tf.nn.softmax(logits),
    }
    tower_loss = tf.losses.sparse_softmax_cross_entropy(logits=logits, labels=label)
    tower_loss = tf.reduce_mean(tower_loss)
    model_params = tf.trainable_variables()
    tower_loss += 0.01 * tf.add_n([tf.nn.l2_loss(v) for v in model_params])
    tower_grad = tf.gradients(tower_loss, model_params)
    return tower_loss, zip(tower_grad, model_params), tower_pred


def get_model_fn(num_gpus, variable_strategy):
    def _model_fn(features, labels, mode, params):
        is_training = mode == tf.estimator.ModeKeys.TRAIN  # expect: estimator
        tower_features = features
        tower_labels = labels
        tower_losses = []
        tower_gradvars = []
        tower_preds = []
        if num_gpus == 0:
            num_devices = 1
            device_type = "cpu"
        else:
            num_devices = num_gpus
            device_type = "gpu"
        for i in range(num_devices):  # expect: tower-loop
            worker_device = "/{}:{}".format(device_type, i)
            device_setter = local_device_setter(worker_device=worker_device)
            with tf.variable_scope("resnet", reuse=bool(i != 0)):
                with tf.name_scope("tower_%d" % i) as name_scope:
                    with tf.device(device_setter):
                        loss, gradvars, preds = _tower_fn(
                            is_training, tower_features[i], tower_labels[i]
                        )
                        tower_losses.append(loss)
                        tower_gradvars.append(gradvars)
                        tower_preds.append(preds)
                        if i == 0:
                            update_ops = tf.get_collection(
                                tf.GraphKeys.UPDATE_OPS, name_scope
                            )
        gradvars = []
        with tf.name_scope("gradient_averaging"):
            all_grads = {}
            for grad, var in itertools.chain(*tower_gradvars):  # expect: tower-loop
                if grad is not None:
                    all_grads.setdefault(var, []).append(grad)
            for var, grads in all_grads.items():
                with tf.device(var.device):
                    if len(grads) == 1:
                        avg_grad = grads[0]
                    else:
                        avg_grad = tf.multiply(tf.add_n(grads), 1.0 / len(grads))
                gradvars.append((avg_grad, var))
        consolidation_device = "/gpu:0" if variable_strategy == "GPU" else "/cpu:0"
        with tf.device(consolidation_device):
            loss = tf.reduce_mean(tower_losses, name="loss")
            optimizer = tf.train.GradientDescentOptimizer(0.5)
            train_op = [
                optimizer.apply_gradients(
                    gradvars, global_step=tf.train.get_global_step()
                )
            ]
            train_op.extend(update_ops)
            train_op = tf.group(*train_op)
            predictions = {
                "classes": tf.concat([p["classes"] for p in tower_preds], axis=0),
                "probabilities": tf.concat(
                    [p["probabilities"] for p in tower_preds], axis=0
                ),
            }
            stacked_labels = tf.concat(labels, axis=0)
            metrics = {
                "accuracy": tf.metrics.accuracy(stacked_labels, predictions["classes"])
            }
        return tf.estimator.EstimatorSpec(  # expect: estimator
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=metrics,
        )

    return _model_fn


def input_fn(subset, num_shards, batch_size):
    x = np.random.RandomState(0).randn(batch_size, 3).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    dataset = tf.data.Dataset.from_tensors((x, y)).repeat()
    image_batch, label_batch = dataset.make_one_shot_iterator().get_next()
    if num_shards <= 1:
        return [image_batch], [label_batch]
    return tf.split(image_batch, num_shards), tf.split(label_batch, num_shards)


def main(model_dir, num_gpus):
    train_input_fn = functools.partial(
        input_fn, subset="train", num_shards=num_gpus, batch_size=8
    )
    classifier = tf.estimator.Estimator(  # expect: estimator
        model_fn=get_model_fn(num_gpus, "CPU"), model_dir=model_dir
    )
    classifier.train(train_input_fn, steps=3)
    print("global_step", classifier.get_variable_value("global_step"))
    w = classifier.get_variable_value("resnet/w")
    print("w", " ".join("%.6f" % v for v in w.ravel()))


if __name__ == "__main__":
    main(sys.argv[1], NUM_GPUS)
