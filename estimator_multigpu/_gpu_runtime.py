"""GPU runtime threading for input-bound multi-GPU training, set before TF starts."""

from __future__ import annotations

import os

import tensorflow as tf

from estimator_multigpu import _tf_internals

GPU_THREAD_MODES = ("global", "gpu_private", "gpu_shared")


def _check_int(value, argument: str, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(
            f"`{argument}` must be an int >= {minimum}; received {value!r}."
        )


def _runtime_initialized() -> bool:
    """Whether TF has created its devices (after which the settings are ignored)."""
    return _tf_internals.runtime_initialized()


def default_private_threadpool_size(
    num_gpus: int, gpu_thread_count: int, cpu_count: int
) -> int:
    """tf.data threads left once each GPU has its launch threads and a runtime one.

    The sizing of the TF Model Garden and tf_cnn_benchmarks: the CPUs minus
    `gpu_thread_count` launch threads and one runtime thread per GPU, capped
    at 8 per GPU, and never below 1.
    """
    spare = cpu_count - num_gpus * (gpu_thread_count + 1)
    return max(1, min(spare, 8 * num_gpus))


def _check_arguments(
    gpu_thread_mode, gpu_thread_count, private_threadpool_size, num_gpus
):
    if gpu_thread_mode not in GPU_THREAD_MODES:
        raise ValueError(
            f"`gpu_thread_mode` must be one of {GPU_THREAD_MODES}; received "
            f"{gpu_thread_mode!r}. 'gpu_private' gives each GPU its own threads."
        )
    _check_int(gpu_thread_count, "gpu_thread_count", 1)
    if private_threadpool_size is not None:
        _check_int(private_threadpool_size, "private_threadpool_size", 1)
    if num_gpus is not None:
        _check_int(num_gpus, "num_gpus", 0)


def _check_not_started() -> None:
    if _runtime_initialized():
        raise RuntimeError(
            "emg.devices.tune_gpu_runtime() came too late: TensorFlow has already "
            "created its devices, which read TF_GPU_THREAD_MODE and "
            "TF_GPU_THREAD_COUNT once. Call it at the start of the program, "
            "before any TensorFlow op, tensor, model or strategy is created."
        )


def tune_gpu_runtime(
    *,
    gpu_thread_mode: str = "gpu_private",
    gpu_thread_count: int = 2,
    private_threadpool_size: int | None = None,
    num_gpus: int | None = None,
) -> tf.data.Options:
    """Applies the GPU runtime settings input-tuning guides recommend.

    Sets `TF_GPU_THREAD_MODE` (dedicated kernel-launch threads per GPU, so
    launches do not queue behind tf.data work on the shared inter-op pool) and
    `TF_GPU_THREAD_COUNT`, and returns `tf.data.Options` with a private
    thread pool for the input pipeline, sized to the CPUs those threads leave:
    apply it with `dataset.with_options(options)`. TensorFlow reads the
    variables once, when it creates its devices, so call this first thing.

    Without GPUs it changes nothing, logs that, and returns default options.

    Args:
      gpu_thread_mode: `'gpu_private'`, `'gpu_shared'` or `'global'`.
      gpu_thread_count: launch threads per GPU.
      private_threadpool_size: tf.data threads; None sizes it from the CPU and
        GPU counts (`default_private_threadpool_size`).
      num_gpus: GPUs to tune for; None counts them (without initialising TF).
        Pass it to set the variables in a launcher that sees no GPU itself.

    Returns:
      `tf.data.Options` with `threading.private_threadpool_size` set (default
      options without GPUs).

    Raises:
      ValueError: for a bad mode or count.
      RuntimeError: if TensorFlow has already initialised its runtime.
    """
    _check_arguments(
        gpu_thread_mode, gpu_thread_count, private_threadpool_size, num_gpus
    )
    _check_not_started()
    if num_gpus is None:
        num_gpus = len(tf.config.list_physical_devices("GPU"))
    options = tf.data.Options()
    if not num_gpus:
        tf.get_logger().info(
            "tune_gpu_runtime: no GPU here, so the runtime is left as it is."
        )
        return options
    os.environ["TF_GPU_THREAD_MODE"] = gpu_thread_mode
    os.environ["TF_GPU_THREAD_COUNT"] = str(gpu_thread_count)
    size = private_threadpool_size or default_private_threadpool_size(
        num_gpus, gpu_thread_count, os.cpu_count() or 1
    )
    options.threading.private_threadpool_size = size
    tf.get_logger().info(
        "tune_gpu_runtime: TF_GPU_THREAD_MODE=%s, TF_GPU_THREAD_COUNT=%d for %d "
        "GPU(s); tf.data private thread pool of %d.",
        gpu_thread_mode,
        gpu_thread_count,
        num_gpus,
        size,
    )
    return options
