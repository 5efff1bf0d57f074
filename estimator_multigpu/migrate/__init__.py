"""Finds and rewrites TF 1.x queue, Estimator and tower-loop code (pure `ast`, no TensorFlow)."""

from estimator_multigpu.migrate._passes import scan_tree
from estimator_multigpu.migrate._runner import FileResult, collect, diff, process, write
from estimator_multigpu.migrate._scanner import Finding

__all__ = ["FileResult", "Finding", "collect", "diff", "process", "scan_tree", "write"]
