"""The trainer's configuration: a frozen dataclass, validated once, built from flags."""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile

from cifar10 import data, model, paths

INPUTS = ("tfdata", "queue")
REMAINDERS = ("uneven", "drop", "error")  # The input builders' remainder choices.
BASE_BATCH_SIZE = 128  # The paper's batch; the learning rate scales from it.
MAX_SEED = 2**31 - 1  # Seeds feed int32 stateless ops.
# Generated data is a demo held in memory while it is written; real data
# comes through `data_dir`.
MAX_SYNTHETIC_EXAMPLES = 100_000


def default_cache_dir() -> str:
    """Where generated demo data goes: `$XDG_CACHE_HOME` or `~/.cache`."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(root, "estimator_multigpu", "cifar10_synthetic")


def default_model_dir() -> str:
    return os.path.join(tempfile.gettempdir(), "cifar10_model")


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Everything one training run needs.

    Attributes:
      data_dir: the data directory; None: generate a small synthetic set
        into `cache_dir`.
      download: fetch the official CIFAR-10 archive into `data_dir` first.
      dataset: `'cifar10'` or `'cifar100'`.
      label: `'fine'` or `'coarse'` (CIFAR-100 only).
      model_dir: checkpoints and TensorBoard summaries; reruns resume here.
      resnet_depth: one of `model.DEPTHS`.
      data_format: `'channels_last'` or `'channels_first'`.
      devices: compute devices (resolved names).
      global_batch_size: examples per step over all devices.
      remainder: when the global batch does not divide by the devices:
        `'uneven'` (the default, as in the library) splits it unevenly;
        `'drop'` and `'error'` refuse it.
      train_steps: total training steps (global step to reach).
      learning_rate: at batch 128; scaled linearly with the global batch.
      momentum: SGD momentum.
      weight_decay: L2 factor on the convolution and dense kernels.
      input: `'tfdata'` or `'queue'` (the legacy pipeline).
      eval_only: evaluate the latest checkpoint without training.
      seed: input and initialisation seed.
      cache_dir: where generated data goes.
      synthetic_examples: (train, test) sizes of the generated set.
      log_every_steps: progress and logging interval.
      sync_replicas: on a TF_CONFIG cluster, train synchronously (the
        gradients of one step of every worker averaged, the global step
        advancing once per aggregated step); no effect on one process.
    """

    data_dir: str | None = None
    download: bool = False
    dataset: str = "cifar10"
    label: str | None = None
    model_dir: str = dataclasses.field(default_factory=default_model_dir)
    resnet_depth: int = 20
    data_format: str = "channels_last"
    devices: tuple[str, ...] = ("/cpu:0",)
    global_batch_size: int = 128
    remainder: str = "uneven"
    train_steps: int = 120
    learning_rate: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 1e-4
    input: str = "tfdata"
    eval_only: bool = False
    seed: int = 0
    cache_dir: str = dataclasses.field(default_factory=default_cache_dir)
    synthetic_examples: tuple[int, int] = (10_000, 2_000)
    log_every_steps: int = 20
    sync_replicas: bool = False

    def __post_init__(self):
        validate(self)

    @property
    def num_classes(self) -> int:
        return data.label_spec(self.dataset, self.label)[1]

    @property
    def scaled_learning_rate(self) -> float:
        """`learning_rate` scaled linearly by `global_batch_size / 128`."""
        return self.learning_rate * self.global_batch_size / BASE_BATCH_SIZE


def _check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(
            f"`{name}` must be one of {tuple(choices)}; received {value!r}."
        )


def _check_positive(config: TrainConfig) -> None:
    for name in ("global_batch_size", "train_steps", "log_every_steps"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"`{name}` must be an int >= 1; received {value!r}.")
    for name in ("learning_rate", "momentum", "weight_decay"):
        value = getattr(config, name)
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(
                f"`{name}` must be a finite number >= 0; received {value!r}."
            )


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(
            f"`seed` must be an int in [0, {MAX_SEED}]; received {seed!r}."
        )


def _check_flags(config: TrainConfig) -> None:
    if not isinstance(config.sync_replicas, bool):
        raise ValueError(
            f"`sync_replicas` must be a bool; received {config.sync_replicas!r}. "
            "Pass True or False (--sync_replicas / --nosync_replicas)."
        )


def _check_batch(config: TrainConfig) -> None:
    n = len(config.devices)
    if config.global_batch_size < n or (
        config.global_batch_size % n and config.remainder != "uneven"
    ):
        raise ValueError(
            f"`global_batch_size` ({config.global_batch_size}) must be divisible by "
            f"the number of devices ({n}), or pass remainder='uneven' "
            "(--remainder=uneven); it must be at least the number of devices."
        )


def _check_synthetic(config: TrainConfig) -> None:
    sizes = tuple(config.synthetic_examples)
    least = len(data.layout(config.dataset).files["train"])
    ints = len(sizes) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) for v in sizes
    )
    if not ints or not (
        least <= sizes[0] <= MAX_SYNTHETIC_EXAMPLES
        and 1 <= sizes[1] <= MAX_SYNTHETIC_EXAMPLES
    ):
        raise ValueError(
            f"`synthetic_examples` {sizes} must be (train, test) ints with at "
            f"least {least} training examples (one per {config.dataset} training "
            f"file) and 1 test example, each at most {MAX_SYNTHETIC_EXAMPLES}: "
            "generated data is a small demo. Pass other --synthetic_examples, or "
            "--data_dir for real data."
        )


def _check_paths(config: TrainConfig) -> None:
    paths.check_not_empty(
        config.model_dir, "model_dir", "pass a directory for checkpoints (--model_dir)."
    )
    paths.check_not_empty(
        config.data_dir,
        "data_dir",
        "pass --data_dir=. for the current directory, or leave it out to train "
        "on generated data.",
    )
    paths.check_not_empty(
        config.cache_dir, "cache_dir", "pass a directory (--cache_dir)."
    )


def validate(config: TrainConfig) -> None:
    """Raises ValueError for any bad or conflicting field, naming it."""
    model.check_depth(config.resnet_depth)
    _check_choice("dataset", config.dataset, data.LAYOUTS)
    _check_choice("input", config.input, INPUTS)
    _check_choice("remainder", config.remainder, REMAINDERS)
    _check_choice("data_format", config.data_format, model.DATA_FORMATS)
    _check_positive(config)
    _check_flags(config)
    _check_seed(config.seed)
    _check_synthetic(config)
    _check_paths(config)
    data.label_spec(config.dataset, config.label)
    if not config.devices:
        raise ValueError("`devices` is empty; pass at least one device.")
    _check_batch(config)
    cpus = [d for d in config.devices if "cpu" in d.lower()]
    if config.data_format == "channels_first" and cpus:
        raise ValueError(
            f"`data_format` 'channels_first' needs GPUs, but the devices include "
            f"{cpus}: TensorFlow's CPU convolutions support only channels_last. "
            "Pass data_format='channels_last' (--data_format=channels_last)."
        )
    if config.download and (config.data_dir is None or config.dataset != "cifar10"):
        raise ValueError(
            f"`download` fetches CIFAR-10 into `data_dir`; received data_dir="
            f"{config.data_dir!r}, dataset={config.dataset!r}. Pass --data_dir "
            "with --dataset=cifar10."
        )
