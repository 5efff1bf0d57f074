"""Imports from tensorflow.examples are reported with the import to write instead.

TF 2 packages ship no `tensorflow.examples`; the reading_data scripts of the
TF 1.x era imported the MNIST tutorial modules from there. The corpus script is
migrated with `--fix`, the reported edit is made as the finding words it, and
the result trains.
"""

import ast
import importlib.util
import textwrap

import pytest
from migrate_helpers import CORPUS, run_script

from estimator_multigpu.migrate import passes, runner, scanner

SCRIPT = CORPUS / "mnist_tutorial_trainer.py"
IMPORT = "from tensorflow.examples.tutorials.mnist import mnist"

# Our stand-in for the tutorial's mnist.py: the same names, a smaller model.
MNIST_MODULE = """
import tensorflow.compat.v1 as tf

IMAGE_PIXELS = 784
NUM_CLASSES = 10


def inference(images, hidden1, hidden2):
    net = images
    for i, units in enumerate((hidden1, hidden2, NUM_CLASSES)):
        w = tf.get_variable(f"w{i}", [net.shape[1], units])
        net = tf.matmul(net, w)
        net = tf.nn.relu(net) if units != NUM_CLASSES else net
    return net


def loss(logits, labels):
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate):
    return tf.train.GradientDescentOptimizer(learning_rate).minimize(loss)
"""


def scan(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    found = scanner.scan_rules(tree, source, "snippet.py")
    return passes.scan(tree, source, "snippet.py", found)


def examples_findings(findings):
    return [f for f in findings if f.rule.rule_id == "tf-examples"]


def test_tensorflow_examples_is_not_installed():
    assert importlib.util.find_spec("tensorflow.examples") is None


def test_model_module_import_is_reported_at_its_line_with_the_import_to_write():
    result = runner.process(str(SCRIPT))
    (finding,) = examples_findings(result.findings)
    line = SCRIPT.read_text().splitlines().index(IMPORT) + 1
    assert (finding.line, finding.col) == (line, 1)
    assert finding.api == "tensorflow.examples.tutorials.mnist.mnist"
    assert finding.rule.replacement.endswith(
        "copy tensorflow/examples/tutorials/mnist/mnist.py from the TF 1.x source "
        "tree (Apache-2.0) next to this script, then write: import mnist"
    )
    assert finding.rule.guide.endswith("#tf-examples")
    assert not finding.fixed


@pytest.mark.parametrize(
    "statement, api, local",
    [
        (
            "import tensorflow.examples.tutorials.mnist.mnist as model",
            "tensorflow.examples.tutorials.mnist.mnist",
            "import mnist as model",
        ),
        (
            "from tensorflow.examples import speech_commands",
            "tensorflow.examples.speech_commands",
            "import speech_commands",
        ),
    ],
)
def test_import_spellings_name_the_module_file_and_local_name(statement, api, local):
    (finding,) = examples_findings(scan(statement))
    assert finding.api == api
    assert finding.rule.replacement.endswith(f"then write: {local}")


def test_input_data_gets_the_keras_dataset():
    (finding,) = examples_findings(
        scan("from tensorflow.examples.tutorials.mnist import input_data\n")
    )
    assert finding.rule.replacement.startswith(
        "(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()"
    )


def test_other_tensorflow_imports_are_not_reported():
    source = """
    import tensorflow as tf
    from tensorflow.python.platform import tf_logging
    from tensorflow_examples import models
    """
    assert examples_findings(scan(source)) == []


def test_fix_leaves_the_import_for_the_hand_edit():
    result = runner.process(str(SCRIPT))
    assert IMPORT in result.rewritten
    assert "import tensorflow.compat.v1 as tf" in result.rewritten


def test_migrated_script_trains_after_the_reported_edit(tmp_path):
    result = runner.process(str(SCRIPT))
    (finding,) = examples_findings(result.findings)
    edit = finding.rule.replacement.rsplit("then write: ", 1)[1]
    lines = result.rewritten.splitlines()
    at = lines.index(IMPORT)
    lines[at] = edit
    (tmp_path / "trainer.py").write_text("\n".join(lines) + "\n")
    (tmp_path / "mnist.py").write_text(MNIST_MODULE)
    proc = run_script(tmp_path / "trainer.py", tmp_path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = [line.split()[1] for line in proc.stdout.splitlines()]
    assert steps == ["0", "1", "2"]


def test_guide_has_the_section_the_finding_links():
    guide = (CORPUS.parent.parent / "migration_guide.md").read_text()
    assert '<a id="tf-examples"></a>' in guide
