"""Tower-style multi-device training: replicate_model_fn, TowerOptimizer, minimize."""

from estimator_multigpu.towers.all_towers import all_towers_mean
from estimator_multigpu.towers.clones import create_clones
from estimator_multigpu.towers.loop import minimize, tower_index
from estimator_multigpu.towers.optimizer import TowerOptimizer
from estimator_multigpu.towers.replicate import replicate_model_fn

__all__ = [
    "TowerOptimizer",
    "all_towers_mean",
    "create_clones",
    "minimize",
    "replicate_model_fn",
    "tower_index",
]
