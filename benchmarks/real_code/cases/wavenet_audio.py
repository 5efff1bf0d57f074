"""ibab/tensorflow-wavenet (2016-2018): WaveNet on raw audio. An
AudioReader class loads .wav files with librosa in a background thread and
feeds a PaddingFIFOQueue through a placeholder with `sess.run(enqueue)`;
train.py dequeues batches from it in a tf.Session loop, generate.py samples
from the checkpoint one step at a time (fast generation: per-layer queues of
past activations).

Its commands, as the README gives them: train.py on a folder of .wav files,
then generate.py from the checkpoint it wrote, with fast (incremental)
generation and again with --fast_generation=false from a --wav_seed.
--fix rewrites librosa's removed feature.rmse (the reader thread's silence
trimming) and output.write_wav. Left: the reader's PaddingFIFOQueue, fed
from a Python thread through a placeholder (a from_generator dataset by
hand), and fast generation's FIFOQueues, delay lines of past activations
(enqueue_many of zeros, then a dequeue and an enqueue per sample), not
input; all run under the compat.v1 port. Needs librosa (installed into
the venv for this case: librosa 0.11 with soundfile)."""

from __future__ import annotations

import json
import pathlib

from benchmarks.real_code._case import Case, Command

# A small network: three dilations of width 2 (receptive field 5 samples with
# the initial filter), few channels.
_PARAMS = {
    "filter_width": 2,
    "sample_rate": 16000,
    "dilations": [1, 2, 4],
    "residual_channels": 8,
    "dilation_channels": 8,
    "quantization_channels": 64,
    "skip_channels": 16,
    "use_biases": True,
    "scalar_input": False,
    "initial_filter_width": 2,
}


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """corpus/pNNN/pNNN_NNN.wav: 16 kHz mono 16-bit PCM files named as VCTK
    names its recordings (speaker id, recording id), chirps with noise loud
    enough to pass the reader's silence trimming; and wavenet_params.json,
    the network parameters train.py and generate.py both read."""
    del tree
    import wave  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    rng = np.random.default_rng(0)
    rate = _PARAMS["sample_rate"]
    t = np.arange(rate // 4) / rate
    for speaker in (225, 226):
        folder = data / "corpus" / f"p{speaker}"
        folder.mkdir(parents=True)
        for take in range(1, 3):
            freq = 200.0 * take + speaker
            signal = 0.7 * np.sin(2 * np.pi * freq * t * (1 + t))
            signal += 0.05 * rng.standard_normal(t.size)
            pcm = (np.clip(signal, -1, 1) * 32767).astype("<i2")
            with wave.open(str(folder / f"p{speaker}_{take:03d}.wav"), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(rate)
                w.writeframes(pcm.tobytes())
    (data / "wavenet_params.json").write_text(json.dumps(_PARAMS), encoding="utf-8")


CASE = Case(
    name="wavenet_audio",
    repo="ibab/tensorflow-wavenet",
    commit="3c973c038c8c2c20fef0039f111cb04139ff594b",
    what=(
        "tensorflow-wavenet (Apr 2018): WaveNet on raw audio; an AudioReader "
        "class whose background thread loads .wav files with librosa and "
        "feeds a PaddingFIFOQueue through a placeholder (sess.run(enqueue)), "
        "dequeue_many batches in a tf.Session loop; train.py, then "
        "generate.py's incremental sampling from its checkpoint"
    ),
    paths=("train.py", "generate.py", "wavenet"),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "train.py",
                "--data_dir={data}/corpus",
                "--logdir={model_dir}/train",
                "--wavenet_params={data}/wavenet_params.json",
                "--batch_size=1",
                "--sample_size=1000",
                "--num_steps=3",
                "--checkpoint_every=2",
            ],
            expect=r"step 2 - loss = (?s:.*)Storing checkpoint to ",
            loss=r"step 0 - loss = ([\d.]+)",
            timeout=600,
        ),
        Command(
            [
                "{python}",
                "generate.py",
                "--samples=20",
                "--wavenet_params={data}/wavenet_params.json",
                "--logdir={model_dir}/generate",
                "--wav_out_path={model_dir}/generated.wav",
                "{model_dir}/train/model.ckpt-2",
            ],
            expect=r"Finished generating\.",
            timeout=300,
        ),
        Command(
            # The README's other form: the whole receptive field per sample
            # (no incremental queues), primed from a recording (read and
            # silence-trimmed with librosa), the wav saved as it grows.
            [
                "{python}",
                "generate.py",
                "--samples=20",
                "--fast_generation=false",
                "--wav_seed={data}/corpus/p225/p225_001.wav",
                "--save_every=10",
                "--wavenet_params={data}/wavenet_params.json",
                "--logdir={model_dir}/generate",
                "--wav_out_path={model_dir}/seeded.wav",
                "{model_dir}/train/model.ckpt-2",
            ],
            expect=r"Updated wav file at (?s:.*)Finished generating\.",
            timeout=300,
        ),
    ],
    devices=(1,),
    single_device_why=(
        "train.py builds one network on one device and has no device count, "
        "tower loop or device flag of its own"
    ),
)
