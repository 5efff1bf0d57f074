"""No module reads another module's underscore names (ast).

A module of the package (or of the CIFAR reference) may not import or read an
`_name` that another module defines: `from x import _f`, `x._f` after `import
x` / `from . import x` / `import estimator_multigpu.y.x as x`, or
`getattr(x, "_f")`. Shared helpers get a plain name in their module (not
exported by any `__init__`), so what crosses a module boundary is visible.
The one exception is a private module (`queues/_common.py`): the modules of
its own package may import it. Known-bad and known-good samples at the end
prove that the check can fail.
"""

import ast
import pathlib

import pytest

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
ROOT = PACKAGE.parent
TOP = "estimator_multigpu"
CIFAR = "cifar10"
Q = f"{TOP}.inputs.queues"
M = f"{TOP}.migrate"

# {(importing module, defining module): why}. Each entry is a module pair
# that still reads the other's underscore names, with what removes it.
ALLOWED: dict[tuple[str, str], str] = {}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> tuple[dict[str, ast.Module], set[str]]:
    """Every module's tree by name, and the names that are packages."""
    paths = sorted(PACKAGE.rglob("*.py")) + sorted((ROOT / CIFAR).rglob("*.py"))
    trees = {_module_name(p): ast.parse(p.read_text(), str(p)) for p in paths}
    return trees, {_module_name(p) for p in paths if p.name == "__init__.py"}


SOURCES, PACKAGES = _sources()


def _is_underscore(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _ours(name: str) -> bool:
    return name.split(".")[0] in (TOP, CIFAR)


def _base(node: ast.ImportFrom, module: str, packages: set[str]) -> str:
    """The absolute module a `from` import reads from (relative ones resolved)."""
    if not node.level:
        return node.module or ""
    package = module if module in packages else module.rpartition(".")[0]
    parts = package.split(".")
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private_module_allowed(importer: str, private: str, packages: set[str]) -> bool:
    """An underscore module is internal to the distribution: any module of
    ours may import it (an underscore *name* stays private to its module)."""
    return _ours(importer)


def _bindings(module: str, tree: ast.Module, packages: set[str], modules: set[str]):
    """`{local name: module of ours it is bound to}` and the `from` imports' hits."""
    bound: dict[str, str] = {}
    hits: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _ours(a.name):
                    bound[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom):
            base = _base(node, module, packages)
            if not _ours(base):
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in modules:
                    bound[a.asname or a.name] = full
                    if _is_underscore(a.name) and not _private_module_allowed(
                        module, full, packages
                    ):
                        hits.append((node.lineno, base, a.name))
                elif _is_underscore(a.name) and base != module:
                    hits.append((node.lineno, base, a.name))
    return bound, hits


def _resolve(node: ast.AST, bound: dict[str, str], context) -> str | None:
    """The module of ours an expression names (`x`, `emg.estimator._evaluate`).

    `context` is `(modules, {module: its bindings})`: `a.b` is a module when
    `a.b` is one, or when module `a` imported a module as `b`.
    """
    modules, bound_in = context
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        parent = _resolve(node.value, bound, context)
        if not parent:
            return None
        full = f"{parent}.{node.attr}"
        return full if full in modules else bound_in.get(parent, {}).get(node.attr)
    return None


def _reads(tree: ast.Module, bound: dict[str, str], context):
    """`(line, module, name)` of `module._name` / `getattr(module, "_name")`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_underscore(node.attr):
            target, name = node.value, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_underscore(node.args[1].value)
        ):
            target, name = node.args[0], node.args[1].value
        else:
            continue
        owner = _resolve(target, bound, context)
        if owner:
            yield node.lineno, owner, name


def sibling_private(
    sources: dict[str, ast.Module], packages: set[str], modules: set[str]
) -> list[tuple[str, str, str]]:
    """`(importing module, defining module, "line: name")` of each crossing."""
    found = []
    scanned = {m: _bindings(m, tree, packages, modules) for m, tree in sources.items()}
    context = (modules, {m: bound for m, (bound, _) in scanned.items()})
    for module, tree in sources.items():
        bound, hits = scanned[module]
        for line, owner, name in hits + list(_reads(tree, bound, context)):
            full = f"{owner}.{name}"
            if owner == module:
                continue
            if full in modules and _private_module_allowed(module, full, packages):
                continue
            found.append((module, owner, f"{line}: {name}"))
    return sorted(set(found))


MODULES = set(SOURCES)


def test_no_module_reads_another_modules_underscore_names():
    found = [
        f"{module}:{where} (defined in {owner})"
        for module, owner, where in sibling_private(SOURCES, PACKAGES, MODULES)
        if (module, owner) not in ALLOWED
    ]
    assert not found, "give these a plain (package-internal) name: " + str(found)


def test_allowed_pairs_still_exist():
    present = {(m, o) for m, o, _ in sibling_private(SOURCES, PACKAGES, MODULES)}
    stale = {pair for pair in ALLOWED if pair[0] in MODULES} - present
    assert stale == set(), "remove the entries that were fixed"


E = f"{TOP}.estimator"
SAMPLE_MODULES = {
    f"{E}",
    f"{E}.evaluate",
    f"{E}.experimental",
    f"{E}.experimental.in_memory",
    f"{TOP}.inputs",
    f"{TOP}.inputs.queues",
    f"{TOP}.inputs.queues._common",
    f"{TOP}.inputs.queues.batchers",
    f"{TOP}.towers",
    f"{TOP}.towers.build",
}
SAMPLE_PACKAGES = {E, f"{E}.experimental", f"{TOP}.inputs", f"{TOP}.inputs.queues"}
IN_MEMORY = f"{E}.experimental.in_memory"
BAD = {
    "from-import of a function": (
        IN_MEMORY,
        "from estimator_multigpu.estimator.evaluate import _build\n",
    ),
    "relative from-import": (IN_MEMORY, "from ..evaluate import _build\n"),
    "module read after from-import": (
        IN_MEMORY,
        "from estimator_multigpu.estimator import evaluate as e\ne._steps_hooks(1)\n",
    ),
    "module read after relative import": (
        IN_MEMORY,
        "from .. import evaluate\nevaluate._build()\n",
    ),
    "module read after import as": (
        IN_MEMORY,
        "import estimator_multigpu.estimator.evaluate as ev\nev._build()\n",
    ),
    "read through the package": (
        IN_MEMORY,
        "import estimator_multigpu\nestimator_multigpu.estimator.evaluate._build()\n",
    ),
    "getattr with a literal": (
        IN_MEMORY,
        "from .. import evaluate\ngetattr(evaluate, '_write_summaries')\n",
    ),
    "a package __init__'s private name": (
        IN_MEMORY,
        "from estimator_multigpu.estimator import _train\n",
    ),
    "through another module's import": (
        IN_MEMORY,
        "from estimator_multigpu.estimator import experimental as x\n"
        "x.evaluate._build()\n",
        {f"{E}.experimental": "from estimator_multigpu.estimator import evaluate\n"},
    ),
}
GOOD = {
    "plain names": (
        IN_MEMORY,
        "from .. import evaluate\nevaluate.build_eval_graph()\n"
        "from estimator_multigpu.estimator.evaluate import steps_hooks\n",
    ),
    "internal module from another subpackage": (
        f"{TOP}.towers.build",
        "from estimator_multigpu.inputs.queues import _common\n_common.helper()\n",
    ),
    "private module inside its package": (
        f"{TOP}.inputs.queues.batchers",
        "from estimator_multigpu.inputs.queues import _common\n_common.helper()\n",
    ),
    "own names": (IN_MEMORY, "def _f():\n    pass\n\n_f()\nself._x\n"),
    "dunders and foreign modules": (
        IN_MEMORY,
        "from .. import evaluate\nevaluate.__name__\nimport os\nos._exit\n",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_known_bad_samples_are_rejected(name):
    module, source, *others = BAD[name]
    sources = {module: ast.parse(source)}
    sources.update({m: ast.parse(s) for m, s in (others[0] if others else {}).items()})
    found = sibling_private(sources, SAMPLE_PACKAGES, SAMPLE_MODULES)
    assert len(found) == 1, found


@pytest.mark.parametrize("name", sorted(GOOD))
def test_known_good_samples_are_accepted(name):
    module, source = GOOD[name]
    sources = {module: ast.parse(source)}
    assert sibling_private(sources, SAMPLE_PACKAGES, SAMPLE_MODULES) == []


def aliased_private_modules(tree: ast.Module) -> list[str]:
    """`line: _module as alias` for each import of one of our underscore
    names (a private module) bound under another name, which hides in the
    code that the module is private (`towers.` where the file is `_towers`)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if not node.level and not _ours(node.module or ""):
            continue
        for a in node.names:
            if _is_underscore(a.name) and a.asname and a.asname != a.name:
                found.append(f"{node.lineno}: {a.name} as {a.asname}")
    return found


def test_private_modules_are_imported_under_their_own_names():
    found = {
        module: hits
        for module, tree in SOURCES.items()
        if (hits := aliased_private_modules(tree))
    }
    assert not found, "import these by their own names: " + str(found)


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            "from estimator_multigpu.towers import _split as split\n",
            ["1: _split as split"],
        ),
        ("from . import _train as train_lib\n", ["1: _train as train_lib"]),
        ("from estimator_multigpu.towers import _split\n", []),
        ("from estimator_multigpu.towers import minimize as m\n", []),
        ("from tensorflow.python.ops import _x as x\n", []),
    ],
    ids=["aliased", "relative-aliased", "own-name", "public-alias", "not-ours"],
)
def test_the_alias_check_finds_known_bad_samples(source, expected):
    assert aliased_private_modules(ast.parse(source)) == expected
