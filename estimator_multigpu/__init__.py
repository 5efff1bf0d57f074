"""estimator_multigpu: TF1-era Estimator and multi-GPU code on tf.data and modern TF.

Subpackages and names load on first use, so `python -m
estimator_multigpu.migrate` (pure `ast`) starts without importing TensorFlow.
"""

import importlib

_SUBMODULES = (
    "cluster",
    "crf",
    "data_service",
    "launch",
    "legacy_seq2seq",
    "devices",
    "diagnose",
    "distribute",
    "estimator",
    "gone",
    "inputs",
    "migrate",
    "per_device",
    "scipy_misc",
    "seq2seq",
    "towers",
    "tutorials",
)
_NAMES = {
    "PerDevice": "estimator_multigpu.per_device",
    "TowerOptimizer": "estimator_multigpu.towers",
    "migrate_gone": "estimator_multigpu.gone",
    "replicate_model_fn": "estimator_multigpu.towers",
    "tf_slim": "estimator_multigpu._slim_compat",
}

__all__ = sorted(_NAMES) + sorted(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"estimator_multigpu.{name}")
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'estimator_multigpu' has no attribute {name!r}")


def __dir__():
    return __all__
