"""A BERT-style classifier on TPUEstimator, run with --use_tpu=False as its forks run on GPUs.

The shape of google-research/bert's run_classifier.py, small: a one-layer
transformer, the AdamWeightDecay optimizer subclass, map_and_batch,
per-mode batch sizes, an eval_metrics tuple and a scaffold_fn that warm
starts from --init_checkpoint. Runs on TF 1.x only (tf.contrib); after
`emg-migrate --fix` it runs on TF 2.x.
Usage: python tpu_bert_classifier.py --output_dir=DIR [--init_checkpoint=CKPT]
"""

import collections
import os
import re

import numpy as np
import tensorflow as tf

flags = tf.flags
FLAGS = flags.FLAGS

flags.DEFINE_string("output_dir", None, "Where checkpoints and the export go.")
flags.DEFINE_string("init_checkpoint", None, "A checkpoint to warm start from.")
flags.DEFINE_bool("use_tpu", False, "Whether to use TPU or GPU/CPU.")
flags.DEFINE_integer("train_batch_size", 8, "Total batch size for training.")
flags.DEFINE_integer("eval_batch_size", 6, "Total batch size for eval.")
flags.DEFINE_integer("predict_batch_size", 4, "Total batch size for predict.")
flags.DEFINE_float("learning_rate", 5e-3, "The initial learning rate for Adam.")
flags.DEFINE_integer("num_train_steps", 4, "Total number of training steps.")
flags.DEFINE_integer("iterations_per_loop", 2, "Steps per estimator call (TPU).")
flags.DEFINE_integer("num_tpu_cores", 8, "Total number of TPU cores to use.")
flags.DEFINE_string("tpu_name", None, "The Cloud TPU to use for training.")
flags.DEFINE_string("master", None, "[Optional] TensorFlow master URL.")

SEQ_LENGTH, VOCAB, HIDDEN, HEADS, NUM_LABELS = 8, 32, 16, 2, 2


def write_examples(path, count, seed):
    """Writes `count` tf.train.Examples of token ids and a label to `path`."""
    rng = np.random.RandomState(seed)
    with tf.python_io.TFRecordWriter(path) as writer:
        for _ in range(count):
            ids = rng.randint(1, VOCAB, SEQ_LENGTH)
            feature = collections.OrderedDict()
            feature["input_ids"] = tf.train.Feature(
                int64_list=tf.train.Int64List(value=list(ids))
            )
            feature["label_ids"] = tf.train.Feature(
                int64_list=tf.train.Int64List(value=[int(ids.sum() % 2)])
            )
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())


def _decode_record(record, name_to_features):
    example = tf.parse_single_example(record, name_to_features)
    for name in list(example.keys()):
        example[name] = tf.to_int32(example[name])
    return example


def input_fn_builder(input_file, is_training, drop_remainder):
    name_to_features = {
        "input_ids": tf.FixedLenFeature([SEQ_LENGTH], tf.int64),
        "label_ids": tf.FixedLenFeature([], tf.int64),
    }

    def input_fn(params):
        batch_size = params["batch_size"]
        d = tf.data.TFRecordDataset(input_file)
        if is_training:
            d = d.repeat()
        d = d.apply(
            tf.contrib.data.map_and_batch(  # expect: contrib
                lambda record: _decode_record(record, name_to_features),
                batch_size=batch_size,
                drop_remainder=drop_remainder,
            )
        )
        return d

    return input_fn


def dense(x, units, name):
    with tf.variable_scope(name):
        kernel = tf.get_variable(
            "kernel",
            [x.shape[-1].value, units],
            initializer=tf.truncated_normal_initializer(stddev=0.02),
        )
        bias = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        return tf.tensordot(x, kernel, 1) + bias


def layer_norm(x, name):
    with tf.variable_scope(name):
        gamma = tf.get_variable("gamma", [HIDDEN], initializer=tf.ones_initializer())
        beta = tf.get_variable("beta", [HIDDEN], initializer=tf.zeros_initializer())
        mean, variance = tf.nn.moments(x, [-1], keep_dims=True)
        return (x - mean) * tf.rsqrt(variance + 1e-12) * gamma + beta


def transformer_layer(x, is_training):
    size = HIDDEN // HEADS

    def heads(t):
        return tf.transpose(tf.reshape(t, [-1, SEQ_LENGTH, HEADS, size]), [0, 2, 1, 3])

    with tf.variable_scope("attention"):
        q, k, v = (heads(dense(x, HIDDEN, n)) for n in ("query", "key", "value"))
        scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(size)
        context = tf.matmul(tf.nn.softmax(scores), v)
        context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [-1, SEQ_LENGTH, HIDDEN])
        attention = layer_norm(x + dense(context, HIDDEN, "output"), "LayerNorm")
    hidden = tf.nn.relu(dense(attention, 2 * HIDDEN, "intermediate"))
    output = dense(hidden, HIDDEN, "output")
    if is_training:
        output = tf.nn.dropout(output, keep_prob=0.9)
    return layer_norm(attention + output, "output_LayerNorm")


def create_model(input_ids, labels, is_training):
    with tf.variable_scope("bert"):
        table = tf.get_variable(
            "word_embeddings",
            [VOCAB, HIDDEN],
            initializer=tf.truncated_normal_initializer(stddev=0.02),
        )
        x = tf.nn.embedding_lookup(table, input_ids)
        with tf.variable_scope("layer_0"):
            x = transformer_layer(x, is_training)
        pooled = tf.tanh(dense(x[:, 0], HIDDEN, "pooler"))
    logits = dense(pooled, NUM_LABELS, "classifier")
    log_probs = tf.nn.log_softmax(logits, axis=-1)
    one_hot = tf.one_hot(labels, depth=NUM_LABELS, dtype=tf.float32)
    per_example_loss = -tf.reduce_sum(one_hot * log_probs, axis=-1)
    return tf.reduce_mean(per_example_loss), per_example_loss, logits


class AdamWeightDecayOptimizer(tf.train.Optimizer):
    """A basic Adam optimizer that includes "correct" L2 weight decay."""

    def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9,
                 beta_2=0.999, epsilon=1e-6, exclude_from_weight_decay=None,
                 name="AdamWeightDecayOptimizer"):
        super(AdamWeightDecayOptimizer, self).__init__(False, name)
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.exclude_from_weight_decay = exclude_from_weight_decay

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for (grad, param) in grads_and_vars:
            if grad is None or param is None:
                continue
            param_name = self._get_variable_name(param.name)
            m = tf.get_variable(
                name=param_name + "/adam_m",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=tf.zeros_initializer())
            v = tf.get_variable(
                name=param_name + "/adam_v",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=tf.zeros_initializer())
            next_m = (tf.multiply(self.beta_1, m) + tf.multiply(1.0 - self.beta_1, grad))
            next_v = (tf.multiply(self.beta_2, v) + tf.multiply(1.0 - self.beta_2, tf.square(grad)))
            update = next_m / (tf.sqrt(next_v) + self.epsilon)
            if self._do_use_weight_decay(param_name):
                update += self.weight_decay_rate * param
            next_param = param - self.learning_rate * update
            assignments.extend([param.assign(next_param), m.assign(next_m), v.assign(next_v)])
        return tf.group(*assignments, name=name)

    def _do_use_weight_decay(self, param_name):
        if not self.weight_decay_rate:
            return False
        if self.exclude_from_weight_decay:
            for r in self.exclude_from_weight_decay:
                if re.search(r, param_name) is not None:
                    return False
        return True

    def _get_variable_name(self, param_name):
        m = re.match("^(.*):\\d+$", param_name)
        if m is not None:
            param_name = m.group(1)
        return param_name


def create_optimizer(loss, init_lr, num_train_steps, use_tpu):
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.train.polynomial_decay(
        tf.constant(value=init_lr, shape=[], dtype=tf.float32),
        global_step, num_train_steps, end_learning_rate=0.0, power=1.0, cycle=False)
    optimizer = AdamWeightDecayOptimizer(
        learning_rate=learning_rate,
        weight_decay_rate=0.01,
        exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"])
    if use_tpu:
        optimizer = tf.contrib.tpu.CrossShardOptimizer(optimizer)  # expect: tpu-estimator
    tvars = tf.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, _) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
    new_global_step = global_step + 1
    train_op = tf.group(train_op, [global_step.assign(new_global_step)])
    return train_op


def model_fn_builder(init_checkpoint, learning_rate, num_train_steps, use_tpu):
    def model_fn(features, labels, mode, params):
        input_ids = features["input_ids"]
        label_ids = features["label_ids"]
        is_training = (mode == tf.estimator.ModeKeys.TRAIN)  # expect: estimator
        total_loss, per_example_loss, logits = create_model(input_ids, label_ids, is_training)
        scaffold_fn = None
        if init_checkpoint:
            names = [v.op.name for v in tf.trainable_variables()]
            assignment_map = {name: name for name in names}

            def tpu_scaffold():
                tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
                return tf.train.Scaffold()

            scaffold_fn = tpu_scaffold
        if mode == tf.estimator.ModeKeys.TRAIN:  # expect: estimator
            train_op = create_optimizer(total_loss, learning_rate, num_train_steps, use_tpu)
            return tf.contrib.tpu.TPUEstimatorSpec(  # expect: tpu-estimator
                mode=mode, loss=total_loss, train_op=train_op, scaffold_fn=scaffold_fn)
        if mode == tf.estimator.ModeKeys.EVAL:  # expect: estimator

            def metric_fn(per_example_loss, label_ids, logits):
                predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
                accuracy = tf.metrics.accuracy(labels=label_ids, predictions=predictions)
                loss = tf.metrics.mean(values=per_example_loss)
                return {"eval_accuracy": accuracy, "eval_loss": loss}

            eval_metrics = (metric_fn, [per_example_loss, label_ids, logits])
            return tf.contrib.tpu.TPUEstimatorSpec(  # expect: tpu-estimator
                mode=mode, loss=total_loss, eval_metrics=eval_metrics, scaffold_fn=scaffold_fn)
        return tf.contrib.tpu.TPUEstimatorSpec(  # expect: tpu-estimator
            mode=mode, predictions={"probabilities": tf.nn.softmax(logits)},
            scaffold_fn=scaffold_fn)

    return model_fn


def serving_input_fn():
    input_ids = tf.placeholder(tf.int32, [None, SEQ_LENGTH], name="input_ids")
    label_ids = tf.zeros_like(input_ids[:, 0])
    features = {"input_ids": input_ids, "label_ids": label_ids}
    return tf.estimator.export.ServingInputReceiver(features, {"input_ids": input_ids})  # expect: estimator


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.gfile.MakeDirs(FLAGS.output_dir)
    train_file = os.path.join(FLAGS.output_dir, "train.tf_record")
    eval_file = os.path.join(FLAGS.output_dir, "eval.tf_record")
    write_examples(train_file, 32, seed=0)
    write_examples(eval_file, 12, seed=1)

    tpu_cluster_resolver = None
    if FLAGS.use_tpu and FLAGS.tpu_name:
        tpu_cluster_resolver = tf.contrib.cluster_resolver.TPUClusterResolver(  # expect: contrib
            FLAGS.tpu_name)
    is_per_host = tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2  # expect: tpu-estimator
    run_config = tf.contrib.tpu.RunConfig(  # expect: tpu-estimator
        cluster=tpu_cluster_resolver,
        master=FLAGS.master,
        model_dir=FLAGS.output_dir,
        save_checkpoints_steps=1000,
        tpu_config=tf.contrib.tpu.TPUConfig(  # expect: tpu-estimator
            iterations_per_loop=FLAGS.iterations_per_loop,
            num_shards=FLAGS.num_tpu_cores,
            per_host_input_for_training=is_per_host))
    model_fn = model_fn_builder(
        FLAGS.init_checkpoint, FLAGS.learning_rate, FLAGS.num_train_steps, FLAGS.use_tpu)
    estimator = tf.contrib.tpu.TPUEstimator(  # expect: tpu-estimator
        use_tpu=FLAGS.use_tpu,
        model_fn=model_fn,
        config=run_config,
        train_batch_size=FLAGS.train_batch_size,
        eval_batch_size=FLAGS.eval_batch_size,
        predict_batch_size=FLAGS.predict_batch_size)
    estimator.train(
        input_fn=input_fn_builder(train_file, True, True), max_steps=FLAGS.num_train_steps)
    result = estimator.evaluate(input_fn=input_fn_builder(eval_file, False, False))
    for key in sorted(result.keys()):
        print("%s = %s" % (key, str(result[key])))
    predictions = estimator.predict(input_fn=input_fn_builder(eval_file, False, False))
    print("predictions %d" % len([p["probabilities"] for p in predictions]))
    export = estimator.export_saved_model(os.path.join(FLAGS.output_dir, "export"), serving_input_fn)
    print("exported %s" % os.path.basename(export))


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    tf.app.run()
