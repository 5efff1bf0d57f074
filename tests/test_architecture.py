"""Dependencies run one way, bottom to top (DESIGN.md's order), read with ast.

Every import of every module counts: module level and inside functions,
`from estimator_multigpu import x`, and `importlib.import_module` of a
literal name. A module's unit is its top-level module or subpackage of
`estimator_multigpu` (`towers`, `model_fn`, ...); `cifar10` is one unit on top.
"""

import ast
import os
import pathlib
import subprocess
import sys
import textwrap

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
ROOT = PACKAGE.parent
TOP = "estimator_multigpu"

# Bottom to top; a unit may import units of its own layer or below. The base
# layer holds what every layer shares: TensorFlow internals, the batching and
# sharding rules, the spec types and model_fn call, devices and the
# per-device value, GPU runtime threading, a dataset's graph, TF_CONFIG
# parsing, and the tf.data service servers (a CLI that imports no other unit).
LAYERS = (
    (
        "tf_internals",
        "sharding",
        "model_fn",
        "gpu_runtime",
        "devices",
        "per_device",
        "dataset_graph",
        "cluster",
        "data_service",
    ),
    ("inputs",),
    ("towers",),
    ("estimator",),
    ("distribute", "diagnose", "launch"),
    ("cifar10",),
)
# Pure ast: never imports TensorFlow or another unit, and no unit imports it.
APART = ("migrate",)
# Upward imports that exist today, each with the change that removes it:
# {(importing module, imported unit): "issue part fixing it"}. They are left
# out of the order and cycle checks; an entry that no longer exists fails.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    # `emg.inputs.dali`: a lazy alias (module __getattr__) of the DALI adapter
    # that issue 13 part 3 moved to `distribute/dali`; it goes when the old
    # name is dropped.
    ("estimator_multigpu.inputs", "distribute"): "issue 13, part 3",
}

LAYER_OF = {unit: index for index, layer in enumerate(LAYERS) for unit in layer}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> dict[str, ast.Module]:
    paths = sorted(PACKAGE.rglob("*.py")) + sorted((ROOT / "cifar10").rglob("*.py"))
    return {_module_name(p): ast.parse(p.read_text(), str(p)) for p in paths}


SOURCES = _sources()


def _unit(module: str) -> str | None:
    """`towers` for `estimator_multigpu.towers.build`; None for the package."""
    parts = module.split(".")
    if parts[0] == "cifar10":
        return "cifar10"
    return parts[1] if parts[0] == TOP and len(parts) > 1 else None


def _imported(node: ast.AST) -> list[str]:
    """Full names an import node (or `import_module("...")` call) brings in."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module] + [f"{node.module}.{a.name}" for a in node.names]
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


def _known_unit(name: str) -> str | None:
    unit = _unit(name)
    if unit is None or unit == "cifar10":
        return unit
    exists = (PACKAGE / unit).is_dir() or (PACKAGE / f"{unit}.py").is_file()
    return unit if exists else None


def _arrows() -> set[tuple[str, str]]:
    """`(importing module, imported unit)` for imports between units."""
    arrows = set()
    for module, tree in SOURCES.items():
        source = _unit(module)
        for node in ast.walk(tree):
            for name in _imported(node):
                target = _known_unit(name)
                if target is not None and source is not None and target != source:
                    arrows.add((module, target))
    return arrows


ARROWS = _arrows()


def _units() -> set[str]:
    units = {_unit(module) for module in SOURCES}
    return units - {None}


def test_every_unit_has_a_place_in_the_order():
    placed = set(LAYER_OF) | set(APART)
    assert _units() - placed == set(), "add new modules to LAYERS (and DESIGN.md)"
    assert placed - _units() == set(), "LAYERS names a unit that no longer exists"


def test_imports_run_one_way():
    upward = {
        (module, target)
        for module, target in ARROWS
        if target in LAYER_OF
        and _unit(module) in LAYER_OF
        and LAYER_OF[target] > LAYER_OF[_unit(module)]
    }
    assert upward - set(ALLOWED_UPWARD) == set()


def test_allowed_upward_imports_still_exist():
    stale = set(ALLOWED_UPWARD) - ARROWS
    assert stale == set(), "remove the entries that were fixed"


def _unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, target in ARROWS - set(ALLOWED_UPWARD):
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
    assert _cycle(_unit_graph()) == []


def test_towers_never_import_inputs():
    assert {m for m, t in ARROWS if _unit(m) == "towers" and t == "inputs"} == set()


def test_migrate_stands_apart():
    outward = {(m, t) for m, t in ARROWS if _unit(m) == "migrate"}
    inward = {(m, t) for m, t in ARROWS if t == "migrate"}
    tensorflow = {
        module
        for module, tree in SOURCES.items()
        if _unit(module) == "migrate"
        for node in ast.walk(tree)
        for name in _imported(node)
        if name.split(".")[0] == "tensorflow"
    }
    assert (outward, inward, tensorflow) == (set(), set(), set())


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


def test_importing_towers_does_not_load_the_estimator():
    loaded = _loaded_after("import estimator_multigpu.towers")
    assert f"{TOP}.towers.replicate" in loaded
    assert [m for m in loaded if m.startswith(f"{TOP}.estimator")] == []
