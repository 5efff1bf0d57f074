"""The path says what is API: internal modules start with an underscore.

A module is public when it is a package's `__init__` or `__main__`, or one of
PUBLIC_MODULES (modules users import by path: drop-ins, CLIs). Everything else
lives in a module or package whose name starts with an underscore. Every
public module has its section in the API snapshot (tests/api_snapshot.txt),
so a new public module is a visible, reviewed diff.
"""

from __future__ import annotations

import pathlib

import pytest

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
TOP = "estimator_multigpu"
SNAPSHOT = pathlib.Path(__file__).with_name("api_snapshot.txt")

# Modules users import by path, each with why it is public.
PUBLIC_MODULES = {
    "devices.py": "emg.devices.resolve / simulate",
    "per_device.py": "emg.per_device.PerDevice",
    "legacy_seq2seq.py": "tf.contrib.legacy_seq2seq drop-ins (rnn_decoder, sequence_loss, ...)",
    "crf.py": "tf.contrib.crf drop-in (crf_log_likelihood, crf_decode, viterbi_decode, ...)",
    "scipy_misc.py": "SciPy 1.1's scipy.misc image drop-ins (imsave, imread, imresize, ...)",
    "gone.py": "emg.migrate_gone, the stand-in emg-migrate --fix writes (GoneError)",
    "cluster.py": "TF_CONFIG parsing (migration_guide.md, one TF_CONFIG per machine)",
    "data_service.py": "python -m estimator_multigpu.data_service",
    "estimator/export.py": "tf.estimator.export drop-ins",
    "estimator/inputs.py": "tf.estimator.inputs drop-ins (numpy_input_fn, pandas_input_fn)",
    "estimator/learn_runner.py": "tf.contrib.learn.learn_runner drop-in",
    "estimator/preprocessing.py": "tf.contrib.learn.preprocessing drop-in (VocabularyProcessor)",
    "estimator/v1.py": "tf.compat.v1.estimator's canned estimators (v1 defaults)",
    "inputs/lookup.py": "tf.contrib.lookup drop-ins (index_table_from_file, ...)",
    "tutorials/mnist.py": "TF 1.x tensorflow.examples.tutorials.mnist.mnist drop-in",
    "tutorials/input_data.py": "TF 1.x tutorials' input_data drop-in",
}
# Public packages the snapshot cannot walk here, with why.
UNWALKED = {
    "distribute/dali": "imports NVIDIA DALI, an optional extra (checked in the DALI leg)",
}


def _is_internal(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def is_public(relative: str) -> bool:
    """Whether a module path inside the package (`towers/_split.py`) is API."""
    parts = pathlib.PurePosixPath(relative).parts
    if any(_is_internal(p) for p in parts):
        return False
    return parts[-1] in ("__init__.py", "__main__.py") or relative in PUBLIC_MODULES


def unexplained_public(paths: list[str]) -> list[str]:
    """Module paths that are neither internal, nor entry points, nor listed."""
    return [
        p
        for p in paths
        if not any(_is_internal(part) for part in pathlib.PurePosixPath(p).parts)
        and pathlib.PurePosixPath(p).name not in ("__init__.py", "__main__.py")
        and p not in PUBLIC_MODULES
    ]


def _dotted(relative: str) -> str:
    parts = list(pathlib.PurePosixPath(relative).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([TOP, *parts])


MODULES = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def test_every_module_is_internal_or_listed_public():
    unlisted = unexplained_public(MODULES)
    assert not unlisted, (
        "name these internal modules with a leading underscore, or list them "
        f"in PUBLIC_MODULES with why users import them: {unlisted}"
    )


def test_listed_public_modules_exist():
    assert sorted(set(PUBLIC_MODULES) - set(MODULES)) == []


@pytest.mark.parametrize(
    "relative",
    [
        p
        for p in MODULES
        if is_public(p)
        and not p.endswith("__main__.py")
        and not any(p.startswith(u + "/") for u in UNWALKED)
    ],
)
def test_every_public_module_is_in_the_api_snapshot(relative):
    sections = {
        line[3:].strip()
        for line in SNAPSHOT.read_text().splitlines()
        if line.startswith("## ")
    }
    assert _dotted(relative) in sections, (
        f"{_dotted(relative)} is public but its package does not export it: "
        "export it from the parent package's __init__ (or make it internal), "
        "then: python -m tests.api_snapshot --write"
    )


BAD = ["towers/split.py", "inputs/queues/batchers.py", "newpkg/part.py"]
GOOD = [
    "towers/_split.py",
    "_tf_internals/data.py",
    "migrate/_queue_chains/chains.py",
    "devices.py",
    "inputs/queues/__init__.py",
    "diagnose/__main__.py",
]


@pytest.mark.parametrize("path", BAD)
def test_known_bad_paths_are_reported(path):
    assert unexplained_public([path]) == [path]


@pytest.mark.parametrize("path", GOOD)
def test_known_good_paths_are_accepted(path):
    assert unexplained_public([path]) == []
