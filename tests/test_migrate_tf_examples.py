"""Imports from tensorflow.examples are reported, and the MNIST ones fixed.

TF 2 packages ship no `tensorflow.examples`; the reading_data scripts of the
TF 1.x era imported the MNIST tutorial modules from there. `--fix` imports
`estimator_multigpu.tutorials`' drop-ins instead (contrib's
`learn.datasets.mnist` too), and the corpus script trains after `--fix` alone.
Other `tensorflow.examples` modules keep the advice to vendor the file.
"""

import ast
import importlib.util
import textwrap

import pytest
from migrate_helpers import CORPUS, assert_guide_anchor, run_script

from estimator_multigpu.migrate import (
    _passes,
    _runner,
    _scanner,
)

SCRIPT = CORPUS / "mnist_tutorial_trainer.py"
IMPORT = "from tensorflow.examples.tutorials.mnist import mnist"


def scan(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    found = _scanner.scan_rules(tree, source, "snippet.py")
    return _passes.scan(tree, source, "snippet.py", found)


def examples_findings(findings):
    return [f for f in findings if f.rule.rule_id == "tf-examples"]


def test_tensorflow_examples_is_not_installed():
    assert importlib.util.find_spec("tensorflow.examples") is None


def test_model_module_import_is_reported_at_its_line_and_fixed():
    result = _runner.process(str(SCRIPT))
    (finding,) = examples_findings(result.findings)
    line = SCRIPT.read_text().splitlines().index(IMPORT) + 1
    assert (finding.line, finding.col) == (line, 1)
    assert finding.api == "tensorflow.examples.tutorials.mnist.mnist"
    assert finding.rule.replacement.startswith(
        "from estimator_multigpu.tutorials import mnist (estimator_multigpu.tutorials"
        ".mnist mirrors TF 1.x's module; emg-migrate --fix writes this import)"
    )
    assert finding.rule.guide.endswith("#tf-examples")
    assert finding.fixed


@pytest.mark.parametrize(
    "statement, api, local",
    [
        (
            "from tensorflow.examples import speech_commands",
            "tensorflow.examples.speech_commands",
            "import speech_commands",
        ),
        (
            "import tensorflow.examples.tutorials.mnist.mnist_deep as deep",
            "tensorflow.examples.tutorials.mnist.mnist_deep",
            "import mnist_deep as deep",
        ),
    ],
    ids=["speech_commands", "mnist_deep"],
)
def test_modules_without_a_drop_in_name_the_file_to_vendor(statement, api, local):
    (finding,) = examples_findings(scan(statement))
    assert finding.api == api
    assert finding.rule.replacement.endswith(f"then write: {local}")


@pytest.mark.parametrize(
    "statement, write",
    [
        (
            "import tensorflow.examples.tutorials.mnist.mnist as model",
            "from estimator_multigpu.tutorials import mnist as model",
        ),
        (
            "import tensorflow.examples.tutorials.mnist.input_data",
            "import estimator_multigpu.tutorials.input_data",
        ),
        (
            "from tensorflow.examples.tutorials import mnist",
            "from estimator_multigpu import tutorials as mnist",
        ),
    ],
    ids=["module_as", "plain_module", "package"],
)
def test_tutorial_imports_name_the_drop_in_to_import(statement, write):
    (finding,) = examples_findings(scan(statement))
    assert finding.rule.replacement.startswith(f"{write} (")


def test_input_data_gets_the_drop_in_then_the_keras_dataset():
    (finding,) = examples_findings(
        scan("from tensorflow.examples.tutorials.mnist import input_data\n")
    )
    first, keras = finding.rule.replacement.split(
        "; or, to leave the next_batch feed loop: "
    )
    assert first.startswith("from estimator_multigpu.tutorials import input_data (")
    assert keras.startswith(
        "(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()"
    )


def test_other_tensorflow_imports_are_not_reported():
    source = """
    import tensorflow as tf
    from tensorflow.python.platform import tf_logging
    from tensorflow_examples import models
    """
    assert examples_findings(scan(source)) == []


def test_fix_imports_the_drop_in():
    result = _runner.process(str(SCRIPT))
    assert IMPORT not in result.rewritten
    assert "from estimator_multigpu.tutorials import mnist\n" in result.rewritten
    assert "import tensorflow.compat.v1 as tf" in result.rewritten
    assert examples_findings(result.remaining) == []


@pytest.mark.slow
def test_migrated_script_trains_after_fix_alone(tmp_path):
    result = _runner.process(str(SCRIPT))
    assert not result.remaining, [f.api for f in result.remaining]
    (tmp_path / "trainer.py").write_text(result.rewritten)
    proc = run_script(tmp_path / "trainer.py", tmp_path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = [line.split()[1] for line in proc.stdout.splitlines()]
    assert steps == ["0", "1", "2"]


def test_guide_has_the_section_the_finding_links():
    assert_guide_anchor("tf-examples")


def fixed(tmp_path, source):
    """`--fix` on `source`: (the file's result, the rewritten text's findings)."""
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    result = _runner.process(str(path))
    return result, scan(result.rewritten or "")


def _ours(findings):
    return [f for f in findings if f.rule.rule_id in ("tf-examples", "contrib")]


@pytest.mark.parametrize(
    "before, after",
    [
        (
            "from tensorflow.examples.tutorials.mnist import input_data, mnist as m\n",
            "from estimator_multigpu.tutorials import input_data, mnist as m\n",
        ),
        (
            "from tensorflow.examples.tutorials.mnist.input_data import read_data_sets\n",
            "from estimator_multigpu.tutorials.input_data import read_data_sets\n",
        ),
        (
            "from tensorflow.examples.tutorials import mnist\n"
            "d = mnist.input_data.read_data_sets('d')\n",
            "from estimator_multigpu import tutorials as mnist\n"
            "d = mnist.input_data.read_data_sets('d')\n",
        ),
        (
            "import tensorflow.examples.tutorials.mnist.input_data\n"
            "d = tensorflow.examples.tutorials.mnist.input_data.read_data_sets('d')\n",
            "import estimator_multigpu.tutorials.input_data\n"
            "d = estimator_multigpu.tutorials.input_data.read_data_sets('d')\n",
        ),
        (
            "from tensorflow.contrib.learn.python.learn.datasets import mnist as md\n"
            "d = md.read_data_sets('d', one_hot=True)\n",
            "from estimator_multigpu.tutorials import input_data as md\n"
            "d = md.read_data_sets('d', one_hot=True)\n",
        ),
        (
            "from tensorflow.contrib.learn.python.learn.datasets.mnist import "
            "read_data_sets\nd = read_data_sets('d')\n",
            "from estimator_multigpu.tutorials.input_data import read_data_sets\n"
            "d = read_data_sets('d')\n",
        ),
    ],
    ids=[
        "two_names",
        "function",
        "package",
        "plain",
        "contrib_module",
        "contrib_function",
    ],
)
def test_fix_imports_the_drop_ins_and_their_findings_go(tmp_path, before, after):
    result, again = fixed(tmp_path, "import numpy as np\n" + before)
    assert result.rewritten == "import numpy as np\n" + after
    assert _ours(result.findings) and not _ours(result.remaining)
    assert _ours(again) == []


def test_contrib_attribute_use_becomes_the_drop_in(tmp_path):
    result, again = fixed(
        tmp_path,
        """
        import tensorflow as tf
        d = tf.contrib.learn.datasets.mnist.read_data_sets("d", one_hot=True)
        """,
    )
    assert 'd = emg.tutorials.input_data.read_data_sets("d", one_hot=True)' in (
        result.rewritten
    )
    assert "import estimator_multigpu as emg\n" in result.rewritten
    assert not _ours(result.remaining) and _ours(again) == []


def test_contrib_mnist_findings_name_the_drop_in():
    (finding,) = scan(
        "import tensorflow as tf\ntf.contrib.learn.datasets.mnist.DataSet\n"
    )
    assert finding.rule.replacement.startswith(
        "estimator_multigpu.tutorials.input_data"
    )


def test_a_name_the_drop_in_lacks_keeps_the_import_with_a_note(tmp_path):
    source = """
    from tensorflow.examples.tutorials.mnist import input_data
    input_data.maybe_download("f", "d", "u")
    """
    result, _ = fixed(tmp_path, source)
    assert result.rewritten is None or "tensorflow.examples" in result.rewritten
    (finding,) = examples_findings(result.findings)
    assert not finding.fixed
    assert (
        2,
        "tutorial import not rewritten: estimator_multigpu.tutorials."
        "input_data has no maybe_download; write the import by hand",
    ) in result.notes


def test_a_plain_import_whose_root_is_read_elsewhere_is_kept(tmp_path):
    source = """
    import tensorflow.examples.tutorials.mnist.input_data
    x = tensorflow.constant(1)
    """
    result, _ = fixed(tmp_path, source)
    (finding,) = examples_findings(result.findings)
    assert not finding.fixed
    assert any("`tensorflow` is read elsewhere" in why for _, why in result.notes)


def test_an_unused_legacy_import_finding_names_its_file(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(
        "from tensorflow.contrib.learn.python.learn.datasets.mnist import read_data_sets\n"
    )
    (finding,) = _runner.process(str(path)).findings
    assert finding.path == str(path)


INPUT_DATA_SCRIPT = """
import sys
import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets(sys.argv[1], one_hot=True, validation_size=8)
x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
w = tf.Variable(tf.zeros([784, 10]))
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(x, w)))
train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(3):
        batch_x, batch_y = mnist.train.next_batch(10)
        _, value = sess.run([train_op, loss], {x: batch_x, y: batch_y})
        print("step", step, "epochs", mnist.train.epochs_completed)
"""


def _write_mnist(folder, n):
    import gzip

    import numpy as np

    rng = np.random.RandomState(0)
    for prefix in ("train", "t10k"):
        images = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
        labels = rng.randint(0, 10, n).astype(np.uint8)
        for name, header, data in (
            ("images-idx3-ubyte", [2051, n, 28, 28], images),
            ("labels-idx1-ubyte", [2049, n], labels),
        ):
            with gzip.open(folder / f"{prefix}-{name}.gz", "wb") as f:
                f.write(np.array(header, ">u4").tobytes() + data.tobytes())


@pytest.mark.slow
def test_a_next_batch_feed_loop_trains_after_fix_alone(tmp_path):
    _write_mnist(tmp_path, 20)
    result, _ = fixed(tmp_path, INPUT_DATA_SCRIPT)
    assert not result.remaining, [(f.api, f.rule.rule_id) for f in result.remaining]
    _runner.write(result, backup=False)
    proc = run_script(tmp_path / "train.py", tmp_path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split("\n")[:3] == [
        "step 0 epochs 0",
        "step 1 epochs 1",  # 12 training examples: batches 2 and 3 wrap
        "step 2 epochs 2",
    ]


def test_the_rewrite_knows_exactly_the_names_the_drop_ins_export():
    """emg-migrate (pure ast) lists the drop-ins' names; they must agree."""
    from estimator_multigpu.migrate import _tutorial_imports
    from estimator_multigpu.tutorials import input_data, mnist

    assert _tutorial_imports.INPUT_NAMES == frozenset(input_data.__all__)
    assert _tutorial_imports.MODEL_NAMES == frozenset(mnist.__all__)
