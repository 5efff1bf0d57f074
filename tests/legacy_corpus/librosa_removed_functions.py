"""An audio model's data side of the librosa 0.6 era: it trims the silence at
both ends of a waveform by the frames' RMS energy (librosa.feature.rmse),
mu-law encodes it in a TF 1.x graph, decodes it back and writes the result
with librosa.output.write_wav, then reads the file back.

librosa renamed rmse to rms (0.7, keyword-only arguments in 0.10) and
removed librosa.output (0.8); Python parses both and fails only when the
line runs. `emg-migrate --fix` writes librosa.feature.rms(y=...,
pad_mode='reflect') and scipy.io.wavfile.write(path, sr, y.T).
Usage: python librosa_removed_functions.py [OUT_DIR]
"""

import os
import sys
import tempfile

import librosa
import numpy as np
import tensorflow as tf  # port: compat-v1


def trim_silence(audio, threshold, frame_length=256):
    energy = librosa.feature.rmse(audio, frame_length=frame_length)  # port: librosa-removed
    frames = np.nonzero(energy > threshold)
    indices = librosa.core.frames_to_samples(frames)[1]
    return audio[indices[0] : indices[-1]] if indices.size else audio[0:0]


def mu_law(audio, channels):
    mu = tf.to_float(channels - 1)
    magnitude = tf.log1p(mu * tf.minimum(tf.abs(audio), 1.0)) / tf.log1p(mu)
    signal = tf.sign(audio) * magnitude
    encoded = tf.to_int32((signal + 1) / 2 * mu + 0.5)
    signal = 2 * (tf.to_float(encoded) / mu) - 1
    decoded = tf.sign(signal) * (1 / mu) * ((1 + mu) ** tf.abs(signal) - 1)
    return encoded, decoded


def main(out_dir):
    rate = 8000
    t = np.arange(2048) / rate
    audio = np.zeros(4096, np.float32)
    audio[1024:3072] = 0.8 * np.sin(2 * np.pi * 440 * t)
    trimmed = trim_silence(audio, 0.3)
    print("trimmed %d of %d samples" % (trimmed.size, audio.size))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        encoded, decoded = mu_law(x, 256)
        with tf.Session() as sess:
            codes, out = sess.run([encoded, decoded], {x: trimmed})
    print("codes %d..%d" % (codes.min(), codes.max()))
    path = os.path.join(out_dir, "decoded.wav")
    librosa.output.write_wav(path, out, rate)  # port: librosa-removed
    back, sr = librosa.load(path, sr=None)
    print(
        "wrote %d samples at %d Hz, max error %.4f"
        % (back.size, sr, abs(back - out).max())
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
