"""tf.contrib.ffmpeg of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete"
ADVICE = "tf.audio.decode_wav, or tensorflow-io's tfio.audio / tfio.experimental.ffmpeg"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "decode_audio": ("none", "", ""),
    "decode_video": ("none", "", ""),
    "encode_audio": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.ffmpeg.ffmpeg_ops": {
        "decode_audio": "decode_audio",
        "decode_video": "decode_video",
        "encode_audio": "encode_audio",
    }
}
