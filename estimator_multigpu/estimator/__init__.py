"""Estimator-compatible runner that works with or without tf.estimator."""

import importlib as _importlib

import tensorflow as _tf

from estimator_multigpu.estimator import experimental, export, inputs, v1
from estimator_multigpu.estimator._best_exporter import BestExporter
from estimator_multigpu.estimator._canned import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
    BinaryClassHead,
    DNNClassifier,
    DNNEstimator,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
    MultiClassHead,
    MultiLabelHead,
    RegressionHead,
)
from estimator_multigpu.estimator._checkpoints import WarmStartSettings
from estimator_multigpu.estimator._distributed import sync_replicas_optimizer
from estimator_multigpu.estimator._estimator import Estimator
from estimator_multigpu.estimator._exporters import (
    Exporter,
    FinalExporter,
    LatestExporter,
)
from estimator_multigpu.estimator._lock import (
    ModelDirLockedError,
    check_model_dir_unlocked,
)
from estimator_multigpu.estimator._metrics import add_metrics
from estimator_multigpu.estimator._run_config import RunConfig
from estimator_multigpu.estimator._spec import (
    HAS_TF_ESTIMATOR,
    EstimatorSpec,
    LearnModeKeys,
    ModeKeys,
)
from estimator_multigpu.estimator._training import (
    EvalSpec,
    TrainSpec,
    train_and_evaluate,
)

# tf.estimator re-exported these tf.compat.v1.train names; so do we.
_train = _tf.compat.v1.train
CheckpointSaverHook = _train.CheckpointSaverHook
CheckpointSaverListener = _train.CheckpointSaverListener
FeedFnHook = _train.FeedFnHook
FinalOpsHook = _train.FinalOpsHook
GlobalStepWaiterHook = _train.GlobalStepWaiterHook
LoggingTensorHook = _train.LoggingTensorHook
NanLossDuringTrainingError = _train.NanLossDuringTrainingError
NanTensorHook = _train.NanTensorHook
ProfilerHook = _train.ProfilerHook
SecondOrStepTimer = _train.SecondOrStepTimer
SessionRunArgs = _train.SessionRunArgs
SessionRunContext = _train.SessionRunContext
SessionRunHook = _train.SessionRunHook
SessionRunValues = _train.SessionRunValues
StepCounterHook = _train.StepCounterHook
StopAtStepHook = _train.StopAtStepHook
SummarySaverHook = _train.SummarySaverHook
VocabInfo = _train.VocabInfo

HOOK_NAMES = (
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
    "SecondOrStepTimer",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "VocabInfo",
)

# tf.contrib.learn / tf.contrib.training drop-ins, imported on first use.
_LAZY = {
    "Experiment": "estimator_multigpu.estimator._experiment",
    "GreedyLoadBalancingStrategy": "estimator_multigpu.estimator._ps_strategy",
    "HParams": "estimator_multigpu.estimator._hparams",
    "byte_size_load_fn": "estimator_multigpu.estimator._ps_strategy",
}


def __getattr__(name):
    if name in ("learn_runner", "preprocessing", "tpu"):
        return _importlib.import_module(f"estimator_multigpu.estimator.{name}")
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    raise AttributeError(
        f"module 'estimator_multigpu.estimator' has no attribute {name!r}"
    )


__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BinaryClassHead",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "MultiClassHead",
    "MultiLabelHead",
    "RegressionHead",
    *HOOK_NAMES,
    *_LAZY,
    "learn_runner",
    "preprocessing",
    "tpu",
    "HAS_TF_ESTIMATOR",
    "BestExporter",
    "v1",
    "Estimator",
    "EstimatorSpec",
    "EvalSpec",
    "Exporter",
    "FinalExporter",
    "LatestExporter",
    "LearnModeKeys",
    "ModeKeys",
    "ModelDirLockedError",
    "RunConfig",
    "TrainSpec",
    "WarmStartSettings",
    "add_metrics",
    "check_model_dir_unlocked",
    "experimental",
    "export",
    "inputs",
    "sync_replicas_optimizer",
    "train_and_evaluate",
]
