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


def _kept(tmp_path, module: str, reader: str, source: str) -> tuple[bool, str]:
    """(declared shape kept, finding text) with `reader` reading `module`."""
    from estimator_multigpu.migrate import _queue_program

    path = tmp_path / module
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(MODEL_DEF))
    (tmp_path / reader).write_text(textwrap.dedent(source))
    first, _ = _queue_program.process_all([str(path), str(tmp_path / reader)])
    (finding,) = [f for f in first.findings if f.rule.rule_id == "keras-input-shape"]
    return not finding.fixed, finding.rule.replacement


# (module path, what the reader reads, the reason the finding gives)
READERS = {
    "layer_kernel": (
        "model_def.py",
        "import model_def\nk = model_def.create_model().layers[1].kernel\n",
        "reads `.kernel` at line 2",
    ),
    "getattr_by_name": (
        "model_def.py",
        "from model_def import create_model as make\nm = make()\n"
        "for name in ['output']:\n    print(getattr(m, name))\n",
        "reads `getattr(m, name)` at line 4",
    ),
    "output_of_the_model": (
        "model_def.py",
        "import model_def as md\nprint(md.create_model().output)\n",
        "reads `.output` at line 2",
    ),
    "passed_to_an_imported_function": (
        "model_def.py",
        "import model_def\nfrom tools import show\nshow(model_def.create_model())\n",
        "passes the model to `show` at line 3",
    ),
    "package_init": (
        "pkg/__init__.py",
        "import pkg\npkg.create_model().summary()\n",
        "reads `.summary()` at line 2",
    ),
    "package_member": (
        "pkg/model_def.py",
        "from pkg import model_def\nprint(model_def.create_model().variables)\n",
        "reads `.variables` at line 2",
    ),
}


@pytest.mark.parametrize("module,source,why", READERS.values(), ids=READERS.keys())
def test_a_file_reading_the_built_model_keeps_the_shape(tmp_path, module, source, why):
    kept, text = _kept(tmp_path, module, "reader.py", source)
    assert kept
    assert f"reader.py imports this module and {why}" in text


# What another file does that reads nothing of the built model.
NOT_READERS = {
    "calls_the_model": "import model_def\nm = model_def.create_model()\ny = m([[0.0] * 784])\n",
    "uses_another_function": (
        "import model_def\nimport tensorflow as tf\n"
        "model_def.export(tf.estimator.Estimator(model_def.export), '/tmp/e')\n"
    ),
    "other_objects": "import model_def\nimport argparse\n"
    "args = argparse.ArgumentParser().parse_args()\nprint(args.output)\n",
    "another_module_of_that_name": (
        "from sub import model_def\nprint(model_def.create_model().weights)\n"
    ),
    "module_names_of_tf": (
        "import model_def\nimport tensorflow as tf\nv = tf.trainable_variables()\n"
    ),
}


@pytest.mark.parametrize("source", NOT_READERS.values(), ids=NOT_READERS.keys())
def test_a_file_reading_nothing_built_leaves_the_fix(tmp_path, source):
    kept, text = _kept(tmp_path, "model_def.py", "reader.py", source)
    assert not kept, text
