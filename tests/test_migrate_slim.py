"""tf.contrib.slim: findings grouped per file and module, `import tf_slim` where it runs."""

import pytest
from migrate_helpers import CORPUS, run_script, run_scripts

from estimator_multigpu.migrate import _runner, _slim
from estimator_multigpu.migrate.__main__ import main

SLIM_CORE = "import tensorflow.compat.v1 as tf\n{binding}\nx = slim.conv2d(tf.zeros([1, 4, 4, 1]), 2, [3, 3])\ny = slim.flatten(x)\n"


def _process(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    return _runner.process(str(path))


@pytest.mark.parametrize(
    "binding",
    [
        "import tensorflow.contrib.slim as slim",
        "from tensorflow.contrib import slim",
        "slim = tf.contrib.slim",
    ],
    ids=["import_as", "from_import", "assignment"],
)
def test_the_slim_binding_becomes_tf_slim(tmp_path, binding):
    result = _process(tmp_path, SLIM_CORE.format(binding=binding))
    [finding] = [f for f in result.findings if f.rule.rule_id == "contrib-slim"]
    assert finding.fixed
    assert result.rewritten == SLIM_CORE.format(binding="import tf_slim as slim")


def test_uses_are_grouped_per_module_with_counts_and_lines(tmp_path):
    source = (
        "import tensorflow.contrib.slim as slim\n"
        "a = slim.conv2d\nb = slim.conv2d\nc = slim.arg_scope\n"
        "d = slim.dataset_data_provider.DatasetDataProvider\n"
        "e = slim.tfexample_decoder.Image\n"
    )
    found = _process(tmp_path, source).findings
    assert [(f.line, f.text) for f in found] == [
        (2, "3 use(s): slim.conv2d x2, slim.arg_scope x1 (line 2, 3, 4)"),
        (5, "1 use(s): slim.dataset_data_provider.DatasetDataProvider x1 (line 5)"),
        (6, "1 use(s): slim.tfexample_decoder.Image x1 (line 6)"),
    ]
    assert "emg.inputs.sharded_input_fn" in found[1].rule.replacement
    assert "control_flow_ops has no `case`" in found[2].rule.replacement


def test_what_tf_slim_lacks_is_reported_at_its_line_under_a_plain_import(
    tmp_path,
):
    use, lacks = "slim.batch_norm(x, is_training=t)", "batch_norm"
    source = (
        f"import tf_slim as slim\nx = slim.conv2d\ndef f(x, t):\n    return {use}\n"
    )
    result = _process(tmp_path, source)
    hits = [f for f in result.findings if f.text.startswith("1 use(s): slim." + lacks)]
    assert len(hits) == 1 and hits[0].line == 4 and not hits[0].fixed
    assert "lacks it on TF 2.21" in hits[0].rule.summary
    assert "slim = emg.tf_slim()" in hits[0].rule.replacement


@pytest.mark.parametrize(
    "use",
    [
        "slim.tfexample_decoder.Image()",
        "slim.dataset_data_provider.DatasetDataProvider",
        "slim.batch_norm(x, is_training=t)",
        "slim.conv2d(x, 2, [3, 3], normalizer_fn=slim.batch_norm)",
        "slim.local_variable(0.0)",
    ],
    ids=[
        "tfexample_decoder",
        "dataset_data_provider",
        "batch_norm",
        "normalizer_fn",
        "local_variable",
    ],
)
def test_slim_modules_tf_slim_lacks_bind_slim_through_emg_tf_slim(tmp_path, use):
    source = (
        "import tensorflow.contrib.slim as slim\nx = slim.conv2d\n"
        f"def f(x, t):\n    return {use}\n"
    )
    result = _process(tmp_path, source)
    assert result.rewritten.startswith(
        "import estimator_multigpu as emg\nslim = emg.tf_slim()\nx = slim.conv2d\n"
    )
    restored = ("tfexample_decoder", "batch_norm", "local_variable")
    lacking = [f for f in result.findings if f.api.split(".")[3] in restored]
    assert all(f.fixed for f in lacking)
    after = _process(tmp_path, result.rewritten).findings
    assert not [f for f in after if f.api.split(".")[3] in restored]


def test_emg_tf_slim_reuses_an_existing_emg_import(tmp_path):
    source = (
        "import estimator_multigpu as em\nimport tensorflow as tf\n"
        "slim = tf.contrib.slim\n"
        "d = slim.tfexample_decoder.TFExampleDecoder\n"
    )
    result = _process(tmp_path, source)
    assert result.rewritten.startswith(
        "import estimator_multigpu as em\nimport tensorflow as tf\n"
        "slim = em.tf_slim()\n"
    )


def test_a_data_only_slim_file_switches_too(tmp_path):
    source = (
        "import tensorflow as tf\nslim = tf.contrib.slim\n"
        "d = slim.dataset.Dataset\ne = slim.tfexample_decoder.Image\n"
    )
    result = _process(tmp_path, source)
    assert "slim = emg.tf_slim()\n" in result.rewritten
    assert "tf.contrib" not in result.rewritten


def test_plain_tf_slim_still_lacks_the_decoder(tmp_path):
    source = "import tf_slim as slim\nd = slim.tfexample_decoder.Image\n"
    [found] = _process(tmp_path, source).findings
    assert found.api == "tf.contrib.slim.tfexample_decoder.Image"
    assert "emg.tf_slim()" in found.rule.replacement


_DECODE = """
import numpy as np
import tensorflow.compat.v1 as tf
import tensorflow.contrib.slim as slim
tf.disable_v2_behavior()

png = tf.io.encode_png(np.full([2, 3, 3], 7, np.uint8))
keys = {"image/encoded": tf.FixedLenFeature((), tf.string, default_value=""),
        "image/format": tf.FixedLenFeature((), tf.string, default_value="png")}
items = {"image": slim.tfexample_decoder.Image(shape=[2, 3, 3], channels=3)}
decoder = slim.tfexample_decoder.TFExampleDecoder(keys, items)
with tf.Session() as session:
    encoded = session.run(png)
    example = tf.train.Example(features=tf.train.Features(feature={
        "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[encoded]))}))
    [image] = decoder.decode(tf.constant(example.SerializeToString()), ["image"])
    print("decoded", session.run(image).sum())
"""


@pytest.mark.slow
def test_a_fixed_decoder_script_decodes(tmp_path):
    pytest.importorskip("tf_slim", reason="the rewritten script needs tf-slim")
    path = tmp_path / "decode.py"
    path.write_text(_DECODE)
    result = _runner.process(str(path))
    _runner.write(result, backup=False)
    proc = run_script(path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "decoded 126" in proc.stdout


_LACKING_MODULE = """
import tensorflow.compat.v1 as tf
import tensorflow.contrib.slim as slim
tf.disable_v2_behavior()

def bn(x):
    return slim.batch_norm(x)

net = slim.nets.vgg.vgg_16(tf.zeros([1, 224, 224, 3]), 10)[0]
print(slim.flatten(slim.conv2d(tf.zeros([1, 4, 4, 1]), 2, [3, 3])).shape, net.shape)
print("normalized", bn(tf.zeros([2, 4, 4, 3])).shape)
"""


@pytest.mark.slow
def test_a_module_that_calls_batch_norm_imports_and_runs(tmp_path):
    pytest.importorskip("tf_slim", reason="the rewritten module needs tf-slim")
    path = tmp_path / "model.py"
    path.write_text(_LACKING_MODULE)
    result = _runner.process(str(path))
    assert "slim = emg.tf_slim()\nimport tf_slim.nets  # slim.nets\n" in (
        result.rewritten
    )
    _runner.write(result, backup=False)
    proc = run_script(path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "(1, 32) (1, 10)" in proc.stdout
    assert "normalized (2, 4, 4, 3)" in proc.stdout


def test_model_deploy_clones_point_to_replicate_model_fn(tmp_path):
    source = (
        "from deployment import model_deploy\n"
        "config = model_deploy.DeploymentConfig(num_clones=2)\n"
        "clones = model_deploy.create_clones(config, f, [q])\n"
    )
    found = _process(tmp_path, source).findings
    assert [(f.line, f.rule.rule_id) for f in found] == [
        (2, "slim-clones"),
        (3, "slim-clones"),
    ]
    assert "emg.replicate_model_fn" in found[0].rule.replacement
    assert "emg.TowerOptimizer" in found[0].rule.replacement


def test_slim_rules_can_be_ignored(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "from deployment import model_deploy\nc = model_deploy.create_clones\n"
    )
    assert main([str(path), "--ignore", "slim-clones"]) == 0


def test_module_of():
    assert _slim.module_of("tf.contrib.slim.conv2d") == _slim.CORE
    assert _slim.module_of("tf.contrib.slim") == _slim.CORE
    assert _slim.module_of("tf.contrib.slim.prefetch_queue.prefetch_queue") == (
        "prefetch_queue"
    )


@pytest.mark.slow
def test_the_fixed_slim_trainer_trains(tmp_path):
    pytest.importorskip("tf_slim", reason="the rewritten script needs tf-slim")
    result = _runner.process(str(CORPUS / "slim_model_train.py"))
    assert all(f.fixed for f in result.findings)
    assert "import tf_slim as slim\n" in result.rewritten
    fixed = tmp_path / "fixed.py"
    fixed.write_text(result.rewritten)
    runs = [
        ("original", CORPUS / "slim_model_train.py", ["."]),
        ("fixed", fixed, ["."]),
    ]
    out = run_scripts(runs, cwd=tmp_path)
    assert out["original"]["error"].startswith("ModuleNotFoundError")
    assert out["fixed"]["error"] is None
    assert "loss went down True" in out["fixed"]["stdout"]


def test_after_the_switch_what_still_needs_work_is_still_reported(tmp_path):
    source = (
        "import tf_slim as slim\n"
        "x = slim.conv2d\n"
        "y = slim.batch_norm\n"
        "p = slim.dataset_data_provider.DatasetDataProvider\n"
    )
    found = _process(tmp_path, source).findings
    assert [(f.line, f.api) for f in found] == [
        (3, "tf.contrib.slim.batch_norm"),
        (4, "tf.contrib.slim.dataset_data_provider.DatasetDataProvider"),
    ]
