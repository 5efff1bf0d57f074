"""tf.contrib.opt of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to tensorflow/contrib?"
ADVICE = "tf.keras.optimizers, tf.compat.v1.train; TensorFlow Addons carried some of it until its end of life (2024); keep the TF 1.15 implementation in your code (Apache-2.0) or rewrite it with core ops"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "AGNCustomGetter": ("none", "", ""),
    "AGNOptimizer": ("none", "", ""),
    "AdaMaxOptimizer": ("none", "", ""),
    "AdamGSOptimizer": ("none", "", ""),
    "AdamWOptimizer": ("none", "", ""),
    "AddSignOptimizer": ("none", "", ""),
    "DecoupledWeightDecayExtension": ("none", "", ""),
    "DropStaleGradientOptimizer": ("none", "", ""),
    "ElasticAverageCustomGetter": ("none", "", ""),
    "ElasticAverageOptimizer": ("none", "", ""),
    "ExternalOptimizerInterface": ("none", "", ""),
    "GGTOptimizer": ("none", "", ""),
    "LARSOptimizer": ("none", "", ""),
    "LazyAdamGSOptimizer": ("none", "", ""),
    "LazyAdamOptimizer": ("none", "", ""),
    "ModelAverageCustomGetter": ("none", "", ""),
    "ModelAverageOptimizer": ("none", "", ""),
    "MomentumWOptimizer": ("none", "", ""),
    "MovingAverageOptimizer": ("none", "", ""),
    "MultitaskOptimizerWrapper": ("none", "", ""),
    "NadamOptimizer": ("none", "", ""),
    "PowerSignOptimizer": ("none", "", ""),
    "RegAdagradOptimizer": ("none", "", ""),
    "ScipyOptimizerInterface": ("none", "", ""),
    "ShampooOptimizer": ("none", "", ""),
    "VariableClippingOptimizer": ("none", "", ""),
    "clip_gradients_by_global_norm": ("none", "", ""),
    "extend_with_decoupled_weight_decay": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.opt.python.training.adam_gs_optimizer": {
        "AdamGSOptimizer": "AdamGSOptimizer"
    },
    "tf.contrib.opt.python.training.adamax": {"AdaMaxOptimizer": "AdaMaxOptimizer"},
    "tf.contrib.opt.python.training.addsign": {"AddSignOptimizer": "AddSignOptimizer"},
    "tf.contrib.opt.python.training.agn_optimizer": {
        "AGNCustomGetter": "AGNCustomGetter",
        "AGNOptimizer": "AGNOptimizer",
    },
    "tf.contrib.opt.python.training.drop_stale_gradient_optimizer": {
        "DropStaleGradientOptimizer": "DropStaleGradientOptimizer"
    },
    "tf.contrib.opt.python.training.elastic_average_optimizer": {
        "ElasticAverageCustomGetter": "ElasticAverageCustomGetter",
        "ElasticAverageOptimizer": "ElasticAverageOptimizer",
    },
    "tf.contrib.opt.python.training.external_optimizer": {
        "ExternalOptimizerInterface": "ExternalOptimizerInterface",
        "ScipyOptimizerInterface": "ScipyOptimizerInterface",
    },
    "tf.contrib.opt.python.training.ggt": {"GGTOptimizer": "GGTOptimizer"},
    "tf.contrib.opt.python.training.lars_optimizer": {"LARSOptimizer": "LARSOptimizer"},
    "tf.contrib.opt.python.training.lazy_adam_gs_optimizer": {
        "LazyAdamGSOptimizer": "LazyAdamGSOptimizer"
    },
    "tf.contrib.opt.python.training.lazy_adam_optimizer": {
        "LazyAdamOptimizer": "LazyAdamOptimizer"
    },
    "tf.contrib.opt.python.training.model_average_optimizer": {
        "ModelAverageCustomGetter": "ModelAverageCustomGetter",
        "ModelAverageOptimizer": "ModelAverageOptimizer",
    },
    "tf.contrib.opt.python.training.moving_average_optimizer": {
        "MovingAverageOptimizer": "MovingAverageOptimizer"
    },
    "tf.contrib.opt.python.training.multitask_optimizer_wrapper": {
        "MultitaskOptimizerWrapper": "MultitaskOptimizerWrapper",
        "clip_gradients_by_global_norm": "clip_gradients_by_global_norm",
    },
    "tf.contrib.opt.python.training.nadam_optimizer": {
        "NadamOptimizer": "NadamOptimizer"
    },
    "tf.contrib.opt.python.training.powersign": {
        "PowerSignOptimizer": "PowerSignOptimizer"
    },
    "tf.contrib.opt.python.training.reg_adagrad_optimizer": {
        "RegAdagradOptimizer": "RegAdagradOptimizer"
    },
    "tf.contrib.opt.python.training.shampoo": {"ShampooOptimizer": "ShampooOptimizer"},
    "tf.contrib.opt.python.training.variable_clipping_optimizer": {
        "VariableClippingOptimizer": "VariableClippingOptimizer"
    },
    "tf.contrib.opt.python.training.weight_decay_optimizers": {
        "AdamWOptimizer": "AdamWOptimizer",
        "DecoupledWeightDecayExtension": "DecoupledWeightDecayExtension",
        "MomentumWOptimizer": "MomentumWOptimizer",
        "extend_with_decoupled_weight_decay": "extend_with_decoupled_weight_decay",
    },
}
