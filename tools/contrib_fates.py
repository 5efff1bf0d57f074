"""The hand-written half of tools/contrib_surface.py: each contrib module's fate and
advice, the namespaces its names moved to, and the rows no reader can know."""

from __future__ import annotations

import re

from estimator_multigpu.migrate._contrib_surface import LEGACY_NOTE

_ADDONS = (
    "TensorFlow Addons carried some of it until its end of life (2024); keep the "
    "TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
)
_GONE = (
    "keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it "
    "with core tf ops"
)
_IO = (
    "the tensorflow-io package (pip install tensorflow-io; import "
    "tensorflow_io as tfio) has tf.data readers for this source; check its "
    "arguments, they differ"
)
_PROBABILITY = (
    "TensorFlow Probability (pip install tensorflow-probability; import "
    "tensorflow_probability as tfp) carries it: tfp.distributions, "
    "tfp.bijectors, tfp.monte_carlo; check its arguments"
)
_ESTIMATOR = (
    "tf.estimator is gone on TF 2.16+: write a model_fn and run it with "
    "emg.estimator.Estimator, or move to Keras"
)
_SLIM = (
    "tf_slim (pip install tf-slim) keeps contrib's layers, arg_scope, variables, "
    "losses, metrics, learning and data code; else tf.keras"
)
# contrib module -> (its fate in the contrib-sunset RFC, what to do on TF 2.x).
FATES = {
    "all_reduce": (
        "delete (replaced by DistributionStrategy)",
        "use tf.distribute (MirroredStrategy, MultiWorkerMirroredStrategy all-reduce)",
    ),
    "autograph": ("move to core", "tf.autograph and tf.function"),
    "batching": (
        "delete",
        "tf.nondifferentiable_batch_function is the core "
        "batch_function; else batch in tf.data or TF Serving",
    ),
    "bayesflow": ("delete (moved to tensorflow/probability)", _PROBABILITY),
    "bigtable": ("move to tf.data", _IO),
    "boosted_trees": ("delete (moved to core)", _ESTIMATOR),
    "checkpoint": (
        "move to core",
        "tf.train.Checkpoint, tf.train.CheckpointManager and tf.Module track state",
    ),
    "cloud": ("merge with bigtable/", _IO),
    "cluster_resolver": ("move to core", "tf.distribute.cluster_resolver"),
    "cmake": ("delete (replaced with bazel)", "nothing to import: build files only"),
    "compiler": ("move to core", "tf.function(jit_compile=True) and tf.xla"),
    "constrained_optimization": (
        "move to separate repo",
        "the "
        "tensorflow_constrained_optimization package "
        "(pip install "
        "tensorflow-constrained-optimization)",
    ),
    "copy_graph": ("delete (no owner)", _GONE),
    "crf": ("merge into tensorflow/probability?", _ADDONS),
    "cudnn_rnn": (
        "delete (available in tf.keras.layers)",
        "tf.keras.layers.LSTM / GRU pick the cuDNN kernel on a GPU",
    ),
    "data": ("delete (moved to core)", "tf.data and tf.data.experimental"),
    "decision_trees": ("delete", _GONE),
    "deprecated": (
        "delete (deprecated)",
        "tf.compat.v1.summary.scalar / image / histogram / audio / merge / merge_all",
    ),
    "distribute": ("move to core", "tf.distribute"),
    "distributions": ("delete (moved to tensorflow/probability)", _PROBABILITY),
    "eager": (
        "move to core",
        "eager is TF 2's default: tf.function, "
        "tf.GradientTape, tf.Variable, tf.train.Checkpoint",
    ),
    "estimator": ("move to tensorflow/estimator", _ESTIMATOR),
    "factorization": ("delete (rebuild in core pending)?", _GONE),
    "feature_column": (
        "move to core (experimental)",
        "tf.feature_column, or Keras preprocessing layers",
    ),
    "ffmpeg": (
        "delete",
        "tf.audio.decode_wav, or tensorflow-io's tfio.audio / tfio.experimental.ffmpeg",
    ),
    "framework": ("partially move to core, delete the rest", _SLIM),
    "fused_conv": (
        "delete",
        "tf.nn.conv2d then tf.nn.bias_add and the "
        "activation (XLA fuses them under jit_compile)",
    ),
    "graph_editor": ("delete", _GONE),
    "grid_rnn": ("delete", _GONE),
    "hadoop": ("move to tensorflow/io?", _IO),
    "hooks": (
        "delete (already in core)",
        "tf.compat.v1.train's hooks (emg.estimator re-exports them)",
    ),
    "ignite": ("move to tensorflow/io?", _IO),
    "image": ("partial move to tensorflow/contrib?", "tf.image, " + _ADDONS),
    "input_pipeline": ("delete", "tf.data"),
    "integrate": (
        "delete?",
        "scipy.integrate.odeint, or TensorFlow Probability's tfp.math.ode solvers",
    ),
    "kafka": ("move to tensorflow/io?", _IO),
    "keras": (
        "delete (moved to tf.keras)",
        "tf.keras (or tf_keras, pip install tf-keras, for Keras 2)",
    ),
    "kernel_methods": ("move to tensorflow/estimator?", _ESTIMATOR),
    "kinesis": ("move to tensorflow/io?", _IO),
    "labeled_tensor": ("delete", _GONE),
    "layers": ("partial move to tensorflow/contrib?", _SLIM),
    "learn": (
        "delete (replaced by tensorflow/estimator)",
        "emg.estimator "
        "(Estimator, RunConfig, Experiment, learn_runner) and tf.data "
        "input_fns",
    ),
    "legacy_seq2seq": ("delete (replaced by seq2seq)", _GONE),
    "libsvm": ("delete (no owner)", _GONE),
    "linear_optimizer": ("move to tensorflow/estimator", _ESTIMATOR),
    "lookup": ("move to core", "tf.lookup"),
    "losses": (
        "partial move to tensorflow/contrib",
        "tf.compat.v1.losses or tf.keras.losses; tf_slim.losses keeps contrib's",
    ),
    "memory_stats": ("delete", "tf.config.experimental.get_memory_info(device)"),
    "meta_graph_transform": (
        "delete",
        "Grappler runs inside TensorFlow; tf.config.optimizer.set_experimental_options",
    ),
    "metrics": (
        "delete (replaced with OO metrics)",
        "tf.compat.v1.metrics, tf.keras.metrics; tf_slim.metrics keeps contrib's",
    ),
    "mixed_precision": (
        "delete",
        "tf.keras.mixed_precision (LossScaleOptimizer) or tf.compat.v1.mixed_precision",
    ),
    "model_pruning": (
        "move to core",
        "the tensorflow-model-optimization package (tfmot.sparsity.keras)",
    ),
    "nearest_neighbor": ("delete", _GONE),
    "nn": ("partial move to tensorflow/contrib?", "tf.nn, " + _ADDONS),
    "opt": (
        "move to tensorflow/contrib?",
        "tf.keras.optimizers, tf.compat.v1.train; " + _ADDONS,
    ),
    "optimizer_v2": ("merge to core", "tf.keras.optimizers"),
    "periodic_resample": ("delete (no owner)", _GONE),
    "predictor": (
        "delete (replaced by tfhub)",
        "tf.saved_model.load(path).signatures['serving_default']",
    ),
    "proto": ("move to core", "tf.io.decode_proto / tf.io.encode_proto"),
    "quantization": ("delete (absorbed into tflite)", "tf.quantization"),
    "quantize": (
        "no fate given",
        "the tensorflow-model-optimization package "
        "(tfmot.quantization.keras) or TFLite conversion",
    ),
    "rate": (
        "no fate given",
        "tf.keras.metrics.Mean over the ratio, or "
        "compute the rate in the training loop",
    ),
    "receptive_field": ("no fate given", _GONE),
    "recurrent": ("replaced with new RNN API?", "tf.keras.layers.RNN"),
    "reduce_slice_ops": (
        "delete (no owner)",
        "tf.math.segment_sum / segment_prod / segment_min / segment_max",
    ),
    "remote_fused_graph": ("no fate given", _GONE),
    "resampler": ("move to tensorflow/scientific?", _ADDONS),
    "rnn": (
        "replace with new RNN API",
        "tf.compat.v1.nn.rnn_cell (with "
        "tf-keras on TF 2.16+) or tf.keras.layers RNN cells",
    ),
    "rpc": (
        "no fate given",
        "gRPC from Python outside the graph "
        "(tf.py_function), or tf.distribute.experimental.rpc",
    ),
    "saved_model": (
        "move to core",
        "tf.saved_model.save / load, model.save / tf.keras.models.load_model",
    ),
    "seq2seq": ("adapt, move to core", _ADDONS),
    "session_bundle": ("delete (replaced by SavedModel)", "tf.saved_model"),
    "signal": (
        "move to core (replace existing) or tensorflow/scientific?",
        "tf.signal",
    ),
    "slim": ("move to tensorflow/models?", _SLIM),
    "solvers": (
        "move to tensorflow/scientific?",
        "tf.linalg (lstsq, solve, eigh); " + _GONE,
    ),
    "sparsemax": ("move to tensorflow/contrib?", _ADDONS),
    "specs": ("delete", _GONE),
    "staging": (
        "delete (redundant)",
        "tf.data's prefetch / tf.data.experimental.prefetch_to_device",
    ),
    "stat_summarizer": ("delete (no owner)", "tf.profiler.experimental"),
    "stateless": ("replace our random ops with this?", "tf.random.stateless_*"),
    "summary": (
        "move to core, replacing tf.summary",
        "tf.summary (TF 2's summary API: create_file_writer, as_default, step=)",
    ),
    "tensor_forest": ("delete (moving to core)", _ESTIMATOR),
    "tensorboard": (
        "move to tensorflow/tensorboard",
        "the tensorboard package (tensorboard.plugins.projector)",
    ),
    "tensorrt": (
        "move essential parts to core",
        "tf.experimental.tensorrt.Converter (TF-TRT, in GPU builds with TensorRT)",
    ),
    "testing": ("move to core, make private", "tf.test"),
    "text": ("move to tensorflow/contrib?", "the tensorflow-text package, or " + _GONE),
    "tfprof": ("delete (replaced by tf.profiler)", "tf.compat.v1.profiler"),
    "timeseries": ("move to tensorflow/estimator", _ESTIMATOR),
    "tpu": ("move to core", "tf.tpu and tf.distribute.TPUStrategy"),
    "training": (
        "no fate given",
        "tf.data for the input helpers, tf.compat.v1.train for the rest",
    ),
    "util": (
        "delete (no owner), or move to tools",
        "tf.make_ndarray / tf.make_tensor_proto / tf.get_static_value",
    ),
}
DEFAULT_FATE = ("not in the RFC's list", _GONE)

# contrib module -> TF 2.x namespaces (after `tf.`) a same-named successor may be in.
NAMESPACES = {
    "autograph": ("autograph", "autograph.experimental"),
    "checkpoint": ("train", "train.experimental"),
    "cluster_resolver": ("distribute.cluster_resolver",),
    "data": ("data.experimental", "data", "compat.v1.data.experimental"),
    "deprecated": ("compat.v1.summary",),
    "distribute": ("distribute", "distribute.experimental", "compat.v1.distribute"),
    "eager": ("compat.v1", "train", "experimental"),
    "feature_column": ("feature_column", "compat.v1.feature_column"),
    "framework": ("compat.v1.train", "train", "nest", "compat.v1", "debugging"),
    "image": ("image", "compat.v1.image"),
    "keras": ("keras",),
    "layers": ("compat.v1.layers", "nn"),
    "lookup": ("lookup", "lookup.experimental", "compat.v1.lookup"),
    "losses": ("compat.v1.losses",),
    "metrics": ("compat.v1.metrics",),
    "mixed_precision": ("compat.v1.mixed_precision", "mixed_precision"),
    "nn": ("nn", "compat.v1.nn"),
    "opt": ("compat.v1.train",),
    "proto": ("io",),
    "quantization": ("quantization", "compat.v1.quantization"),
    "rnn": ("compat.v1.nn.rnn_cell", "compat.v1.nn", "nn"),
    "saved_model": ("saved_model", "compat.v1.saved_model"),
    "signal": ("signal",),
    "stateless": ("random", "compat.v1.random"),
    "summary": ("summary", "compat.v1.summary"),
    "testing": ("test",),
    "tfprof": ("compat.v1.profiler",),
    "tpu": ("tpu", "tpu.experimental", "compat.v1.tpu"),
    "training": ("compat.v1.train", "train"),
    "util": ("",),
}

# Modules whose names mean their own thing (labeled tensors, distributions,
# graph edits, ...): a core function of the same name is no successor.
OWN_NAMES = {
    "bayesflow",
    "distributions",
    "factorization",
    "graph_editor",
    "grid_rnn",
    "labeled_tensor",
    "legacy_seq2seq",
    "seq2seq",
    "specs",
    "tensor_forest",
    "timeseries",
}

# contrib-internal module prefix -> the tf_slim module that keeps its code.
_SLIM_MODULES = {
    "tensorflow.contrib.layers.python.layers": "tf_slim.layers",
    "tensorflow.contrib.framework.python.ops": "tf_slim.ops",
    "tensorflow.contrib.slim.python.slim.data": "tf_slim.data",
    "tensorflow.contrib.slim.python.slim.nets": "tf_slim.nets",
    "tensorflow.contrib.slim.python.slim": "tf_slim",
    "tensorflow.contrib.metrics.python.ops": "tf_slim.metrics",
    "tensorflow.contrib.metrics.python.metrics": "tf_slim.metrics",
    "tensorflow.contrib.losses.python.losses": "tf_slim.losses",
    "tensorflow.contrib.losses.python.metric_learning": "tf_slim.losses",
}


def slim_module(origin_module: str) -> str | None:
    """The tf_slim module that keeps `origin_module`'s code (the same file)."""
    for prefix, slim in _SLIM_MODULES.items():
        if origin_module == prefix or origin_module.startswith(prefix + "."):
            rest = origin_module[len(prefix) :]
            return slim + rest
    return None


_EMG = {
    # TRAIN, EVAL and INFER, the same strings; no note, so --fix writes it.
    "tf.contrib.learn.ModeKeys": ("emg.estimator.LearnModeKeys", ""),
    "tf.contrib.training.HParams": (
        "emg.estimator.HParams",
        "TF 1.x's parse/values/types; an HParamDef protocol buffer is not supported",
    ),
}
# tf.contrib.lookup's table builders: emg.inputs.lookup's take the same
# arguments (contrib's `mapping=` included); no note, so --fix writes them.
_EMG.update(
    {
        f"tf.contrib.lookup.{name}": (f"emg.inputs.lookup.{name}", "")
        for name in (
            "FastHashSpec",
            "HasherSpec",
            "StrongHashSpec",
            "index_table_from_file",
            "index_table_from_tensor",
            "index_to_string",
            "index_to_string_table_from_file",
            "index_to_string_table_from_tensor",
            "string_to_index",
            "string_to_index_table_from_file",
            "string_to_index_table_from_tensor",
        )
    }
)
# tf.contrib.crf: emg.crf is TF 1.15's CRF op for op (its cells duck-typed
# for dynamic_rnn); crf_multitag_sequence_score has no drop-in.
_EMG.update(
    {
        f"tf.contrib.crf.{name}": (f"emg.crf.{name}", "")
        for name in (
            "CrfDecodeBackwardRnnCell",
            "CrfDecodeForwardRnnCell",
            "CrfForwardRnnCell",
            "crf_binary_score",
            "crf_decode",
            "crf_log_likelihood",
            "crf_log_norm",
            "crf_sequence_score",
            "crf_unary_score",
            "viterbi_decode",
        )
    }
)
# tf.contrib.seq2seq's decoder loop, helpers, attention wrapper and beam
# search decoder: emg.seq2seq is TF 1.15's code for them (the same arguments
# and variable scopes).
_EMG.update(
    {
        f"tf.contrib.seq2seq.{name}": (f"emg.seq2seq.{name}", "")
        for name in (
            "AttentionMechanism",
            "AttentionWrapper",
            "AttentionWrapperState",
            "BahdanauAttention",
            "BahdanauMonotonicAttention",
            "BasicDecoder",
            "BasicDecoderOutput",
            "BeamSearchDecoder",
            "BeamSearchDecoderOutput",
            "BeamSearchDecoderState",
            "Decoder",
            "FinalBeamSearchDecoderOutput",
            "GreedyEmbeddingHelper",
            "Helper",
            "LuongAttention",
            "LuongMonotonicAttention",
            "SampleEmbeddingHelper",
            "TrainingHelper",
            "dynamic_decode",
            "gather_tree",
            "hardmax",
            "monotonic_attention",
            "safe_cumprod",
            "tile_batch",
        )
    }
)
# Rows no reader can know: the successor takes renamed or reordered
# arguments, or the same-named TF 2.x function means something else.
OVERRIDES = {name: ("emg", target, note) for name, (target, note) in _EMG.items()}
# (outcome, successor, note, {contrib's keyword: the successor's}).
_CHECKPOINT_DIR = {"checkpoint_dir": "ckpt_dir_or_file"}
OVERRIDES.update(
    {
        "tf.contrib.framework.init_from_checkpoint": (
            "exact",
            "tf.compat.v1.train.init_from_checkpoint",
            "",
            _CHECKPOINT_DIR,
        ),
        "tf.contrib.framework.list_variables": (
            "exact",
            "tf.train.list_variables",
            "",
            _CHECKPOINT_DIR,
        ),
        "tf.contrib.framework.load_variable": (
            "exact",
            "tf.train.load_variable",
            "",
            _CHECKPOINT_DIR,
        ),
        "tf.contrib.framework.load_checkpoint": (
            "exact",
            "tf.train.load_checkpoint",
            "",
            {"filepattern": "ckpt_dir_or_file"},
        ),
        # contrib's is variable(initial_value, trainable=False, collections=
        # [LOCAL_VARIABLES], ...); tf_slim's (the same code) crashes on TF
        # 2.21. migrate/_api_changes names the positional arguments and adds
        # trainable and collections.
        "tf.contrib.framework.local_variable": (
            "exact",
            "tf.compat.v1.Variable",
            "",
        ),
        # contrib's uniform (default) xavier_initializer is glorot_uniform;
        # migrate/_contrib_outcomes drops uniform=True, refuses another.
        "tf.contrib.layers.xavier_initializer": (
            "exact",
            "tf.compat.v1.glorot_uniform_initializer",
            "",
        ),
    }
)
# tf.contrib.rnn: each name's own row, which wins over the module's advice
# (`_contrib_names.REPLACEMENTS["rnn"]`). The core cells and wrappers are
# tf.compat.v1.nn.rnn_cell's (TF 2.16+ serves them from tf-keras), the static
# RNN functions tf.compat.v1.nn's; the rest contrib alone had.
_RNN_CELLS = (
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
)
_RNN_FUNCTIONS = ("static_bidirectional_rnn", "static_rnn", "static_state_saving_rnn")
_RESEARCH_CELL = (
    "a research cell only contrib had (TensorFlow Addons carried some until its "
    "end of life, 2024): keep TF 1.15's implementation (Apache-2.0) as your own "
    "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use tf.keras.layers.LSTMCell"
)
_CONV_CELL = (
    "tf.keras.layers.ConvLSTM{n}D is the layer over a whole sequence (inputs "
    "[batch, time, ...spatial, channels]; filters, kernel_size), not a cell for "
    "dynamic_rnn: rewrite the loop around it"
)
_RNN_NONE = {
    "AttentionCellWrapper": ("", _RESEARCH_CELL),
    "BidirectionalGridLSTMCell": ("", _RESEARCH_CELL),
    "CompiledWrapper": (
        "",
        "XLA per cell is gone; compile the whole step with tf.function(jit_compile=True)",
    ),
    "Conv1DLSTMCell": ("", _CONV_CELL.format(n=1)),
    "Conv2DLSTMCell": ("", _CONV_CELL.format(n=2)),
    "Conv3DLSTMCell": ("", _CONV_CELL.format(n=3)),
    "ConvLSTMCell": ("", _CONV_CELL.format(n=2)),
    "CoupledInputForgetGateLSTMCell": ("", _RESEARCH_CELL),
    "EmbeddingWrapper": (
        "",
        "embed the inputs before the cell (tf.nn.embedding_lookup, or "
        "tf.keras.layers.Embedding(embedding_classes, embedding_size)) and run "
        "the wrapped cell on the embeddings",
    ),
    "FusedRNNCell": (
        "",
        "an abstract base class; run a cell with tf.compat.v1.nn.dynamic_rnn, "
        "or use tf.keras.layers.LSTM/GRU (fused with cuDNN on a GPU)",
    ),
    "FusedRNNCellAdaptor": (
        "",
        "run the wrapped cell with tf.compat.v1.nn.dynamic_rnn (use_dynamic_rnn="
        "True) or tf.compat.v1.nn.static_rnn over the unstacked time-major inputs",
    ),
    "GLSTMCell": ("", _RESEARCH_CELL),
    "GRUBlockCell": (
        "",
        "tf.compat.v1.nn.rnn_cell.GRUCell(num_units) computes the same GRU "
        "(contrib's was one fused op); check the checkpoint's variable names",
    ),
    "GRUBlockCellV2": (
        "",
        "tf.compat.v1.nn.rnn_cell.GRUCell(num_units) computes the same GRU "
        "(contrib's was one fused op); check the checkpoint's variable names",
    ),
    "GridLSTMCell": ("", _RESEARCH_CELL),
    "HighwayWrapper": ("", _RESEARCH_CELL),
    "IndRNNCell": ("", _RESEARCH_CELL),
    "IndyGRUCell": ("", _RESEARCH_CELL),
    "IndyLSTMCell": ("", _RESEARCH_CELL),
    "InputProjectionWrapper": (
        "",
        "project the inputs before the cell (tf.keras.layers.Dense(num_proj), "
        "as the wrapper did at each step) and run the wrapped cell on them",
    ),
    "IntersectionRNNCell": ("", _RESEARCH_CELL),
    "LSTMBlockCell": (
        "",
        "tf.compat.v1.nn.rnn_cell.LSTMCell(num_units, forget_bias=forget_bias, "
        "cell_clip=cell_clip, use_peepholes=use_peephole) computes the same LSTM "
        "(contrib's was one fused op; note use_peephole -> use_peepholes); "
        "check the checkpoint's variable names",
    ),
    "LSTMBlockFusedCell": (
        "",
        "a fused LSTM over a whole time-major sequence; the nearest is "
        "tf.keras.layers.LSTM(num_units, return_sequences=True, return_state="
        "True) over the batch-major sequence (cuDNN on a GPU), but it adds no "
        "forget_bias at run time (unit_forget_bias starts the bias at 1) and has "
        "no cell_clip or peepholes",
    ),
    "LSTMBlockWrapper": (
        "",
        "an abstract base class of the fused LSTMs; see LSTMBlockFusedCell",
    ),
    "LayerNormBasicLSTMCell": ("", _RESEARCH_CELL),
    "LayerRNNCell": (
        "",
        "a base class; subclass tf.compat.v1.nn.rnn_cell.RNNCell (build() then "
        "creates the variables), or tf.keras.layers.AbstractRNNCell",
    ),
    "NASCell": ("", _RESEARCH_CELL),
    "OutputProjectionWrapper": (
        "",
        "apply tf.keras.layers.Dense(output_size) to the cell's outputs (the "
        "wrapper did it at each step); the state is the wrapped cell's",
    ),
    "PhasedLSTMCell": ("", _RESEARCH_CELL),
    "SRUCell": ("", _RESEARCH_CELL),
    "TimeFreqLSTMCell": ("", _RESEARCH_CELL),
    "TimeReversedFusedRNN": (
        "",
        "reverse the time axis before and after the RNN (tf.reverse_sequence "
        "with the sequence lengths, else tf.reverse(x, [0]) time-major)",
    ),
    "UGRNNCell": ("", _RESEARCH_CELL),
    "best_effort_input_batch_size": (
        "",
        "an internal helper: the batch size is tf.shape(inputs)[1] (time-major) "
        "or tf.shape(inputs)[0]",
    ),
    "stack_bidirectional_dynamic_rnn": (
        "",
        "stack tf.compat.v1.nn.bidirectional_dynamic_rnn calls yourself, each "
        "layer reading the previous one's concatenated outputs, each in its own "
        "variable scope (or tf.keras.layers.Bidirectional over stacked LSTMs)",
    ),
    "stack_bidirectional_rnn": (
        "",
        "stack tf.compat.v1.nn.static_bidirectional_rnn calls yourself, each "
        "layer reading the previous one's outputs, each in its own variable scope",
    ),
    "transpose_batch_time": (
        "",
        "an internal helper: tf.transpose(x, [1, 0] + list(range(2, rank))) swaps "
        "the batch and time axes",
    ),
}
OVERRIDES.update(
    {
        f"tf.contrib.rnn.{n}": ("exact", f"tf.compat.v1.nn.rnn_cell.{n}", LEGACY_NOTE)
        for n in _RNN_CELLS
    }
)
OVERRIDES.update(
    {
        f"tf.contrib.rnn.{n}": ("exact", f"tf.compat.v1.nn.{n}", "")
        for n in _RNN_FUNCTIONS
    }
)
OVERRIDES.update(
    {
        f"tf.contrib.rnn.{n}": ("none", successor, why)
        for n, (successor, why) in _RNN_NONE.items()
    }
)

# contrib's sequence_loss, as core ops (the formulas its code computes).
_CE = (
    "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits) "
    "* weights"
)
_SEQUENCE_LOSS = (
    "no TF 2.x function computes it (TensorFlow Addons' tfa.seq2seq.sequence_loss "
    f"did, until its end of life); with `ce = {_CE}` ([batch, time]; a "
    "softmax_loss_function(labels=, logits=) takes the cross-entropy's place), "
    "the default (average_across_timesteps and average_across_batch) is "
    "`tf.math.divide_no_nan(tf.reduce_sum(ce), tf.reduce_sum(weights))`; "
    "average_across_timesteps alone: `tf.math.divide_no_nan(tf.reduce_sum(ce, "
    "axis=1), tf.reduce_sum(weights, axis=1))`; average_across_batch alone: "
    "`tf.math.divide_no_nan(tf.reduce_sum(ce, axis=0), tf.reduce_sum(weights, "
    "axis=0))`; neither: `ce`; sum_over_timesteps and sum_over_batch: "
    "`tf.math.divide_no_nan(tf.reduce_sum(ce), tf.cast(tf.math.count_nonzero("
    "weights), ce.dtype))` (one of them alone: the same with axis=1 or axis=0)"
)
OVERRIDES["tf.contrib.seq2seq.sequence_loss"] = ("none", "", _SEQUENCE_LOSS)
_DOTTED = re.compile(r"\b(?:tf|tf_slim|emg|dataset)\.[\w.]*\w")


def known(symbol: str) -> tuple[str, str, str] | None:
    """The row emg-migrate's existing tables give `symbol`, if they name it.

    Those tables win over this table at scan time; the row copies their
    replacement text as its note, so the two never disagree.
    """
    from estimator_multigpu.migrate import (
        _contrib_names,
        _exact_calls,
        _rules,
        _slim_layers,
    )

    text = _contrib_names.REPLACEMENTS.get(symbol.removeprefix("tf.contrib."))
    if symbol in _exact_calls._NAMES:  # what --fix writes; the text the scan gives
        module, rest = _exact_calls._NAMES[symbol]
        return "exact", f"{module or 'tf'}.{rest}", text or ""
    name = symbol.removeprefix(_slim_layers.CONTRIB)
    if symbol.startswith(_slim_layers.CONTRIB) and name in _slim_layers.NAMES:
        return "exact", f"tf_slim.{name}", ""
    key = _contrib_names._key(symbol)
    if text is None and key is not None:
        # A whole module's advice ("rnn"): the scan gives its text.
        return "covered", "", _contrib_names.REPLACEMENTS[key]
    rule = _rules.TABLE.get(symbol)
    if text is None and rule is not None and rule.rule_id != "contrib":
        text = rule.replacement
    if text is None:
        return None
    first = _DOTTED.search(text)
    successor = first.group(0) if first else ""
    kind = "emg" if successor.startswith("emg.") else "exact"
    return (kind if successor else "none"), successor, text
