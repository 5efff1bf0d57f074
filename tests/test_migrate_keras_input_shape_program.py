"""keras-input-shape over a whole folder: the program's other files, and their neighbours."""

import json
import shutil
import textwrap

import pytest

from tests import migrate_helpers as helpers

MODEL_DEF = """
import tensorflow as tf


def create_model():
    l = tf.keras.layers
    return tf.keras.Sequential([l.Flatten(input_shape=(784,)), l.Dense(10)])


def export(classifier, export_dir):
    image = tf.placeholder(tf.float32, [None, 28, 28])
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn({"image": image})
    classifier.export_savedmodel(export_dir, fn)
"""
REPORT = "import model_def\n\nmodel_def.create_model().summary()\n"
_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "metadata": {},
            "source": ["import os\n", "print(os.getcwd())\n"],
            "outputs": [],
            "execution_count": None,
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 4,
}
# Files a project folder holds besides the program: (path, bytes).
NEIGHBOURS = {
    "setup": ("setup.py", b"from setuptools import setup\nsetup(name='p')\n"),
    "notebook": ("explore.ipynb", json.dumps(_NOTEBOOK).encode()),
    "bad_notebook": ("broken.ipynb", b"{not json"),
    "test_file": (
        "test_model.py",
        b"import model_def\n\n\ndef test_it():\n    model_def.create_model()\n",
    ),
    "syntax_error": ("broken.py", b"def broken(:\n"),
    "not_utf8": ("latin.py", b'x = "\xff\xfe"\n'),
    "same_name_in_subfolder": ("sub/model_def.py", b"VALUE = 1\n"),
    # Nesting Python's parser refuses with RecursionError, and with MemoryError.
    "parser_recursion": ("deep.py", b"x = " + b"-" * 5000 + b"1\n"),
    "parser_memory": ("deeper.py", b"x = " + b"-" * 100000 + b"1\n"),
}


def _write(folder, neighbour=None):
    folder.mkdir()
    (folder / "model_def.py").write_text(textwrap.dedent(MODEL_DEF))
    (folder / "report.py").write_text(REPORT)
    if neighbour is not None:
        path, data = NEIGHBOURS[neighbour]
        (folder / path).parent.mkdir(exist_ok=True)
        (folder / path).write_bytes(data)


@pytest.mark.parametrize("neighbour", sorted(NEIGHBOURS))
def test_fixing_the_folder_rewrites_the_program_as_fixing_its_files(
    tmp_path, neighbour
):
    _write(tmp_path / "files")
    files = tmp_path / "files"
    by_files = helpers.run_cli(
        "--fix", "--no-backup", files / "model_def.py", files / "report.py"
    )
    assert by_files.returncode == 1, by_files.stderr
    folder = tmp_path / "folder"
    _write(folder, neighbour)
    by_folder = helpers.run_cli("--fix", "--no-backup", folder)
    assert "Traceback" not in by_folder.stderr, by_folder.stderr[-3000:]
    assert by_folder.returncode in (1, 2), by_folder.stdout
    fixed = (folder / "model_def.py").read_text()
    assert fixed == (files / "model_def.py").read_text()
    assert "input_shape=(784,)" in fixed  # report.py reads the built model
    assert "report.py imports this module and reads `.summary()`" in by_folder.stdout


def test_a_file_the_parser_cannot_take_is_reported_not_fatal(tmp_path):
    _write(tmp_path / "p", "parser_memory")
    shutil.copy(tmp_path / "p" / "deeper.py", tmp_path / "alone.py")
    out = helpers.run_cli(tmp_path / "alone.py")
    assert out.returncode == 2, out.stderr[-3000:]
    assert "alone.py: error: cannot parse: " in out.stdout
    assert "nests too deeply" in out.stdout
