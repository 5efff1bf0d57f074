"""Dependencies run one way, bottom to top (docs/architecture.md's order), read with ast.

Every import of every module counts: module level and inside functions,
absolute and relative (`from ..estimator import x`, `from . import y`),
`from estimator_multigpu import x`, `importlib.import_module` of a literal
name, and attribute access through the package after `import
estimator_multigpu as emg` (`emg.estimator.Estimator`, which the package's
lazy `__getattr__` imports). A module's unit is its top-level module or
subpackage of `estimator_multigpu` (`towers`, `model_fn`, ...); the CIFAR
reference (`cifar10`) is one unit on top. The order (the
layer table) and the imports between units (the import table) are read from
docs/architecture.md, so the page and the check cannot drift. Each checker
and the table reader are run on known-bad and known-good samples at the end
of this file.
"""

import ast
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
ROOT = PACKAGE.parent
TOP = "estimator_multigpu"
CIFAR = "cifar10"

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of each body row of the first table under `## heading`."""
    _, found, section = text.partition(f"\n## {heading}\n")
    if not found:
        raise ValueError(f"docs/architecture.md has no '## {heading}' section")
    lines = section.split("\n## ", 1)[0].splitlines()
    table = [line for line in lines if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in table[2:]]


def _names(cell: str) -> tuple[str, ...]:
    return tuple(re.findall(r"`([^`]+)`", cell))


def read_layers(text: str) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """(layers bottom to top, units apart) from the page's `## Layers` table.

    Rows are numbered 0, 1, ... in order; a row named `apart` holds the units
    outside the order. A unit named twice, or a row out of order, is an error.
    """
    layers, apart, seen = [], (), set()
    for name, units in table_rows(text, "Layers"):
        names = _names(units)
        if seen & set(names):
            raise ValueError(f"layer {name!r} repeats {sorted(seen & set(names))}")
        seen |= set(names)
        if name == "apart":
            apart = names
        elif name == str(len(layers)):
            layers.append(names)
        else:
            raise ValueError(f"layer {name!r} where layer {len(layers)} belongs")
    return tuple(layers), apart


def read_imports(text: str) -> dict[str, set[str]]:
    """{unit: the units it imports} from the page's `## What imports what` table."""
    return {
        _names(unit)[0]: set(_names(imports))
        for unit, imports in table_rows(text, "What imports what")
    }


# Bottom to top; a unit may import units of its own layer or below. APART:
# pure ast, never imports TensorFlow or another unit, and no unit imports it.
LAYERS, APART = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
# Upward imports that exist today, each with the change that removes it:
# {(importing module, imported unit): "issue part fixing it"}. They are left
# out of the order and cycle checks; an entry that no longer exists fails.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> tuple[dict[str, ast.Module], set[str]]:
    """Every module's tree by name, and the names that are packages."""
    paths = sorted(PACKAGE.rglob("*.py")) + sorted((ROOT / CIFAR).rglob("*.py"))
    trees = {_module_name(p): ast.parse(p.read_text(), str(p)) for p in paths}
    return trees, {_module_name(p) for p in paths if p.name == "__init__.py"}


SOURCES, PACKAGES = _sources()


def _unit(module: str) -> str | None:
    """`towers` for `estimator_multigpu.towers._build`; None for the package."""
    parts = module.split(".")
    if parts[0] == CIFAR:
        return CIFAR
    return parts[1] if parts[0] == TOP and len(parts) > 1 else None


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a `from` import names (`from ..x import y` resolved)."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imported(node: ast.AST, package: str = "") -> list[str]:
    """Full names an import node (or `import_module("...")` call) brings in.

    `package` is the importing module's package, for relative imports.
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        module = _absolute(node, package)
        return [module] + [f"{module}.{a.name}" for a in node.names] if module else []
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None))
        == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def _package_aliases(tree: ast.Module) -> set[str]:
    """Local names bound to the package itself (`import estimator_multigpu as emg`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name == TOP:
                    names.add(alias.asname)
                elif not alias.asname and alias.name.split(".")[0] == TOP:
                    names.add(TOP)
    return names


def _dotted(node: ast.AST) -> list[str]:
    """`["emg", "estimator", "Estimator"]` for `emg.estimator.Estimator`; [] otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else []


def _through_package(tree: ast.Module) -> list[str]:
    """`estimator_multigpu.x.y` for each `emg.x.y` read through a package alias."""
    aliases = _package_aliases(tree)
    found = []
    for node in ast.walk(tree):
        parts = _dotted(node) if isinstance(node, ast.Attribute) else []
        if parts and parts[0] in aliases:
            found.append(".".join([TOP, *parts[1:]]))
    return found


def imported_names(module: str, tree: ast.Module, is_package: bool) -> list[str]:
    """Every full name `module` imports or reads through the package."""
    package = module if is_package else module.rpartition(".")[0]
    names = [name for node in ast.walk(tree) for name in _imported(node, package)]
    return names + _through_package(tree)


def _lazy_names() -> dict[str, str]:
    """`{name: module}` of the package's lazy top-level names (`emg.TowerOptimizer`)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(getattr(t, "id", None) == "_NAMES" for t in targets):
            return ast.literal_eval(node.value)
    return {}


LAZY_NAMES = _lazy_names()


def _known_unit(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) > 1 and parts[0] == TOP and parts[1] in LAZY_NAMES:
        name = LAZY_NAMES[parts[1]]
    unit = _unit(name)
    if unit is None or unit == CIFAR:
        return unit
    exists = (PACKAGE / unit).is_dir() or (PACKAGE / f"{unit}.py").is_file()
    return unit if exists else None


def arrows_of(
    sources: dict[str, ast.Module], packages: set[str]
) -> set[tuple[str, str]]:
    """`(importing module, imported unit)` for imports between units."""
    arrows = set()
    for module, tree in sources.items():
        source = _unit(module)
        for name in imported_names(module, tree, module in packages):
            target = _known_unit(name)
            if target is not None and source is not None and target != source:
                arrows.add((module, target))
    return arrows


ARROWS = arrows_of(SOURCES, PACKAGES)


def unplaced(modules) -> tuple[set[str], set[str]]:
    """(units missing from LAYERS/APART, entries naming no unit)."""
    units = {_unit(module) for module in modules} - {None}
    placed = set(LAYER_OF) | set(APART)
    return units - placed, placed - units


def test_every_unit_has_a_place_in_the_order():
    missing, stale = unplaced(SOURCES)
    assert missing == set(), "add new units to the layer table of docs/architecture.md"
    assert stale == set(), (
        "docs/architecture.md's layer table names a unit that no longer exists"
    )


def test_a_new_unit_is_reported_unplaced():
    missing, _ = unplaced([*SOURCES, f"{TOP}.newunit", f"{TOP}.newpkg.part"])
    assert missing == {"newunit", "newpkg"}


def layer_of(layers) -> dict[str, int]:
    """{unit: its layer's index} for layers listed bottom to top."""
    return {unit: index for index, layer in enumerate(layers) for unit in layer}


def upward_imports(arrows: set[tuple[str, str]], layers=None) -> set[tuple[str, str]]:
    """The arrows that point from a unit to a unit of a higher layer.

    `layers`: bottom to top; None: the page's (LAYERS).
    """
    index = LAYER_OF if layers is None else layer_of(layers)
    return {
        (module, target)
        for module, target in arrows
        if target in index
        and _unit(module) in index
        and index[target] > index[_unit(module)]
    }


LAYER_OF = layer_of(LAYERS)


def test_imports_run_one_way():
    assert upward_imports(ARROWS) - set(ALLOWED_UPWARD) == set()


def test_allowed_upward_imports_still_exist():
    stale = set(ALLOWED_UPWARD) - ARROWS
    assert stale == set(), "remove the entries that were fixed"


def _unit_graph(arrows: set[tuple[str, str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, target in arrows - set(ALLOWED_UPWARD):
        graph.setdefault(_unit(module), set()).add(target)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` (a path that returns to its start), or []."""
    done: set[str] = set()

    def visit(unit: str, path: list[str]) -> list[str]:
        if unit in path:
            return path[path.index(unit) :] + [unit]
        if unit in done:
            return []
        for target in sorted(graph.get(unit, ())):
            found = visit(target, path + [unit])
            if found:
                return found
        done.add(unit)
        return []

    for unit in sorted(graph):
        found = visit(unit, [])
        if found:
            return found
    return []


def test_no_cycle_between_units():
    assert _cycle(_unit_graph(ARROWS)) == []


def import_table_drift(
    table: dict[str, set[str]], arrows: set[tuple[str, str]]
) -> dict[str, tuple[set[str], set[str]]]:
    """{unit: (imports the table lacks, imports the code lacks)} where they differ."""
    code: dict[str, set[str]] = {}
    for module, target in arrows:
        code.setdefault(_unit(module), set()).add(target)
    return {
        unit: (
            code.get(unit, set()) - table.get(unit, set()),
            table.get(unit, set()) - code.get(unit, set()),
        )
        for unit in set(code) | set(table)
        if code.get(unit, set()) != table.get(unit, set())
    }


def test_the_import_table_is_the_code_s_import_graph():
    table = read_imports(ARCHITECTURE.read_text(encoding="utf-8"))
    assert import_table_drift(table, ARROWS) == {}, (
        "make docs/architecture.md's 'What imports what' table say what the code "
        "imports: {unit: (imports to add, imports to remove)}"
    )


def towers_to_inputs(arrows: set[tuple[str, str]]) -> set[str]:
    return {m for m, t in arrows if _unit(m) == "towers" and t == "inputs"}


def test_towers_never_import_inputs():
    assert towers_to_inputs(ARROWS) == set()


def test_towers_to_inputs_sample():
    sources = {
        f"{TOP}.towers.a": ast.parse("from ..inputs import records\n"),
        f"{TOP}.towers.b": ast.parse("import estimator_multigpu as e\ne.inputs.x\n"),
        f"{TOP}.towers.c": ast.parse("from .. import per_device\n"),
    }
    assert towers_to_inputs(arrows_of(sources, set())) == {
        f"{TOP}.towers.a",
        f"{TOP}.towers.b",
    }


def migrate_violations(
    sources: dict[str, ast.Module], arrows: set[tuple[str, str]]
) -> tuple[set, set, set]:
    """(imports out of migrate, imports of migrate, migrate modules importing TF)."""
    outward = {(m, t) for m, t in arrows if _unit(m) == "migrate"}
    inward = {(m, t) for m, t in arrows if t == "migrate"}
    tensorflow = {
        module
        for module, tree in sources.items()
        if _unit(module) == "migrate"
        for node in ast.walk(tree)
        for name in _imported(node)
        if name.split(".")[0] == "tensorflow"
    }
    return outward, inward, tensorflow


def test_migrate_stands_apart():
    assert migrate_violations(SOURCES, ARROWS) == (set(), set(), set())


def _loaded_after(statement: str) -> list[str]:
    """The package modules a fresh interpreter holds after `statement`."""
    code = textwrap.dedent(f"""
        import sys
        {statement}
        print(sorted(m for m in sys.modules if m.startswith("{TOP}")))
    """)
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
        timeout=300,
    )
    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_importing_towers_does_not_load_the_estimator():
    loaded = _loaded_after("import estimator_multigpu.towers")
    assert f"{TOP}.towers._replicate" in loaded
    assert [m for m in loaded if m.startswith(f"{TOP}.estimator")] == []


# Known-bad and known-good samples: (module, is_package, source) -> the arrows
# the import reader must find. A reader that misses a form fails here.
T = TOP
IMPORT_SAMPLES = {
    "relative from parent": (
        f"{T}.towers.x",
        False,
        "from ..estimator import runner\n",
        {(f"{T}.towers.x", "estimator")},
    ),
    "relative module import": (
        f"{T}.towers.x",
        False,
        "from .. import estimator\n",
        {(f"{T}.towers.x", "estimator")},
    ),
    "relative from a package's __init__": (
        f"{T}.towers",
        True,
        "from ..estimator import runner\n",
        {(f"{T}.towers", "estimator")},
    ),
    "through the package alias": (
        f"{T}.towers.x",
        False,
        "import estimator_multigpu as emg\n\ndef f():\n    return emg.estimator.Estimator\n",
        {(f"{T}.towers.x", "estimator")},
    ),
    "through the package name": (
        f"{T}.towers.x",
        False,
        "import estimator_multigpu.devices\n\nestimator_multigpu.estimator.train\n",
        {(f"{T}.towers.x", "estimator"), (f"{T}.towers.x", "devices")},
    ),
    "import_module literal": (
        f"{T}.towers.x",
        False,
        "import importlib\n\nimportlib.import_module('estimator_multigpu.estimator')\n",
        {(f"{T}.towers.x", "estimator")},
    ),
    "absolute from": (
        f"{T}.towers.x",
        False,
        "from estimator_multigpu.estimator import runner\n",
        {(f"{T}.towers.x", "estimator")},
    ),
    "a lazy top-level name": (
        f"{T}.inputs.x",
        False,
        "import estimator_multigpu as emg\n\nemg.TowerOptimizer\n"
        "from estimator_multigpu import PerDevice\n",
        {(f"{T}.inputs.x", "towers"), (f"{T}.inputs.x", "per_device")},
    ),
    "same unit, relative: no arrow": (
        f"{T}.towers.x",
        False,
        "from . import split\nfrom .split import f\n",
        set(),
    ),
    "downward through the alias": (
        f"{T}.towers.x",
        False,
        "import estimator_multigpu as emg\n\nemg.devices.resolve()\n",
        {(f"{T}.towers.x", "devices")},
    ),
    "an unrelated name called emg": (
        f"{T}.towers.x",
        False,
        "import numpy as emg\n\nemg.estimator\n",
        set(),
    ),
}


@pytest.mark.parametrize("name", sorted(IMPORT_SAMPLES))
def test_import_reader_samples(name):
    module, is_package, source, expected = IMPORT_SAMPLES[name]
    packages = {module} if is_package else set()
    assert arrows_of({module: ast.parse(source)}, packages) == expected


def test_upward_check_rejects_a_relative_and_an_aliased_upward_import():
    sources = {
        f"{T}.towers.a": ast.parse("from ..estimator import runner\n"),
        f"{T}.inputs.b": ast.parse("import estimator_multigpu as e\ne.towers.split\n"),
        f"{T}.estimator.c": ast.parse("from ..towers import split\n"),
    }
    assert upward_imports(arrows_of(sources, set())) == {
        (f"{T}.towers.a", "estimator"),
        (f"{T}.inputs.b", "towers"),
    }


def test_cycle_check_finds_a_cycle_made_of_relative_imports():
    sources = {
        f"{T}.devices": ast.parse("from .per_device import PerDevice\n"),
        f"{T}.per_device": ast.parse("from . import devices\n"),
    }
    cycle = _cycle(_unit_graph(arrows_of(sources, set())))
    assert sorted(set(cycle)) == ["devices", "per_device"]


def test_migrate_check_rejects_tensorflow_and_relative_imports_of_others():
    sources = {
        f"{T}.migrate.a": ast.parse("import tensorflow as tf\nfrom .. import towers\n"),
        f"{T}.towers.b": ast.parse(
            "import estimator_multigpu as emg\nemg.migrate.scan\n"
        ),
        f"{T}.migrate.c": ast.parse("from . import scan\nimport ast\n"),
    }
    arrows = arrows_of(sources, set())
    assert migrate_violations(sources, arrows) == (
        {(f"{T}.migrate.a", "towers")},
        {(f"{T}.towers.b", "migrate")},
        {f"{T}.migrate.a"},
    )


PAGE = """# Architecture

## Layers

| layer | units |
|---|---|
{rows}
## What imports what

| unit | imports |
|---|---|
| `towers` | `per_device`, `devices` |
| `inputs` | `per_device` |

## Next

| 7 | `x` |
"""
GOOD_ROWS = "| 0 | `devices`, `per_device` |\n| 1 | `towers` |\n| apart | `migrate` |\n"


def test_layer_reader_reads_the_order_and_what_stands_apart():
    layers, apart = read_layers(PAGE.format(rows=GOOD_ROWS))
    assert layers == (("devices", "per_device"), ("towers",))
    assert apart == ("migrate",)


@pytest.mark.parametrize(
    "rows, message",
    [
        pytest.param("| 0 | `a` |\n| 2 | `b` |\n", "layer '2' where layer 1", id="gap"),
        pytest.param("| 1 | `a` |\n", "layer '1' where layer 0", id="no-base"),
        pytest.param(
            "| 0 | `a` |\n| 1 | `b`, `a` |\n", "repeats \\['a'\\]", id="twice"
        ),
    ],
)
def test_layer_reader_rejects_a_bad_table(rows, message):
    with pytest.raises(ValueError, match=message):
        read_layers(PAGE.format(rows=rows))


def test_layer_reader_needs_the_section():
    with pytest.raises(ValueError, match="no '## Layers' section"):
        read_layers("# Architecture\n")


def test_a_layer_moved_in_the_page_moves_the_upward_check():
    """With `towers` below `devices` on the page, towers -> devices is upward."""
    sources = {f"{T}.towers.a": ast.parse("from .. import devices\n")}
    arrows = arrows_of(sources, set())
    assert upward_imports(arrows) == set()
    layers, _ = read_layers(PAGE.format(rows="| 0 | `towers` |\n| 1 | `devices` |\n"))
    assert upward_imports(arrows, layers) == {(f"{T}.towers.a", "devices")}


def test_import_table_drift_names_what_to_add_and_remove():
    table = read_imports(PAGE.format(rows=GOOD_ROWS))
    assert table == {"towers": {"per_device", "devices"}, "inputs": {"per_device"}}
    sources = {
        f"{T}.towers.a": ast.parse("from .. import per_device, estimator\n"),
        f"{T}.inputs.b": ast.parse("from .. import per_device\n"),
    }
    assert import_table_drift(table, arrows_of(sources, set())) == {
        "towers": ({"estimator"}, {"devices"})
    }


def _private_part(name: str, unit: str) -> bool:
    """Whether `name` reaches inside `unit`: a component after it starts with `_`.

    `estimator_multigpu.towers._losses` (or a name read from it) is inside
    `towers`; `estimator_multigpu._model_fn` is a unit of its own, not inside.
    """
    parts = name.split(".")
    start = 1 if parts[0] == CIFAR else 2
    return any(part.startswith("_") for part in parts[start:])


def private_reaches(
    sources: dict[str, ast.Module], packages: set[str]
) -> set[tuple[str, str]]:
    """`(importing module, imported name)` where a unit imports another's internals.

    A unit speaks to another through that unit's API: its package `__init__`
    and its public modules. Its underscore modules may change in any release,
    so only the unit itself imports them.
    """
    reaches = set()
    for module, tree in sources.items():
        source = _unit(module)
        for name in imported_names(module, tree, module in packages):
            target = _known_unit(name)
            if target is None or source is None or target == source:
                continue
            if _private_part(name, target):
                reaches.add((module, name))
    return reaches


def test_no_unit_imports_another_units_internal_module():
    assert private_reaches(SOURCES, PACKAGES) == set(), (
        "import the other unit's API (its package or a public module), or move "
        "what both need into a base unit (docs/architecture.md, 'Layers')"
    )


PRIVATE_REACH_SAMPLES = {
    "from a package, its private module": (
        f"{T}.estimator.x",
        "from estimator_multigpu.towers import _losses as towers_losses\n",
        {(f"{T}.estimator.x", f"{T}.towers._losses")},
    ),
    "a name from a private module": (
        f"{T}.distribute.x",
        "from estimator_multigpu.inputs._context import InputContext\n",
        {
            (f"{T}.distribute.x", f"{T}.inputs._context"),
            (f"{T}.distribute.x", f"{T}.inputs._context.InputContext"),
        },
    ),
    "relative, into a sibling unit": (
        f"{T}.estimator.x",
        "from ..towers._split import split\n",
        {
            (f"{T}.estimator.x", f"{T}.towers._split"),
            (f"{T}.estimator.x", f"{T}.towers._split.split"),
        },
    ),
    "through the package alias": (
        f"{T}.estimator.x",
        "import estimator_multigpu as emg\n\nemg.towers._losses.check\n",
        {
            (f"{T}.estimator.x", f"{T}.towers._losses"),
            (f"{T}.estimator.x", f"{T}.towers._losses.check"),
        },
    ),
    "a unit's API: allowed": (
        f"{T}.distribute.x",
        "from estimator_multigpu.inputs import InputContext\n"
        "from estimator_multigpu import _model_fn as model_fn_lib\n"
        "from estimator_multigpu.estimator import export\n",
        set(),
    ),
    "its own internals: allowed": (
        f"{T}.towers.x",
        "from estimator_multigpu.towers import _losses\nfrom . import _split\n",
        set(),
    ),
}


@pytest.mark.parametrize("name", sorted(PRIVATE_REACH_SAMPLES))
def test_private_reach_samples(name):
    module, source, expected = PRIVATE_REACH_SAMPLES[name]
    assert private_reaches({module: ast.parse(source)}, set()) == expected
