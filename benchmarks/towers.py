"""Steps/sec of replicate_model_fn vs a hand-written tower loop vs MirroredStrategy.

A ResNet-20-sized CIFAR model (tf.nn ops, batch norm with moving averages),
global batch 128 on 2 logical CPU devices, plain SGD. The three contenders
are built once, then timed in turn over interleaved repeats in one process;
medians are reported. Also times graph construction for 1, 2, 4, 8 towers.

    python -m benchmarks.towers [--repeats=5 --steps=1 --plot=docs/towers.png]
"""

from __future__ import annotations

import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from absl import app, flags, logging  # noqa: E402

from benchmarks import plot  # noqa: E402
from estimator_multigpu import devices as devices_lib  # noqa: E402

_MAX_TOWERS = 8
DEVICES = devices_lib.simulate(_MAX_TOWERS)  # Before TensorFlow starts.

import tensorflow as tf  # noqa: E402

import estimator_multigpu as emg  # noqa: E402
from estimator_multigpu.estimator._spec import EstimatorSpec, ModeKeys  # noqa: E402

_REPEATS = flags.DEFINE_integer(
    "repeats", 5, "Interleaved timing rounds.", lower_bound=1
)
_STEPS = flags.DEFINE_integer(
    "steps", 1, "Timed steps per contender per round.", lower_bound=1
)
_WARMUP = flags.DEFINE_integer(
    "warmup", 1, "Untimed steps per contender.", lower_bound=0
)
_BATCH = flags.DEFINE_integer(
    "global_batch_size", 128, "Examples per step.", lower_bound=2
)
_DEVICES = flags.DEFINE_integer(
    "num_devices", 2, "Devices to train on.", lower_bound=2, upper_bound=_MAX_TOWERS
)
_THROUGHPUT = flags.DEFINE_boolean("throughput", True, "Time training steps/sec.")
_BUILD = flags.DEFINE_boolean(
    "graph_construction", True, "Also time graph construction."
)
_PLOT = plot.define_plot_flag("each contender's examples/sec, ours / this")
flags.register_multi_flags_validator(
    ["plot", "throughput"],
    lambda values: values["plot"] is None or values["throughput"],
    "--plot needs --throughput (it plots the steps/sec timing); drop --nothroughput.",
)
_OURS = "replicate_model_fn"

_LR, _CLASSES, _MOMENTUM = 0.1, 10, 0.9


class V1Variables:
    """Model variables from tf.compat.v1.get_variable; BN updates in UPDATE_OPS."""

    def get(self, name, shape, initializer, trainable=True):
        return tf.compat.v1.get_variable(
            name, shape, initializer=initializer, trainable=trainable
        )

    def update(self, variable, value):
        new = _MOMENTUM * variable + (1 - _MOMENTUM) * value
        tf.compat.v1.add_to_collection(
            tf.compat.v1.GraphKeys.UPDATE_OPS, tf.compat.v1.assign(variable, new)
        )


class EagerVariables:
    """tf.Variables created once (inside a strategy scope); BN updates assigned."""

    def __init__(self):
        self.variables = {}

    def get(self, name, shape, initializer, trainable=True):
        if name not in self.variables:
            aggregation = (
                tf.VariableAggregation.MEAN
                if trainable
                else tf.VariableAggregation.ONLY_FIRST_REPLICA
            )
            self.variables[name] = tf.Variable(
                initializer(shape),
                name=name,
                trainable=trainable,
                aggregation=aggregation,
            )
        return self.variables[name]

    def update(self, variable, value):
        if tf.distribute.in_cross_replica_context():
            return  # Variable creation pass: no training step.
        variable.assign(_MOMENTUM * variable + (1 - _MOMENTUM) * value)


def _conv(params, x, filters, stride, name):
    init = tf.compat.v1.variance_scaling_initializer(2.0, "fan_in")
    kernel = params.get(name, [3, 3, int(x.shape[-1]), filters], init)
    return tf.nn.conv2d(x, kernel, stride, "SAME")


def _batch_norm(params, x, name):
    channels = [int(x.shape[-1])]
    gamma = params.get(f"{name}/gamma", channels, tf.compat.v1.ones_initializer())
    beta = params.get(f"{name}/beta", channels, tf.compat.v1.zeros_initializer())
    moving_mean = params.get(
        f"{name}/moving_mean", channels, tf.compat.v1.zeros_initializer(), False
    )
    moving_var = params.get(
        f"{name}/moving_variance", channels, tf.compat.v1.ones_initializer(), False
    )
    mean, variance = tf.nn.moments(x, [0, 1, 2])
    params.update(moving_mean, mean)
    params.update(moving_var, variance)
    return tf.nn.batch_normalization(x, mean, variance, beta, gamma, 1e-5)


def _block(params, x, filters, stride, name):
    shortcut = x
    if stride > 1 or int(x.shape[-1]) != filters:
        shortcut = x[:, ::stride, ::stride, :]
        pad = filters - int(x.shape[-1])
        shortcut = tf.pad(
            shortcut, [[0, 0], [0, 0], [0, 0], [pad // 2, pad - pad // 2]]
        )
    y = tf.nn.relu(
        _batch_norm(
            params, _conv(params, x, filters, stride, f"{name}/conv1"), f"{name}/bn1"
        )
    )
    y = _batch_norm(
        params, _conv(params, y, filters, 1, f"{name}/conv2"), f"{name}/bn2"
    )
    return tf.nn.relu(y + shortcut)


def resnet20_logits(params, images):
    """ResNet-20 (3 stages x 3 blocks). `images`: `[batch, 32, 32, 3]` float32."""
    x = tf.nn.relu(_batch_norm(params, _conv(params, images, 16, 1, "conv0"), "bn0"))
    for stage, filters in enumerate((16, 32, 64)):
        for block in range(3):
            stride = 2 if stage > 0 and block == 0 else 1
            x = _block(params, x, filters, stride, f"stage{stage}/block{block}")
    x = tf.reduce_mean(x, [1, 2])
    dense = params.get(
        "dense/kernel", [64, _CLASSES], tf.compat.v1.glorot_uniform_initializer()
    )
    return tf.matmul(x, dense) + params.get(
        "dense/bias", [_CLASSES], tf.compat.v1.zeros_initializer()
    )


def _loss(logits, labels):
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )


def _dataset(batch_size):
    def make(_):
        images = tf.random.uniform([batch_size, 32, 32, 3])
        return images, tf.random.uniform([batch_size], maxval=_CLASSES, dtype=tf.int32)

    return tf.data.Dataset.from_tensors(0).map(make).cache().repeat().prefetch(1)


def model_fn(features, labels, mode):
    loss = _loss(resnet20_logits(V1Variables(), features), labels)
    optimizer = emg.TowerOptimizer(tf.compat.v1.train.GradientDescentOptimizer(_LR))
    with tf.control_dependencies(
        tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    ):
        train_op = optimizer.minimize(
            loss, tf.compat.v1.train.get_or_create_global_step()
        )
    return EstimatorSpec(mode, loss=loss, train_op=train_op)


def build_replicated(devices, images, labels):
    """Ours: the train op of `replicate_model_fn(model_fn)`."""
    return emg.replicate_model_fn(model_fn, devices=devices)(
        images, labels, ModeKeys.TRAIN
    ).train_op


def _average(tower_grads):
    """`tower_grads[t][g]` = tower t, variable g: the mean gradient per variable."""
    averaged = []
    for pairs in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in pairs]
        averaged.append((tf.reduce_mean(tf.concat(grads, 0), 0), pairs[0][1]))
    return averaged


def build_hand_written(devices, images, labels):
    """The classic cifar10_multi_gpu_train loop: per-tower gradients, averaged, one apply."""
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(_LR)
    image_shards, label_shards = (
        tf.split(images, len(devices)),
        tf.split(labels, len(devices)),
    )
    tower_grads, update_ops = [], []
    with tf.compat.v1.variable_scope(tf.compat.v1.get_variable_scope()):
        for i, device in enumerate(devices):
            with tf.device(device), tf.name_scope(f"tower_{i}") as scope:
                loss = _loss(
                    resnet20_logits(V1Variables(), image_shards[i]), label_shards[i]
                )
                tf.compat.v1.get_variable_scope().reuse_variables()
                if i == 0:
                    update_ops = tf.compat.v1.get_collection(
                        tf.compat.v1.GraphKeys.UPDATE_OPS, scope
                    )
                tower_grads.append(optimizer.compute_gradients(loss))
    with tf.device(devices[0]):
        apply = optimizer.apply_gradients(
            _average(tower_grads), tf.compat.v1.train.get_or_create_global_step()
        )
    return tf.group(apply, *update_ops)


class GraphContender:
    """A tf.compat.v1 graph and session that run one train op per step."""

    def __init__(self, build, devices, batch_size):
        self.graph = tf.Graph()
        with self.graph.as_default():
            iterator = tf.compat.v1.data.make_one_shot_iterator(_dataset(batch_size))
            images, labels = iterator.get_next()
            self.train_op = build(devices, images, labels)
            init = tf.compat.v1.global_variables_initializer()
        self.session = tf.compat.v1.Session(graph=self.graph)
        self.session.run(init)

    def run(self, steps):
        for _ in range(steps):
            self.session.run(self.train_op)


class MirroredContender:
    """tf.distribute.MirroredStrategy with a tf.function custom training loop."""

    def __init__(self, devices, batch_size):
        self.strategy = tf.distribute.MirroredStrategy(devices)
        params = EagerVariables()
        with self.strategy.scope():
            resnet20_logits(params, tf.zeros([1, 32, 32, 3]))  # Creates the variables.
        trainable = [v for v in params.variables.values() if v.trainable]
        self.iterator = iter(
            self.strategy.experimental_distribute_dataset(_dataset(batch_size))
        )

        def replica_step(images, labels):
            with tf.GradientTape() as tape:
                loss = _loss(resnet20_logits(params, images), labels)
            for grad, variable in zip(tape.gradient(loss, trainable), trainable):
                variable.assign_sub(_LR * grad)  # MEAN aggregation: all-reduced.
            return loss

        @tf.function
        def step(iterator):
            loss = self.strategy.run(replica_step, args=next(iterator))
            return self.strategy.reduce(tf.distribute.ReduceOp.MEAN, loss, axis=None)

        self.step = step

    def run(self, steps):
        for _ in range(steps):
            loss = self.step(self.iterator)
        loss.numpy()


def _time(contender, steps):
    start = time.perf_counter()
    contender.run(steps)
    return steps / (time.perf_counter() - start)


def _throughput(devices):
    batch = _BATCH.value
    contenders = {
        _OURS: GraphContender(build_replicated, devices, batch),
        "hand-written tower loop": GraphContender(build_hand_written, devices, batch),
        "MirroredStrategy + tf.function": MirroredContender(devices, batch),
    }
    for contender in contenders.values():
        contender.run(_WARMUP.value)
    rates = {name: [] for name in contenders}
    for _ in range(_REPEATS.value):
        for name, contender in contenders.items():
            rates[name].append(_time(contender, _STEPS.value))
    return rates


def _construction_seconds(build, num_towers):
    with tf.Graph().as_default():
        images = tf.zeros([_BATCH.value, 32, 32, 3])
        labels = tf.zeros([_BATCH.value], tf.int32)
        wall, cpu = time.perf_counter(), time.process_time()
        build(DEVICES[:num_towers], images, labels)
        return time.perf_counter() - wall, time.process_time() - cpu


def _report_throughput(rates):
    ours = rates[_OURS]
    print(
        f"steps/sec, {_REPEATS.value} interleaved rounds x {_STEPS.value} steps, median:"
    )
    for name, values in rates.items():
        ratio = statistics.median(ours) / statistics.median(values)
        rounds = statistics.median(o / v for o, v in zip(ours, values))
        runs = " ".join(f"{v:.3f}" for v in values)
        print(
            f"  {name:32s} {statistics.median(values):7.3f}  ours/this {ratio:5.2f}x  (per-round median {rounds:5.2f}x)  runs: {runs}"
        )


def _plot_throughput(rates, devices, path):
    title = (
        f"Towers: ResNet-20, global batch {_BATCH.value} on {len(devices)} logical"
        f" CPU devices;\n{_REPEATS.value} interleaved rounds x {_STEPS.value} step(s),"
        f" TF {tf.__version__}, {os.cpu_count()} CPU cores, no GPU (dots: rounds)"
    )
    bars = plot.ratio_bars(rates, _OURS, _BATCH.value, reference_over_this=True)
    xlabel = f"examples/sec (steps/sec x global batch {_BATCH.value})"
    print(f"plot: {plot.write_bar_chart(bars, path, title, xlabel)}")


def main(argv):
    del argv
    logging.set_verbosity(logging.WARNING)
    tf.get_logger().setLevel("WARNING")
    devices = DEVICES[: _DEVICES.value]
    print(f"TF {tf.__version__}, devices {devices}, global batch {_BATCH.value}")
    if _THROUGHPUT.value:
        rates = _throughput(devices)
        _report_throughput(rates)
        if _PLOT.value:
            _plot_throughput(rates, devices, _PLOT.value)
    if not _BUILD.value:
        return
    print("graph construction seconds, wall / process CPU (ours; hand-written):")
    for num_towers in (1, 2, 4, _MAX_TOWERS):
        ours = _construction_seconds(build_replicated, num_towers)
        hand = _construction_seconds(build_hand_written, num_towers)
        print(
            f"  {num_towers} tower(s): {ours[0]:6.2f} / {ours[1]:6.2f};"
            f"  {hand[0]:6.2f} / {hand[1]:6.2f}"
        )


if __name__ == "__main__":
    app.run(main)
