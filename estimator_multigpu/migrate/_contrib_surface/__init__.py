"""Every public tf.contrib name of TF 1.15 and its outcome, by any spelling of it.

One module per contrib module (`layers.py` for `tf.contrib.layers`), written
by tools/contrib_surface.py from TF 1.15's sources: `ROWS` (name ->
(outcome, successor, note)), `RENAMES` (keyword renames of exact successors),
`SOURCES` (contrib-internal module -> the public names it holds), and the
module's `FATE` (the contrib-sunset RFC's) and `ADVICE`. `_earlier.py`, by
hand, adds the rows of names older releases had and TF 1.15 no longer did.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pathlib

from estimator_multigpu.migrate._contrib_surface import _earlier

_HERE = pathlib.Path(__file__).parent
MODULES = tuple(
    sorted(p.stem for p in _HERE.glob("*.py") if not p.stem.startswith("_"))
)
_ROOT = "tf.contrib."
# The note of an exact successor that TF 2.16+ serves only from tf-keras.
LEGACY_NOTE = "with tf-keras and TF_USE_LEGACY_KERAS=1 on TF 2.16+"


@dataclasses.dataclass(frozen=True)
class Row:
    """One public tf.contrib name and what replaces it.

    Attributes:
      symbol: the public name, e.g. `'tf.contrib.data.sample_from_datasets'`.
      outcome: `'exact'` (`successor` takes the same arguments, keywords
        renamed as `renames` says), `'emg'` (an emg drop-in) or `'none'`.
      successor: the TF 2.x name (for `'none'`: a same-named one that takes
        other arguments, or empty).
      note: for `'none'`, why there is no successor; else a condition of it.
      renames: keyword renames, old -> new.
      fate: the module's fate in the contrib-sunset RFC.
      advice: what to do for the module's names that have no successor.
    """

    symbol: str
    outcome: str
    successor: str
    note: str
    renames: dict
    fate: str
    advice: str


@functools.cache
def table(module: str):
    """The table module of `tf.contrib.<module>`, or None if there is none."""
    if module not in MODULES:
        return None
    return importlib.import_module(f"{__name__}.{module}")


@functools.cache
def _sources() -> dict[str, dict[str, tuple[str, str]]]:
    """contrib-internal module -> {name there: (contrib module, public name)}.

    A module two contrib modules export from (bigtable's client, which cloud
    exports too) maps to the one whose package holds it.
    """
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for module in MODULES:
        for inner, names in table(module).SOURCES.items():
            own = inner.startswith(f"{_ROOT}{module}.")
            slot = out.setdefault(inner, {})
            for name, public_name in names.items():
                if own or name not in slot:
                    slot[name] = (module, public_name)
    return out


def public(api: str) -> tuple[str, str] | None:
    """(the public spelling of `api`, the prefix of `api` it replaces).

    `tf.contrib.data.python.ops.interleave_ops.sample_from_datasets` gives
    `('tf.contrib.data.sample_from_datasets', <all of it>)`; a public
    spelling gives itself (up to its module's name: `tf.contrib.data.X.y`
    gives `('tf.contrib.data.X', 'tf.contrib.data.X')`); None when `api` is
    no tf.contrib module's.
    """
    if not api.startswith(_ROOT):
        return None
    parts = api.split(".")
    sources = _sources()
    for end in range(len(parts), 3, -1):
        inner = ".".join(parts[:end])
        found = _internal(sources[inner], parts, end) if inner in sources else None
        if found is not None:
            return found
    found = _package_name(sources, parts)
    if found is not None:
        return found
    if table(parts[2]) is None:
        return None
    end = min(len(parts), 4)
    return ".".join(parts[:end]), ".".join(parts[:end])


def _package_name(sources: dict, parts: list[str]) -> tuple[str, str] | None:
    """A name a contrib package re-exports from its modules, when one of them
    holds it (`tensorflow.contrib.framework.python.ops` star-imports its
    `arg_scope` module: its `arg_scope` is tf.contrib.framework.arg_scope)."""
    for end in range(len(parts) - 1, 3, -1):
        package, name = ".".join(parts[:end]), parts[end]
        hits = {
            names[name]
            for inner, names in sources.items()
            if inner.rpartition(".")[0] == package and name in names
        }
        if len(hits) == 1:
            module, public_name = hits.pop()
            return f"{_ROOT}{module}.{public_name}", ".".join(parts[: end + 1])
    return None


def _internal(names: dict, parts: list[str], end: int) -> tuple[str, str] | None:
    name = parts[end] if end < len(parts) else ""
    if name and name in names:
        module, public_name = names[name]
        return f"{_ROOT}{module}.{public_name}", ".".join(parts[: end + 1])
    if "" in names:  # the module itself is public, as a submodule's name
        module, public_name = names[""]
        return f"{_ROOT}{module}.{public_name}", ".".join(parts[:end])
    return None


def row(symbol: str) -> Row | None:
    """The row of public name `symbol` (`tf.contrib.<module>.<name>`), if
    any: TF 1.15's, else an older release's (`_earlier.ROWS`)."""
    parts = symbol.split(".")
    found = table(parts[2]) if len(parts) == 4 else None
    if found is None:
        return None
    entry = found.ROWS.get(parts[3]) or _earlier.ROWS.get(symbol)
    if entry is None:
        return None
    outcome, successor, note = entry
    renames = getattr(found, "RENAMES", {}).get(parts[3], {})
    return Row(symbol, outcome, successor, note, renames, found.FATE, found.ADVICE)


def member(api: str) -> tuple[str, str] | None:
    """(the member `api` starts with, the TF 2.x function written for it) for
    a member of an older release's name that its successor lacks
    (`tf.contrib.data.Iterator.from_dataset`), else None."""
    for name, successor in _earlier.MEMBERS.items():
        if api == name or api.startswith(name + "."):
            return name, successor
    return None


def fixable(symbol: str) -> bool:
    """True when `symbol`'s row is an exact successor `--fix` can write: one
    the table checked (not a replacement text copied from another table, but
    for one that only names the successor's package, or only calls it), or an
    emg drop-in that takes the same arguments (a row with no note)."""
    found = row(symbol)
    if found is not None and found.outcome == "emg":
        return not found.note and found.successor.startswith("emg.")
    plain = (
        "",
        LEGACY_NOTE,
        f"{found.successor} (pip install tf-slim)" if found else "",
        f"{found.successor}()" if found else "",
    )
    return (
        found is not None
        and found.outcome == "exact"
        and found.note in plain
        and found.successor.split(".")[0] in ("tf", "tf_slim")
    )


def module_advice(module: str) -> tuple[str, str] | None:
    """(fate, advice) of `tf.contrib.<module>`, or None if it is no contrib module."""
    found = table(module)
    return (found.FATE, found.ADVICE) if found is not None else None
