"""`from tensorflow import *` and Jupyter notebooks are never "0 findings"."""

import json

from estimator_multigpu.migrate import _runner


def _process(tmp_path, text, name="train.py"):
    path = tmp_path / name
    path.write_text(text)
    return _runner.process(str(path))


def test_a_tensorflow_star_import_is_a_finding_naming_what_to_write(tmp_path):
    text = (
        "from tensorflow import *\n"
        "import numpy as np\n"
        "def model(images):\n"
        "    w = Variable(np.zeros(3))\n"
        "    return matmul(images, w)\n"
        "x = placeholder(float32)\n"
        "print(model(x), len([x]))\n"
    )
    result = _process(tmp_path, text)
    hits = [f for f in result.findings if f.rule.rule_id == "star-import"]
    assert len(hits) == 1 and hits[0].line == 1
    advice = hits[0].rule.replacement
    assert "import tensorflow.compat.v1 as tf" in advice
    assert "write tf.<name> for each name it gave" in advice
    assert "Variable, float32, matmul, placeholder without defining them" in advice
    assert not hits[0].fixed


def test_a_compat_v1_star_import_is_not_reported(tmp_path):
    result = _process(tmp_path, "from tensorflow.compat.v1 import *\nx = Session\n")
    assert [f for f in result.findings if f.rule.rule_id == "star-import"] == []


def _notebook(cells):
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "source": source, "metadata": {}}
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 2,
        }
    )


NOTEBOOK = [
    ("markdown", ["# Training\n"]),
    ("code", ["%matplotlib inline\n", "import tensorflow as tf\n"]),
    ("code", ["q = tf.train.string_input_producer(files)\n", "!ls data\n"]),
]


def test_a_notebooks_code_cells_are_scanned_and_it_is_never_rewritten(tmp_path):
    path = tmp_path / "explore.ipynb"
    path.write_text(_notebook(NOTEBOOK))
    before = path.read_bytes()
    result = _runner.process(str(path))
    apis = [f.api for f in result.findings]
    assert "tf.train.string_input_producer" in apis
    assert (
        result.original.splitlines()[8] == "q = tf.train.string_input_producer(files)"
    )
    assert result.rewritten is None and not any(f.fixed for f in result.findings)
    assert "jupyter nbconvert --to script" in result.info[0][1]
    assert not _runner.write(result) and path.read_bytes() == before


def test_a_folder_scan_includes_notebooks(tmp_path):
    (tmp_path / "explore.ipynb").write_text(_notebook(NOTEBOOK))
    (tmp_path / "train.py").write_text("x = 1\n")
    assert [p.rsplit("/", 1)[1] for p in _runner.collect([str(tmp_path)])] == [
        "explore.ipynb",
        "train.py",
    ]


def test_a_broken_notebook_is_an_error_not_zero_findings(tmp_path):
    result = _process(tmp_path, '{"cells": [', name="broken.ipynb")
    assert result.error.startswith("cannot read: not a Jupyter notebook")
