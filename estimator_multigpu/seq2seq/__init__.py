"""TF 1.x's `tf.contrib.seq2seq` as a drop-in: the decoder loop, its helpers,
the attention wrapper and the beam search decoder.

TF 2 has no successor (TensorFlow Addons carried a Keras rewrite until its end
of life, 2024). Translation and summarisation models of 2017-2019 built their
train graph with `TrainingHelper` + `BasicDecoder` + `dynamic_decode` (the
cell wrapped in an `AttentionWrapper` with a `BahdanauAttention` or
`LuongAttention`) and their inference graph with `GreedyEmbeddingHelper` or a
`BeamSearchDecoder`. These are TF 1.15's, with the same arguments, the same
loop under the same variable scopes (`decoder/...`, `memory_layer/kernel`,
`attention_wrapper/attention_layer/kernel`, `.../bahdanau_attention/
attention_v`, so TF 1.x checkpoints restore) and the same structures, in
graph mode (`tf.compat.v1`)::

    import estimator_multigpu as emg

    helper = emg.seq2seq.TrainingHelper(embedded, lengths, time_major=True)
    decoder = emg.seq2seq.BasicDecoder(cell, helper, state, output_layer=dense)
    outputs, state, lengths = emg.seq2seq.dynamic_decode(decoder)

`emg-migrate --fix` writes these for `tf.contrib.seq2seq.<name>`.
`InferenceHelper`, `CustomHelper`, the scheduled-sampling helpers and
`sequence_loss` are not here.
"""

from estimator_multigpu.seq2seq._attention import (
    AttentionMechanism,
    AttentionWrapper,
    AttentionWrapperState,
    BahdanauAttention,
    LuongAttention,
    hardmax,
)
from estimator_multigpu.seq2seq._beam_search import (
    BeamSearchDecoder,
    BeamSearchDecoderOutput,
    BeamSearchDecoderState,
    FinalBeamSearchDecoderOutput,
    gather_tree,
)
from estimator_multigpu.seq2seq._decoder import (
    BasicDecoder,
    BasicDecoderOutput,
    Decoder,
    GreedyEmbeddingHelper,
    Helper,
    SampleEmbeddingHelper,
    TrainingHelper,
    dynamic_decode,
    tile_batch,
)
from estimator_multigpu.seq2seq._monotonic import (
    BahdanauMonotonicAttention,
    LuongMonotonicAttention,
    monotonic_attention,
    safe_cumprod,
)

__all__ = [
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
]
