"""Tower-style multi-device training: replicate_model_fn and TowerOptimizer."""

from estimator_multigpu.towers.optimizer import TowerOptimizer
from estimator_multigpu.towers.replicate import replicate_model_fn

__all__ = ["TowerOptimizer", "replicate_model_fn"]
