"""emg-migrate --fix: slim's prefetch_queue becomes emg.inputs.queues.prefetch_queue."""

import pytest
from migrate_helpers import CORPUS, RESET_GRAPH, TWO_DEVICES, same_step, script_lines

from estimator_multigpu.migrate import _runner

CALL = "q = {call}([images, labels], capacity=2 * 4)\n"
NEW = CALL.format(call="emg.inputs.queues.prefetch_queue")
SPELLINGS = [
    (
        "contrib_path",
        "import tensorflow as tf\n",
        "tf.contrib.slim.prefetch_queue.prefetch_queue",
        "import tensorflow as tf\nimport estimator_multigpu as emg\n",
    ),
    (
        "slim_alias",
        "import tensorflow.compat.v1 as tf\nimport tensorflow.contrib.slim as slim\n",
        "slim.prefetch_queue.prefetch_queue",
        "import tensorflow.compat.v1 as tf\nimport estimator_multigpu as emg\n",
    ),
    (
        "data_module",
        "import tensorflow.compat.v1 as tf\n"
        "from tensorflow.contrib.slim.python.slim.data import prefetch_queue\n",
        "prefetch_queue.prefetch_queue",
        "import tensorflow.compat.v1 as tf\nimport estimator_multigpu as emg\n",
    ),
    (
        "function_import",
        "import tensorflow.compat.v1 as tf\n"
        "from tensorflow.contrib.slim.python.slim.data.prefetch_queue import "
        "prefetch_queue\n",
        "prefetch_queue",
        "import tensorflow.compat.v1 as tf\nimport estimator_multigpu as emg\n",
    ),
]


def _process(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    return _runner.process(str(path))


@pytest.mark.parametrize(
    "imports, call, new_imports",
    [s[1:] for s in SPELLINGS],
    ids=[s[0] for s in SPELLINGS],
)
def test_each_spelling_becomes_the_drop_in(tmp_path, imports, call, new_imports):
    result = _process(tmp_path, imports + CALL.format(call=call))
    # (An import of slim's data module by its path is also the
    # contrib-module-path rule's, fixed with the import dropped.)
    paths = [f for f in result.findings if f.rule.rule_id == "contrib-module-path"]
    assert all(f.fixed for f in paths)
    [finding] = [f for f in result.findings if f not in paths]
    assert finding.rule.rule_id == "slim-prefetch-queue"
    assert finding.fixed
    assert result.rewritten == new_imports + NEW


def test_slim_import_becomes_tf_slim_once_the_queue_is_rewritten(tmp_path):
    source = (
        "import tensorflow.compat.v1 as tf\nimport tensorflow.contrib.slim as slim\n"
        + CALL.format(call="slim.prefetch_queue.prefetch_queue")
        + "x = slim.conv2d(q.dequeue()[0], 2, [3, 3])\n"
    )
    result = _process(tmp_path, source)
    assert all(f.fixed for f in result.findings)
    assert result.rewritten == (
        "import tensorflow.compat.v1 as tf\nimport tf_slim as slim\n"
        "import estimator_multigpu as emg\n"
        + NEW
        + "x = slim.conv2d(q.dequeue()[0], 2, [3, 3])\n"
    )


@pytest.mark.slow
def test_rewritten_tutorial_shape_trains_alike_at_one_and_two_devices(tmp_path):
    # Two dequeues per step must be two different batches: the same batch twice
    # would give the 2-device step other weights than the 1-device step.
    result = _runner.process(str(CORPUS / "slim_prefetch_tower_train.py"))
    assert not result.remaining
    script = tmp_path / "rewritten.py"
    script.write_text(result.rewritten)
    runs = [(str(n), script, ["unused", n]) for n in (1, 2)]
    out = script_lines(runs, TWO_DEVICES, RESET_GRAPH, timeout=600)
    assert out["1"][0] == "step 3"
    assert same_step(out["2"], out["1"]), (out["2"], out["1"])
