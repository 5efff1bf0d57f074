"""tf.contrib.rnn of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "replace with new RNN API"
ADVICE = (
    "tf.compat.v1.nn.rnn_cell (with tf-keras on TF 2.16+) or tf.keras.layers RNN cells"
)
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AttentionCellWrapper": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons "
        "carried some until its end of life, 2024): keep TF "
        "1.15's implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "BasicLSTMCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.BasicLSTMCell",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "BasicRNNCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.BasicRNNCell",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "BidirectionalGridLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow "
        "Addons carried some until its end of life, "
        "2024): keep TF 1.15's implementation "
        "(Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or "
        "use tf.keras.layers.LSTMCell",
    ),
    "CompiledWrapper": (
        "none",
        "",
        "XLA per cell is gone; compile the whole step with "
        "tf.function(jit_compile=True)",
    ),
    "Conv1DLSTMCell": (
        "none",
        "",
        "tf.keras.layers.ConvLSTM1D is the layer over a whole "
        "sequence (inputs [batch, time, ...spatial, channels]; "
        "filters, kernel_size), not a cell for dynamic_rnn: "
        "rewrite the loop around it",
    ),
    "Conv2DLSTMCell": (
        "none",
        "",
        "tf.keras.layers.ConvLSTM2D is the layer over a whole "
        "sequence (inputs [batch, time, ...spatial, channels]; "
        "filters, kernel_size), not a cell for dynamic_rnn: "
        "rewrite the loop around it",
    ),
    "Conv3DLSTMCell": (
        "none",
        "",
        "tf.keras.layers.ConvLSTM3D is the layer over a whole "
        "sequence (inputs [batch, time, ...spatial, channels]; "
        "filters, kernel_size), not a cell for dynamic_rnn: "
        "rewrite the loop around it",
    ),
    "ConvLSTMCell": (
        "none",
        "",
        "tf.keras.layers.ConvLSTM2D is the layer over a whole "
        "sequence (inputs [batch, time, ...spatial, channels]; "
        "filters, kernel_size), not a cell for dynamic_rnn: rewrite "
        "the loop around it",
    ),
    "CoupledInputForgetGateLSTMCell": (
        "none",
        "",
        "a research cell only contrib had "
        "(TensorFlow Addons carried some until its "
        "end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell "
        "subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "DeviceWrapper": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.DeviceWrapper",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "DropoutWrapper": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.DropoutWrapper",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "EmbeddingWrapper": (
        "none",
        "",
        "embed the inputs before the cell "
        "(tf.nn.embedding_lookup, or "
        "tf.keras.layers.Embedding(embedding_classes, "
        "embedding_size)) and run the wrapped cell on the "
        "embeddings",
    ),
    "FusedRNNCell": (
        "none",
        "",
        "an abstract base class; run a cell with "
        "tf.compat.v1.nn.dynamic_rnn, or use "
        "tf.keras.layers.LSTM/GRU (fused with cuDNN on a GPU)",
    ),
    "FusedRNNCellAdaptor": (
        "none",
        "",
        "run the wrapped cell with "
        "tf.compat.v1.nn.dynamic_rnn (use_dynamic_rnn=True) "
        "or tf.compat.v1.nn.static_rnn over the unstacked "
        "time-major inputs",
    ),
    "GLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried "
        "some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "GRUBlockCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.GRUCell(num_units) computes the "
        "same GRU (contrib's was one fused op); check the "
        "checkpoint's variable names",
    ),
    "GRUBlockCellV2": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.GRUCell(num_units) computes the "
        "same GRU (contrib's was one fused op); check the "
        "checkpoint's variable names",
    ),
    "GRUCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.GRUCell",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "GridLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried "
        "some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "HighwayWrapper": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons "
        "carried some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "IndRNNCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried "
        "some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "IndyGRUCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried "
        "some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "IndyLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried "
        "some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "InputProjectionWrapper": (
        "none",
        "",
        "project the inputs before the cell "
        "(tf.keras.layers.Dense(num_proj), as the wrapper "
        "did at each step) and run the wrapped cell on "
        "them",
    ),
    "IntersectionRNNCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons "
        "carried some until its end of life, 2024): keep TF "
        "1.15's implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "LSTMBlockCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.LSTMCell(num_units, "
        "forget_bias=forget_bias, cell_clip=cell_clip, "
        "use_peepholes=use_peephole) computes the same LSTM "
        "(contrib's was one fused op; note use_peephole -> "
        "use_peepholes); check the checkpoint's variable names",
    ),
    "LSTMBlockFusedCell": (
        "none",
        "",
        "a fused LSTM over a whole time-major sequence; the "
        "nearest is tf.keras.layers.LSTM(num_units, "
        "return_sequences=True, return_state=True) over the "
        "batch-major sequence (cuDNN on a GPU), but it adds no "
        "forget_bias at run time (unit_forget_bias starts the "
        "bias at 1) and has no cell_clip or peepholes",
    ),
    "LSTMBlockWrapper": (
        "none",
        "",
        "an abstract base class of the fused LSTMs; see LSTMBlockFusedCell",
    ),
    "LSTMCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.LSTMCell",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "LSTMStateTuple": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.LSTMStateTuple",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "LayerNormBasicLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow "
        "Addons carried some until its end of life, 2024): "
        "keep TF 1.15's implementation (Apache-2.0) as "
        "your own tf.compat.v1.nn.rnn_cell.RNNCell "
        "subclass, or use tf.keras.layers.LSTMCell",
    ),
    "LayerRNNCell": (
        "none",
        "",
        "a base class; subclass tf.compat.v1.nn.rnn_cell.RNNCell "
        "(build() then creates the variables), or "
        "tf.keras.layers.AbstractRNNCell",
    ),
    "MultiRNNCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.MultiRNNCell",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "NASCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried some "
        "until its end of life, 2024): keep TF 1.15's implementation "
        "(Apache-2.0) as your own tf.compat.v1.nn.rnn_cell.RNNCell "
        "subclass, or use tf.keras.layers.LSTMCell",
    ),
    "OutputProjectionWrapper": (
        "none",
        "",
        "apply tf.keras.layers.Dense(output_size) to the "
        "cell's outputs (the wrapper did it at each "
        "step); the state is the wrapped cell's",
    ),
    "PhasedLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons "
        "carried some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "RNNCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.RNNCell",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "ResidualWrapper": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.ResidualWrapper",
        "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+",
    ),
    "SRUCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried some "
        "until its end of life, 2024): keep TF 1.15's implementation "
        "(Apache-2.0) as your own tf.compat.v1.nn.rnn_cell.RNNCell "
        "subclass, or use tf.keras.layers.LSTMCell",
    ),
    "TimeFreqLSTMCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons "
        "carried some until its end of life, 2024): keep TF "
        "1.15's implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "TimeReversedFusedRNN": (
        "none",
        "",
        "reverse the time axis before and after the RNN "
        "(tf.reverse_sequence with the sequence lengths, "
        "else tf.reverse(x, [0]) time-major)",
    ),
    "UGRNNCell": (
        "none",
        "",
        "a research cell only contrib had (TensorFlow Addons carried "
        "some until its end of life, 2024): keep TF 1.15's "
        "implementation (Apache-2.0) as your own "
        "tf.compat.v1.nn.rnn_cell.RNNCell subclass, or use "
        "tf.keras.layers.LSTMCell",
    ),
    "best_effort_input_batch_size": (
        "none",
        "",
        "an internal helper: the batch size is "
        "tf.shape(inputs)[1] (time-major) or "
        "tf.shape(inputs)[0]",
    ),
    "stack_bidirectional_dynamic_rnn": (
        "none",
        "",
        "stack "
        "tf.compat.v1.nn.bidirectional_dynamic_rnn "
        "calls yourself, each layer reading the "
        "previous one's concatenated outputs, "
        "each in its own variable scope (or "
        "tf.keras.layers.Bidirectional over "
        "stacked LSTMs)",
    ),
    "stack_bidirectional_rnn": (
        "none",
        "",
        "stack tf.compat.v1.nn.static_bidirectional_rnn "
        "calls yourself, each layer reading the previous "
        "one's outputs, each in its own variable scope",
    ),
    "static_bidirectional_rnn": (
        "exact",
        "tf.compat.v1.nn.static_bidirectional_rnn",
        "",
    ),
    "static_rnn": ("exact", "tf.compat.v1.nn.static_rnn", ""),
    "static_state_saving_rnn": ("exact", "tf.compat.v1.nn.static_state_saving_rnn", ""),
    "transpose_batch_time": (
        "none",
        "",
        "an internal helper: tf.transpose(x, [1, 0] + "
        "list(range(2, rank))) swaps the batch and time "
        "axes",
    ),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.rnn.python.ops.core_rnn_cell": {
        "EmbeddingWrapper": "EmbeddingWrapper",
        "InputProjectionWrapper": "InputProjectionWrapper",
        "OutputProjectionWrapper": "OutputProjectionWrapper",
    },
    "tf.contrib.rnn.python.ops.fused_rnn_cell": {
        "FusedRNNCell": "FusedRNNCell",
        "FusedRNNCellAdaptor": "FusedRNNCellAdaptor",
        "TimeReversedFusedRNN": "TimeReversedFusedRNN",
    },
    "tf.contrib.rnn.python.ops.gru_ops": {
        "GRUBlockCell": "GRUBlockCell",
        "GRUBlockCellV2": "GRUBlockCellV2",
    },
    "tf.contrib.rnn.python.ops.lstm_ops": {
        "LSTMBlockCell": "LSTMBlockCell",
        "LSTMBlockFusedCell": "LSTMBlockFusedCell",
        "LSTMBlockWrapper": "LSTMBlockWrapper",
    },
    "tf.contrib.rnn.python.ops.rnn": {
        "stack_bidirectional_dynamic_rnn": "stack_bidirectional_dynamic_rnn",
        "stack_bidirectional_rnn": "stack_bidirectional_rnn",
    },
    "tf.contrib.rnn.python.ops.rnn_cell": {
        "AttentionCellWrapper": "AttentionCellWrapper",
        "BidirectionalGridLSTMCell": "BidirectionalGridLSTMCell",
        "CompiledWrapper": "CompiledWrapper",
        "Conv1DLSTMCell": "Conv1DLSTMCell",
        "Conv2DLSTMCell": "Conv2DLSTMCell",
        "Conv3DLSTMCell": "Conv3DLSTMCell",
        "ConvLSTMCell": "ConvLSTMCell",
        "CoupledInputForgetGateLSTMCell": "CoupledInputForgetGateLSTMCell",
        "GLSTMCell": "GLSTMCell",
        "GridLSTMCell": "GridLSTMCell",
        "HighwayWrapper": "HighwayWrapper",
        "IndRNNCell": "IndRNNCell",
        "IndyGRUCell": "IndyGRUCell",
        "IndyLSTMCell": "IndyLSTMCell",
        "IntersectionRNNCell": "IntersectionRNNCell",
        "LayerNormBasicLSTMCell": "LayerNormBasicLSTMCell",
        "NASCell": "NASCell",
        "PhasedLSTMCell": "PhasedLSTMCell",
        "SRUCell": "SRUCell",
        "TimeFreqLSTMCell": "TimeFreqLSTMCell",
        "UGRNNCell": "UGRNNCell",
    },
}
