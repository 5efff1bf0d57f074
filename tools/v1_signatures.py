"""Writes estimator_multigpu/migrate/_v1_signatures.py: the TF 2 functions whose
`tf.compat.v1` twin of the same name takes more positional arguments or
keywords TF 2's lacks (`tf.name_scope(name, default_name=...)`,
`tf.reduce_sum(x, keep_dims=True)`).

Usage: python tools/v1_signatures.py

Run it in the TF 2.21 environment. It walks `tf` and `tf.compat.v1` side by
side (three levels of modules; keras, estimator, compat, raw_ops, lite and
the experimental subtrees aside) and keeps each name whose two callables
differ: its row is TF 2's positional capacity (None when it takes *args) and
the keywords only TF 1.x's takes (none when TF 2's takes **kwargs).
"""

from __future__ import annotations

import inspect
import pathlib
import pprint
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
OUT = REPO / "estimator_multigpu" / "migrate" / "_v1_signatures.py"
_SKIP = ("compat", "keras", "estimator", "raw_ops", "lite", "__internal__", "types")
_SKIP += ("experimental",)
_POSITIONAL = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
)

_HEADER = '''"""TF 2 names whose tf.compat.v1 twin takes TF 1.x's other arguments."""

# Written by tools/v1_signatures.py from TensorFlow 2.21; run it again rather
# than editing this file. api -> (TF 2's positional capacity, None for
# *args; the keywords only TF 1.x's takes). A call under `import tensorflow
# as tf` that passes more positional arguments or one of those keywords is
# TF 1.x's call, which TF 2 refuses with a TypeError.
'''


def _row(new, old) -> tuple[int | None, tuple[str, ...]] | None:
    try:
        s2, s1 = inspect.signature(new), inspect.signature(old)
    except (TypeError, ValueError):
        return None
    kinds2 = [p.kind for p in s2.parameters.values()]
    p2 = [k for k in kinds2 if k in _POSITIONAL]
    p1 = [p for p in s1.parameters.values() if p.kind in _POSITIONAL]
    capacity = None if inspect.Parameter.VAR_POSITIONAL in kinds2 else len(p2)
    only = ()
    if inspect.Parameter.VAR_KEYWORD not in kinds2:
        only = tuple(sorted(set(s1.parameters) - set(s2.parameters)))
    if only or (capacity is not None and len(p1) > capacity):
        return capacity, only
    return None


def table(tf) -> dict[str, tuple[int | None, tuple[str, ...]]]:
    """The rows, read from the TensorFlow module `tf`."""
    out = {}

    def walk(new, old, prefix, depth):
        for name in sorted(dir(new)):
            if name.startswith("_"):
                continue
            try:
                a, b = getattr(new, name), getattr(old, name, None)
            except Exception:  # noqa: BLE001 (a lazy module that fails to load)
                continue
            if b is None:
                continue
            if inspect.ismodule(a):
                if depth < 2 and name not in _SKIP:
                    walk(a, b, f"{prefix}{name}.", depth + 1)
                continue
            row = _row(a, b) if callable(a) and a is not b else None
            if row is not None:
                out[f"{prefix}{name}"] = row

    walk(tf, tf.compat.v1, "tf.", 0)
    return out


def main() -> None:
    import tensorflow as tf

    rows = table(tf)
    OUT.write_text(
        _HEADER + "SIGNATURES = " + pprint.pformat(rows, width=88) + "\n",
        encoding="utf-8",
    )
    subprocess.run([sys.executable, "-m", "ruff", "format", str(OUT)], check=False)
    print(f"wrote {OUT} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
