"""The public API as text: exported names and signatures (tests/api_snapshot.txt).

Walks `estimator_multigpu.__all__` and every module of ours it exports
(`emg.estimator`, `emg.estimator.export`, `emg.inputs.queues`, ...): each
module's `__all__`, or, without one, its public names that are neither
modules nor standard-library imports. Functions get `inspect.signature`;
classes defined by the package get their constructor and their public
members (an enum its values); other objects their type (and a short value).

After a deliberate API change, regenerate the file and review the diff:

    python -m tests.api_snapshot --write
"""

from __future__ import annotations

import argparse
import enum
import inspect
import os
import pathlib
import re
import sys
import types

SNAPSHOT = pathlib.Path(__file__).with_name("api_snapshot.txt")
TOP = "estimator_multigpu"
HEADER = (
    "# The public API of estimator_multigpu: every exported name and signature.\n"
    "# A change here is an API change. Regenerate after a deliberate one, and\n"
    "# review the diff:  python -m tests.api_snapshot --write\n"
)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _ours(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == TOP


def _exported(module: types.ModuleType) -> list[str]:
    """`__all__`, or the public names that are not modules or stdlib imports."""
    if hasattr(module, "__all__"):
        return sorted(module.__all__)
    names = []
    for name in dir(module):
        obj = getattr(module, name)
        origin = (getattr(obj, "__module__", None) or "").split(".")[0]
        if name.startswith("_") or isinstance(obj, types.ModuleType):
            continue
        if origin in sys.stdlib_module_names or origin == "__future__":
            continue
        names.append(name)
    return names


def _signature(obj) -> str:
    try:
        text = str(inspect.signature(obj))
    except (TypeError, ValueError):
        text = "(...)"
    return _ADDRESS.sub("", text)


def _value(obj) -> str:
    if isinstance(obj, (bool, int, float, str, bytes, type(None))):
        text = repr(obj)
        return f" = {text}" if len(text) <= 60 else ""
    if isinstance(obj, (tuple, frozenset)) and len(repr(obj)) <= 60:
        return f" = {obj!r}"
    return ""


def _members(cls: type) -> list[str]:
    """`  .name(signature)` for the public members our own classes define."""
    lines = []
    for name in sorted(vars(cls)):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k) and _ours(k)), None)
        if owner is not cls:
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, property):
            lines.append(f"    .{name}  (property)")
        elif isinstance(member, (staticmethod, classmethod)):
            lines.append(f"    .{name}{_signature(member.__func__)}")
        elif inspect.isfunction(member):
            lines.append(f"    .{name}{_signature(member)}")
        else:
            lines.append(f"    .{name}: {type(member).__name__}{_value(member)}")
    return lines


def _describe(qualified: str, obj) -> list[str]:
    """The snapshot lines of one exported name."""
    if inspect.isclass(obj):
        if not _ours(obj):
            origin = (obj.__module__ or "?").split(".")[0]
            return [
                f"{qualified}: class {obj.__qualname__} (re-exported from {origin})"
            ]
        if issubclass(obj, enum.Enum):
            values = [f"    .{m.name} = {m.value!r}" for m in obj]
            return [f"{qualified}: enum", *values]
        bases = ", ".join(b.__qualname__ for b in obj.__bases__ if b is not object)
        head = f"{qualified}{_signature(obj)}: class" + (f"({bases})" if bases else "")
        return [head, *_members(obj)]
    if callable(obj):
        return [f"{qualified}{_signature(obj)}"]
    return [f"{qualified}: {type(obj).__name__}{_value(obj)}"]


def _walk(module: types.ModuleType, seen: set[str]) -> list[str]:
    """The lines of `module` and of every module of ours it exports."""
    if module.__name__ in seen:
        return []
    seen.add(module.__name__)
    lines, children = ["", f"## {module.__name__}"], []
    for name in _exported(module):
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType):
            lines.append(f"{module.__name__}.{name}: module {obj.__name__}")
            if obj.__name__.split(".")[0] == TOP:
                children.append(obj)
        else:
            lines += _describe(f"{module.__name__}.{name}", obj)
    for child in children:
        lines += _walk(child, seen)
    return lines


def render() -> str:
    """The whole snapshot text."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import estimator_multigpu

    return HEADER + "\n".join(_walk(estimator_multigpu, set())) + "\n"


def main(argv: list[str] | None = None) -> int:
    """`--write` rewrites the snapshot; without it, exits 1 when it is stale."""
    parser = argparse.ArgumentParser(prog="python -m tests.api_snapshot")
    parser.add_argument("--write", action="store_true", help="rewrite the file")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        SNAPSHOT.write_text(text)
        print(f"wrote {SNAPSHOT} ({text.count(chr(10))} lines)")
        return 0
    current = SNAPSHOT.read_text() if SNAPSHOT.exists() else ""
    print("up to date" if current == text else f"stale: {SNAPSHOT}")
    return 0 if current == text else 1


if __name__ == "__main__":
    sys.exit(main())
