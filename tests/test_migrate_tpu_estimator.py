"""emg-migrate on TPUEstimator code: every tpu name onto emg.estimator.tpu, a
--num_gpus flag, the towers' clip, TPU-only code reported; the corpus script
trains, evaluates, predicts and exports after --fix alone on 1 and 2 devices."""

import pytest
from migrate_helpers import CORPUS, run_script

from estimator_multigpu.migrate import _runner

SCRIPT = "tpu_bert_classifier.py"


def _fix(tmp_path, source: str):
    path = tmp_path / "script.py"
    path.write_text(source)
    return _runner.process(str(path))


def test_fix_leaves_nothing_of_the_tpu_names():
    result = _runner.process(str(CORPUS / SCRIPT))
    assert not result.remaining
    assert "tf.contrib." not in result.rewritten.split('"""', 2)[2]
    assert "emg.estimator.tpu.TPUEstimator(" in result.rewritten
    assert "tf.data.experimental.map_and_batch(" in result.rewritten
    assert (
        "tf.compat.v1.distribute.cluster_resolver.TPUClusterResolver"
        in result.rewritten
    )


def test_fix_adds_a_num_gpus_flag_passed_to_the_run_config():
    rewritten = _runner.process(str(CORPUS / SCRIPT)).rewritten
    lines = rewritten.splitlines()
    use_tpu = next(i for i, line in enumerate(lines) if '"use_tpu"' in line)
    assert lines[use_tpu + 1].startswith('flags.DEFINE_integer("num_gpus", 1, ')
    assert "num_gpus=FLAGS.num_gpus)" in rewritten


def test_fix_moves_the_clip_onto_the_tower_optimizer():
    rewritten = _runner.process(str(CORPUS / SCRIPT)).rewritten
    assert "tf.clip_by_global_norm" not in rewritten
    assert (
        "train_op = emg.TowerOptimizer(optimizer, clip_global_norm=1.0)"
        ".apply_gradients(zip(grads, tvars), global_step=global_step)"
    ) in rewritten


_TPU_SCRIPT = """\
import tensorflow as tf

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_bool("use_tpu", False, "TPU or not.")
{extra_flag}

def create_optimizer(loss, optimizer):
    tvars = tf.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, {norm}) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    return optimizer.apply_gradients({pairs})

config = tf.compat.v1.estimator.tpu.RunConfig({config_args})
estimator = tf.compat.v1.estimator.tpu.TPUEstimator(use_tpu=FLAGS.use_tpu, config=config)
"""


def _tpu_script(
    extra_flag="", norm="_", config_args="model_dir='m'", pairs="zip(grads, tvars)"
):
    return _TPU_SCRIPT.format(
        extra_flag=extra_flag, norm=norm, config_args=config_args, pairs=pairs
    )


@pytest.mark.parametrize(
    "pairs", ["zip(grads, tvars)", "list(zip(grads, tvars))"], ids=["zip", "list"]
)
def test_the_clip_moves_whether_the_pairs_are_zipped_or_listed(tmp_path, pairs):
    result = _fix(tmp_path, _tpu_script(pairs=pairs))
    assert "tf.clip_by_global_norm" not in result.rewritten
    assert (
        f"emg.TowerOptimizer(optimizer, clip_global_norm=1.0).apply_gradients({pairs})"
        in result.rewritten
    )


def test_compat_v1_spelling_is_rewritten_too(tmp_path):
    result = _fix(tmp_path, _tpu_script())
    assert "emg.estimator.tpu.RunConfig(model_dir='m', num_gpus=FLAGS.num_gpus)" in (
        result.rewritten
    )
    assert "emg.estimator.tpu.TPUEstimator(" in result.rewritten


def test_a_used_global_norm_keeps_the_clip(tmp_path):
    result = _fix(tmp_path, _tpu_script(norm="norm"))
    assert "tf.clip_by_global_norm(grads, clip_norm=1.0)" in result.rewritten
    assert "TowerOptimizer" not in result.rewritten


def test_an_existing_num_gpus_flag_is_passed_not_defined_again(tmp_path):
    extra = 'flags.DEFINE_integer("num_gpus", 2, "GPUs.")'
    result = _fix(tmp_path, _tpu_script(extra_flag=extra))
    assert result.rewritten.count('"num_gpus"') == 1
    assert "num_gpus=FLAGS.num_gpus)" in result.rewritten


def test_a_run_config_naming_devices_is_left_alone(tmp_path):
    result = _fix(tmp_path, _tpu_script(config_args="num_gpus=4"))
    assert "RunConfig(num_gpus=4)" in result.rewritten
    assert 'DEFINE_integer("num_gpus"' not in result.rewritten


@pytest.mark.parametrize(
    "call", ["tf.contrib.tpu.rewrite(fn)", "tf.compat.v1.tpu.outside_compilation(fn)"]
)
def test_tpu_only_code_is_reported_not_faked(tmp_path, call):
    result = _fix(tmp_path, f"import tensorflow as tf\n\nout = {call}\n")
    (finding,) = [f for f in result.remaining if f.rule.rule_id == "tpu-only"]
    assert "does not run on GPUs or CPUs" in finding.rule.summary


@pytest.fixture(scope="module")
def rewritten_script(tmp_path_factory):
    work = tmp_path_factory.mktemp("tpu_corpus")
    path = work / SCRIPT
    path.write_text(_runner.process(str(CORPUS / SCRIPT)).rewritten)
    pretrained = work / "pretrained"
    proc = run_script(path, f"--output_dir={pretrained}", timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return path, pretrained / "model.ckpt-4"


@pytest.mark.slow
@pytest.mark.parametrize("num_gpus", [1, 2], ids=["1dev", "2dev"])
def test_rewritten_script_runs_warm_started_on_n_devices(
    rewritten_script, tmp_path, num_gpus
):
    path, init = rewritten_script
    proc = run_script(
        path,
        f"--output_dir={tmp_path / 'out'}",
        f"--init_checkpoint={init}",
        f"--num_gpus={num_gpus}",
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert [line.split(" = ")[0] for line in lines[:4]] == [
        "eval_accuracy",
        "eval_loss",
        "global_step",
        "loss",
    ]
    assert "global_step = 4" in lines
    assert "predictions 12" in lines
    assert lines[-1].startswith("exported ")
    replicated = "Replicating the model_fn over ['/cpu:0', '/cpu:1']" in proc.stderr
    assert replicated == (num_gpus == 2)
