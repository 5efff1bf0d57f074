"""Trains a CIFAR ResNet on several devices: python -m cifar10.main [flags].

With no data flags it generates a small synthetic CIFAR-10 set into a cache
directory and trains a ResNet-20 on 2 simulated devices.

With a cluster in `TF_CONFIG` (e.g. under `python -m estimator_multigpu.launch
--ps=1 --workers=2 -- python -m cifar10.main ...`) each task runs its part of
`emg.estimator.train_and_evaluate`: parameter servers serve the variables,
the workers train asynchronously (each on its own devices), an evaluator
evaluates each new checkpoint.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from absl import app, flags, logging  # noqa: E402

from cifar10 import config as config_lib  # noqa: E402
from cifar10 import data, device_flags, model  # noqa: E402

_DATA_DIR = flags.DEFINE_string(
    "data_dir",
    None,
    "Directory holding cifar-10-batches-bin/ (or cifar-100-binary/); "
    "default: generate a small synthetic set into --cache_dir.",
)
_DOWNLOAD = flags.DEFINE_boolean(
    "download", False, "Fetch and verify the official CIFAR-10 archive into --data_dir."
)
_DATASET = flags.DEFINE_enum(
    "dataset", "cifar10", sorted(data.LAYOUTS), "Dataset layout."
)
_LABEL = flags.DEFINE_enum("label", None, ["fine", "coarse"], "CIFAR-100 label.")
_MODEL_DIR = flags.DEFINE_string(
    "model_dir",
    config_lib.default_model_dir(),
    "Checkpoints and summaries; reruns resume.",
)
_DEPTH = flags.DEFINE_integer("resnet_depth", 20, f"One of {model.DEPTHS}.")
_DATA_FORMAT = flags.DEFINE_enum(
    "data_format", "channels_last", list(model.DATA_FORMATS), "channels_first for GPUs."
)
_NUM_GPUS = flags.DEFINE_integer(
    "num_gpus", None, "Use the first N devices.", lower_bound=0
)
_DEVICES = flags.DEFINE_list("devices", None, "Explicit devices, e.g. /gpu:0,/gpu:1.")
_SIMULATE = flags.DEFINE_integer(
    "simulate_devices",
    2,
    "On a machine without GPUs, split the CPU into N logical "
    "devices (0: do not split); at most 4 per CPU core, and 64.",
    lower_bound=0,
)
_BATCH = flags.DEFINE_integer(
    "global_batch_size", 128, "Examples per step.", lower_bound=1
)
_REMAINDER = flags.DEFINE_enum(
    "remainder",
    "uneven",
    list(config_lib.REMAINDERS),
    "A global batch that does not divide by the device count: 'uneven' splits "
    "it unevenly; 'drop' and 'error' refuse it.",
)
_STEPS = flags.DEFINE_integer(
    "train_steps", 120, "Total training steps.", lower_bound=1
)
_LR = flags.DEFINE_float(
    "learning_rate",
    0.1,
    "LR at batch 128 (scaled by batch/128; /10 at 50% and 75%).",
    lower_bound=0.0,
)
_MOMENTUM = flags.DEFINE_float("momentum", 0.9, "SGD momentum.", lower_bound=0.0)
_WEIGHT_DECAY = flags.DEFINE_float("weight_decay", 1e-4, "L2 factor.", lower_bound=0.0)
_INPUT = flags.DEFINE_enum(
    "input", "tfdata", list(config_lib.INPUTS), "Input pipeline."
)
_EVAL_ONLY = flags.DEFINE_boolean(
    "eval_only", False, "Only evaluate the latest checkpoint."
)
_SEED = flags.DEFINE_integer(
    "seed",
    0,
    "Seed for data, input and initialisation.",
    lower_bound=0,
    upper_bound=config_lib.MAX_SEED,
)
_CACHE_DIR = flags.DEFINE_string(
    "cache_dir", config_lib.default_cache_dir(), "Where generated data goes."
)
_SYNTHETIC = flags.DEFINE_list(
    "synthetic_examples", ["10000", "2000"], "Train,test sizes of the generated set."
)
_DIAGNOSE = flags.DEFINE_boolean(
    "diagnose",
    False,
    "Print the pipeline doctor's report (emg.diagnose) on the training input "
    "before training.",
)
_LOG_EVERY = flags.DEFINE_integer(
    "log_every_steps", 20, "Progress interval.", lower_bound=1
)
_EVAL_THROTTLE = flags.DEFINE_integer(
    "eval_throttle_secs",
    60,
    "On a TF_CONFIG cluster: the evaluator task evaluates a new checkpoint at "
    "most this often.",
    lower_bound=0,
)

_NO_SPACE = "No space left on device"  # How ENOSPC reads, from TensorFlow too.

_SYNC_REPLICAS = flags.DEFINE_boolean(
    "sync_replicas",
    False,
    "On a TF_CONFIG cluster with ps tasks (e.g. under python -m "
    "estimator_multigpu.launch --ps=1 --workers=2): train synchronously, the "
    "gradients of one step of every worker averaged and the global step "
    "advanced once per averaged step (SyncReplicasOptimizer). Default: "
    "asynchronous. Without a cluster, or with one training task, training is "
    "synchronous anyway: the flag is accepted and a warning says it has no effect.",
)


@flags.multi_flags_validator(
    ["devices", "num_gpus"], message="Pass --devices or --num_gpus, not both."
)
def _one_device_choice(values):
    return values["devices"] is None or values["num_gpus"] is None


@flags.multi_flags_validator(
    ["download", "data_dir", "dataset"],
    message="--download fetches CIFAR-10 and needs --data_dir (and --dataset=cifar10).",
)
def _download_needs_dir(values):
    return not values["download"] or (
        values["data_dir"] and values["dataset"] == "cifar10"
    )


@flags.multi_flags_validator(
    ["label", "dataset"], message="--label is for --dataset=cifar100."
)
def _label_for_cifar100(values):
    return values["label"] is None or values["dataset"] == "cifar100"


@flags.validator(
    "resnet_depth", message=f"--resnet_depth must be one of {model.DEPTHS}."
)
def _known_depth(value):
    return value in model.DEPTHS


@flags.validator(
    "synthetic_examples", message="--synthetic_examples takes TRAIN,TEST ints."
)
def _two_sizes(value):
    return len(value) == 2 and all(v.isdigit() and int(v) > 0 for v in value)


@flags.multi_flags_validator(
    ["global_batch_size", "devices", "num_gpus", "simulate_devices", "remainder"],
    message="--global_batch_size must be at least the number of devices, and "
    "divisible by it unless --remainder=uneven (the default).",
)
def _batch_divides(values):
    if _device_flags_wrong(values):
        return True  # _simulation_bounded or _devices_exist says why.
    count = _expected_device_count(values)
    batch = values["global_batch_size"]
    return count is None or (
        batch >= count and (values["remainder"] == "uneven" or batch % count == 0)
    )


@flags.validator("simulate_devices")
def _simulation_bounded(value):
    problem = device_flags.too_many_simulated(value)
    if problem:
        raise flags.ValidationError(problem)
    return True


@flags.multi_flags_validator(["num_gpus", "devices", "simulate_devices"])
def _devices_exist(values):
    problem = _missing_devices(values)
    if problem:
        raise flags.ValidationError(problem)
    return True


def _missing_devices(values) -> str | None:
    return device_flags.missing_devices(
        values["num_gpus"], values["devices"], values["simulate_devices"]
    )


def _device_flags_wrong(values) -> bool:
    return bool(
        device_flags.too_many_simulated(values["simulate_devices"])
        or _missing_devices(values)
    )


def _expected_device_count(values) -> int | None:
    """The device count the flags ask for, when it is known before TF starts."""
    if values["devices"]:
        return len(values["devices"])
    if values["num_gpus"] is not None:
        return max(values["num_gpus"], 1)
    import tensorflow as tf  # Listing devices does not initialise the runtime.

    if not tf.config.list_physical_devices("GPU") and values["simulate_devices"]:
        return values["simulate_devices"]
    return None


def _devices() -> tuple[str, ...]:
    import tensorflow as tf

    from estimator_multigpu import devices

    wanted = _SIMULATE.value
    if not tf.config.list_physical_devices("GPU") and len(devices.available()) < wanted:
        devices.simulate(wanted)
    return tuple(devices.resolve(num_gpus=_NUM_GPUS.value, devices=_DEVICES.value))


def config_from_flags() -> config_lib.TrainConfig:
    """The frozen config of the parsed flags (devices resolved, simulated if asked)."""
    return config_lib.TrainConfig(
        data_dir=_DATA_DIR.value,
        download=_DOWNLOAD.value,
        dataset=_DATASET.value,
        label=_LABEL.value,
        model_dir=_MODEL_DIR.value,
        resnet_depth=_DEPTH.value,
        data_format=_DATA_FORMAT.value,
        devices=_devices(),
        global_batch_size=_BATCH.value,
        remainder=_REMAINDER.value,
        train_steps=_STEPS.value,
        learning_rate=_LR.value,
        momentum=_MOMENTUM.value,
        weight_decay=_WEIGHT_DECAY.value,
        input=_INPUT.value,
        eval_only=_EVAL_ONLY.value,
        seed=_SEED.value,
        cache_dir=_CACHE_DIR.value,
        synthetic_examples=tuple(int(v) for v in _SYNTHETIC.value),
        log_every_steps=_LOG_EVERY.value,
        sync_replicas=_SYNC_REPLICAS.value,
    )


def _print_download_progress(done: int, total: int) -> None:
    end = "\n" if done == total else ""
    print(
        f"\rDownloading CIFAR-10: {done / 2**20:.1f} of {total / 2**20:.1f} MiB "
        f"({100 * done / total:.0f}%)",
        end=end,
        flush=True,
    )


def _quiet_logs() -> None:
    """Shows warnings and the progress line only, unless --verbosity was passed."""
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if not flags.FLAGS["verbosity"].present:
        logging.set_verbosity(logging.WARNING)


def _cluster_task() -> str | None:
    """This task (`'worker:1'`) when TF_CONFIG names a cluster, else None.

    A malformed TF_CONFIG ends the program (exit status 1) before anything runs.
    """
    from estimator_multigpu import estimator

    try:
        run_config = estimator.RunConfig()
    except ValueError as error:
        raise SystemExit(f"Error: {error}") from error
    if not (run_config.cluster_spec or run_config.task_type == "evaluator"):
        return None
    return f"{run_config.task_type}:{run_config.task_id}"


def _report_sync_replicas(config: config_lib.TrainConfig, workers: int) -> None:
    """Says what --sync_replicas does with `workers` training tasks (if it is on)."""
    if not config.sync_replicas:
        return
    if workers < 2:
        logging.warning(
            "--sync_replicas has no effect without a TF_CONFIG cluster of 2 or "
            "more training tasks: one process trains synchronously anyway."
        )
        return
    print(
        f"Synchronous training: the gradients of {workers} workers are averaged "
        "per step (--sync_replicas).",
        flush=True,
    )


def _train_on_cluster(config: config_lib.TrainConfig, data_dir: str) -> None:
    """This task's part of training on the TF_CONFIG cluster."""
    from cifar10 import trainer
    from estimator_multigpu import estimator

    train_input_fn, eval_input_fn = trainer.input_fns(config, data_dir)
    runner = trainer.estimator(config)
    if runner.config.task_type in ("chief", "worker"):
        _report_sync_replicas(config, runner.config.num_worker_replicas)
    train_spec = estimator.TrainSpec(train_input_fn, max_steps=config.train_steps)
    eval_spec = estimator.EvalSpec(
        eval_input_fn,
        steps=None,
        start_delay_secs=0,
        throttle_secs=_EVAL_THROTTLE.value,
    )
    estimator.train_and_evaluate(runner, train_spec, eval_spec)


def _checked_config() -> config_lib.TrainConfig:
    """The config of the flags; a bad value ends the program (exit status 1)."""
    try:
        return config_from_flags()
    except ValueError as error:
        raise SystemExit(f"Error: {error}") from error


def _prepared_data(config: config_lib.TrainConfig, in_cluster: bool) -> str:
    """Checks model_dir and the data before training; a failure ends the program.

    Raises:
      SystemExit: with the message (printed to stderr, exit status 1).
    """
    from cifar10 import trainer
    from estimator_multigpu import estimator

    try:
        return trainer.prepare(config, _print_download_progress, in_cluster)
    except (ValueError, OSError, estimator.ModelDirLockedError) as error:
        raise SystemExit(f"Error: {error}") from error  # OSError: DownloadError.


def _no_space_message(error: Exception, model_dir: str) -> str:
    """The line of `error` that names the full disk, and what to do."""
    line = next(s for s in str(error).splitlines() if _NO_SPACE in s).strip()
    if line.startswith(_NO_SPACE):
        return line  # A checkpoint save's own message: it says all.
    return (
        f"{_NO_SPACE} writing into model_dir {model_dir} ({line}). Free space "
        "there, or pass a --model_dir on a larger disk."
    )


@contextlib.contextmanager
def _errors_as_messages(config: config_lib.TrainConfig) -> Iterator[None]:
    """A damaged checkpoint, a full disk, a locked model_dir: the message alone.

    Raises:
      SystemExit: with the message (printed to stderr, exit status 1), no
        traceback; other errors pass unchanged.
    """
    import tensorflow as tf

    from estimator_multigpu import estimator

    try:
        yield
    except tf.errors.DataLossError as error:  # Names the checkpoint to use.
        raise SystemExit(f"Error: {error.message}") from error
    except estimator.ModelDirLockedError as error:  # Started meanwhile.
        raise SystemExit(f"Error: {error}") from error
    except (tf.errors.ResourceExhaustedError, OSError) as error:
        if _NO_SPACE not in str(error):
            raise
        message = _no_space_message(error, config.model_dir)
        raise SystemExit(f"Error: {message}") from error


def _diagnosis(config: config_lib.TrainConfig, data_dir: str) -> str:
    """The pipeline doctor's report on the training input_fn."""
    from cifar10 import trainer
    from estimator_multigpu import diagnose

    train_input_fn, _ = trainer.input_fns(config, data_dir)
    try:
        findings = diagnose.check_input_fn(train_input_fn)
    except diagnose.NoPipelineError as error:  # --input=queue.
        return f"Pipeline doctor: {error}"
    return "Pipeline doctor on the training input:\n" + diagnose.format_findings(
        findings
    )


def _dataset_name(config: config_lib.TrainConfig) -> str:
    return config.dataset.upper().replace("CIFAR", "CIFAR-")  # CIFAR-10, CIFAR-100


def _data_message(config: config_lib.TrainConfig, data_dir: str) -> str:
    """Where the data is; for generated data, that it is not the real set."""
    if config.data_dir is not None:
        return f"Data: {data_dir}"
    name = _dataset_name(config)
    train, test = config.synthetic_examples
    return (
        f"Data: {train} training and {test} test examples generated in {data_dir} "
        f"(synthetic class patterns in the {name} format, not {name}: accuracy "
        f"on them says nothing about {name}). For the real set pass "
        "--data_dir=DIR (with --download to fetch CIFAR-10 into it)."
    )


def _accuracy_message(config: config_lib.TrainConfig, results: dict) -> str:
    where = f"the test files in {config.data_dir}"
    if config.data_dir is None:
        where = f"generated data, not {_dataset_name(config)}"
    return (
        f"Test accuracy: {results['accuracy']:.4f} on {where} (loss "
        f"{results['loss']:.4f}, global step {results['global_step']}); the "
        f"model is in {config.model_dir}"
    )


def _finished_message(config: config_lib.TrainConfig) -> str | None:
    """What to say when model_dir already holds a model trained to train_steps."""
    from cifar10 import model_dir

    found = model_dir.trained_step(config.model_dir)
    if config.eval_only or found is None or found[1] < config.train_steps:
        return None
    checkpoint, step = found
    return (
        f"model_dir {config.model_dir} already holds a model trained to step "
        f"{step} (--train_steps={config.train_steps}): nothing to train, and it "
        f"was evaluated when training ended. The model: {checkpoint}. Pass "
        "--eval_only to evaluate it again, a larger --train_steps to train on, "
        "or a new --model_dir to train from scratch."
    )


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    _quiet_logs()
    config = _checked_config()
    task = None if config.eval_only else _cluster_task()
    print(
        f"ResNet-{config.resnet_depth} on {config.dataset} ({config.input} input), "
        f"{len(config.devices)} device(s) {list(config.devices)}, global batch "
        f"{config.global_batch_size}, {config.train_steps} steps, model_dir "
        f"{config.model_dir}",
        flush=True,
    )
    data_dir = _prepared_data(config, in_cluster=task is not None)
    print(_data_message(config, data_dir), flush=True)
    if _DIAGNOSE.value:
        print(_diagnosis(config, data_dir), flush=True)
    finished = None if task is not None else _finished_message(config)
    if finished:
        print(finished, flush=True)
        return
    if task is not None:
        with _errors_as_messages(config):
            _train_on_cluster(config, data_dir)
        print(f"{task} finished", flush=True)
        return
    from cifar10 import trainer

    _report_sync_replicas(config, workers=0)
    with _errors_as_messages(config):
        results = trainer.train_and_evaluate(config, data_dir)
    print(_accuracy_message(config, results), flush=True)
    logging.info("Evaluation: %s", results)


if __name__ == "__main__":
    app.run(main)
