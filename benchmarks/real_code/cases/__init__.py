"""The manifest: one module per code base, each defining `CASE` (a `Case`)."""

from __future__ import annotations

import importlib
import pkgutil

from benchmarks.real_code._case import Case


def all_cases() -> list[Case]:
    """Every case module's `CASE`, by name; a module without one is an error."""
    cases = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        case = getattr(module, "CASE", None)
        if not isinstance(case, Case):
            raise TypeError(
                f"benchmarks/real_code/cases/{info.name}.py defines no CASE."
            )
        if case.name != info.name:
            raise ValueError(
                f"cases/{info.name}.py: CASE.name is {case.name!r}; use the module's name."
            )
        cases.append(case)
    return cases
