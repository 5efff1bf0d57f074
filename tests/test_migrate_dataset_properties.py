"""TF 1.x's Dataset/Iterator properties onto tf.compat.v1.data's functions.

`ds.output_types`, `ds.output_shapes` and `ds.output_classes` exist on TF
1.x's Dataset and on tf.compat.v1.data.Iterator only: a TF 2 dataset (one
made in a module that kept `import tensorflow as tf`) has none, so the
compat.v1 port of the module that reads them is not enough.
`tf.compat.v1.data.get_output_types(ds)` and its two siblings read either.
"""

import sys

import pytest
from migrate_helpers import (
    CORPUS,
    assert_program_fix_is_final,
    copy_program,
    fix_folder,
    run,
)

from estimator_multigpu.migrate import _runner

PROGRAM = CORPUS / "reinitializable_program"
DATA = "tf.compat.v1.data"


def _fixed(tmp_path, source, header="import tensorflow as tf\n"):
    path = tmp_path / "a.py"
    path.write_text(header + source)
    return _runner.process(str(path))


def _own(result):
    return [f for f in result.findings if f.rule.rule_id == "dataset-property"]


@pytest.mark.parametrize(
    "use, expected",
    [
        ("ds.output_types", f"{DATA}.get_output_types(ds)"),
        ("ds.output_shapes", f"{DATA}.get_output_shapes(ds)"),
        ("ds.output_classes", f"{DATA}.get_output_classes(ds)"),
        ("ds.batch(2).output_shapes", f"{DATA}.get_output_shapes(ds.batch(2))"),
        ("(a + b).output_types", f"{DATA}.get_output_types((a + b))"),
        ("self.data.output_types", f"{DATA}.get_output_types(self.data)"),
        ("ds . output_types", f"{DATA}.get_output_types(ds)"),
    ],
    ids=["types", "shapes", "classes", "chain", "expression", "attribute", "spaced"],
)
def test_the_property_becomes_the_compat_v1_function(tmp_path, use, expected):
    result = _fixed(tmp_path, f"x = {use}\n")
    assert f"x = {expected}\n" in result.rewritten
    [finding] = _own(result)
    assert finding.fixed
    assert finding.text == use


def test_a_read_inside_a_rewritten_call_keeps_both(tmp_path):
    result = _fixed(tmp_path, "t = ds.make_one_shot_iterator().output_types\n")
    assert result.rewritten.endswith(
        f"t = {DATA}.get_output_types(emg.inputs.queues.make_one_shot_iterator(ds))\n"
    )


@pytest.mark.parametrize(
    "source",
    [
        "class Spec:\n    def __init__(self):\n        self.output_shapes = [1]\n"
        "s = Spec().output_shapes\n",
        "class Layer:\n    @property\n    def output_types(self):\n        return 1\n"
        "t = Layer().output_types\n",
        "t = tf.compat.v1.data.get_output_types(ds)\n",
        "import mylib\nt = mylib.output_types\n",
    ],
    ids=["assigned", "defined", "the_function", "a_module_name"],
)
def test_what_is_not_a_dataset_property_read_is_left(tmp_path, source):
    result = _fixed(tmp_path, source)
    assert _own(result) == []
    assert result.rewritten is None or source in result.rewritten


def test_a_module_without_a_tensorflow_import_keeps_a_finding(tmp_path):
    source = "def structure(ds):\n    return ds.output_types\n"
    result = _fixed(tmp_path, source, header="")
    [finding] = result.findings
    assert not finding.fixed and not finding.rule.fixable
    assert result.rewritten in (None, source)


def test_the_finding_says_why_the_property_goes(tmp_path):
    [finding] = _own(_fixed(tmp_path, "t = ds.output_shapes\n"))
    assert finding.api == "Dataset.output_shapes"
    assert finding.rule.summary == (
        "Dataset.output_shapes is a property of TF 1.x's Dataset and Iterator "
        "only: a TF 2 dataset (made where `import tensorflow as tf` stayed) has "
        "none (AttributeError)"
    )
    assert finding.rule.replacement == (
        "tf.compat.v1.data.get_output_shapes(ds) (any dataset, or an iterator; "
        "emg-migrate --fix writes it)"
    )
    assert finding.rule.guide == "migration_guide.md#dataset-properties"


def test_a_second_fix_changes_nothing(tmp_path):
    first = assert_program_fix_is_final(PROGRAM, tmp_path)
    assert f"{DATA}.get_output_types(train)" in first["trainer.py"]
    assert "import tensorflow as tf\n" in first["mnist_like.py"]


@pytest.mark.slow
def test_the_fixed_program_trains_and_evaluates(tmp_path):
    program = copy_program(PROGRAM, tmp_path)
    original = run([sys.executable, program / "trainer.py"], cwd=program)
    assert "AttributeError" in original.stderr
    fix_folder(program)
    proc = run([sys.executable, program / "trainer.py"], cwd=program)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "epoch 2 loss " in proc.stdout
    assert "accuracy 1.0" in proc.stdout
