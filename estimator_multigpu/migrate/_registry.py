"""Every rule of emg-migrate, in the order the scan and the rewrite run them."""

from __future__ import annotations

from estimator_multigpu.migrate import (
    _absl_logging_flags,
    _canned,
    _contrib_gone,
    _contrib_module_paths,
    _contrib_unused_imports,
    _dataset_iterators,
    _dataset_properties,
    _dimension_division,
    _edit_rules,
    _find_rules,
    _flag_devices,
    _float_dims,
    _keras_input_shape_fix,
    _layer_apply,
    _legacy_keras_env,
    _librosa_removed,
    _numpy_load_pickle,
    _numpy_removed,
    _python2_builtins,
    _python2_lists,
    _python2_modules,
    _queue_loops,
    _scipy_misc,
    _scipy_private_paths,
    _star_reexports,
    _text_reads_decoded,
    _tf0_names,
    _tpu_fix,
)
from estimator_multigpu.migrate._engine import Registry, Rule

REGISTRY = Registry(
    (
        # The rule table's scan (`scanner.scan_rules`).
        Rule("legacy-names", "table", _find_rules.legacy_names),
        Rule("unused-imports", "table", _find_rules.unused_imports),
        Rule("tower-loops", "table", _find_rules.tower_loops),
        Rule("queue-runner-loops", "table", _find_rules.queue_runner_loops),
        Rule("auto-parallel", "table", _find_rules.auto_parallel),
        # TF 0.x names TF 1.0 renamed (tf.mul, tf.train.SummaryWriter).
        Rule("tf0-names", "table", _tf0_names.find),
        Rule(
            "contrib-calls",
            "table",
            _find_rules.contrib_calls,
            after=("legacy-names",),  # replaces the names its calls cover
        ),
        # The passes that refine the table's findings and add their own.
        Rule("slim-uses", "passes", _find_rules.slim_uses),
        Rule("era-refine", "passes", _find_rules.era_refine),
        Rule("contrib-names", "passes", _find_rules.contrib_names),
        Rule("slim-group", "passes", _find_rules.slim_group, after=("slim-uses",)),
        Rule(
            "contrib-unused-imports",
            "passes",
            _contrib_unused_imports.find,
            after=("contrib-names",),  # rewords what it rewrote
        ),
        Rule(
            "model-fn-towers",
            "passes",
            _find_rules.model_fn_towers,
            after=("tower-loops",),
        ),
        Rule("era-shapes", "passes", _find_rules.era_shapes),
        Rule("slim-clones", "passes", _find_rules.slim_clones),
        Rule("tf-examples", "passes", _find_rules.tf_examples),
        Rule("keras-input-shape", "passes", _find_rules.keras_input_shape),
        Rule("star-imports", "passes", _find_rules.star_imports),
        Rule(
            "session-configs",
            "passes",
            _find_rules.session_configs,
            after=("tower-loops", "slim-clones"),  # the findings that resolve devices
        ),
        Rule(
            "compat-v1",
            "passes",
            _find_rules.compat_v1,
            after=("era-shapes",),  # leaves the era shapes' nodes to them
        ),
        # tf.compat.v1.estimator's canned estimators (and TF 1.x code's).
        Rule("canned-v1", "passes", _canned.v1_forms, after=("compat-v1",)),
        Rule("star-reexports", "passes", _star_reexports.find_rule),
        # TF 1.x Dataset methods a TF 2 dataset lacks.
        Rule("dataset-iterators", "passes", _dataset_iterators.find),
        Rule("dataset-properties", "passes", _dataset_properties.find),
        # Imports of contrib's internal module paths that tf_slim ships.
        Rule("contrib-module-paths", "passes", _contrib_module_paths.find),
        # Python 2 builtins (xrange, dict.iteritems) Python 3 lacks.
        Rule("python2-builtins", "passes", _python2_builtins.find),
        # Python 2's map/filter/zip measured or indexed as the lists they were.
        Rule("python2-lists", "passes", _python2_lists.find),
        # NumPy names NumPy 2 removed (np.float, np.cast, np.float_, np.NaN).
        Rule("numpy-removed", "passes", _numpy_removed.find),
        # np.load of a pickled object, since NumPy 1.16.3's allow_pickle=False.
        Rule("numpy-load-pickle", "passes", _numpy_load_pickle.find),
        # A static shape's true-division dimension, which TF 2 refuses.
        Rule("float-dims", "passes", _float_dims.find),
        # A Dimension divided with `/` (Python 2's floor division).
        Rule("dimension-division", "passes", _dimension_division.find),
        Rule("python2-modules", "passes", _python2_modules.find),
        # A text-mode open whose reads are decoded (Python 2's byte strings).
        Rule("text-reads-decoded", "passes", _text_reads_decoded.find),
        # A program's own flag named like one absl.logging defines (--log_dir).
        Rule("absl-logging-flags", "passes", _absl_logging_flags.find),
        # Layer.apply(inputs), TF 1.x's alias of calling the layer.
        Rule("layer-apply", "passes", _layer_apply.find),
        # librosa's removed functions (feature.rmse, output.write_wav).
        Rule("librosa-removed", "passes", _librosa_removed.find),
        # SciPy's removed scipy.misc image functions (imsave, imresize, ...).
        Rule("scipy-misc", "passes", _scipy_misc.find),
        # SciPy's private module paths (scipy.sparse.linalg.eigen.arpack,
        # scipy.ndimage.filters, ...), onto the public namespaces.
        Rule("scipy-private-paths", "passes", _scipy_private_paths.find),
        # The stand-ins an earlier --fix wrote for names with no successor.
        Rule("contrib-gone-uses", "passes", _contrib_gone.find),
        # `--fix` (`fixer.fix`): the module rewritten whole first, when its
        # fix then fixes more (the reader helpers that return a record).
        Rule("record-objects", "stages", _edit_rules.records),
        # The edits; each leaves alone what overlaps an edit before it.
        Rule("queue-chains", "edits", _edit_rules.queue_chains),
        Rule("raw-queues", "edits", _edit_rules.raw_queues, after=("queue-chains",)),
        Rule("renames", "edits", _edit_rules.renames, after=("raw-queues",)),
        Rule(
            "contrib-call-edits",
            "edits",
            _edit_rules.contrib_calls,
            after=("renames",),  # folds the renames inside a rewritten call
        ),
        Rule(
            "dataset-property-edits",
            "edits",
            _dataset_properties.edits,
            after=("contrib-call-edits",),  # wraps the receivers they rewrote
        ),
        Rule(
            "dataset-iterator-edits",
            "edits",
            _dataset_iterators.edits,
            # wraps the receivers they rewrote; its call opens inside a
            # property read's, which must come first at the same offset
            after=("contrib-call-edits", "dataset-property-edits"),
        ),
        Rule("python2-builtin-edits", "edits", _python2_builtins.edits),
        Rule("python2-list-edits", "edits", _python2_lists.edits),
        Rule("numpy-removed-edits", "edits", _numpy_removed.edits),
        Rule("numpy-load-pickle-edits", "edits", _numpy_load_pickle.edits),
        Rule("float-dim-edits", "edits", _float_dims.edits),
        Rule("dimension-division-edits", "edits", _dimension_division.edits),
        Rule("python2-module-edits", "edits", _python2_modules.edits),
        Rule("text-read-decoded-edits", "edits", _text_reads_decoded.edits),
        Rule("librosa-removed-edits", "edits", _librosa_removed.edits),
        Rule("scipy-misc-edits", "edits", _scipy_misc.edits),
        Rule("scipy-private-path-edits", "edits", _scipy_private_paths.edits),
        Rule("tf0-name-edits", "edits", _tf0_names.edits),
        Rule("absl-logging-flag-edits", "edits", _absl_logging_flags.edits),
        Rule("layer-apply-edits", "edits", _layer_apply.edits),
        Rule("contrib-unused-import-drops", "edits", _contrib_unused_imports.edits),
        Rule(
            "contrib-module-path-edits",
            "edits",
            _contrib_module_paths.edits,
            after=("renames", "contrib-call-edits"),  # the reads they rewrote
        ),
        # TPUEstimator scripts: a --num_gpus flag and the towers' gradient clip.
        Rule("tpu-devices", "edits", _tpu_fix.device_flag_edits, after=("renames",)),
        Rule("tpu-clips", "edits", _tpu_fix.clip_edits, after=("renames",)),
        Rule("tutorial-imports", "edits", _edit_rules.tutorial_imports),
        Rule("tower-loop-edits", "edits", _edit_rules.tower_loops),
        Rule("clones", "edits", _edit_rules.clones),
        Rule(
            "hand-tower-devices",
            "edits",
            _edit_rules.hand_tower_devices,
            after=("tower-loop-edits",),  # the loops it left
        ),
        Rule(
            "session-config-edits",
            "edits",
            _edit_rules.session_configs,
            # reads their devices.resolve
            after=("tower-loop-edits", "clones", "hand-tower-devices"),
        ),
        # An entry file whose flag another file's towers resolve after --fix.
        Rule(
            "flag-devices",
            "edits",
            _flag_devices.edits,
            after=("session-config-edits",),  # wraps the configs it left
        ),
        Rule("keras-input-shape-drops", "edits", _edit_rules.keras_input_shape),
        Rule(
            "queue-runner-loop-drops",
            "edits",
            _edit_rules.queue_runner_loops,
            after=("queue-chains", "raw-queues"),  # a loop goes once no queue is left
        ),
        # What a contrib import is left for once every edit before ran
        # (names with no successor): a stand-in that fails where reached, and
        # the import goes.
        Rule(
            "contrib-gone",
            "edits",
            _contrib_gone.edits,
            after=(
                "contrib-call-edits",
                "contrib-unused-import-drops",
                "tutorial-imports",
                "queue-runner-loop-drops",
            ),
        ),
        # The edits that finish a rewrite that made any: the imports.
        Rule("dead-imports", "finish", _edit_rules.dead_imports),
        Rule("emg-import", "finish", _edit_rules.emg_import, after=("dead-imports",)),
        # The findings reworded from what the rewrite fixed.
        Rule("queue-starters-kept", "settle", _edit_rules.queue_starters),
        # The ports of the rewritten text (`passes.fix`).
        Rule("compat-v1-port", "ports", _edit_rules.compat_v1),
        Rule("star-reexports-port", "ports", _star_reexports.port_rule),
        Rule("slim-port", "ports", _edit_rules.slim),
        # TF_USE_LEGACY_KERAS=1 for the tf-keras names the ported text uses.
        Rule(
            "legacy-keras-env",
            "ports",
            _legacy_keras_env.port,
            after=("compat-v1-port", "star-reexports-port", "slim-port"),
        ),
        # The whole run (`queue_program.process_all`): facts about every
        # file that some files are processed again with.
        Rule("flag-devices-program", "program", _flag_devices.program),
        Rule("queue-runners-kept-program", "program", _queue_loops.program),
        Rule("keras-input-shape-program", "program", _keras_input_shape_fix.program),
        Rule(
            "queue-starters-program",
            "program",
            _queue_loops.program_starters,
            after=("queue-runners-kept-program", "keras-input-shape-program"),
        ),
    )
)
