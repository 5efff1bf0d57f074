"""One random CIFAR-shaped batch, made once in the pipeline and repeated.

The input-bound baselines compare a real input pipeline against this: a step
fed by it waits for no input (benchmarks/cifar_input.py, benchmarks/gpu_check.py).
"""


def cached_batch(ctx):
    """A dataset_fn: one uint8 batch `[b, 32, 32, 3]` and int32 labels `[b]`.

    Args:
      ctx: the `emg.inputs.InputContext`; `b` is its `per_device_batch_size`.
    """
    import tensorflow as tf

    def make(_):
        size = ctx.per_device_batch_size
        images = tf.random.uniform([size, 32, 32, 3], 0, 255, tf.int32, seed=1)
        labels = tf.random.uniform([size], 0, 10, tf.int32, seed=2)
        return tf.cast(images, tf.uint8), labels

    return tf.data.Dataset.range(1).map(make).cache().repeat()
