"""tf.contrib.cudnn_rnn of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (available in tf.keras.layers)"
ADVICE = "tf.keras.layers.LSTM / GRU pick the cuDNN kernel on a GPU"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "CudnnCompatibleGRUCell": ("none", "", ""),
    "CudnnCompatibleLSTMCell": ("none", "", ""),
    "CudnnGRU": ("none", "", ""),
    "CudnnGRUSaveable": ("none", "", ""),
    "CudnnLSTM": ("none", "", ""),
    "CudnnLSTMSaveable": ("none", "", ""),
    "CudnnParamsFormatConverterGRU": ("none", "", ""),
    "CudnnParamsFormatConverterLSTM": ("none", "", ""),
    "CudnnParamsFormatConverterRelu": ("none", "", ""),
    "CudnnParamsFormatConverterTanh": ("none", "", ""),
    "CudnnRNNRelu": ("none", "", ""),
    "CudnnRNNReluSaveable": ("none", "", ""),
    "CudnnRNNTanh": ("none", "", ""),
    "CudnnRNNTanhSaveable": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.cudnn_rnn.python.layers.cudnn_rnn": {
        "CudnnGRU": "CudnnGRU",
        "CudnnLSTM": "CudnnLSTM",
        "CudnnRNNRelu": "CudnnRNNRelu",
        "CudnnRNNTanh": "CudnnRNNTanh",
    },
    "tf.contrib.cudnn_rnn.python.ops.cudnn_rnn_ops": {
        "CudnnCompatibleGRUCell": "CudnnCompatibleGRUCell",
        "CudnnCompatibleLSTMCell": "CudnnCompatibleLSTMCell",
        "CudnnGRUSaveable": "CudnnGRUSaveable",
        "CudnnLSTMSaveable": "CudnnLSTMSaveable",
        "CudnnParamsFormatConverterGRU": "CudnnParamsFormatConverterGRU",
        "CudnnParamsFormatConverterLSTM": "CudnnParamsFormatConverterLSTM",
        "CudnnParamsFormatConverterRelu": "CudnnParamsFormatConverterRelu",
        "CudnnParamsFormatConverterTanh": "CudnnParamsFormatConverterTanh",
        "CudnnRNNReluSaveable": "CudnnRNNReluSaveable",
        "CudnnRNNTanhSaveable": "CudnnRNNTanhSaveable",
    },
}
