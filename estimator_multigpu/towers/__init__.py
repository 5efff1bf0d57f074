"""Tower-style multi-device training: replicate_model_fn, TowerOptimizer, minimize."""

from estimator_multigpu.towers._all_towers import all_towers_mean
from estimator_multigpu.towers._clones import create_clones
from estimator_multigpu.towers._loop import minimize, tower_index
from estimator_multigpu.towers._optimizer import TowerOptimizer
from estimator_multigpu.towers._replicate import replicate_model_fn

__all__ = [
    "TowerOptimizer",
    "all_towers_mean",
    "create_clones",
    "minimize",
    "replicate_model_fn",
    "tower_index",
]
