"""emg-migrate --fix moves cifar10_estimator-shaped code onto emg.estimator's
contrib.learn/training drop-ins: the uid list, the ps strategy, GPU gates."""

import pytest
from migrate_helpers import fix_with_passes, run_fixed

UTILS = """\
import tensorflow as tf
from tensorflow.contrib.learn.python.learn import run_config


class RunConfig(tf.contrib.learn.RunConfig):
    def uid(self, whitelist=None):
        if whitelist is None:
            whitelist = run_config._DEFAULT_UID_WHITE_LIST
        return sorted(whitelist)
"""


def test_run_config_subclass_and_uid_list_run_after_fix(tmp_path):
    new, findings = fix_with_passes(UTILS)
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "contrib" not in new and "import run_config" not in new
    namespace = {}
    exec(compile(new, "utils.py", "exec"), namespace)  # noqa: S102
    config = namespace["RunConfig"](model_dir=str(tmp_path))
    assert config.uid()[0] == "keep_checkpoint_every_n_hours"
    assert len(config.uid()) == 8 and config.model_dir == str(tmp_path)


def test_ps_strategy_names_become_the_drop_ins():
    new, findings = fix_with_passes(
        """
        import tensorflow as tf
        s = tf.contrib.training.GreedyLoadBalancingStrategy(
            2, tf.contrib.training.byte_size_load_fn)
        """
    )
    assert all(f.fixed for f in findings if f.api.startswith("tf.contrib"))
    assert "emg.estimator.GreedyLoadBalancingStrategy(\n" in new
    assert "2, emg.estimator.byte_size_load_fn)" in new


@pytest.mark.parametrize(
    "line, new",
    [
        (
            "assert tf.test.is_gpu_available(), 'no GPU'",
            "assert emg.devices.available(), 'no GPU'",
        ),
        (
            "if not tf.test.is_gpu_available(): raise SystemExit",
            "if not emg.devices.available(): raise SystemExit",
        ),
    ],
    ids=["assert", "if_not"],
)
def test_gpu_probe_that_gates_the_run_is_rewritten(line, new):
    fixed, findings = fix_with_passes(f"import tensorflow as tf\n{line}\n")
    (probe,) = [f for f in findings if f.rule.rule_id == "device-lib"]
    assert probe.fixed and f"\n{new}\n" in fixed


@pytest.mark.parametrize(
    "line",
    ["use_gpu = tf.test.is_gpu_available()", "assert tf.test.is_gpu_available(True)"],
    ids=["value_used", "cuda_only"],
)
def test_gpu_probe_whose_value_is_used_stays_reported(line):
    source = f"import tensorflow as tf\n{line}\n"
    fixed, findings = fix_with_passes(source)
    (probe,) = [f for f in findings if f.rule.rule_id == "device-lib"]
    assert not probe.fixed and "tf.test.is_gpu_available(" in fixed


def test_maybe_download_keywords_become_get_file():
    new, _ = fix_with_passes(
        "import tensorflow as tf\n"
        "p = tf.contrib.learn.datasets.base.maybe_download("
        "source_url=u, filename=f, work_directory=d)\n"
    )
    assert (
        "p = tf.keras.utils.get_file(f, origin=u, cache_dir=d, cache_subdir='')" in new
    )


def test_available_is_never_empty():
    import estimator_multigpu as emg

    assert emg.devices.available()


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\nK = tf.contrib.learn.ModeKeys\n"
        "modes = (K.TRAIN, tf.contrib.learn.ModeKeys.EVAL, "
        "tf.contrib.learn.ModeKeys.INFER)\n",
        "from tensorflow.contrib.learn import ModeKeys\n"
        "modes = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.INFER)\n",
        "import tensorflow as tf\n"
        "from tensorflow.contrib.learn.python.learn.estimators import model_fn\n"
        "modes = (model_fn.ModeKeys.TRAIN, model_fn.ModeKeys.EVAL,\n"
        "         tf.contrib.learn.ModeKeys.INFER)\n",
    ],
    ids=["attribute", "from_import", "module_path"],
)
def test_contrib_learn_mode_keys_become_the_drop_in(source):
    new, findings = fix_with_passes(source)
    assert all(f.fixed for f in findings), [f.api for f in findings if not f.fixed]
    assert "contrib" not in new and "emg.estimator.LearnModeKeys" in new
    namespace = {}
    exec(compile(new, "modes.py", "exec"), namespace)  # noqa: S102
    assert namespace["modes"] == ("train", "eval", "infer")


@pytest.mark.slow
def test_the_mode_keys_corpus_script_runs_after_fix(tmp_path):
    """contrib.learn.ModeKeys by attribute, import and module path, fixed, run."""
    out = run_fixed("contrib_learn_mode_keys.py", tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == ["train ()", "eval ()", "infer (2,)"]
