"""Estimator-compatible runner that works with or without tf.estimator."""

from estimator_multigpu.estimator import export
from estimator_multigpu.estimator.best_exporter import BestExporter
from estimator_multigpu.estimator.checkpoints import WarmStartSettings
from estimator_multigpu.estimator.estimator import Estimator
from estimator_multigpu.estimator.exporters import (
    Exporter,
    FinalExporter,
    LatestExporter,
)
from estimator_multigpu.estimator.lock import ModelDirLockedError
from estimator_multigpu.estimator.run_config import RunConfig
from estimator_multigpu.estimator.spec import HAS_TF_ESTIMATOR, EstimatorSpec, ModeKeys
from estimator_multigpu.estimator.training import (
    EvalSpec,
    TrainSpec,
    train_and_evaluate,
)

__all__ = [
    "HAS_TF_ESTIMATOR",
    "BestExporter",
    "Estimator",
    "EstimatorSpec",
    "EvalSpec",
    "Exporter",
    "FinalExporter",
    "LatestExporter",
    "ModeKeys",
    "ModelDirLockedError",
    "RunConfig",
    "TrainSpec",
    "WarmStartSettings",
    "export",
    "train_and_evaluate",
]
