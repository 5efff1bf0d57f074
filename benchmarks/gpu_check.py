"""The GPU claims in one check: copies, placement, tower scaling, input-bound share.

One table, four sections, each measured in a child process that splits its
devices once, before TensorFlow starts:

1. resident: per step, the bytes that graph edges carry into the device and
   the host->device memcpys (count and bytes, from the RunMetadata step
   stats of a FULL_TRACE run), for `emg.inputs.device_array_dataset` (its
   starts gathered in the model, and the whole batch gathered in the dataset
   through `sharded_input_fn`) against a per-example host
   `from_tensor_slices` pipeline, on the first device alone and on each of
   --split_devices logical devices;
2. placement: the device every tensor of `multi_device_input_fn`
   (MultiDeviceIterator), `sharded_input_fn` (prefetch_to_device) and
   `distribute_dataset_fn` ran on, read from the step stats (graph mode) or
   from the eager tensors, against the device asked for;
3. scaling: steps/s and examples/s of ResNet-20 (`benchmarks.towers`) with
   `replicate_model_fn`, the hand-written tower loop and MirroredStrategy,
   interleaved, on 1 and 2 logical devices (and on all physical GPUs where
   there are several), with ours / each as ratios;
4. input: the input-bound share, 1 - t_cached / t_input per round, of
   ResNet-20 training (`cifar10`) on the legacy queue
   pipeline and on the tf.data pipeline against one cached batch, with the
   host->device memcpys per step.

With GPUs the devices are GPUs (one GPU split with `emg.devices.simulate(n,
'GPU')`); without, logical CPUs (`/cpu:1`... as the devices, `/cpu:0` as the
host), and the rows that need a GPU say why they are not measured. Every
session keeps its logical devices (`emg.devices.session_config`) and its
placement is asserted from RunMetadata: a misplaced tensor or op
makes the row MISPLACED and the exit status 1, as does a failed child.

    python -m benchmarks.gpu_check [--quick]   (or python benchmarks/gpu_check.py)
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
if __package__ in (None, ""):  # Run as a file: make `benchmarks` importable.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app, flags, logging  # noqa: E402

_LAYOUTS = ("one", "split", "physical")
_QUICK = flags.DEFINE_boolean(
    "quick", False, "Tiny batches and step counts: checks that every row runs."
)
_SPLIT_DEVICES = flags.DEFINE_integer(
    "split_devices", 2, "Logical devices of the split layout.", lower_bound=2
)
_MEMORY_MB = flags.DEFINE_integer(
    "memory_limit_mb", 16384, "Memory of each logical GPU.", lower_bound=256
)
_LAYOUT = flags.DEFINE_enum(
    "layout", None, _LAYOUTS, "Internal: run this layout's rows in this process."
)

_MARK = "GPU_CHECK_ROW "
_CPU_SPLIT = 8  # As benchmarks.towers splits it, so importing it changes nothing.
_BUDGET_S = {"one": 180, "split": 240, "physical": 60}  # 480 s in all, on GPUs.
_CPU_SLOWDOWN = 3  # Without a GPU the children get 3x as long (busy CPU cores).
_NO_COPY = "n/a on CPU: no host->device copies exist"
_ROWS = {"one": ("resident", "input"), "split": ("resident", "placement", "scaling")}
_ROWS["physical"] = ("scaling",)
_SECTIONS = ("resident", "placement", "scaling", "input")


def _settings():
    """Batch and step counts: the GPU form, or tiny ones for --quick."""
    if _QUICK.value:
        return {"batch": 8, "warmup": 1, "steps": 1, "rounds": 1, "traced": 1}
    return {"batch": 128, "warmup": 3, "steps": 10, "rounds": 5, "traced": 3}


def _emit(section, what, devices, result, status="ok"):
    """Prints one row for the parent: a marker and JSON, flushed at once."""
    row = [section, what, devices, result, status]
    print(_MARK + json.dumps(row), flush=True)


# Device layout (child processes) -------------------------------------------


def _set_up_devices(layout: str) -> tuple[list[str], bool]:
    """Splits the devices for `layout` before TF starts; returns (devices, on_gpu)."""
    import tensorflow as tf

    from estimator_multigpu import devices as devices_lib

    gpus = len(tf.config.list_physical_devices("GPU"))
    devices_lib.simulate(_CPU_SPLIT)
    if not gpus:
        count = 1 if layout == "one" else _SPLIT_DEVICES.value
        return [f"/cpu:{i}" for i in range(1, count + 1)], False
    if layout == "split":
        return devices_lib.simulate(
            _SPLIT_DEVICES.value, "GPU", memory_limit_mb=_MEMORY_MB.value
        ), True
    return [f"/gpu:{i}" for i in range(1 if layout == "one" else gpus)], True


def _session_config():
    """Soft placement on, every logical device kept (`emg.devices.session_config`)."""
    import tensorflow as tf

    from estimator_multigpu import devices as devices_lib

    config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    return devices_lib.session_config(config)


def _session():
    """A MonitoredSession (initialisers, queue runners) with `_session_config`."""
    import tensorflow as tf

    creator = tf.compat.v1.train.ChiefSessionCreator(config=_session_config())
    return tf.compat.v1.train.MonitoredSession(session_creator=creator)


# Step stats -----------------------------------------------------------------


def _short_device(name: str) -> str:
    """'/job:localhost/.../device:GPU:1/stream:7' -> '/gpu:1'."""
    match = re.search(r"(CPU|GPU):(\d+)", name, flags=re.IGNORECASE)
    return f"/{match.group(1).lower()}:{match.group(2)}" if match else name


def traced_run(session, fetches, steps: int):
    """Runs `fetches` `steps` times with FULL_TRACE; returns the step stats."""
    import tensorflow as tf

    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    stats = []
    for _ in range(steps):
        metadata = tf.compat.v1.RunMetadata()
        session.run(fetches, options=options, run_metadata=metadata)
        stats.append(metadata.step_stats)
    return stats


def placements(step_stats) -> dict[str, tuple[str, list[int]]]:
    """`{node: (device, output bytes)}` of the graph's nodes in one step."""
    nodes = {}
    for device_stats in step_stats.dev_stats:
        device = device_stats.device
        if "/stream:" in device or device.endswith("/memcpy"):
            continue
        for node in device_stats.node_stats:
            sizes = [
                o.tensor_description.allocation_description.requested_bytes
                for o in node.output
            ]
            nodes[node.node_name] = (_short_device(device), sizes)
    return nodes


def edge_bytes_into(graph, step_stats, device: str) -> int:
    """Bytes that graph edges carried into `device` from other devices in one step."""
    nodes, total = placements(step_stats), 0
    for name, (where, _) in nodes.items():
        if where != device or name.startswith("_"):
            continue
        try:
            op = graph.get_operation_by_name(name)
        except KeyError:
            continue
        for tensor in op.inputs:
            source = nodes.get(tensor.op.name)
            if source and source[0] != device and tensor.value_index < len(source[1]):
                total += source[1][tensor.value_index]
    return total


def conv_devices(contender) -> list[str]:
    """Where the Conv2D ops of one traced step of `contender.train_op` ran."""
    (stats,) = traced_run(contender.session, contender.train_op, 1)
    ran = set()
    for name, (device, _) in placements(stats).items():
        try:
            if contender.graph.get_operation_by_name(name).type == "Conv2D":
                ran.add(device)
        except KeyError:
            continue
    return sorted(ran)


_MEMCPY = re.compile(r"memcpy\s*_?(htod|h2d)", flags=re.IGNORECASE)
_BYTES = re.compile(r"(\d+)\s*bytes|size:\s*(\d+)|bytes:\s*(\d+)", re.IGNORECASE)


def host_to_device_copies(step_stats) -> tuple[int, int | None]:
    """(count, bytes) of the MEMCPYHtoD events of one GPU-traced step.

    The tracer lists each copy under the device's `/memcpy` stream, and
    again under `/stream:all`; those lists are read, in that order of
    preference, so that no copy is counted twice. Bytes are None where a
    label carries no size.
    """
    groups = {"memcpy": [], "streams": [], "other": []}
    for device_stats in step_stats.dev_stats:
        device = device_stats.device
        key = "memcpy" if device.endswith("/memcpy") else "other"
        key = "streams" if "/stream:" in device and "all" not in device else key
        groups[key].extend(device_stats.node_stats)
    events = groups["memcpy"] or groups["streams"] or groups["other"]
    count, total = 0, 0
    for node in events:
        label = f"{node.node_name} {node.timeline_label}"
        if not _MEMCPY.search(label):
            continue
        count += 1
        size = _BYTES.search(node.timeline_label)
        total = (
            None
            if total is None or not size
            else total + int(next(g for g in size.groups() if g))
        )
    return count, total


# 1. Resident array ------------------------------------------------------------

_LENGTH, _FRAGMENT, _EXAMPLES = 1 << 20, 256, 2048


def _resident_pipelines(device: str, batch: int):
    """`{name: build}`; each build returns the step's fetch on `device`."""
    import numpy as np
    import tensorflow as tf

    import estimator_multigpu as emg

    host = np.random.default_rng(0).random(_LENGTH, dtype=np.float32)
    starts = np.arange(_EXAMPLES, dtype=np.int64) * (_LENGTH // _EXAMPLES - _FRAGMENT)
    tag = device.replace("/", "").replace(":", "_")

    def consume(batch_tensor):
        with tf.device(device):
            return tf.reduce_sum(batch_tensor, name=f"consume_{tag}")

    def host_slices():
        fragments = host[starts[:, None] + np.arange(_FRAGMENT)]
        with tf.device("/cpu:0"):
            dataset = tf.data.Dataset.from_tensor_slices(fragments).repeat()
            dataset = dataset.batch(batch).prefetch(1)
            iterator = tf.compat.v1.data.make_one_shot_iterator(dataset)
            return consume(iterator.get_next())

    def model_gather():
        array = emg.inputs.DeviceArray(host)
        dataset = emg.inputs.device_array_dataset(
            array, starts, _FRAGMENT, batch, num_epochs=None, gather_in_dataset=False
        )
        with tf.device("/cpu:0"):
            iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
        emg.per_device.register_initializer(iterator.initializer)
        gathered = array.gather_fragments(iterator.get_next(), _FRAGMENT, device)
        return consume(gathered)

    def dataset_gather():
        dataset_fn = emg.inputs.device_array_dataset_fn(
            host, starts, _FRAGMENT, num_epochs=None
        )
        input_fn = emg.inputs.sharded_input_fn(
            dataset_fn, [device], global_batch_size=batch, user_batches=True
        )
        return consume(input_fn()[0].values[0])

    return {
        "host from_tensor_slices, per example": host_slices,
        "device_array_dataset, gather in the model": model_gather,
        "device_array_dataset, gather in dataset (sharded_input_fn)": dataset_gather,
    }


def _resident_result(graph, stats, device, on_gpu) -> tuple[str, str]:
    """The row's (result, status) from the traced steps."""
    name = f"consume_{device[1:].replace(':', '_')}"
    where = sorted({placements(s).get(name, ("not traced",))[0] for s in stats})
    edges = statistics.mean(edge_bytes_into(graph, s, device) for s in stats)
    result = f"consumer ran on {','.join(where)}; graph edges in {edges:.0f} B/step"
    if on_gpu:
        copies = [host_to_device_copies(s) for s in stats]
        count = statistics.mean(c for c, _ in copies)
        sizes = [b for _, b in copies]
        size = "?" if None in sizes else f"{statistics.mean(sizes):.0f}"
        result += f"; HtoD memcpy {count:.1f} ops, {size} B/step"
    status = "ok" if where == [device] else "MISPLACED"
    if status == "ok" and not on_gpu:
        status = _NO_COPY
    return result, status


def resident(devices, on_gpu) -> None:
    """Section 1: one row per pipeline and device."""
    import tensorflow as tf

    setting = _settings()
    for device in devices:
        for name, build in _resident_pipelines(device, setting["batch"]).items():
            with tf.Graph().as_default() as graph:
                fetch = build()
                with _session() as session:
                    for _ in range(setting["warmup"]):
                        session.run(fetch)
                    stats = traced_run(session, fetch, setting["traced"])
            result, status = _resident_result(graph, stats, device, on_gpu)
            where = "alone" if len(devices) == 1 else f"of {len(devices)}"
            _emit("resident", name, f"{device} {where}", result, status)


# 2. Placement ----------------------------------------------------------------


def _examples(_ctx=None):
    import tensorflow as tf

    def example(i):
        return tf.fill([4], tf.cast(i, tf.float32)), i

    return tf.data.Dataset.range(4096).map(example)


def _graph_placement(name, input_fn, devices) -> None:
    """Runs the yielded tensors once, traced; one row per tensor."""
    import tensorflow as tf

    with tf.Graph().as_default():
        features, labels = input_fn()
        tensors = list(zip(features.values, features.devices))
        tensors += list(zip(labels.values, labels.devices))
        with _session() as session:
            (stats,) = traced_run(session, [t for t, _ in tensors], 1)
    nodes = placements(stats)
    for index, (tensor, device) in enumerate(tensors):
        ran = nodes.get(tensor.op.name, ("not traced",))[0]
        kind = "features" if index < len(devices) else "labels"
        result = f"{kind} {tensor.op.type} ran on {ran}"
        _emit("placement", name, device, result, "ok" if ran == device else "MISPLACED")


def placement(devices, on_gpu) -> None:
    """Section 2: the device of every tensor the input builders yield."""
    import tensorflow as tf

    import estimator_multigpu as emg

    del on_gpu
    batch = _settings()["batch"] * len(devices)
    builders = {
        "multi_device_input_fn (MultiDeviceIterator)": emg.inputs.multi_device_input_fn,
        "sharded_input_fn (prefetch_to_device)": emg.inputs.sharded_input_fn,
    }
    for name, builder in builders.items():
        input_fn = builder(_examples, devices, global_batch_size=batch, num_epochs=None)
        _graph_placement(name, input_fn, devices)
    strategy = tf.distribute.MirroredStrategy(devices)
    dataset = emg.distribute.distribute_dataset_fn(
        _examples, strategy, global_batch_size=batch
    )
    features, labels = next(iter(dataset))
    local = strategy.experimental_local_results
    for kind, parts in (("features", local(features)), ("labels", local(labels))):
        for device, tensor in zip(devices, parts):
            ran = _short_device(tensor.device)
            status = "ok" if ran == device else "MISPLACED"
            name = "distribute_dataset_fn (MirroredStrategy)"
            _emit("placement", name, device, f"{kind} eager tensor on {ran}", status)


# 3. Scaling -------------------------------------------------------------------


def _timed(contender, steps: int) -> float:
    start = time.perf_counter()
    contender.run(steps)
    return steps / (time.perf_counter() - start)


def _contenders(devices, batch):
    from benchmarks import towers  # Splits the CPU into 8, as _set_up_devices did.

    return {
        "replicate_model_fn": towers.GraphContender(
            towers.build_replicated, devices, batch
        ),
        "hand-written tower loop": towers.GraphContender(
            towers.build_hand_written, devices, batch
        ),
        "MirroredStrategy": towers.MirroredContender(devices, batch),
    }


def scaling(devices, on_gpu) -> None:
    """Section 3: ResNet-20 towers on 1 and len(devices) devices, interleaved."""
    setting = _settings()
    counts = sorted({1, 2 if len(devices) >= 2 else 1, len(devices)})
    rates = {}
    for count in counts:
        batch = setting["batch"] * count
        for name, contender in _contenders(devices[:count], batch).items():
            contender.run(setting["warmup"])
            rates[count, name] = (contender, batch, [])
    for _ in range(setting["rounds"]):
        for contender, _, runs in rates.values():
            runs.append(_timed(contender, setting["steps"]))
    base = statistics.median(rates[1, "replicate_model_fn"][2])
    for (count, name), (contender, batch, runs) in rates.items():
        ours = statistics.median(rates[count, "replicate_model_fn"][2])
        steps = statistics.median(runs)
        result = (
            f"{steps:.2f} steps/s, {steps * batch:.0f} ex/s (batch {batch}); "
            f"ours/this {ours / steps:.2f}x; ours/ours on 1 device "
            f"{ours * count / base:.2f}x ex/s"
        )
        status = "ok" if on_gpu else "n/a on CPU: logical CPUs share the cores"
        if hasattr(contender, "graph"):  # MirroredStrategy runs a tf.function.
            ran = conv_devices(contender)
            result += f"; Conv2D ran on {','.join(ran)}"
            status = status if ran == sorted(devices[:count]) else "MISPLACED"
        _emit("scaling", name, ",".join(devices[:count]), result, status)


# 4. Input-bound share -------------------------------------------------------------


class _Training:
    """One ResNet-20 training graph on one device, fed by `input_fn`."""

    def __init__(self, input_fn, device, batch):
        import tensorflow as tf

        import estimator_multigpu as emg
        from cifar10 import config as config_lib
        from cifar10 import model_fn

        config = config_lib.TrainConfig(
            devices=(device,), global_batch_size=batch, log_every_steps=10**6
        )
        self.device, self.graph = device, tf.Graph()
        with self.graph.as_default():
            features, labels = input_fn()
            replicated = emg.replicate_model_fn(
                model_fn.make_model_fn(config), [device]
            )
            tf.compat.v1.train.get_or_create_global_step()
            spec = replicated(features, labels, emg.estimator.ModeKeys.TRAIN)
            self.train_op = spec.train_op
            self.session = _session()

    def rate(self, steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            self.session.run(self.train_op)
        return steps / (time.perf_counter() - start)


def _input_fns(data_dir, device, batch):
    import estimator_multigpu as emg
    from benchmarks.cached_batch import cached_batch
    from cifar10 import input as input_lib
    from cifar10 import legacy_input

    return {
        "cached batch": emg.inputs.sharded_input_fn(
            cached_batch, [device], global_batch_size=batch, user_batches=True
        ),
        "legacy queue pipeline": lambda: legacy_input.inputs(data_dir, batch),
        "tf.data pipeline (input.py)": input_lib.input_fn(
            data_dir, batch, devices=[device], seed=1
        ),
    }


def _input_rates(data_dir, device, setting):
    trainings = {
        name: _Training(input_fn, device, setting["batch"])
        for name, input_fn in _input_fns(data_dir, device, setting["batch"]).items()
    }
    rates = {name: [] for name in trainings}
    for training in trainings.values():
        training.rate(setting["warmup"])
    for round_index in range(setting["rounds"]):
        names = list(trainings)[:: 1 if round_index % 2 == 0 else -1]
        for name in names:
            rates[name].append(trainings[name].rate(setting["steps"]))
    return trainings, rates


def _input_row(training, runs, cached, setting, on_gpu) -> tuple[str, str]:
    """(result, status) of one input: rate, share, placement, copies."""
    share = statistics.median(1 - r / c for r, c in zip(runs, cached))
    rate = statistics.median(runs) * setting["batch"]
    ran = conv_devices(training)
    result = f"{rate:.0f} ex/s; input-bound share {share:.1%}"
    result += f"; Conv2D ran on {','.join(ran)}"
    if ran != [training.device]:
        return result, "MISPLACED"
    if not on_gpu:
        return result, f"n/a on CPU: the step to keep fed is a GPU's; {_NO_COPY}"
    stats = traced_run(training.session, training.train_op, setting["traced"])
    copies = [host_to_device_copies(s) for s in stats]
    sizes = [b for _, b in copies]
    size = "?" if None in sizes else f"{statistics.mean(sizes):.0f}"
    count = statistics.mean(c for c, _ in copies)
    return f"{result}; HtoD memcpy {count:.1f} ops, {size} B/step", "ok"


def input_bound(devices, on_gpu) -> None:
    """Section 4: 1 - t_cached / t_input per round, for each input."""
    from cifar10 import generate

    setting = _settings()
    examples = 1000 if _QUICK.value else 50_000
    with tempfile.TemporaryDirectory() as data_dir:
        generate.generate(data_dir, train_examples=examples, test_examples=10)
        trainings, rates = _input_rates(data_dir, devices[0], setting)
        for name, runs in rates.items():
            training = trainings[name]
            row = _input_row(training, runs, rates["cached batch"], setting, on_gpu)
            _emit("input", name, devices[0], *row)
            training.session.close()


_RUNNERS = {
    "resident": resident,
    "placement": placement,
    "scaling": scaling,
    "input": input_bound,
}


def _child(layout: str) -> None:
    devices, on_gpu = _set_up_devices(layout)
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    print(f"{layout}: devices {devices}, GPU {on_gpu}, TF {tf.__version__}", flush=True)
    for row in _ROWS[layout]:
        _RUNNERS[row](devices, on_gpu)


# Parent: the children and the table ---------------------------------------------


def _run_layout(layout: str, budget_s: int) -> tuple[list[list[str]], str | None]:
    """Runs one layout's child; returns its rows and an error (None if it passed)."""
    command = [sys.executable, "-m", "benchmarks.gpu_check", f"--layout={layout}"]
    command += [f"--split_devices={_SPLIT_DEVICES.value}"]
    command += [f"--memory_limit_mb={_MEMORY_MB.value}"]
    command += ["--quick"] if _QUICK.value else []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = dict(
        os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    )
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            cwd=root,
            env=environment,
            timeout=budget_s,
            check=False,
        )
        output, error = done.stdout, None if done.returncode == 0 else done.stderr
    except subprocess.TimeoutExpired as expired:
        output = (
            expired.stdout.decode()
            if isinstance(expired.stdout, bytes)
            else expired.stdout or ""
        )
        error = f"timed out after {budget_s} s"
    rows = [
        json.loads(line[len(_MARK) :])
        for line in output.splitlines()
        if line.startswith(_MARK)
    ]
    if error:
        error = (error.strip().splitlines() or ["exit status != 0"])[-1]
    return rows, error


def _physical_gpus() -> int | None:
    """The physical GPUs TensorFlow sees; None where TensorFlow is not installed."""
    try:
        import tensorflow as tf
    except ImportError:
        return None
    return len(tf.config.list_physical_devices("GPU"))


def _print_table(rows) -> None:
    header = ["section", "what", "device(s)", "result", "status"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    order = {name: i for i, name in enumerate(_SECTIONS)}
    for row in sorted(rows, key=lambda r: order[r[0]]):
        print("| " + " | ".join(str(cell) for cell in row) + " |")


def main(argv):
    del argv
    logging.set_verbosity(logging.WARNING)
    if _LAYOUT.value:
        _child(_LAYOUT.value)
        return 0
    gpus = _physical_gpus()
    if gpus is None:
        print(
            f"The GPU check needs TensorFlow, which {sys.executable} cannot import: "
            "install it (pip install 'tensorflow[and-cuda]' on a GPU machine), "
            "then run this script again."
        )
        return 2
    layouts = ["one", "split"] + (["physical"] if gpus > 1 else [])
    rows, failed = [], False
    start = time.perf_counter()
    for layout in layouts:
        budget_s = _BUDGET_S[layout] * (1 if gpus else _CPU_SLOWDOWN)
        layout_rows, error = _run_layout(layout, budget_s)
        rows += layout_rows
        if error:
            failed = True
            rows += [
                [s, f"{layout} layout failed", "-", error, "FAILED"]
                for s in _SECTIONS
                if s in _ROWS[layout]
            ]
    if gpus < 2:
        rows.append(
            [
                "scaling",
                "all physical GPUs",
                "-",
                "not run",
                f"needs several GPUs; this machine has {gpus}",
            ]
        )
    print(f"GPU check: {gpus} physical GPU(s), {time.perf_counter() - start:.0f} s")
    _print_table(rows)
    failed = failed or any(r[4] in ("MISPLACED", "FAILED") for r in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    app.run(main)
