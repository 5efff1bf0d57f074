"""`emg-migrate --upgrade-v2`: TensorFlow's tf_upgrade_v2 first, only when asked."""

import pytest
from migrate_helpers import CORPUS, run_cli, run_script

from estimator_multigpu.migrate import _compat_v1, _runner

TRAINER = CORPUS / "bare_tf1_trainer.py"


def test_the_default_is_the_compat_v1_import_not_the_upgrader():
    new = _runner.process(str(TRAINER)).rewritten
    assert "import tensorflow.compat.v1 as tf" in new
    assert "tf.compat.v1.placeholder" not in new


def test_graph_mode_goes_after_the_opening_imports():
    source = "import os\nimport tensorflow as tf\n\nx = tf.compat.v1.placeholder(tf.float32)\n"
    assert _compat_v1.graph_mode(source) == source.replace(
        "import tensorflow as tf\n",
        "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n",
    )
    done = "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n"
    assert _compat_v1.graph_mode(done) == done


@pytest.mark.slow
def test_upgrade_v2_renames_per_use_and_the_result_trains(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAINER.read_text())
    proc = run_cli("--upgrade-v2", "--fix", "--no-backup", script)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tf_upgrade_v2 renamed TF 1.x names first" in proc.stdout
    new = script.read_text()
    assert (
        "import tensorflow as tf  # port: compat-v1\ntf.compat.v1.disable_v2_behavior()\n"
        in new
    )
    assert "tf.compat.v1.layers.dense(" in new and "tf.compat.v1.summary.scalar(" in new
    run = run_script(script, tmp_path / "logs", TF_USE_LEGACY_KERAS="1")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "final loss 0.0" in run.stdout


def test_an_upgrader_that_cannot_run_is_an_error_and_changes_nothing(tmp_path):
    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no TensorFlow here')\n")
    script = tmp_path / "train.py"
    script.write_text(TRAINER.read_text())
    proc = run_cli(
        "--upgrade-v2", "--fix", script, timeout=120, pythonpath=tmp_path / "fake"
    )
    assert proc.returncode == 2
    assert "--upgrade-v2 runs TensorFlow's tf_upgrade_v2 with" in proc.stderr
    assert "ImportError: no TensorFlow here" in proc.stderr
    assert script.read_text() == TRAINER.read_text()
    assert not (tmp_path / "train.py.bak").exists()
