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
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "BasicLSTMCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.BasicLSTMCell",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "BasicRNNCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.BasicRNNCell",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "BidirectionalGridLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on "
        "TF 2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "CompiledWrapper": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "Conv1DLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "Conv2DLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "Conv3DLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "ConvLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "CoupledInputForgetGateLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, "
        "GRUCell, MultiRNNCell, DropoutWrapper; "
        "with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "DeviceWrapper": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.DeviceWrapper",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "DropoutWrapper": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.DropoutWrapper",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "EmbeddingWrapper": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "FusedRNNCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "FusedRNNCellAdaptor": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "GLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "GRUBlockCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "GRUBlockCellV2": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "GRUCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.GRUCell",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "GridLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "HighwayWrapper": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "IndRNNCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "IndyGRUCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "IndyLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "InputProjectionWrapper": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "IntersectionRNNCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "LSTMBlockCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "LSTMBlockFusedCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "LSTMBlockWrapper": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "LSTMCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.LSTMCell",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "LSTMStateTuple": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.LSTMStateTuple",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "LayerNormBasicLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "LayerRNNCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "MultiRNNCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.MultiRNNCell",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "NASCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "OutputProjectionWrapper": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on "
        "TF 2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "PhasedLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "RNNCell": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.RNNCell",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "ResidualWrapper": (
        "exact",
        "tf.compat.v1.nn.rnn_cell.ResidualWrapper",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF 2.16+) "
        "or tf.keras.layers.LSTM/GRU",
    ),
    "SRUCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "TimeFreqLSTMCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "TimeReversedFusedRNN": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "UGRNNCell": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "best_effort_input_batch_size": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, "
        "GRUCell, MultiRNNCell, DropoutWrapper; with "
        "tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "stack_bidirectional_dynamic_rnn": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, "
        "GRUCell, MultiRNNCell, DropoutWrapper; "
        "with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "stack_bidirectional_rnn": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on "
        "TF 2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "static_bidirectional_rnn": (
        "exact",
        "tf.compat.v1.nn.static_bidirectional_rnn",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on "
        "TF 2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "static_rnn": (
        "exact",
        "tf.compat.v1.nn.static_rnn",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, MultiRNNCell, "
        "DropoutWrapper; with tf-keras on TF 2.16+) or "
        "tf.keras.layers.LSTM/GRU",
    ),
    "static_state_saving_rnn": (
        "exact",
        "tf.compat.v1.nn.static_state_saving_rnn",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on "
        "TF 2.16+) or tf.keras.layers.LSTM/GRU",
    ),
    "transpose_batch_time": (
        "none",
        "",
        "tf.compat.v1.nn.rnn_cell.* (LSTMCell, GRUCell, "
        "MultiRNNCell, DropoutWrapper; with tf-keras on TF "
        "2.16+) or tf.keras.layers.LSTM/GRU",
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
