"""The data module of a two-file Estimator program: it uses only names that
TF 2 has too (tf.data), so --fix leaves its `import tensorflow as tf` alone
and its datasets are TF 2 datasets, which have no make_one_shot_iterator."""

import numpy as np
import tensorflow as tf


def load_data(rows=64, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.uniform(0, 1, size=(rows, 2)).astype(np.float32)
    y = (3.0 * x[:, 0] - 2.0 * x[:, 1] + 1.0).astype(np.float32)
    return {"a": x[:, 0], "b": x[:, 1]}, y


def make_dataset(features, labels):
    return tf.data.Dataset.from_tensor_slices((dict(features), labels))
