"""TF 1.x's Dataset iterator methods onto tf.compat.v1.data's functions.

`ds.make_one_shot_iterator()` and `ds.make_initializable_iterator()` are
methods of TF 1.x's Dataset only: a TF 2 dataset (one made in a module that
kept `import tensorflow as tf`) has neither, so the compat.v1 port of the
module that calls them is not enough; and tf.compat.v1.data's functions refuse
a dataset made in another graph, which TF 1.x's methods copied.
`emg.inputs.queues.make_one_shot_iterator(ds)` and
`make_initializable_iterator(ds, shared_name)` take either kind, from any graph.
"""

import sys

import pytest
from migrate_helpers import CORPUS, assert_program_fix_is_final, fixed_program, run

from estimator_multigpu.migrate import _runner

PROGRAM = CORPUS / "dataset_program"
ONE_SHOT = "emg.inputs.queues.make_one_shot_iterator"
INIT = "emg.inputs.queues.make_initializable_iterator"


def _fixed(tmp_path, source, header="import tensorflow as tf\n"):
    path = tmp_path / "a.py"
    path.write_text(header + source)
    return _runner.process(str(path))


@pytest.mark.parametrize(
    "use, expected",
    [
        ("ds.make_one_shot_iterator()", f"{ONE_SHOT}(ds)"),
        ("ds.make_one_shot_iterator().get_next()", f"{ONE_SHOT}(ds).get_next()"),
        ("ds.make_initializable_iterator()", f"{INIT}(ds)"),
        ('ds.make_initializable_iterator("it")', f'{INIT}(ds, "it")'),
        (
            "ds.make_initializable_iterator(shared_name=n)",
            f"{INIT}(ds, shared_name=n)",
        ),
        ("ds.batch(2).make_one_shot_iterator()", f"{ONE_SHOT}(ds.batch(2))"),
        ("(a + b).make_one_shot_iterator()", f"{ONE_SHOT}((a + b))"),
        ("self.data.make_one_shot_iterator()", f"{ONE_SHOT}(self.data)"),
    ],
    ids=[
        "one_shot",
        "get_next",
        "initializable",
        "shared_name",
        "shared_name_keyword",
        "chain",
        "expression",
        "attribute",
    ],
)
def test_the_method_becomes_the_compat_v1_function(tmp_path, use, expected):
    result = _fixed(tmp_path, f"it = {use}\n")
    assert f"it = {expected}\n" in result.rewritten
    [finding] = [f for f in result.findings if f.rule.rule_id == "dataset-iterator"]
    assert finding.fixed
    assert finding.text == use.split(".get_next")[0]


def test_the_package_is_imported_once_under_its_own_name(tmp_path):
    result = _fixed(
        tmp_path,
        "a = ds.make_one_shot_iterator()\nb = ds.make_initializable_iterator()\n",
        header="import tensorflow.compat.v1 as tf\nimport estimator_multigpu as E\n",
    )
    assert "a = E.inputs.queues.make_one_shot_iterator(ds)\n" in result.rewritten
    assert "b = E.inputs.queues.make_initializable_iterator(ds)\n" in result.rewritten
    assert result.rewritten.count("import estimator_multigpu") == 1


@pytest.mark.parametrize(
    "use",
    [
        "it = ds.make_one_shot_iterator(x)\n",
        "it = ds.make_initializable_iterator(a, b)\n",
        "it = ds.make_initializable_iterator(*args)\n",
        "it = ds.make_initializable_iterator(**kw)\n",
        "it = ds.make_initializable_iterator(name=n)\n",
        "it = tf.compat.v1.data.make_one_shot_iterator(ds)\n",
        "it = tf.data.make_one_shot_iterator(ds)\n",
        "import estimator_multigpu as emg\n"
        "it = emg.inputs.queues.make_initializable_iterator(ds)\n",
        "make = ds.make_one_shot_iterator\n",
    ],
    ids=[
        "one_shot_with_args",
        "two_args",
        "starred",
        "double_starred",
        "other_keyword",
        "the_function",
        "the_function_short",
        "emg_function",
        "not_called",
    ],
)
def test_what_is_not_the_method_call_is_left(tmp_path, use):
    result = _fixed(tmp_path, use)
    assert not any(f.rule.rule_id == "dataset-iterator" for f in result.findings)
    assert result.rewritten is None or use in result.rewritten


def test_a_module_without_a_tensorflow_import_imports_the_package(tmp_path):
    source = "def f(ds):\n    return ds.make_one_shot_iterator()\n"
    result = _fixed(tmp_path, source, header="")
    [finding] = result.findings
    assert finding.fixed
    assert result.rewritten == (
        "import estimator_multigpu as emg\n"
        "def f(ds):\n    return emg.inputs.queues.make_one_shot_iterator(ds)\n"
    )


def test_the_finding_says_why_the_method_goes(tmp_path):
    [finding] = _fixed(tmp_path, "it = ds.make_one_shot_iterator()\n").findings
    assert finding.api == "Dataset.make_one_shot_iterator"
    assert finding.rule.summary == (
        "Dataset.make_one_shot_iterator() is a method of TF 1.x's Dataset only: "
        "a TF 2 dataset (made where `import tensorflow as tf` stayed) has none "
        "(AttributeError), and tf.compat.v1.data's function refuses a dataset "
        "made in another graph (an Estimator input_fn reading one made in main())"
    )
    assert finding.rule.replacement == (
        "emg.inputs.queues.make_one_shot_iterator(ds) (TF 1.x's method as a "
        "function: any dataset, from any graph; emg-migrate --fix writes it)"
    )
    assert finding.rule.guide == "migration_guide.md#dataset-iterators"


def test_a_second_fix_changes_nothing(tmp_path):
    first = assert_program_fix_is_final(PROGRAM, tmp_path)
    assert f"{ONE_SHOT}(ds)" in first["linear_trainer.py"]


@pytest.mark.slow
@pytest.mark.parametrize("num_gpus", ["1", "2"])
def test_the_fixed_program_trains_and_evaluates(tmp_path, num_gpus):
    program = fixed_program(PROGRAM, tmp_path)
    proc = run(
        [sys.executable, program / "linear_trainer.py", "--model_dir", tmp_path / "m"],
        cwd=program,
        EMG_NUM_GPUS=num_gpus,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "average_loss " in proc.stdout
