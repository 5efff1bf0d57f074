"""Tests for the contrib-era shapes: Dataset.map arguments, batch_norm, contrib.learn."""

import ast
import textwrap

import pytest
from migrate_helpers import CORPUS, parse_ok, run_script

from estimator_multigpu.migrate import (
    _fixer,
    _runner,
    _scanner,
)


def fix(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _scanner.scan_rules(tree, source, "snippet.py")
    return _fixer.fix(source, tree, findings).source, findings


def only(findings, rule_id):
    (found,) = [f for f in findings if f.rule.rule_id == rule_id]
    return found


@pytest.mark.parametrize(
    "call, expected",
    [
        (
            "ds.map(f, num_threads=4, output_buffer_size=8)",
            "ds.map(f, num_parallel_calls=4).prefetch(8)",
        ),
        ("ds.map(f, num_threads=n)", "ds.map(f, num_parallel_calls=n)"),
        ("ds.map(f, output_buffer_size=2 * b)", "ds.map(f).prefetch(2 * b)"),
        (
            "ds.shuffle(9).map(f, output_buffer_size=3, num_threads=2).batch(4)",
            "ds.shuffle(9).map(f, num_parallel_calls=2).prefetch(3).batch(4)",
        ),
    ],
    ids=["both", "threads_only", "buffer_only", "inside_a_chain"],
)
def test_old_map_arguments_are_rewritten(call, expected):
    new, findings = fix(f"out = {call}\n")
    assert new == f"out = {expected}\n"
    assert only(findings, "dataset-map-args").fixed


def test_old_map_with_kwargs_stays_a_finding():
    source = "out = ds.map(f, num_threads=4, **extra)\n"
    new, findings = fix(source)
    assert new == source
    found = only(findings, "dataset-map-args")
    assert not found.fixed
    assert "num_parallel_calls=N).prefetch(M)" in found.rule.replacement


def test_map_with_new_arguments_is_not_a_finding():
    assert fix("out = ds.map(f, num_parallel_calls=4)\n")[1] == []


BN = """\
import tensorflow as tf

y = tf.contrib.layers.batch_norm({args})
"""


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            "x, decay=0.9, is_training=train, scope='bn'",
            "x, momentum=0.9, training=train, name='bn', scale=False",
        ),
        ("x", "x, momentum=0.999, scale=False, training=True"),
        (
            "x, 0.99, True, True, 1e-5",
            "x, momentum=0.99, center=True, scale=True, epsilon=1e-5, training=True",
        ),
        (
            "x, data_format='NCHW', fused=True",
            "x, axis=1, fused=True, momentum=0.999, scale=False, training=True",
        ),
        (
            "x, data_format=fmt",
            'x, axis=1 if fmt in ("NCHW", "channels_first") else -1, '
            "momentum=0.999, scale=False, training=True",
        ),
        (
            "x, updates_collections=tf.GraphKeys.UPDATE_OPS, zero_debias_moving_mean=False",
            "x, momentum=0.999, scale=False, training=True",
        ),
    ],
    ids=[
        "renamed",
        "contrib_defaults",
        "positional",
        "nchw",
        "format_expression",
        "default_collections",
    ],
)
def test_batch_norm_is_rewritten_with_contrib_defaults(args, expected):
    new, findings = fix(BN.format(args=args))
    call = f"tf.compat.v1.layers.batch_normalization({expected})"
    assert new == BN.format(args="").replace("tf.contrib.layers.batch_norm()", call)
    found = only(findings, "contrib-batch-norm")
    assert found.fixed and call in found.rule.replacement
    assert [f.rule.rule_id for f in findings] == ["contrib-batch-norm"]


def test_batch_norm_activation_wraps_the_layer():
    new, _ = fix(BN.format(args="x, activation_fn=tf.nn.relu"))
    assert "y = tf.nn.relu(tf.compat.v1.layers.batch_normalization(x, " in new


@pytest.mark.parametrize(
    "args, reason",
    [
        ("x, updates_collections=None", "updates_collections other than"),
        ("x, param_initializers={'beta': init}", "`param_initializers=` has no"),
        ("*args", r"\*args or \*\*kwargs"),
        ("x, 0.9, True, True, 1e-3, None, None", "at most the first five"),
    ],
    ids=["inline_updates", "param_initializers", "star_args", "too_positional"],
)
def test_batch_norm_batch_normalization_cannot_express_becomes_tf_slims(args, reason):
    # tf_slim.batch_norm is contrib.layers.batch_norm moved out of contrib: the
    # same signature and defaults, so the arguments stay as they are.
    new, findings = fix(BN.format(args=args))
    call = f"emg.tf_slim().batch_norm({args})"
    assert new == (
        f"import tensorflow as tf\nimport estimator_multigpu as emg\n\ny = {call}\n"
    )
    found = only(findings, "contrib-batch-norm")
    assert found.fixed and "emg.tf_slim().batch_norm" in found.rule.replacement
    assert __import__("re").search(reason, found.rule.replacement)


def test_batch_norm_with_comments_inside_is_left_alone():
    source = BN.format(args="\n    x,  # the features\n    decay=0.9,\n")
    new, findings = fix(source)
    assert new == source
    assert not only(findings, "contrib-batch-norm").fixed


def test_batch_norm_folds_renames_inside_it():
    source = (
        "import tensorflow as tf\n"
        "y = tf.contrib.layers.batch_norm("
        "x, is_training=mode == tf.estimator.ModeKeys.TRAIN)\n"
    )
    new, findings = fix(source)
    assert "training=mode == emg.estimator.ModeKeys.TRAIN" in new
    assert all(f.fixed for f in findings)
    assert parse_ok(new)


@pytest.mark.parametrize(
    "line, fixed",
    [
        ("c = tf.contrib.learn.RunConfig(model_dir=d, save_checkpoints_secs=60)", True),
        ("class C(tf.contrib.learn.RunConfig):\n    pass", True),
        ("c = tf.contrib.learn.RunConfig(gpu_memory_fraction=0.5)", False),
        ("c = tf.contrib.learn.RunConfig('master')", False),
    ],
    ids=["plain_call", "base_class", "unknown_argument", "positional"],
)
def test_contrib_learn_run_config(line, fixed):
    source = f"import tensorflow as tf\n{line}\n"
    new, findings = fix(source)
    found = only(findings, "contrib-learn")
    assert found.fixed is fixed
    assert ("emg.estimator.RunConfig" in new) is fixed
    assert new == source or "import estimator_multigpu as emg\n" in new


@pytest.mark.parametrize(
    "line, text",
    [
        (
            "e = tf.contrib.learn.Experiment(est, train_input_fn=a, eval_input_fn=b)",
            "emg.estimator.Experiment (same arguments",
        ),
        (
            "tf.contrib.learn.learn_runner.run(fn, run_config=c, hparams=h)",
            "emg.estimator.learn_runner.run (same arguments",
        ),
        ("h = tf.contrib.training.HParams(lr=0.1)", "emg.estimator.HParams (same"),
    ],
    ids=["experiment", "learn_runner", "hparams"],
)
def test_contrib_learn_findings_say_what_to_write(line, text):
    findings = fix(f"import tensorflow as tf\n{line}\n")[1]
    found = only(findings, "contrib-learn")
    assert found.rule.replacement.startswith(text)
    assert found.rule.guide == "migration_guide.md#contrib-learn"


def test_learn_runner_imported_from_its_module_is_found():
    source = (
        "from tensorflow.contrib.learn.python.learn import learn_runner\n"
        "learn_runner.run(fn, run_config=c)\n"
    )
    found = only(fix(source)[1], "contrib-learn")
    assert found.line == 2 and found.api.endswith("learn_runner.run")


@pytest.mark.slow
def test_contrib_era_estimator_script_trains_after_fix(tmp_path):
    name = "contrib_era_estimator.py"
    result = _runner.process(str(CORPUS / name))
    assert result.rewritten and not result.remaining
    script = tmp_path / name
    script.write_text(result.rewritten)
    proc = run_script(script, tmp_path / "model", timeout=600, TF_USE_LEGACY_KERAS="1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "variables True True" and lines[-1] == "improved True"


@pytest.mark.parametrize(
    "line, new",
    [
        (
            "e = tf.contrib.learn.Experiment(est, train_input_fn=a, "
            "eval_input_fn=b, train_steps=9, eval_steps=n, min_eval_frequency=2)",
            "e = emg.estimator.Experiment(est, train_input_fn=a, "
            "eval_input_fn=b, train_steps=9, eval_steps=n, min_eval_frequency=2)",
        ),
        (
            "tf.contrib.learn.learn_runner.run(make(d), run_config=c, hparams=h)",
            "emg.estimator.learn_runner.run(make(d), run_config=c, hparams=h)",
        ),
        (
            "h = tf.contrib.training.HParams(lr=0.1, **extra)",
            "h = emg.estimator.HParams(lr=0.1, **extra)",
        ),
    ],
    ids=["experiment", "learn_runner", "hparams"],
)
def test_contrib_learn_calls_become_the_drop_ins(line, new):
    source = f"import tensorflow as tf\n{line}\n"
    fixed, findings = fix(source)
    found = only(findings, "contrib-learn")
    assert found.fixed
    assert (found.line, found.col) == (2, line.index("tf.contrib") + 1)
    assert (
        fixed == f"import tensorflow as tf\nimport estimator_multigpu as emg\n{new}\n"
    )


def test_learn_runner_module_import_goes_with_its_last_use():
    source = (
        "from tensorflow.contrib.learn.python.learn import learn_runner\n"
        "learn_runner.run(fn, run_config=c)\n"
    )
    fixed, _ = fix(source)
    assert fixed == (
        "import estimator_multigpu as emg\nemg.estimator.learn_runner.run(fn, run_config=c)\n"
    )


@pytest.mark.parametrize(
    "args",
    ["est, a, b, eval_metrics=m", "est, a, b, m", "*args"],
    ids=["eval_metrics", "positional_metrics", "unpacked"],
)
def test_experiment_with_contrib_only_arguments_stays_reported(args):
    line = f"e = tf.contrib.learn.Experiment({args})"
    source = f"import tensorflow as tf\n{line}\n"
    fixed, findings = fix(source)
    found = only(findings, "contrib-learn")
    assert not found.fixed and fixed == source
    assert found.rule.replacement.startswith("emg.estimator.Experiment (the same")
    assert "eval_metric_ops" in found.rule.replacement
