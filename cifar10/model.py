"""ResNet-20/32/44/56/110 for CIFAR (He et al. 2016, section 4.2) on tf.compat.v1 variables."""

from __future__ import annotations

import tensorflow as tf

DEPTHS = (20, 32, 44, 56, 110)
STAGE_FILTERS = (16, 32, 64)
DATA_FORMATS = ("channels_last", "channels_first")
BN_MOMENTUM = 0.9
BN_EPSILON = 1e-5


def check_depth(depth: int) -> int:
    """Returns n, the residual blocks per stage, of a depth 6n+2 in `DEPTHS`.

    Raises:
      ValueError: for a depth that is not one of `DEPTHS`.
    """
    if depth not in DEPTHS:
        raise ValueError(
            f"`resnet_depth` must be one of {DEPTHS} (6n+2, from the paper's "
            f"table); received {depth!r}."
        )
    return (depth - 2) // 6


def _kernel(name: str, shape: list[int]) -> tf.Variable:
    init = tf.compat.v1.variance_scaling_initializer(2.0, "fan_in", "truncated_normal")
    return tf.compat.v1.get_variable(name, shape, tf.float32, init)


def _conv(x, filters: int, stride: int, name: str, fmt: str):
    """3x3 'same' convolution, no bias. `x`: `[batch, h, w, c]` or `[batch, c, h, w]`."""
    channels = x.shape[1 if fmt == "NCHW" else 3]
    kernel = _kernel(name, [3, 3, int(channels), filters])
    strides = [1, 1, stride, stride] if fmt == "NCHW" else [1, stride, stride, 1]
    return tf.nn.conv2d(x, kernel, strides, "SAME", data_format=fmt)


def batch_norm(x, training: bool, name: str, fmt: str):
    """Batch normalisation; in training, adds moving-average updates to UPDATE_OPS.

    Args:
      x: `[batch, h, w, c]` (NHWC) or `[batch, c, h, w]` (NCHW) float32.
      training: normalise by batch statistics and update the moving averages,
        or (False) by the moving averages.
      name: variable scope.
      fmt: `'NHWC'` or `'NCHW'`.
    """
    channels = int(x.shape[1 if fmt == "NCHW" else 3])
    with tf.compat.v1.variable_scope(name):
        get = tf.compat.v1.get_variable
        gamma = get("gamma", [channels], initializer=tf.compat.v1.ones_initializer())
        beta = get("beta", [channels], initializer=tf.compat.v1.zeros_initializer())
        mean, var = (
            get(n, [channels], initializer=init, trainable=False)
            for n, init in (
                ("moving_mean", tf.compat.v1.zeros_initializer()),
                ("moving_variance", tf.compat.v1.ones_initializer()),
            )
        )
        if not training:
            return tf.compat.v1.nn.fused_batch_norm(
                x, gamma, beta, mean, var, BN_EPSILON, fmt, is_training=False
            )[0]
        y, batch_mean, batch_var = tf.compat.v1.nn.fused_batch_norm(
            x, gamma, beta, epsilon=BN_EPSILON, data_format=fmt, is_training=True
        )
        for moving, value in ((mean, batch_mean), (var, batch_var)):
            update = moving.assign_sub((1 - BN_MOMENTUM) * (moving - value))
            tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update)
        return y


def _shortcut(x, filters: int, stride: int, fmt: str):
    """Identity shortcut; subsampled and zero-padded where the shape changes (option A)."""
    if stride == 1 and int(x.shape[1 if fmt == "NCHW" else 3]) == filters:
        return x
    axis = 1 if fmt == "NCHW" else 3
    x = x[:, :, ::stride, ::stride] if fmt == "NCHW" else x[:, ::stride, ::stride, :]
    extra = filters - int(x.shape[axis])
    pad = [[0, 0]] * 4
    pad[axis] = [extra // 2, extra - extra // 2]
    return tf.pad(x, pad)


def _block(x, filters: int, stride: int, training: bool, fmt: str):
    """conv-bn-relu-conv-bn, plus the shortcut, then relu."""
    shortcut = _shortcut(x, filters, stride, fmt)
    y = _conv(x, filters, stride, "conv1", fmt)
    y = tf.nn.relu(batch_norm(y, training, "bn1", fmt))
    y = batch_norm(_conv(y, filters, 1, "conv2", fmt), training, "bn2", fmt)
    return tf.nn.relu(y + shortcut)


def _head(x, num_classes: int, fmt: str):
    """Global average pooling and the dense classifier: `[batch, num_classes]`."""
    pooled = tf.reduce_mean(x, axis=[2, 3] if fmt == "NCHW" else [1, 2])
    with tf.compat.v1.variable_scope("dense"):
        kernel = tf.compat.v1.get_variable(
            "kernel",
            [int(pooled.shape[1]), num_classes],
            tf.float32,
            tf.compat.v1.glorot_uniform_initializer(),
        )
        bias = tf.compat.v1.get_variable(
            "bias", [num_classes], initializer=tf.compat.v1.zeros_initializer()
        )
    return tf.nn.bias_add(tf.matmul(pooled, kernel), bias)


def resnet(
    images: tf.Tensor,
    depth: int = 20,
    num_classes: int = 10,
    training: bool = False,
    data_format: str = "channels_last",
) -> tf.Tensor:
    """The CIFAR ResNet of depth 6n+2.

    A 3x3 convolution with 16 filters, three stages of n residual blocks with
    16/32/64 filters (the first block of stages 2 and 3 subsamples by 2),
    global average pooling, and a dense layer. Variables are created with
    `tf.compat.v1.get_variable` under the current variable scope, so towers
    can share them.

    Args:
      images: float32 `[batch, 32, 32, 3]` (always channels-last).
      depth: one of `DEPTHS`.
      num_classes: outputs of the dense layer.
      training: use batch statistics and add moving-average updates to
        `UPDATE_OPS`.
      data_format: `'channels_last'` (fast on CPU) or `'channels_first'`
        (fast on GPU; the images are transposed once at the start).

    Returns:
      float32 logits `[batch, num_classes]`.

    Raises:
      ValueError: for an unknown depth or data format, or non-positive classes.
    """
    n = check_depth(depth)
    if data_format not in DATA_FORMATS:
        raise ValueError(
            f"`data_format` must be one of {DATA_FORMATS}; received {data_format!r}."
        )
    if (
        isinstance(num_classes, bool)
        or not isinstance(num_classes, int)
        or num_classes < 2
    ):
        raise ValueError(
            f"`num_classes` must be an int >= 2; received {num_classes!r}."
        )
    fmt = "NCHW" if data_format == "channels_first" else "NHWC"
    x = tf.transpose(images, [0, 3, 1, 2]) if fmt == "NCHW" else images
    with tf.compat.v1.variable_scope("resnet"):
        x = tf.nn.relu(batch_norm(_conv(x, 16, 1, "conv0", fmt), training, "bn0", fmt))
        for stage, filters in enumerate(STAGE_FILTERS):
            for block in range(n):
                stride = 2 if stage > 0 and block == 0 else 1
                with tf.compat.v1.variable_scope(f"stage{stage}/block{block}"):
                    x = _block(x, filters, stride, training, fmt)
        return _head(x, num_classes, fmt)
