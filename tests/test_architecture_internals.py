"""Private TensorFlow access lives in estimator_multigpu/tf_internals/ only (ast).

Two checks over every module of the package: no `tensorflow.python`,
`tensorflow.core` or `tensorflow_estimator` import, and no underscore member
read of an object the project does not define. The second collects every
`obj._name` (and `getattr(obj, "_name")`), leaves out `self._`/`cls._`,
dunders and the public namedtuple API (`_replace`, `_fields`, ...), and
subtracts every `_name` the package defines itself (functions, classes,
assignments, attributes it sets, modules, keyword arguments); whatever
remains reaches into someone else's object.
"""

import ast
import pathlib
import sys

import pytest

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
DOOR = "tf_internals/"
PRIVATE_PACKAGES = ("tensorflow.python", "tensorflow.core", "tensorflow_estimator")
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}
# Modules allowed a private import outside the door: none.
ALLOWED_IMPORTS: dict[str, set[str]] = {}
_REFLECTION = {"getattr", "hasattr", "setattr", "delattr"}


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(), str(path))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


MODULES = _modules()


def _is_private_module(name: str | None) -> str | None:
    for prefix in PRIVATE_PACKAGES:
        if name and (name == prefix or name.startswith(prefix + ".")):
            return prefix
    return None


def private_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """`(line, module)` of every import from TensorFlow's private packages."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module]
        else:
            names = []
        found += [(node.lineno, n) for n in names if _is_private_module(n)]
    return found


def _is_underscore(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _set_names(node: ast.AST) -> list[str]:
    """The `_names` a node defines (def, class, assignment, import, keyword)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return [node.attr]
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[-1]]
    if isinstance(node, ast.keyword) and node.arg:
        return [node.arg]
    if isinstance(node, ast.arg):
        return [node.arg]
    return []


def defined_names(modules: dict[str, ast.Module]) -> set[str]:
    """Every underscore name the package defines, modules and dynamic fields too."""
    names = {pathlib.PurePath(p).stem for p in modules}
    for tree in modules.values():
        for node in ast.walk(tree):
            names.update(_set_names(node))
        if _sets_prefixed_fields(tree):
            names.update("_" + s for s in _string_constants(tree))
    return {n for n in names if _is_underscore(n)}


def _sets_prefixed_fields(tree: ast.Module) -> bool:
    """Whether a module sets attributes named `"_" + field` (field tables)."""
    for node in ast.walk(tree):
        if _reflection_name(node) == "setattr" and len(node.args) > 1:
            name = node.args[1]
            if isinstance(name, ast.BinOp) and _constant(name.left) == "_":
                return True
    return False


def _string_constants(tree: ast.Module) -> set[str]:
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def _constant(node: ast.AST):
    return node.value if isinstance(node, ast.Constant) else None


def _reflection_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in _REFLECTION:
            return node.func.id
    return None


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def underscore_reads(tree: ast.Module) -> list[tuple[int, str]]:
    """`(line, name)` of every `obj._name` / `getattr(obj, "_name")` on others."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not _is_self(node.value):
            found.append((node.lineno, node.attr))
        elif _reflection_name(node) and len(node.args) > 1:
            if not _is_self(node.args[0]) and isinstance(_constant(node.args[1]), str):
                found.append((node.lineno, node.args[1].value))
    return [(line, n) for line, n in found if _is_underscore(n)]


def foreign_reads(modules: dict[str, ast.Module]) -> list[str]:
    """`path:line: name` of underscore reads of names the package never defines."""
    ours = defined_names(modules) | NAMEDTUPLE_API
    return [
        f"{path}:{line}: {name}"
        for path, tree in modules.items()
        if not path.startswith(DOOR)
        for line, name in underscore_reads(tree)
        if name not in ours
    ]


@pytest.mark.parametrize("path", sorted(MODULES))
def test_only_tf_internals_imports_private_tensorflow_packages(path):
    if path.startswith(DOOR):
        return
    allowed = ALLOWED_IMPORTS.get(path, set())
    found = [
        f"{path}:{line}: {name}"
        for line, name in private_imports(MODULES[path])
        if _is_private_module(name) not in allowed
    ]
    assert not found, f"import these through estimator_multigpu.tf_internals: {found}"


def test_only_tf_internals_reads_underscore_members_of_tensorflow_objects():
    found = foreign_reads(MODULES)
    assert not found, f"move these into estimator_multigpu.tf_internals: {found}"


def _imported(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", [p for p in sorted(MODULES) if p.startswith(DOOR)])
def test_tf_internals_imports_only_tensorflow_and_the_standard_library(path):
    allowed = set(sys.stdlib_module_names) | {"tensorflow", "tensorflow_estimator"}
    found = {
        name
        for name in _imported(MODULES[path])
        if name.split(".")[0] not in allowed
        and not name.startswith("estimator_multigpu.tf_internals")
    }
    assert found == set()


SAMPLES = {
    "private read": ("op._add_control_input(x)\n", ["m.py:1: _add_control_input"]),
    "getattr read": ('getattr(g, "_collections", None)\n', ["m.py:1: _collections"]),
    "own name": ("def _f():\n    pass\n\nmod._f()\n", []),
    "own attribute": (
        "class A:\n    def f(self):\n        self._x = 1\n\nA()._x\n",
        [],
    ),
    "namedtuple": ("spec._replace(a=1)\n", []),
    "self": ("self._hidden\n", []),
    "dunder": ("fn.__name__\n", []),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_foreign_reads_finds_exactly_the_private_access(name):
    source, expected = SAMPLES[name]
    assert foreign_reads({"m.py": ast.parse(source)}) == expected


def test_private_imports_finds_every_form():
    source = (
        "import tensorflow.python.ops as ops\n"
        "from tensorflow.core.framework import summary_pb2\n"
        "from tensorflow_estimator.python import estimator\n"
        "import tensorflow as tf\n"
        "from tensorflow_datasets import core\n"
    )
    found = private_imports(ast.parse(source))
    assert [line for line, _ in found] == [1, 2, 3]
