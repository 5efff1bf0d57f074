"""The finding and the `--fix` rewrite each row of the tf.contrib surface table gives."""

from __future__ import annotations

import ast
import dataclasses
import functools

from estimator_multigpu.migrate import (
    _api_changes,
    _astutil,
    _contrib_surface,
    _exact_calls,
)
from estimator_multigpu.migrate._edits import Edit, Offsets, Unsafe
from estimator_multigpu.migrate._guide_rules import GuideRule

_ANCHOR = "tf-contrib"
_NO_NAME = "no tf.*, tf.compat.v1.* or tf_slim name takes its place"


@dataclasses.dataclass(frozen=True)
class SurfaceRule(GuideRule):
    """A `contrib` rule from one row of the surface table.

    Attributes:
      prefix: the part of the finding's API the row names (its module-path
        spelling included), which `--fix` replaces.
      successor: for an exact row, the TF 2.x name `--fix` writes; else empty.
      renames: the keywords `--fix` renames, contrib's -> the successor's.
    """

    prefix: str = ""
    successor: str = ""
    renames: tuple[tuple[str, str], ...] = ()


def _make(summary: str, replacement: str, **fields) -> SurfaceRule:
    return SurfaceRule(
        "contrib", summary, replacement, "contrib", anchor=_ANCHOR, **fields
    )


def _spelled(symbol: str, api: str, prefix: str) -> str:
    """`symbol`, with the module path the source wrote when it differs."""
    if prefix == symbol or not api.startswith(prefix):
        return symbol
    return f"{symbol} (written {prefix})"


def _exact_text(row: _contrib_surface.Row) -> str:
    described = _api_changes.describe(row.symbol)
    dropped = _api_changes.dropped_texts(row.symbol)
    parts = dropped + [described] if described or dropped else ["the same arguments"]
    parts = [p for p in parts if p]
    if row.renames:
        renamed = ", ".join(f"{old}= -> {new}=" for old, new in row.renames.items())
        parts[0] += f", keywords renamed: {renamed}"
    if row.note:
        parts.append(row.note)
    fix = "emg-migrate --fix writes it"
    return f"{row.successor} ({'; '.join(parts + [fix])})"


def _emg_text(row: _contrib_surface.Row) -> str:
    return f"{row.successor} (the same arguments; emg-migrate --fix writes it)"


def rule_for(api: str) -> SurfaceRule | None:
    """The rule for a use of `api` (`tf.contrib.…`, by any module path), or None
    when it is no name of TF 1.15's tf.contrib modules."""
    found = _contrib_surface.public(api)
    if found is None:
        return None
    symbol, prefix = found
    member = _contrib_surface.member(api)
    if member is not None:
        return _member_rule(*member)
    row = _contrib_surface.row(symbol)
    module = symbol.split(".")[2]
    fate, advice = _contrib_surface.module_advice(module)
    gone = f"{_spelled(symbol, api, prefix)} is gone since TF 2.0"
    fated = f"{gone} (the contrib-sunset RFC's fate for tf.contrib.{module}: {fate})"
    if row is None and symbol.count(".") > 2:
        what = f"{symbol} is no public name of TF 1.15's tf.contrib.{module}"
        return _make(f"{what}; {fated}", advice, prefix=prefix)
    if row is None:
        return _make(fated, advice, prefix=prefix)
    if _contrib_surface.fixable(symbol):
        renames = tuple(row.renames.items())
        return _make(
            gone,
            _exact_text(row) if row.outcome == "exact" else _emg_text(row),
            prefix=prefix,
            successor=row.successor,
            renames=renames,
        )
    if row.outcome == "exact":  # another table's replacement text
        return _make(gone, row.note or row.successor, prefix=prefix)
    if row.outcome == "emg":
        text = f"{row.successor} ({row.note})" if row.note else row.successor
        return _make(gone, text, prefix=prefix)
    why = row.note or _NO_NAME
    return _make(fated, f"no TF 2.x successor ({why}): {advice}", prefix=prefix)


def _member_rule(name: str, successor: str) -> SurfaceRule:
    """The rule for a member of an older release's name that the name's
    successor lacks (`Iterator.from_dataset`): the function that takes its
    arguments."""
    return _make(
        f"{name} is gone since TF 2.0 (its class's successor has no "
        f"{name.rpartition('.')[2]})",
        f"{successor} (the same arguments; emg-migrate --fix writes it)",
        prefix=name,
        successor=successor,
    )


def _spelling(successor: str, table, emg: str = "emg") -> tuple[str, str | None]:
    """(the successor's text in this module, a module to import for it); an
    `emg.` successor is spelled with `emg`, the name the package has (or
    will have: the fix imports it when an edit uses it)."""
    head, _, rest = successor.partition(".")
    if head == "emg":
        return f"{emg}.{rest}", None
    if head == "tf_slim":
        bound = table.name_for("tf_slim")
        return f"{bound or 'tf_slim'}.{rest}", None if bound else "tf_slim"
    if head != "tf":
        raise Unsafe(f"{successor} is no module path --fix can write")
    name = table.name_for("tensorflow")
    if name is not None:
        return f"{name}.{rest}", None
    v1 = table.name_for("tensorflow.compat.v1")
    if v1 is None:
        # TensorFlow only through private paths (`from tensorflow.python.
        # framework import ops`): the fix imports the package itself.
        return f"tensorflow.{rest}", "tensorflow"
    if rest.startswith("compat.v1."):
        return f"{v1}.{rest[len('compat.v1.') :]}", None
    return f"{v1}.compat.v2.{rest}", None


def _spelled_name(name: str, table) -> str:
    return _spelling(name, table)[0]


_LAST: list = []  # [(tree, parents, calls)] of the last tree seen


def _maps(tree: ast.AST) -> tuple[dict, dict]:
    """(parents, calls by id of their func) of `tree`, built once per tree."""
    if not _LAST or _LAST[0][0] is not tree:
        calls = {id(c.func): c for c in _astutil.nodes(tree, ast.Call)}
        _LAST[:] = [(tree, _exact_calls.parents_of(tree), calls)]
    return _LAST[0][1], _LAST[0][2]


def edits(
    f, tree, table, off: Offsets, emg: str = "emg"
) -> tuple[list[Edit], str | None]:
    """The rename of `f`'s use to its exact successor, and a module to import.

    Args:
      f: a finding whose rule is an exact `SurfaceRule`.
      tree: the module.
      table: its aliases.
      off: positions in its source.
      emg: how the module spells `estimator_multigpu`.

    Raises:
      Unsafe: when the use is not one dotted name.
    """
    parents, calls = _maps(tree)
    node = _exact_calls.full_node(f.node, f.rule.prefix, table, parents)
    text, module = _spelling(f.rule.successor, table, emg)
    out = [off.replace(node, text)]
    call = calls.get(id(node))
    symbol = (_contrib_surface.public(f.api) or ("",))[0]
    if isinstance(call, ast.Call):  # the API's argument rows (`_api_spec`)
        spell = functools.partial(_spelled_name, table=table)
        changes = _api_changes.argument_edits(call, symbol, off, spell)
    else:  # passed as a value: a row that names or adds an argument needs a call
        changes = None if _api_changes.needs_call(symbol) else []
    if changes is None:
        raise Unsafe(f"`{symbol}` is not called with arguments its rows can map")
    out += changes
    renames = {**_api_changes.successor_renames(f.rule.successor)}
    renames.update(f.rule.renames)
    for k in call.keywords if isinstance(call, ast.Call) else ():
        if k.arg in renames:
            start = off.span(k)[0]
            out.append(Edit(start, start + len(k.arg), renames[k.arg]))
    return out, module
