"""tf.contrib names of the cifar10_estimator era get their exact replacements.

`maybe_download` (the generate_*_tfrecords scripts), the greedy variable
placement of hand-written towers and the RunConfig uid whitelist. The corpus
record writer is migrated with `--fix`, its reported call is replaced as the
finding words it, and the result writes its records from the file already
in the data directory (nothing is fetched).
"""

import ast
import textwrap

import numpy as np
import pytest
from migrate_helpers import CORPUS, run_script

from estimator_multigpu.migrate import (
    _passes,
    _runner,
    _scanner,
)

SCRIPT = CORPUS / "contrib_download_records.py"
API = "tf.contrib.learn.datasets.base.maybe_download"


def scan(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    found = _scanner.scan_rules(tree, source, "snippet.py")
    return _passes.scan(tree, source, "snippet.py", found)


def contrib(findings):
    return {f.api: f for f in findings if f.rule.rule_id == "contrib"}


GET_FILE = (
    "tf.keras.utils.get_file(FILENAME, origin=SOURCE_URL, cache_dir=data_dir, "
    "cache_subdir='')"
)


def test_maybe_download_is_rewritten_to_get_file():
    result = _runner.process(str(SCRIPT))
    finding = contrib(result.findings)[API]
    assert finding.rule.replacement.startswith(
        "tf.keras.utils.get_file(filename, origin=source_url, "
        "cache_dir=work_directory, cache_subdir='')"
    )
    assert finding.fixed
    assert GET_FILE in result.rewritten and ".maybe_download(" not in result.rewritten


@pytest.mark.slow
def test_migrated_writer_runs_as_fix_wrote_it(tmp_path):
    result = _runner.process(str(SCRIPT))
    script = tmp_path / "writer.py"
    script.write_text(result.rewritten)
    data = tmp_path / "data"
    data.mkdir()
    np.save(data / "values.npy", np.arange(5))
    proc = run_script(script, data)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split("\n")[:2] == ["read values.npy", "wrote 5"]
    assert (data / "values.tfrecords").stat().st_size > 0


def test_greedy_placement_becomes_the_drop_in():
    source = """
    import tensorflow as tf
    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(
        2, tf.contrib.training.byte_size_load_fn)
    """
    found = contrib(scan(source))
    for name in ("GreedyLoadBalancingStrategy", "byte_size_load_fn"):
        assert found[f"tf.contrib.training.{name}"].rule.replacement.startswith(
            f"emg.estimator.{name} (contrib's, for tf.compat.v1.train."
        )


def test_run_config_uid_whitelist_is_written_out():
    source = """
    from tensorflow.contrib.learn.python.learn import run_config
    whitelist = run_config._DEFAULT_UID_WHITE_LIST
    """
    found = contrib(scan(source))
    api = "tf.contrib.learn.python.learn.run_config._DEFAULT_UID_WHITE_LIST"
    assert found[api].rule.replacement.startswith("['tf_random_seed', ")
