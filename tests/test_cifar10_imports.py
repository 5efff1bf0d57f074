"""The CIFAR reference names the library subpackages it uses, so its dependencies read from its imports."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CIFAR10 = ROOT / "cifar10"
# The library's public modules and subpackages (not the package itself).
SUBPACKAGES = {
    p.stem
    for p in (ROOT / "estimator_multigpu").iterdir()
    if not p.name.startswith("_")
    and (p.suffix == ".py" or (p / "__init__.py").exists())
}


def _library_imports(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, what) for each import of estimator_multigpu in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name)
                for a in node.names
                if a.name.split(".")[0] == "estimator_multigpu"
            ]
        elif isinstance(node, ast.ImportFrom) and node.module == "estimator_multigpu":
            found += [(node.lineno, f"estimator_multigpu.{a.name}") for a in node.names]
    return found


@pytest.mark.parametrize("path", sorted(CIFAR10.glob("*.py")), ids=lambda p: p.name)
def test_cifar10_imports_library_subpackages_by_name(path):
    wrong = [
        f"{path.name}:{line}: {name}"
        for line, name in _library_imports(path)
        if name.removeprefix("estimator_multigpu.") not in SUBPACKAGES
    ]
    assert not wrong, "import the subpackage itself, not the package: " + str(wrong)


def test_the_library_modules_are_known():
    assert {"devices", "estimator", "inputs", "towers"} <= SUBPACKAGES
    assert "estimator_multigpu" not in SUBPACKAGES


def test_cifar10_uses_the_library():
    names = {n for p in CIFAR10.glob("*.py") for _, n in _library_imports(p)}
    assert {"estimator_multigpu.inputs", "estimator_multigpu.towers"} <= names
