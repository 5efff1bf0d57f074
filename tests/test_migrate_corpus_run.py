"""The rewritten corpus input pipelines produce the examples the queue versions do.

Each legacy script generates tiny data, runs its queue pipeline with
tf.compat.v1 and prints one line per batch and per example. One subprocess
(one TensorFlow start) runs every original and its `--fix` output; each test
compares what one pair printed.
"""

import pytest
from migrate_helpers import CORPUS, run_pairs

from estimator_multigpu.migrate import _runner

# script -> whether its pipeline has a fixed order (one thread, no shuffling).
SCRIPTS = {
    "branching_batchers.py": True,
    "cifar10_helpers_input.py": True,
    "cifar10_queue_input.py": True,
    "csv_columns_in_place.py": True,
    "csv_text_line_reader.py": True,
    "fully_connected_reader.py": False,
    "numpy_slice_producer.py": True,
    "queue_runner_threads_by_hand.py": True,
    "reader_helpers.py": True,
    "tfrecord_shuffle_batch.py": False,
}

# Scripts that only run after the rewrite (tf.contrib is gone from TF 2).
CONTRIB_SCRIPTS = ("estimator_replicate_train.py",)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """{script: {'original': lines, 'rewritten': lines}} from one subprocess."""
    work = tmp_path_factory.mktemp("corpus_run")
    return run_pairs([*SCRIPTS, *CONTRIB_SCRIPTS], work, timeout=900)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_rewrite_replaces_the_queue_chains(name):
    result = _runner.process(str(CORPUS / name))
    assert result.rewritten and "emg.inputs.queues.get_next(" in result.rewritten
    assert not [
        f
        for f in result.remaining
        if f.rule.rule_id.startswith("queue-") and f.rule.rule_id != "queue-runner"
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_rewritten_pipeline_produces_the_same_examples(outputs, name):
    original, new = outputs[name]["original"], outputs[name]["rewritten"]
    examples = [line for line in original if line.startswith(("example", "value"))]
    assert len(examples) >= 4, original
    if SCRIPTS[name]:
        assert new == original
    else:
        assert sorted(new) == sorted(original)
        batches = [line for line in original if line.startswith("batch")]
        assert [line for line in new if line.startswith("batch")] == batches


@pytest.mark.slow
@pytest.mark.parametrize("name", CONTRIB_SCRIPTS)
def test_rewritten_contrib_estimator_script_trains(outputs, name):
    original, new = outputs[name]["original"], outputs[name]["rewritten"]
    assert original[0].startswith("FAILED") and "tensorflow.contrib" in "\n".join(
        original
    )
    assert new[-1] == "improved True", new
