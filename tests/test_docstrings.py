"""Public functions and classes document themselves.

Every exported function or class of ours (the names tests/api_snapshot.txt
lists) has a docstring; one that takes three or more parameters documents
them (`Args:`, or `Attributes:` for a record type); and no docstring sends the
reader to a `tf.estimator` page, since those pages are gone with TF 2.16.
"""

from __future__ import annotations

import enum
import inspect
import re
import types

import pytest

from tests import api_snapshot

_POINTER = re.compile(r"\bsee `?tf\.estimator\.", re.I)


def _public_objects() -> dict[str, object]:
    """`{qualified name: object}` of every exported function and class of ours."""
    import estimator_multigpu

    found, seen, queue = {}, set(), [estimator_multigpu]
    while queue:
        module = queue.pop()
        if module.__name__ in seen:
            continue
        seen.add(module.__name__)
        for name in api_snapshot._exported(module):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                if obj.__name__.split(".")[0] == api_snapshot.TOP:
                    queue.append(obj)
            elif (inspect.isfunction(obj) or inspect.isclass(obj)) and (
                api_snapshot._ours(obj)
            ):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return found


def _doc(obj) -> str:
    """The docstring, with a class's constructor docstring."""
    text = inspect.getdoc(obj) or ""
    init = vars(obj).get("__init__") if inspect.isclass(obj) else None
    if init is not None:
        text += "\n" + (inspect.getdoc(init) or "")
    return text


def _parameters(obj) -> list[str]:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind not in kinds and p.name not in ("self", "cls")
    ]


def problems(objects: dict[str, object]) -> list[str]:
    """What is missing, one line per object."""
    out = []
    for name, obj in sorted(objects.items()):
        doc = _doc(obj)
        if inspect.isclass(obj) and issubclass(obj, enum.Enum):
            if not doc.strip():
                out.append(f"{name}: no docstring")
            continue
        if not doc.strip():
            out.append(f"{name}: no docstring")
        elif len(_parameters(obj)) >= 3 and not re.search(
            r"^(Args|Attributes):", doc, re.M
        ):
            out.append(f"{name}: {len(_parameters(obj))} parameters, no Args:")
        if _POINTER.search(doc):
            out.append(f"{name}: points at a tf.estimator page, which is gone")
    return out


def test_the_walk_finds_the_public_api():
    objects = _public_objects()
    assert len(objects) > 80
    assert "estimator_multigpu.towers._replicate.replicate_model_fn" in objects


def test_public_functions_and_classes_document_their_parameters():
    assert problems(_public_objects()) == []


def _sample_module():
    def documented(a, b, c):
        """Adds.

        Args:
          a: one.
          b: two.
          c: three.
        """

    def bare(a, b, c):
        """Adds."""

    def pointer(a):
        """See `tf.estimator.Estimator`."""

    class Undocumented:
        def __init__(self, a, b, c):
            pass

    for obj in (documented, bare, pointer, Undocumented):
        obj.__module__ = "estimator_multigpu.sample"
    return {
        "documented": documented,
        "bare": bare,
        "pointer": pointer,
        "U": Undocumented,
    }


@pytest.mark.parametrize(
    "name,expected",
    [
        ("documented", []),
        ("bare", ["bare: 3 parameters, no Args:"]),
        ("pointer", ["pointer: points at a tf.estimator page, which is gone"]),
        ("U", ["U: no docstring"]),
    ],
)
def test_the_checker_rejects_known_bad_samples(name, expected):
    assert problems({name: _sample_module()[name]}) == expected
