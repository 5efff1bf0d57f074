"""tf.contrib.constrained_optimization of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to separate repo"
ADVICE = "the tensorflow_constrained_optimization package (pip install tensorflow-constrained-optimization)"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AdditiveExternalRegretOptimizer": ("none", "", ""),
    "AdditiveSwapRegretOptimizer": ("none", "", ""),
    "ConstrainedMinimizationProblem": ("none", "", ""),
    "ConstrainedOptimizer": ("none", "", ""),
    "MultiplicativeSwapRegretOptimizer": ("none", "", ""),
    "find_best_candidate_distribution": ("none", "", ""),
    "find_best_candidate_index": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.constrained_optimization.python.candidates": {
        "find_best_candidate_distribution": "find_best_candidate_distribution",
        "find_best_candidate_index": "find_best_candidate_index",
    },
    "tf.contrib.constrained_optimization.python.constrained_minimization_problem": {
        "ConstrainedMinimizationProblem": "ConstrainedMinimizationProblem"
    },
    "tf.contrib.constrained_optimization.python.constrained_optimizer": {
        "ConstrainedOptimizer": "ConstrainedOptimizer"
    },
    "tf.contrib.constrained_optimization.python.external_regret_optimizer": {
        "AdditiveExternalRegretOptimizer": "AdditiveExternalRegretOptimizer"
    },
    "tf.contrib.constrained_optimization.python.swap_regret_optimizer": {
        "AdditiveSwapRegretOptimizer": "AdditiveSwapRegretOptimizer",
        "MultiplicativeSwapRegretOptimizer": "MultiplicativeSwapRegretOptimizer",
    },
}
