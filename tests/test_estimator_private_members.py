"""Only `estimator/estimator.py` reads the `Estimator`'s private members (ast).

The train, evaluate, predict, export and metrics modules get what they need
of an Estimator passed to them (`model_fn_args.BoundModel`).
"""

import ast
import pathlib

import pytest

import estimator_multigpu
from estimator_multigpu.estimator import Estimator

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
OWNER = PACKAGE / "estimator" / "_estimator.py"


def _model_fn(features, labels, mode):
    del features, labels, mode


def _private_members() -> set[str]:
    """The Estimator's own underscore members: attributes and methods."""
    instance = vars(Estimator(_model_fn, model_dir="unused_model_dir"))
    methods = {name for name in vars(Estimator) if name.startswith("_")}
    members = set(instance) | methods
    return {name for name in members if not name.startswith("__")}


PRIVATE = _private_members()
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != OWNER)


def test_the_estimator_has_the_members_checked():
    assert {"_config", "_model_fn", "_call_model_fn"} <= PRIVATE


@pytest.mark.parametrize(
    "path", MODULES, ids=[p.relative_to(PACKAGE).as_posix() for p in MODULES]
)
def test_no_module_reads_the_estimators_private_members(path):
    assert _private_reads(path.read_text(), str(path)) == []


def _own(value: ast.expr) -> bool:
    """`self.x`, or `super().x` in a subclass extending the method it overrides."""
    if isinstance(value, ast.Name):
        return value.id == "self"
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    )


def _private_reads(source: str, path: str = "<sample>") -> list[str]:
    tree = ast.parse(source, path)
    return sorted(
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in PRIVATE
        and not _own(node.value)
    )


def test_a_read_through_another_object_is_caught_and_super_is_not():
    source = (
        "class Sub(Estimator):\n"
        "    def _call_model_fn(self, *args):\n"
        "        return super()._call_model_fn(*args)\n"
        "def f(estimator):\n"
        "    return estimator._call_model_fn(1)\n"
    )
    assert _private_reads(source) == ["line 5: ._call_model_fn"]
