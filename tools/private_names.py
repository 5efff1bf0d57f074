"""Writes estimator_multigpu/migrate/_private_names.py: each tensorflow.python symbol
TF 1.15 exported under a public name, that name on TF 2.21, and whether the
private path is still there.

Usage: python tools/private_names.py [TF115_ROOT]

Run it in the TF 2.21 environment (tf-keras installed). The public names
are read from TF 1.15's `tf_export` / `keras_export` / `estimator_export`
decorators (tools/tf115_exports.py); each is looked up on TF 2.21, the
TF 2 name first, then its `tf.compat.v1` one.
"""

from __future__ import annotations

import importlib
import pathlib
import pprint
import subprocess
import sys

import contrib_surface
import tf115_exports

OUT = contrib_surface.REPO / "estimator_multigpu" / "migrate" / "_private_names.py"

_HEADER = '''"""tensorflow.python symbols TF 1.15 exported publicly: their public name on TF 2.21."""

# Written by tools/private_names.py from TF 1.15's tf_export decorators,
# each name looked up on TF 2.21; run it again rather than editing this file.

# private module (spelled from tf.) -> {{name: its public name on TF 2.21,
# or "" when TF 2.21 has none}}.
NAMES = {names}
# private module -> the names of NAMES that TF 2.21 no longer has there ("*": all).
GONE = {gone}
'''


def public_name(exported: tf115_exports.Public) -> str:
    """The first of `exported`'s names TF 2.21 still has, or ""."""
    names = [f"tf.{n}" for n in exported.v2] + [
        f"tf.compat.v1.{n}" for n in exported.v1
    ]
    for dotted in dict.fromkeys(names):
        if contrib_surface.live(dotted) is not None:
            return dotted
    return ""


def still_there(module: str, name: str) -> bool:
    """True if TF 2.21 still has `module.name` (a private path)."""
    try:
        return hasattr(importlib.import_module(module), name)
    except Exception:  # noqa: BLE001 - a private module may fail any way
        return False


def _with_reexports(root: pathlib.Path, public: dict) -> dict:
    """(`public`, each module's imports of an exported symbol defined elsewhere:
    `ops.register_tensor_conversion_function`)."""
    exports = tf115_exports.Exports(root)
    out = {m: dict(n) for m, n in public.items()}
    reexports: dict = {}
    for path in sorted((root / "python").rglob("*.py")):
        if path.name.endswith("_test.py"):
            continue
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(("tensorflow",) + parts)
        try:
            names = exports.of(module)
        except (SyntaxError, UnicodeDecodeError, RecursionError):
            continue
        for name, origin in names.items():
            found = public.get(origin.module, {}).get(origin.name)
            if found is not None and origin.module != module:
                reexports.setdefault(module, {}).setdefault(name, found)
    return out, reexports


def _rows(defined: dict, reexports: dict) -> dict:
    """module -> {name: (public name, still there)}: every defined symbol, and
    a re-export only where TF 2.21 no longer has it."""
    out: dict = {}
    for table, keep_present in ((defined, True), (reexports, False)):
        for module, names in table.items():
            spelled = "tf" + module[len("tensorflow") :]
            for name, exported in names.items():
                there = still_there(module, name)
                if keep_present or not there:  # a re-export only where it broke
                    row = (public_name(exported), there)
                    out.setdefault(spelled, {}).setdefault(name, row)
    return out


def main(argv: list[str]) -> int:
    root = pathlib.Path(argv[1] if len(argv) > 1 else "/tmp/tf115/tensorflow_core")
    out = _rows(*_with_reexports(root, tf115_exports.tf_exports(root)))
    names = {m: {n: r[0] for n, r in rows.items()} for m, rows in out.items()}
    gone = {
        m: tuple(sorted(n for n, r in rows.items() if not r[1]))
        for m, rows in out.items()
    }
    # "*": every name of the module (the module itself is gone, or all of it moved).
    gone = {m: ("*",) if len(g) == len(out[m]) else g for m, g in gone.items() if g}
    text = _HEADER.format(
        names=pprint.pformat(names, sort_dicts=True),
        gone=pprint.pformat(gone, sort_dicts=True),
    )
    OUT.write_text(text)
    subprocess.run(["ruff", "format", "--quiet", str(OUT)], check=True)
    print(f"{sum(len(v) for v in out.values())} names in {len(out)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
