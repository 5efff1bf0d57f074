"""tf.contrib.seq2seq of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "adapt, move to core"
ADVICE = "TensorFlow Addons carried some of it until its end of life (2024); keep the TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AttentionMechanism": ("none", "", ""),
    "AttentionWrapper": ("none", "", ""),
    "AttentionWrapperState": ("none", "", ""),
    "BahdanauAttention": ("none", "", ""),
    "BahdanauMonotonicAttention": ("none", "", ""),
    "BasicDecoder": ("none", "", ""),
    "BasicDecoderOutput": ("none", "", ""),
    "BeamSearchDecoder": ("none", "", ""),
    "BeamSearchDecoderOutput": ("none", "", ""),
    "BeamSearchDecoderState": ("none", "", ""),
    "CustomHelper": ("none", "", ""),
    "Decoder": ("none", "", ""),
    "FinalBeamSearchDecoderOutput": ("none", "", ""),
    "GreedyEmbeddingHelper": ("none", "", ""),
    "Helper": ("none", "", ""),
    "InferenceHelper": ("none", "", ""),
    "LuongAttention": ("none", "", ""),
    "LuongMonotonicAttention": ("none", "", ""),
    "SampleEmbeddingHelper": ("none", "", ""),
    "ScheduledEmbeddingTrainingHelper": ("none", "", ""),
    "ScheduledOutputTrainingHelper": ("none", "", ""),
    "TrainingHelper": ("none", "", ""),
    "dynamic_decode": ("none", "", ""),
    "gather_tree": ("none", "", ""),
    "hardmax": ("none", "", ""),
    "monotonic_attention": ("none", "", ""),
    "safe_cumprod": ("none", "", ""),
    "sequence_loss": ("none", "", ""),
    "tile_batch": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.seq2seq.ops.gen_beam_search_ops": {"gather_tree": "gather_tree"},
    "tf.contrib.seq2seq.python.ops.attention_wrapper": {
        "AttentionMechanism": "AttentionMechanism",
        "AttentionWrapper": "AttentionWrapper",
        "AttentionWrapperState": "AttentionWrapperState",
        "BahdanauAttention": "BahdanauAttention",
        "BahdanauMonotonicAttention": "BahdanauMonotonicAttention",
        "LuongAttention": "LuongAttention",
        "LuongMonotonicAttention": "LuongMonotonicAttention",
        "hardmax": "hardmax",
        "monotonic_attention": "monotonic_attention",
        "safe_cumprod": "safe_cumprod",
    },
    "tf.contrib.seq2seq.python.ops.basic_decoder": {
        "BasicDecoder": "BasicDecoder",
        "BasicDecoderOutput": "BasicDecoderOutput",
    },
    "tf.contrib.seq2seq.python.ops.beam_search_decoder": {
        "BeamSearchDecoder": "BeamSearchDecoder",
        "BeamSearchDecoderOutput": "BeamSearchDecoderOutput",
        "BeamSearchDecoderState": "BeamSearchDecoderState",
        "FinalBeamSearchDecoderOutput": "FinalBeamSearchDecoderOutput",
        "tile_batch": "tile_batch",
    },
    "tf.contrib.seq2seq.python.ops.decoder": {
        "Decoder": "Decoder",
        "dynamic_decode": "dynamic_decode",
    },
    "tf.contrib.seq2seq.python.ops.helper": {
        "CustomHelper": "CustomHelper",
        "GreedyEmbeddingHelper": "GreedyEmbeddingHelper",
        "Helper": "Helper",
        "InferenceHelper": "InferenceHelper",
        "SampleEmbeddingHelper": "SampleEmbeddingHelper",
        "ScheduledEmbeddingTrainingHelper": "ScheduledEmbeddingTrainingHelper",
        "ScheduledOutputTrainingHelper": "ScheduledOutputTrainingHelper",
        "TrainingHelper": "TrainingHelper",
    },
    "tf.contrib.seq2seq.python.ops.loss": {"sequence_loss": "sequence_loss"},
}
