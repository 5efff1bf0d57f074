"""Every function of the package keeps a cyclomatic complexity of at most 15 (radon)."""

import pathlib
import textwrap

import pytest

radon_complexity = pytest.importorskip("radon.complexity")
radon_visitors = pytest.importorskip("radon.visitors")

import estimator_multigpu  # noqa: E402

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent
LIMIT = 15


def _functions(blocks, prefix=""):
    """(qualified name, block) for each function, method and closure in `blocks`."""
    for block in blocks:
        if isinstance(block, radon_visitors.Class):
            continue  # a class's complexity is its methods', which come apart
        name = f"{prefix}{block.fullname}"
        yield name, block
        yield from _functions(block.closures, f"{name}.")


def _too_complex(source: str, name: str) -> list[str]:
    """`file:line name (complexity)` for each function above LIMIT."""
    return [
        f"{name}:{b.lineno} {qualified} ({b.complexity})"
        for qualified, b in _functions(radon_complexity.cc_visit(source))
        if b.complexity > LIMIT
    ]


def _branches(count: int) -> str:
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(count))
    return f"def f(x):\n{body}    return -1\n"


def test_a_function_above_the_limit_is_reported():
    assert _too_complex(_branches(LIMIT), "bad.py") == ["bad.py:1 f (16)"]


def test_a_method_and_a_closure_above_the_limit_are_reported():
    inner = textwrap.indent(_branches(LIMIT), "    ")
    method = f"class C:\n{inner}"
    closure = f"def outer(x):\n{inner}    return f(x)\n"
    assert _too_complex(method, "m.py") == ["m.py:2 C.f (16)"]
    assert _too_complex(closure, "c.py") == ["c.py:2 outer.f (16)"]


def test_a_function_at_the_limit_is_not():
    assert _too_complex(_branches(LIMIT - 1), "ok.py") == []


def test_no_function_of_the_package_exceeds_the_limit():
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in _too_complex(path.read_text(), str(path.relative_to(PACKAGE)))
    ]
    assert not found, (
        f"split these into named helpers (cyclomatic complexity <= {LIMIT}, "
        "`radon cc -s -n C estimator_multigpu`):\n" + "\n".join(found)
    )
