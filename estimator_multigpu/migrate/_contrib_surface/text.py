"""tf.contrib.text of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to tensorflow/contrib?"
ADVICE = "the tensorflow-text package, or keep the TF 1.15 implementation in your code (Apache-2.0), or rewrite it with core tf ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "skip_gram_sample": ("none", "", ""),
    "skip_gram_sample_with_text_vocab": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.text.python.ops.skip_gram_ops": {
        "skip_gram_sample": "skip_gram_sample",
        "skip_gram_sample_with_text_vocab": "skip_gram_sample_with_text_vocab",
    }
}
