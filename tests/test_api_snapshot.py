"""The public API matches tests/api_snapshot.txt, so a new public name is a visible diff.

After a deliberate API change: `python -m tests.api_snapshot --write`, then
review the diff of tests/api_snapshot.txt with the change.
"""

import difflib
import types

import api_snapshot


def test_the_public_api_matches_the_reviewed_snapshot():
    expected = api_snapshot.SNAPSHOT.read_text()
    actual = api_snapshot.render()
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), "snapshot", "now"
        )
    )
    assert not diff, (
        "The public API changed. If that is intended, run "
        "`python -m tests.api_snapshot --write` and commit the reviewed diff:\n" + diff
    )


def _module(name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def _lines(module: types.ModuleType) -> list[str]:
    return api_snapshot._walk(module, set())


def test_a_new_exported_name_and_a_changed_signature_show():
    def resolve(num_gpus=None):
        """A public function."""

    def resolve_two(num_gpus=None, devices=None):
        """The same function with one more parameter."""

    before = _lines(
        _module("estimator_multigpu.x", __all__=["resolve"], resolve=resolve)
    )
    after = _lines(
        _module(
            "estimator_multigpu.x",
            __all__=["resolve", "LIMIT"],
            resolve=resolve_two,
            LIMIT=64,
        )
    )
    assert "estimator_multigpu.x.resolve(num_gpus=None)" in before
    assert set(after) - set(before) == {
        "estimator_multigpu.x.LIMIT: int = 64",
        "estimator_multigpu.x.resolve(num_gpus=None, devices=None)",
    }


def test_without_all_public_names_count_but_imports_do_not():
    import collections.abc
    import os

    module = _module(
        "estimator_multigpu.y",
        os=os,
        Sequence=collections.abc.Sequence,
        _hidden=1,
        visible=2,
    )
    assert _lines(module)[2:] == ["estimator_multigpu.y.visible: int = 2"]


def test_exported_modules_of_ours_are_walked():
    child = _module("estimator_multigpu.y.z", __all__=["N"], N=1)
    parent = _module("estimator_multigpu.y", __all__=["z"], z=child)
    lines = _lines(parent)
    assert "estimator_multigpu.y.z: module estimator_multigpu.y.z" in lines
    assert "estimator_multigpu.y.z.N: int = 1" in lines


def test_an_enum_lists_its_values_not_a_python_version_signature():
    import enum

    class Stage(str, enum.Enum):
        RECORDS = "records"
        PARSED = "parsed"

    Stage.__module__ = "estimator_multigpu.y"
    lines = _lines(_module("estimator_multigpu.y", __all__=["Stage"], Stage=Stage))
    assert lines[2:] == [
        "estimator_multigpu.y.Stage: enum",
        "    .RECORDS = 'records'",
        "    .PARSED = 'parsed'",
    ]
