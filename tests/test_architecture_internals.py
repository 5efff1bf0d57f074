"""Private TensorFlow access lives in estimator_multigpu/_tf_internals/ only (ast).

Two checks over every module of the package (and of the CIFAR reference,
cifar10) outside tf_internals/: no
`tensorflow.python`, `tensorflow.core` or `tensorflow_estimator` import, and
no underscore member access (`obj._name`, `getattr(obj, "_name")`, hasattr,
setattr, delattr) on an object that may be TensorFlow's. An access is allowed
only when

1. the object is known to be ours: `self`/`cls`; a name imported from the
   package (a module, class or function of ours, relative imports too); a
   class or function this module defines at top level; a parameter annotated
   with one of those (`def f(config: RunConfig)`); or
2. the name is an attribute the package itself defines on its classes (a
   method, a class attribute, an `x._name = ...` store, a `setattr` field
   table) AND TensorFlow/Keras never use that name as an attribute or method
   (read from their installed sources), so the object cannot be a TF object
   reached by that name.

Dunders and the namedtuple API (`_replace`, `_fields`, ...) are public. Every
checker here is run on known-bad samples it must reject and known-good ones
it must accept (the end of the file).
"""

import ast
import functools
import importlib.util
import pathlib
import re
import sys

import pytest

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
DOOR = "_tf_internals/"
TOP = "estimator_multigpu"
REFERENCE = "cifar10"
PRIVATE_PACKAGES = ("tensorflow.python", "tensorflow.core", "tensorflow_estimator")
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}
# Modules allowed a private import outside the door: none.
ALLOWED_IMPORTS: dict[str, set[str]] = {}
_REFLECTION = {"getattr", "hasattr", "setattr", "delattr"}


def _modules() -> dict[str, ast.Module]:
    """The package's modules by path inside it, and the CIFAR reference's."""
    reference = PACKAGE.parent / REFERENCE
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(), str(path))
        for path in sorted(PACKAGE.rglob("*.py"))
    } | {
        f"{REFERENCE}/{p.relative_to(reference).as_posix()}": ast.parse(p.read_text())
        for p in sorted(reference.rglob("*.py"))
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


def _class_attributes(tree: ast.Module) -> set[str]:
    """Names a module defines on classes: members, and attributes it stores."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                names.update(_member_names(member))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    if _sets_prefixed_fields(tree):
        names.update("_" + s for s in _string_constants(tree))
    return names


def _member_names(node: ast.AST) -> list[str]:
    """The names one statement of a class body defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def package_attributes(modules: dict[str, ast.Module]) -> set[str]:
    """Every underscore attribute the package defines on its own classes."""
    names = set().union(*(_class_attributes(tree) for tree in modules.values()))
    return {n for n in names if _is_underscore(n)}


_TF_ATTRIBUTE = re.compile(r"\.(_[A-Za-z]\w*)\b|^\s+def\s+(_[A-Za-z]\w*)", re.M)


@functools.lru_cache(maxsize=1)
def tensorflow_private_names() -> frozenset[str]:
    """Every `_name` TensorFlow/Keras read, set or define as a method (sources)."""
    names = set()
    for package in ("tensorflow", "keras", "tf_keras"):
        spec = importlib.util.find_spec(package)
        for root in (spec.submodule_search_locations or []) if spec else []:
            for path in pathlib.Path(root).rglob("*.py"):
                text = path.read_text(errors="ignore")
                names.update(a or b for a, b in _TF_ATTRIBUTE.findall(text))
    assert "_add_control_input" in names, "TensorFlow's sources were not found"
    return frozenset(names)


def _ours_at_top(tree: ast.Module) -> set[str]:
    """Names bound to the package's own objects: imports of ours, top-level defs."""
    names = {"self", "cls"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] in (TOP, REFERENCE)
        ):
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(
                a.asname or a.name.split(".")[0]
                for a in node.names
                if a.name.split(".")[0] in (TOP, REFERENCE)
            )
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
    return names


def _annotation_root(node: ast.AST | None) -> str | None:
    """`RunConfig` for `RunConfig`, `run_config.RunConfig` or `"RunConfig"`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split(".")[0].split("[")[0].strip() or None
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _ours_in(function: ast.AST, ours: set[str]) -> set[str]:
    """`ours` plus the parameters of `function` annotated with a class of ours."""
    arguments = function.args
    params = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    return ours | {a.arg for a in params if _annotation_root(a.annotation) in ours}


def _accesses(tree: ast.Module):
    """`(node, object, name)` of every underscore member access in `tree`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_underscore(node.attr):
            yield node, node.value, node.attr
        elif _reflection_name(node) and len(node.args) > 1:
            name = _constant(node.args[1])
            if isinstance(name, str) and _is_underscore(name):
                yield node, node.args[0], name


def _scopes(tree: ast.Module, ours: set[str]):
    """`(node, names of ours)` for the module and each function in it."""
    yield tree, ours
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node, _ours_in(node, ours)


def _known_ours(obj: ast.AST, ours: set[str], stems: set[str]) -> bool:
    """A name of ours, or a chain of our module names on one (`mod.sub_mod`)."""
    while isinstance(obj, ast.Attribute) and obj.attr in stems:
        obj = obj.value
    return isinstance(obj, ast.Name) and obj.id in ours


def underscore_reads(
    tree: ast.Module, allowed: set[str], stems: frozenset[str] = frozenset()
) -> list[tuple[int, str]]:
    """`(line, name)` of each access on an object not known to be ours.

    `allowed` names are never reported (ours and not TensorFlow's); `stems`
    are the package's module names. An access inside a function counts with
    that function's annotated parameters.
    """
    top = _ours_at_top(tree)
    ours_at: dict[int, set[str]] = {}
    for scope, ours in _scopes(tree, top):
        for node in ast.walk(scope):
            ours_at[id(node)] = ours
    return sorted(
        {
            (node.lineno, name)
            for node, obj, name in _accesses(tree)
            if name not in allowed and not _known_ours(obj, ours_at[id(node)], stems)
        }
    )


def foreign_reads(modules: dict[str, ast.Module]) -> list[str]:
    """`path:line: name` of underscore accesses outside tf_internals/ (see top)."""
    allowed = package_attributes(modules) - tensorflow_private_names()
    stems = frozenset(pathlib.PurePath(p).stem for p in modules) - {"__init__"}
    stems |= {stem.lstrip("_") for stem in stems}  # `import _x as x`
    return [
        f"{path}:{line}: {name}"
        for path, tree in modules.items()
        if not path.startswith(DOOR)
        for line, name in underscore_reads(tree, allowed | NAMEDTUPLE_API, stems)
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
    assert not found, f"import these through estimator_multigpu._tf_internals: {found}"


def test_only_tf_internals_reads_underscore_members_of_tensorflow_objects():
    found = foreign_reads(MODULES)
    assert not found, f"move these into estimator_multigpu._tf_internals: {found}"


def door_imports(tree: ast.Module) -> set[str]:
    """What a tf_internals module imports besides TensorFlow, stdlib and itself.

    A relative import counts as `tf_internals` itself at level 1 and as the
    package outside it at a higher level.
    """
    allowed = set(sys.stdlib_module_names) | {"tensorflow", "tensorflow_estimator"}
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            names.add(f"{TOP}._tf_internals.{node.module or ''}")
        elif isinstance(node, ast.ImportFrom) and node.level:
            names.add(f"{'.' * node.level}{node.module or ''}")
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module)
    return {
        name
        for name in names
        if name.split(".")[0] not in allowed
        and not name.startswith(f"{TOP}._tf_internals")
    }


@pytest.mark.parametrize("path", [p for p in sorted(MODULES) if p.startswith(DOOR)])
def test_tf_internals_imports_only_tensorflow_and_the_standard_library(path):
    assert door_imports(MODULES[path]) == set()


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from estimator_multigpu import devices\n", {"estimator_multigpu"}),
        ("from .. import devices\n", {".."}),
        ("import numpy\n", {"numpy"}),
        (
            "from estimator_multigpu.towers import build\n",
            {"estimator_multigpu.towers"},
        ),
        ("from . import graphs\nfrom .graphs import x\nimport os\n", set()),
        ("from tensorflow.python.ops import math_ops\n", set()),
        ("from estimator_multigpu._tf_internals import graphs\n", set()),
    ],
    ids=["package", "relative-up", "numpy", "towers", "own", "tensorflow", "door"],
)
def test_door_imports_samples(source, expected):
    assert door_imports(ast.parse(source)) == expected


SAMPLES = {
    # Known bad: TensorFlow's private members on objects of unknown origin.
    "dataset._inputs()": (
        "def f(dataset):\n    return dataset._inputs()\n",
        ["_inputs"],
    ),
    "op._add_control_input": ("op._add_control_input(x)\n", ["_add_control_input"]),
    "getattr _variant_tensor": (
        'def f(ds):\n    return getattr(ds, "_variant_tensor")\n',
        ["_variant_tensor"],
    ),
    "getattr _collections": ('getattr(g, "_collections", None)\n', ["_collections"]),
    "hasattr probe": ('hasattr(v, "_distribute_strategy")\n', ["_distribute_strategy"]),
    "setattr on a graph": ('setattr(g, "_finalized", False)\n', ["_finalized"]),
    "self's TF attribute": (
        "self._graph._unsafe_unfinalize()\n",
        ["_unsafe_unfinalize"],
    ),
    "a name we define at top level is not enough": (
        "def _inputs():\n    pass\n\ndataset._inputs()\n",
        ["_inputs"],
    ),
    "a method we define that TF also has": (
        "class A:\n    def _inputs(self):\n        pass\n\ndataset._inputs()\n",
        ["_inputs"],
    ),
    "unannotated parameter": (
        "class RunConfig:\n    pass\n\ndef f(config):\n    return config._devices\n",
        ["_devices"],
    ),
    "annotation of a foreign class": (
        "def f(g: tf.Graph):\n    return g._collections\n",
        ["_collections"],
    ),
    # Known good.
    "self and cls": ("self._hidden\ncls._table\n", []),
    "module of ours": (
        "from estimator_multigpu.estimator import evaluate\n\nevaluate._build\n",
        [],
    ),
    "relative import of ours": ("from . import run_config\n\nrun_config._x\n", []),
    "module of ours through a module of ours": (
        "from . import m\n\nm.m._x\n",
        [],
    ),
    "non-module attribute of a module of ours": (
        "from . import m\n\nm.graph._collections\n",
        ["_collections"],
    ),
    "class defined here": ("class A:\n    _KEYS = ()\n\nA._KEYS\n", []),
    "parameter annotated with our class": (
        "class RunConfig:\n    pass\n\n"
        "def f(config: RunConfig):\n    return config._devices\n",
        [],
    ),
    "string annotation": (
        "def f(config: 'RunConfig'):\n    return config._graph\n\n"
        "class RunConfig:\n    pass\n",
        [],
    ),
    "our attribute TF never uses": (
        "class A:\n    def __init__(self):\n        self._emg_towers = 1\n\n"
        "def f(a):\n    return a._emg_towers\n",
        [],
    ),
    "namedtuple": ("spec._replace(a=1)\n", []),
    "dunder": ("fn.__name__\n", []),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_foreign_reads_finds_exactly_the_private_access(name):
    source, expected = SAMPLES[name]
    found = foreign_reads({"m.py": ast.parse(source)})
    assert [entry.rsplit(": ", 1)[1] for entry in found] == expected


def test_tf_internals_may_read_private_members():
    assert foreign_reads({DOOR + "x.py": ast.parse("op._add_control_input(x)\n")}) == []


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


@pytest.mark.parametrize(
    "source, name",
    [
        ("def f(dataset):\n    return dataset._inputs()\n", "_inputs"),
        ("def f(op, x):\n    op._add_control_input(x)\n", "_add_control_input"),
        ('def f(ds):\n    return getattr(ds, "_variant_tensor")\n', "_variant_tensor"),
    ],
    ids=["_inputs", "_add_control_input", "_variant_tensor"],
)
def test_the_packages_own_names_do_not_exempt_tensorflow_private_access(source, name):
    """With every module of the package around it, a bad module is still caught."""
    found = foreign_reads({**MODULES, "estimator/bad.py": ast.parse(source)})
    assert [f for f in found if f.startswith("estimator/bad.py")] == [
        f"estimator/bad.py:2: {name}"
    ]
