"""Writes estimator_multigpu/migrate/_contrib_surface/: every public tf.contrib name of
TF 1.15 and its outcome on TF 2.x, one module per contrib module.

Usage: python tools/contrib_surface.py [TF115_ROOT]

TF115_ROOT is TF 1.15.0's wheel unpacked (`tensorflow_core/`, default
/tmp/tf115/tensorflow_core). Run it in the TF 2.21 environment with tf-slim
and tf-keras installed: each successor is looked up there and its arguments
compared with the TF 1.15 function's.

A name's outcome, in this order:
  1. the existing tables of emg-migrate (`_contrib_names.REPLACEMENTS`,
     `_slim_layers.NAMES`, `_rules.TABLE`, `_exact_calls`), which win;
  2. `contrib_fates.OVERRIDES`, written by hand;
  3. for a name TF 1.15 re-exported from core, its `tf_export` names;
     for one of contrib's own, the same module in tf_slim, then the same
     name in the TF 2.21 namespaces `contrib_fates.NAMESPACES` lists: the
     first that takes the same arguments (the TF 1.15 parameters, in order,
     then only parameters with defaults) is the exact successor;
  4. otherwise no successor, with why (a same-named one that takes other
     arguments, or none) and the module's advice (`contrib_fates.FATES`,
     after the contrib-sunset RFC, tensorflow/community
     rfcs/20180907-contrib-sunset.md).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import pprint
import subprocess
import sys

import contrib_fates
import tf115_exports

from estimator_multigpu.migrate import _contrib_surface

REPO = pathlib.Path(__file__).resolve().parents[1]
OUT = REPO / "estimator_multigpu" / "migrate" / "_contrib_surface"
CONTRIB = "tensorflow.contrib"


def contrib_modules(exports: tf115_exports.Exports) -> dict[str, str]:
    """contrib module name -> the dotted module `tf.contrib.<name>` is."""
    root = exports.file(CONTRIB).parent
    bound = exports.of(CONTRIB)
    out = {}
    for path in sorted(root.iterdir()):
        if (path / "__init__.py").is_file():
            origin = bound.get(path.name)
            module = origin.module if origin and origin.is_module else None
            out[path.name] = module or f"{CONTRIB}.{path.name}"
    return out


def public_names(exports, dotted: str) -> dict[str, tf115_exports.Origin]:
    """The names `tf.contrib.<module>` offers, without the imports it leaks."""
    names = exports.of(dotted)
    explicit = exports.explicit.get(dotted, set())
    out = {}
    for name, origin in sorted(names.items()):
        if not origin.module.startswith("tensorflow"):
            continue  # numpy, collections, six, ...
        if origin.is_module and not origin.module.startswith(CONTRIB):
            continue  # array_ops and the like, leaked by `import *`
        if dotted not in exports.listed and not (
            origin.module.startswith(CONTRIB) or name in explicit
        ):
            continue  # core ops leaked by a star import of a gen_* module
        out[name] = origin
    return out


def static_params(exports, origin, depth: int = 0) -> list[str] | None:
    """The TF 1.15 parameter names of the function or class `origin` names
    (a class without `__init__`: its first base's, followed across modules)."""
    path = exports.file(origin.module)
    if path is None or origin.is_module or depth > 5:
        return None
    for node in _parsed(path).body:
        if getattr(node, "name", None) != origin.name:
            continue
        if isinstance(node, ast.FunctionDef):
            return _arg_names(node.args, 0)
        if isinstance(node, ast.ClassDef):
            return _class_params(exports, origin, node, depth)
    return None


def _class_params(exports, origin, node: ast.ClassDef, depth: int):
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return _arg_names(item.args, 1)
    if not node.bases or not isinstance(node.bases[0], ast.Name | ast.Attribute):
        return None
    base = node.bases[0]
    if isinstance(base, ast.Name):
        found = exports.of(origin.module).get(base.id)
        found = found or tf115_exports.Origin(origin.module, base.id)
    else:
        owner = exports.of(origin.module).get(getattr(base.value, "id", ""))
        if owner is None or not owner.is_module:
            return None
        found = exports.origin(owner.module, base.attr)
    return static_params(exports, found, depth + 1)


_TREES: dict[pathlib.Path, ast.Module] = {}


def _parsed(path: pathlib.Path) -> ast.Module:
    if path not in _TREES:
        _TREES[path] = ast.parse(path.read_text(encoding="utf-8"))
    return _TREES[path]


def _arg_names(args: ast.arguments, skip: int) -> list[str] | None:
    """The parameter names after the first `skip`; None for `(*args, **kwargs)`
    (a wrapper whose real arguments are elsewhere)."""
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs][skip:]
    if not names and (args.vararg or args.kwarg):
        return None
    return names


# TF 2.16+ routes these to tf-keras only under TF_USE_LEGACY_KERAS=1.
_LEGACY = {
    "tf.compat.v1.layers.": "tf_keras.api._v1.keras.__internal__.legacy.layers.",
    "tf.compat.v1.nn.rnn_cell.": (
        "tf_keras.api._v1.keras.__internal__.legacy.rnn_cell."
    ),
}
LEGACY_NOTE = _contrib_surface.LEGACY_NOTE


def legacy(dotted: str) -> str | None:
    """tf-keras' spelling of a name TF 2.16+ serves only from tf-keras."""
    for prefix, keras in _LEGACY.items():
        if dotted.startswith(prefix):
            return keras + dotted[len(prefix) :]
    return None


def live(dotted: str):
    """The TF 2.21 object at `dotted` (`tf.`, `tf_slim.`, `tf_keras.`), or None."""
    parts = (legacy(dotted) or dotted).split(".")
    parts[0] = {"tf": "tensorflow"}.get(parts[0], parts[0])
    obj, end = None, len(parts)
    while obj is None and end > 0:
        try:
            obj = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            end -= 1
    for part in parts[end:]:
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - lazy loaders raise anything
            return None
    return obj


def live_params(obj) -> tuple[list[str], set[str]] | None:
    """(parameter names, those with a default) of a TF 2.21 callable."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    params = [p for p in sig.parameters.values() if p.kind not in kinds]
    defaults = {p.name for p in params if p.default is not inspect.Parameter.empty}
    return [p.name for p in params], defaults


def compare(old: list[str] | None, obj) -> str | None:
    """None when `obj` takes `old`'s arguments; else why not."""
    if inspect.ismodule(obj):
        return None
    if not callable(obj):
        return None  # a constant
    new = live_params(obj)
    if old is None or new is None:
        return "its arguments could not be compared with contrib's"
    names, defaults = new
    if names[: len(old)] == old and set(names[len(old) :]) <= defaults:
        return None
    return f"it takes ({', '.join(names)}), contrib's took ({', '.join(old)})"


def candidates(module: str, name: str, origin, public) -> list[str]:
    """The TF 2.x names to try for `tf.contrib.<module>.<name>`, best first."""
    out = []
    exported = public.get(origin.module, {}).get(origin.name)
    if exported is not None:
        out += [f"tf.{n}" for n in exported.v2]
        out += [f"tf.compat.v1.{n}" for n in exported.v1]
    slim = contrib_fates.slim_module(origin.module)
    if slim is not None:
        # Its shortest public spelling first: tf_slim.X, tf_slim.losses.X, ...
        parts = slim.split(".")
        out += [".".join(parts[:end] + [name]) for end in range(1, len(parts) + 1)]
    spaces = contrib_fates.NAMESPACES.get(module, ())
    if module not in contrib_fates.OWN_NAMES:
        spaces += ("", "compat.v1")
    for space in spaces:
        out.append(".".join(p for p in ("tf", space, name) if p))
    return list(dict.fromkeys(out))


def same_code(dotted: str, module: str, origin, public) -> bool:
    """True when `dotted` is the very TF 1.15 symbol under a name TF keeps
    stable (its tf.compat.v1 export) or tf_slim's copy of its file."""
    exported = public.get(origin.module, {}).get(origin.name)
    if exported is not None and dotted in [f"tf.compat.v1.{n}" for n in exported.v1]:
        return True
    slim = contrib_fates.slim_module(origin.module)
    return slim is not None and dotted.startswith("tf_slim.")


def outcome(module, name, origin, exports, public) -> tuple[str, str, str]:
    """(outcome, successor, note) of `tf.contrib.<module>.<name>`."""
    symbol = f"tf.contrib.{module}.{name}"
    known = contrib_fates.known(symbol)
    if known is not None and known[0] != "covered":
        return known
    if symbol in contrib_fates.OVERRIDES:
        return contrib_fates.OVERRIDES[symbol]
    if known is not None:
        # Another table's text for its whole module: the row's own outcome,
        # with the text the scan gives as its note.
        kind, successor, _ = analysed(module, name, origin, exports, public)
        return kind, successor, known[2]
    return analysed(module, name, origin, exports, public)


def analysed(module, name, origin, exports, public) -> tuple[str, str, str]:
    """The outcome the TF 1.15 sources and TF 2.21 give, without the tables."""
    old = static_params(exports, origin)
    nearest = None
    for dotted in candidates(module, name, origin, public):
        obj = live(dotted)
        if obj is None:
            continue
        if inspect.ismodule(obj) != origin.is_module:
            continue  # contrib.training.train (a function) is no tf.train
        why = compare(old, obj)
        if why is None or (old is None and same_code(dotted, module, origin, public)):
            return "exact", dotted, LEGACY_NOTE if legacy(dotted) else ""
        nearest = nearest or (dotted, why)
    if nearest is not None:
        return "none", nearest[0], f"{nearest[0]} has its name, but {nearest[1]}"
    return "none", "", ""


def internal_map(module: str, names: dict) -> dict[str, dict[str, str]]:
    """contrib-internal module -> {name there: the public name it is}."""
    out: dict[str, dict[str, str]] = {}
    for name, origin in names.items():
        if origin.module.startswith(CONTRIB) and not origin.is_module:
            inner = origin.module[len("tensorflow.") :]
            out.setdefault(f"tf.{inner}", {})[origin.name] = name
        elif origin.is_module and origin.module.count(".") > 2:
            # (not another contrib module: `tf.contrib.X` is spelled publicly)
            inner = origin.module[len("tensorflow.") :]
            out.setdefault(f"tf.{inner}", {})[""] = name
    return dict(sorted(out.items()))


_HEADER = '''"""tf.contrib.{module} of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = {fate!r}
ADVICE = {advice!r}
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {rows}
# name -> {{keyword of contrib's: the successor's}}, for exact successors.
RENAMES = {renames}
# internal module -> {{its name: the public name}} ("": the module itself).
SOURCES = {sources}
'''


def write(module: str, rows: dict, sources: dict) -> None:
    fate, advice = contrib_fates.FATES.get(module, contrib_fates.DEFAULT_FATE)
    renames = {n: r[3] for n, r in rows.items() if len(r) > 3}
    text = _HEADER.format(
        module=module,
        fate=fate,
        advice=advice,
        rows=pprint.pformat({n: r[:3] for n, r in rows.items()}, sort_dicts=True),
        renames=pprint.pformat(renames, sort_dicts=True),
        sources=pprint.pformat(sources, width=80, sort_dicts=True),
    )
    (OUT / f"{module}.py").write_text(text)


def main(argv: list[str]) -> int:
    root = pathlib.Path(argv[1] if len(argv) > 1 else "/tmp/tf115/tensorflow_core")
    exports = tf115_exports.Exports(root)
    public = tf115_exports.tf_exports(root)
    modules = contrib_modules(exports)
    OUT.mkdir(exist_ok=True)
    total = 0
    for module, dotted in modules.items():
        names = public_names(exports, dotted)
        rows = {n: outcome(module, n, o, exports, public) for n, o in names.items()}
        write(module, rows, internal_map(module, names))
        total += len(rows)
    # The tables are checked in formatted, as every other source file.
    subprocess.run(["ruff", "format", "--quiet", str(OUT)], check=True)
    print(f"{total} names in {len(modules)} modules under {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
