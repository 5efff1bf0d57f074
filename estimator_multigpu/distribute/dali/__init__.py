"""NVIDIA DALI pipelines as per-replica `tf.distribute` datasets (extra `[dali]`).

Importing this package needs DALI and its TensorFlow plugin; nothing else in
`estimator_multigpu` imports it (`emg.distribute.dali` loads it on first
use).
"""

try:
    import nvidia.dali  # noqa: F401
    import nvidia.dali.plugin.tf  # noqa: F401
except ImportError as error:
    raise ImportError(
        "estimator_multigpu.distribute.dali needs NVIDIA DALI and its TensorFlow "
        "plugin, installed in two steps: pip install 'estimator-multigpu[dali]', "
        "then, once TensorFlow is installed, pip install --no-build-isolation "
        f"nvidia-dali-tf-plugin-cuda120. ({error})"
    ) from error

from estimator_multigpu.distribute.dali._context import DaliReplicaContext  # noqa: E402
from estimator_multigpu.distribute.dali._dataset import (  # noqa: E402
    dali_dataset_fn,
    dali_input_options,
    distribute_dali,
    steps_per_epoch,
)
from estimator_multigpu.distribute.dali._placement import (  # noqa: E402
    cuda_ordinal,
    dali_device_id,
)

__all__ = [
    "DaliReplicaContext",
    "cuda_ordinal",
    "dali_dataset_fn",
    "dali_device_id",
    "dali_input_options",
    "distribute_dali",
    "steps_per_epoch",
]
