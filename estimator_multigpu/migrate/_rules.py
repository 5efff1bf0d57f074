"""The table of legacy TensorFlow APIs: what replaces each, and where the guide explains it."""

from __future__ import annotations

import dataclasses

from estimator_multigpu.migrate import _canned_names, _tpu_names

GUIDE = "migration_guide.md"

# Guide sections (the `#anchor` of a `## heading` in migration_guide.md).
ANCHORS = {
    "producers": "producers",
    "readers": "readers",
    "batchers": "batchers",
    "runners": "queue-runners",
    "queues": "queue-api-table",
    "estimator": "estimator",
    "replicate": "replicate-model-fn",
    "towers": "tower-loops",
    "contrib": "tf-contrib",
    "layers": "legacy-layers",
    "supervisor": "supervisor",
    "device_lib": "device-lib",
    "contrib_learn": "contrib-learn",
    "batch_norm": "contrib-batch-norm",
    "dataset_map": "dataset-map-args",
    "tpu": "tpuestimator",
    "canned": "canned-estimators",
}


@dataclasses.dataclass(frozen=True)
class Rule:
    """One legacy API (or API family) and its replacement.

    Attributes:
      rule_id: short stable id, e.g. `'queue-batcher'`.
      summary: what the legacy API is and why it must go.
      replacement: what to write instead.
      topic: key of `ANCHORS` naming the guide section.
      rename: for safe one-to-one renames, the new dotted name
        (e.g. `'emg.estimator.Estimator'`); None when `--fix` cannot do it alone.
      chain: True for queue-chain pieces that `--fix` rewrites as a whole chain.
      fixable: False when `--fix` cannot resolve the finding in this file
        (the replacement then says why).
      kind: which of a rule id's forms this is, for the rules that read it
        (e.g. the slim group of the core module), else empty.
    """

    rule_id: str
    summary: str
    replacement: str
    topic: str
    rename: str | None = None
    chain: bool = False
    fixable: bool = True
    kind: str = ""

    @property
    def guide(self) -> str:
        return f"{GUIDE}#{ANCHORS[self.topic]}"


PRODUCERS = (
    "string_input_producer",
    "slice_input_producer",
    "range_input_producer",
    "input_producer",
    "limit_epochs",
)
BATCHERS = (
    "batch",
    "batch_join",
    "shuffle_batch",
    "shuffle_batch_join",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
)
# Readers that emg.inputs.queues mirrors under the same name.
READERS = (
    "FixedLengthRecordReader",
    "TFRecordReader",
    "TextLineReader",
    "WholeFileReader",
)
_OTHER_READERS = ("IdentityReader", "LMDBReader", "ReaderBase")
_QUEUES = ("FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue")
_RUNNERS = ("QueueRunner", "add_queue_runner", "start_queue_runners")
ESTIMATOR_NAMES = (
    "Estimator",
    "EstimatorSpec",
    "ModeKeys",
    "RunConfig",
    "TrainSpec",
    "EvalSpec",
    "train_and_evaluate",
    "export.ServingInputReceiver",
    "export.TensorServingInputReceiver",
    "export.ExportOutput",
    "export.ClassificationOutput",
    "export.RegressionOutput",
    "export.PredictOutput",
    "export.EvalOutput",
    "export.TrainOutput",
    "export.build_parsing_serving_input_receiver_fn",
    "export.build_raw_serving_input_receiver_fn",
    "BestExporter",
    "Exporter",
    "FinalExporter",
    "LatestExporter",
    "WarmStartSettings",
    # Hooks and helpers emg.estimator re-exports (tf.compat.v1.train classes).
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
    "SecondOrStepTimer",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "VocabInfo",
    "add_metrics",
    "experimental.InMemoryEvaluatorHook",
    "experimental.build_raw_supervised_input_receiver_fn",
    "experimental.make_early_stopping_hook",
    "experimental.make_stop_at_checkpoint_step_hook",
    "experimental.stop_if_higher_hook",
    "experimental.stop_if_lower_hook",
    "experimental.stop_if_no_decrease_hook",
    "experimental.stop_if_no_increase_hook",
)


def _queue_rules() -> dict[str, Rule]:
    table = {}
    for name in PRODUCERS:
        table[f"tf.train.{name}"] = Rule(
            "queue-producer",
            f"tf.train.{name} feeds a queue filled by QueueRunner threads",
            f"emg.inputs.queues.{name} (returns a tf.data.Dataset)",
            "producers",
            chain=True,
        )
    for name in BATCHERS:
        table[f"tf.train.{name}"] = Rule(
            "queue-batcher",
            f"tf.train.{name} batches through a queue filled by threads",
            f"emg.inputs.queues.{name}(dataset, ...) then emg.inputs.queues.get_next",
            "batchers",
            chain=True,
        )
    for name in READERS:
        table[f"tf.{name}"] = table[f"tf.io.{name}"] = Rule(
            "queue-reader",
            f"tf.{name} reads from a filename queue",
            f"emg.inputs.queues.read(filenames, emg.inputs.queues.{name}(...))",
            "readers",
            chain=True,
        )
    for name in _OTHER_READERS:
        table[f"tf.{name}"] = Rule(
            "queue-reader",
            f"tf.{name} reads from a queue and has no tf.data twin",
            "a tf.data.Dataset source (e.g. from_generator)",
            "readers",
        )
    return table


def _thread_rules() -> dict[str, Rule]:
    table = {}
    for name in _QUEUES:
        for ns in ("tf", "tf.queue", "tf.io"):
            table[f"{ns}.{name}"] = Rule(
                "queue",
                f"{name} is a queue fed by threads",
                "a tf.data.Dataset pipeline (shuffle/batch/prefetch)",
                "queues",
            )
    for name in _RUNNERS:
        for ns in ("tf.train", "tf.train.queue_runner"):
            table[f"{ns}.{name}"] = Rule(
                "queue-runner",
                f"{name} starts threads that fill queues",
                "nothing: tf.data runs its own threads; drop it",
                "runners",
            )
    # The drop-in starts the queue runners a graph still has, and with none
    # left it warns and returns []: a safe rename whether or not every queue
    # of the program was rewritten.
    table["tf.train.start_queue_runners"] = Rule(
        "queue-runner",
        "start_queue_runners starts threads that fill queues",
        "emg.inputs.queues.start_queue_runners (starts the queue runners the "
        "graph still has; with none left it returns []); drop it once the "
        "program has no queue",
        "runners",
        rename="emg.inputs.queues.start_queue_runners",
    )
    table["tf.train.Coordinator"] = Rule(
        "queue-runner",
        "Coordinator stops queue-runner threads",
        "nothing: catch tf.errors.OutOfRangeError at the end of input",
        "runners",
    )
    table["tf.train.match_filenames_once"] = Rule(
        "queue-producer",
        "match_filenames_once keeps the glob in a local variable",
        "tf.io.gfile.glob(pattern) or tf.data.Dataset.list_files(pattern)",
        "producers",
    )
    return table


def _slim_queue_rules() -> dict[str, Rule]:
    """slim's prefetch_queue under its three spellings: a drop-in rename."""
    prefetch = Rule(
        "slim-prefetch-queue",
        "slim's prefetch_queue dequeues batches from a queue filled by a "
        "QueueRunner thread",
        "emg.inputs.queues.prefetch_queue (same arguments; each dequeue() gives "
        "the next batch of the tf.data iterator its tensors come from)",
        "queues",
        rename="emg.inputs.queues.prefetch_queue",
    )
    modules = ("tf.contrib.slim", "tf.contrib.slim.python.slim.data")
    return {f"{m}.prefetch_queue.prefetch_queue": prefetch for m in modules}


def _estimator_rules() -> dict[str, Rule]:
    table = {
        "tf.estimator": Rule(
            "estimator",
            "tf.estimator is gone on TF 2.16+",
            "emg.estimator (Estimator, EstimatorSpec, ModeKeys, RunConfig, hooks, "
            "experimental, the canned estimators and heads, inputs, ...)",
            "estimator",
        )
    }
    for name in ESTIMATOR_NAMES:
        table[f"tf.estimator.{name}"] = Rule(
            "estimator",
            f"tf.estimator.{name} is gone on TF 2.16+",
            f"emg.estimator.{name}",
            "estimator",
            rename=f"emg.estimator.{name}",
        )
    table.update(_tpu_rules())
    table.update(_canned_rules())
    for name in ("replicate_model_fn", "TowerOptimizer"):
        table[f"tf.contrib.estimator.{name}"] = Rule(
            "replicate-model-fn",
            f"tf.contrib.estimator.{name} is gone since TF 2.0",
            f"emg.{name}",
            "replicate",
            rename=f"emg.{name}",
        )
    return table


def _canned_rules() -> dict[str, Rule]:
    """Canned estimators, heads and input helpers onto emg; the ones emg lacks."""
    table = {
        old: Rule(
            "estimator",
            f"{old} is gone on TF 2.16+",
            _canned_names.replacement(old, new),
            "canned",
            rename=new,
        )
        for old, new in _canned_names.renames().items()
    }
    for name, (why, instead) in _canned_names.NOT_BUILT.items():
        table[f"tf.estimator.{name}"] = Rule(
            "canned-estimator-missing",
            f"tf.estimator.{name} is gone on TF 2.16+ and {why}",
            instead,
            "canned",
        )
    return table


def _tpu_rules() -> dict[str, Rule]:
    """TPUEstimator code: its names onto emg.estimator.tpu; TPU-only code found."""
    table = {}
    renames = [
        (f"tf.contrib.tpu.{n}", f"emg.estimator.tpu.{n}")
        for n in (*_tpu_names.ESTIMATOR_TPU_NAMES, *_tpu_names.CONTRIB_TPU_NAMES)
    ]
    renames += [
        (f"tf.estimator.tpu.{n}", f"emg.estimator.tpu.{n}")
        for n in (_tpu_names.ESTIMATOR_TPU_NAMES)
    ]
    for old, new in renames:
        gone = "tf.estimator is gone on TF 2.16+"
        if old.startswith("tf.contrib."):
            gone = "tf.contrib is gone since TF 2.0"
        table[old] = Rule(
            "tpu-estimator",
            f"{old}: {gone}",
            f"{new} (with use_tpu=False, on one or N GPUs)",
            "tpu",
            rename=new,
        )
    for name in _tpu_names.TPU_ONLY:
        for module in ("tf.contrib.tpu", "tf.tpu"):
            table[f"{module}.{name}"] = Rule(
                "tpu-only",
                _tpu_names.TPU_ONLY_SUMMARY.format(name=f"{module}.{name}"),
                _tpu_names.TPU_ONLY_REPLACEMENT.format(name=name),
                "tpu",
            )
    return table


def _other_rules() -> dict[str, Rule]:
    contrib = Rule(
        "contrib",
        "tf.contrib is gone since TF 2.0",
        "the core API named in the guide (tf.data, tf.keras, emg.*)",
        "contrib",
    )
    slim = Rule(
        "contrib-slim",
        "tf.contrib.slim is gone since TF 2.0",
        "tf.keras.layers (or tf_slim, the standalone package)",
        "contrib",
    )
    layers = Rule(
        "layers",
        "tf.layers needs tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
        "tf.keras.layers, or tf-keras with TF_USE_LEGACY_KERAS=1 set before the "
        "module's TensorFlow import (emg-migrate --fix sets it; tf-keras: "
        "pip install tf-keras)",
        "layers",
    )
    supervisor = Rule(
        "supervisor",
        "tf.train.Supervisor is deprecated and starts queue runners",
        "tf.compat.v1.train.MonitoredTrainingSession or emg.estimator.Estimator",
        "supervisor",
    )
    device_lib = Rule(
        "device-lib",
        "device_lib.list_local_devices initialises every GPU and grabs its memory",
        "emg.devices.resolve() or tf.config.list_physical_devices('GPU')",
        "device_lib",
    )
    nccl = Rule(
        "contrib",
        "tf.contrib.nccl is gone since TF 2.0 (TF 1.13 moved its all_sum, "
        "reduce_sum and broadcast, unchanged, to the private module "
        "tensorflow.python.ops.nccl_ops; no public TF 2.x name has them)",
        "no public TF 2.x successor: all-reduce across GPUs with "
        "tf.distribute.MirroredStrategy(cross_device_ops="
        "tf.distribute.NcclAllReduce()), or sum on one device (tf.add_n) as "
        "a parameter-server path does; tensorflow.python.ops.nccl_ops is "
        "private and may move in any release",
        "contrib",
    )
    return {
        "tf.contrib": contrib,
        "tf.contrib.nccl": nccl,
        "tf.contrib.slim": slim,
        "tf.layers": layers,
        "tf.train.Supervisor": supervisor,
        "tf.python.client.device_lib.list_local_devices": device_lib,
    }


# tf.contrib.legacy_seq2seq's names emg carries as drop-ins (emg.legacy_seq2seq).
LEGACY_SEQ2SEQ = (
    "basic_rnn_seq2seq",
    "rnn_decoder",
    "sequence_loss",
    "sequence_loss_by_example",
    "tied_rnn_seq2seq",
)


# tf.contrib.framework.nest's names tf.nest kept: contrib's name -> tf.nest's.
# (TF 1.x's nest module itself; is_sequence is is_nested since TF 2.0.)
CONTRIB_NEST = {
    "assert_same_structure": "assert_same_structure",
    "flatten": "flatten",
    "is_sequence": "is_nested",
    "map_structure": "map_structure",
    "pack_sequence_as": "pack_sequence_as",
}


def _contrib_nest_rules() -> dict[str, Rule]:
    """tf.contrib.framework.nest.X -> tf.nest.X: the same function (contrib
    re-exported tensorflow.python.util.nest, which tf.nest exports)."""
    return {
        f"tf.contrib.framework.nest.{old}": Rule(
            "contrib",
            f"tf.contrib.framework.nest.{old} is gone since TF 2.0",
            f"tf.nest.{new} (the same function; emg-migrate --fix writes it)",
            "contrib",
            rename=f"tf.nest.{new}",
        )
        for old, new in CONTRIB_NEST.items()
    }


def _legacy_seq2seq_rules() -> dict[str, Rule]:
    """legacy_seq2seq's decoders and losses onto emg's drop-ins, under the
    public module and the internal one TF 1.x code imported them from too."""
    table = {}
    for name in LEGACY_SEQ2SEQ:
        rule = Rule(
            "legacy-seq2seq",
            f"tf.contrib.legacy_seq2seq.{name} is gone since TF 2.0",
            f"emg.legacy_seq2seq.{name} (the drop-in: the same arguments, "
            "variable scopes and values; emg-migrate --fix writes it)",
            "contrib",
            rename=f"emg.legacy_seq2seq.{name}",
        )
        for module in (
            "tf.contrib.legacy_seq2seq",
            "tf.contrib.legacy_seq2seq.python.ops.seq2seq",
        ):
            table[f"{module}.{name}"] = rule
    return table


def _contrib_learn_rules() -> dict[str, Rule]:
    experiment = Rule(
        "contrib-learn",
        "tf.contrib.learn.Experiment is gone since TF 2.0",
        "emg.estimator.Experiment (the same train/evaluate schedules; "
        "eval_metrics, export_strategies, local_eval_frequency, "
        "train_steps_per_iteration, checkpoint_and_export and "
        "delay_workers_by_global_step are refused: metrics go in the model_fn's "
        "eval_metric_ops, exports through estimator.export_saved_model)",
        "contrib_learn",
    )
    runner = Rule(
        "contrib-learn",
        "learn_runner.run is gone since TF 2.0",
        "emg.estimator.learn_runner.run (same arguments; emg-migrate --fix writes it)",
        "contrib_learn",
    )
    hparams = Rule(
        "contrib-learn",
        "tf.contrib.training.HParams is gone since TF 2.0",
        "emg.estimator.HParams(**values) (TF 1.x's parse/types; an HParamDef "
        "protocol buffer is not supported)",
        "contrib_learn",
    )
    return {
        "tf.contrib.learn.Experiment": experiment,
        "tf.contrib.learn.learn_runner.run": runner,
        "tf.contrib.learn.python.learn.learn_runner.run": runner,
        "tf.contrib.learn.RunConfig": Rule(
            "contrib-learn",
            "tf.contrib.learn.RunConfig is gone since TF 2.0",
            "emg.estimator.RunConfig (same checkpoint and summary arguments; "
            "session_config for gpu_memory_fraction/log_device_placement)",
            "contrib_learn",
        ),
        "tf.contrib.training.HParams": hparams,
    }


TABLE: dict[str, Rule] = {
    **_contrib_learn_rules(),
    **_queue_rules(),
    **_thread_rules(),
    **_slim_queue_rules(),
    **_estimator_rules(),
    **_legacy_seq2seq_rules(),
    **_contrib_nest_rules(),
    **_other_rules(),
}
TF0_LOSS_RULE = Rule(
    "tf0-loss-args",
    "TF 0.x argument order (logits, labels) passed by position: TF 1.x and 2.x "
    "take keywords only, and their order is (labels, logits)",
    "the same call with logits=, labels= (and axis=, name=) written out",
    "contrib",
)
TF2_ORDER_RULE = Rule(
    "tf0-loss-args",
    "a cross-entropy loss with positional arguments that read (labels, logits): "
    "TF 2's order, while TF 0.x took (logits, labels) and TF 1.x keywords only",
    "write the keywords out (labels=..., logits=...) after checking which "
    "argument holds the logits",
    "contrib",
)
FLIPPED_LOSS_RULE = Rule(
    "contrib",
    "tf.contrib.nn.deprecated_flipped_* losses (TF 0.x argument order "
    "logits, labels) are gone since TF 2.0",
    "tf.nn.<the same loss>(logits=..., labels=...) (dim= -> axis=, targets= -> "
    "labels=)",
    "contrib",
)
TFPROF_RULE = Rule(
    "contrib",
    "tf.contrib.tfprof.model_analyzer.print_model_analysis is gone since TF 2.0",
    "tf.compat.v1.profiler.profile(graph, run_meta=, op_log=, cmd=tfprof_cmd, "
    "options=tf.compat.v1.profiler.ProfileOptionBuilder.<the same options>()) "
    "(TRAINABLE_VARS_PARAMS_STAT_OPTIONS -> trainable_variables_parameter(), "
    "FLOAT_OPS_OPTIONS -> float_operation(), PRINT_ALL_TIMING_MEMORY -> "
    "time_and_memory())",
    "contrib",
)
STAR_IMPORT_RULE = Rule(
    "star-import",
    "`from tensorflow import *` hides which TF names the file uses",
    "import tensorflow.compat.v1 as tf and write tf.<name> for each name",
    "contrib",
)
TOWER_RULE = Rule(
    "tower-loop",
    "hand-written multi-GPU tower loop (per-device copies, averaged gradients)",
    "a single-device model_fn wrapped in emg.replicate_model_fn, "
    "optimizer wrapped in emg.TowerOptimizer",
    "towers",
    kind="tower-loop",
)

AVERAGING_RULE = Rule(
    "tower-loop",
    "hand-written gradient averaging across towers",
    "emg.TowerOptimizer (it averages the towers' gradients)",
    "towers",
    kind="averaging",
)


def lookup(path: str) -> tuple[str, Rule] | None:
    """Returns (matched prefix, rule) for the longest prefix of `path` in TABLE.

    Args:
      path: a canonical dotted path such as `'tf.estimator.ModeKeys.TRAIN'`.

    Returns:
      e.g. `('tf.estimator.ModeKeys', <Rule>)`, or None when nothing matches.
    """
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in TABLE:
            return prefix, TABLE[prefix]
    return None
