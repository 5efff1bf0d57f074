"""tf.contrib.seq2seq of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "adapt, move to core"
ADVICE = "TensorFlow Addons carried some of it until its end of life (2024); keep the TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AttentionMechanism": ("emg", "emg.seq2seq.AttentionMechanism", ""),
    "AttentionWrapper": ("emg", "emg.seq2seq.AttentionWrapper", ""),
    "AttentionWrapperState": ("emg", "emg.seq2seq.AttentionWrapperState", ""),
    "BahdanauAttention": ("emg", "emg.seq2seq.BahdanauAttention", ""),
    "BahdanauMonotonicAttention": ("emg", "emg.seq2seq.BahdanauMonotonicAttention", ""),
    "BasicDecoder": ("emg", "emg.seq2seq.BasicDecoder", ""),
    "BasicDecoderOutput": ("emg", "emg.seq2seq.BasicDecoderOutput", ""),
    "BeamSearchDecoder": ("emg", "emg.seq2seq.BeamSearchDecoder", ""),
    "BeamSearchDecoderOutput": ("emg", "emg.seq2seq.BeamSearchDecoderOutput", ""),
    "BeamSearchDecoderState": ("emg", "emg.seq2seq.BeamSearchDecoderState", ""),
    "CustomHelper": ("none", "", ""),
    "Decoder": ("emg", "emg.seq2seq.Decoder", ""),
    "FinalBeamSearchDecoderOutput": (
        "emg",
        "emg.seq2seq.FinalBeamSearchDecoderOutput",
        "",
    ),
    "GreedyEmbeddingHelper": ("emg", "emg.seq2seq.GreedyEmbeddingHelper", ""),
    "Helper": ("emg", "emg.seq2seq.Helper", ""),
    "InferenceHelper": ("none", "", ""),
    "LuongAttention": ("emg", "emg.seq2seq.LuongAttention", ""),
    "LuongMonotonicAttention": ("emg", "emg.seq2seq.LuongMonotonicAttention", ""),
    "SampleEmbeddingHelper": ("emg", "emg.seq2seq.SampleEmbeddingHelper", ""),
    "ScheduledEmbeddingTrainingHelper": ("none", "", ""),
    "ScheduledOutputTrainingHelper": ("none", "", ""),
    "TrainingHelper": ("emg", "emg.seq2seq.TrainingHelper", ""),
    "dynamic_decode": ("emg", "emg.seq2seq.dynamic_decode", ""),
    "gather_tree": ("emg", "emg.seq2seq.gather_tree", ""),
    "hardmax": ("emg", "emg.seq2seq.hardmax", ""),
    "monotonic_attention": ("emg", "emg.seq2seq.monotonic_attention", ""),
    "safe_cumprod": ("emg", "emg.seq2seq.safe_cumprod", ""),
    "sequence_loss": (
        "none",
        "",
        "no TF 2.x function computes it (TensorFlow Addons' "
        "tfa.seq2seq.sequence_loss did, until its end of life); "
        "with `ce = "
        "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, "
        "logits=logits) * weights` ([batch, time]; a "
        "softmax_loss_function(labels=, logits=) takes the "
        "cross-entropy's place), the default "
        "(average_across_timesteps and average_across_batch) is "
        "`tf.math.divide_no_nan(tf.reduce_sum(ce), "
        "tf.reduce_sum(weights))`; average_across_timesteps alone: "
        "`tf.math.divide_no_nan(tf.reduce_sum(ce, axis=1), "
        "tf.reduce_sum(weights, axis=1))`; average_across_batch "
        "alone: `tf.math.divide_no_nan(tf.reduce_sum(ce, axis=0), "
        "tf.reduce_sum(weights, axis=0))`; neither: `ce`; "
        "sum_over_timesteps and sum_over_batch: "
        "`tf.math.divide_no_nan(tf.reduce_sum(ce), "
        "tf.cast(tf.math.count_nonzero(weights), ce.dtype))` (one "
        "of them alone: the same with axis=1 or axis=0)",
    ),
    "tile_batch": ("emg", "emg.seq2seq.tile_batch", ""),
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
