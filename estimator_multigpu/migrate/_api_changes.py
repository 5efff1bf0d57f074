"""A call's argument changes: keyword renames, positional to keyword, added
keywords, dropped defaults.

Like tf_upgrade_v2's `APIChangeSpec`, each change is a row of the API spec
(`_api_spec.SPEC`: `positional_to_keyword`, `keyword_renames`,
`added_keywords`, `dropped_defaults`, `successor_keyword_renames`) keyed by the canonical API
(`tf.contrib...`), and one function here applies them all to a call (the
one the visitor, `_api_uses`, found around a matched name), so a new change
is data.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._edits import Edit, Offsets, Unsafe


def named_arguments(call: ast.Call, api: str) -> list[tuple[str | None, ast.expr]]:
    """(parameter name, value) of each argument of `call`, by the API's row."""
    names = SPEC.positional_to_keyword.get(api, ())
    out = [(names[i] if i < len(names) else None, a) for i, a in enumerate(call.args)]
    return out + [(k.arg, k.value) for k in call.keywords]


def successor_renames(successor: str) -> dict[str, str]:
    """The TF 1.x keywords to rename in a call rewritten to `successor`."""
    return SPEC.successor_keyword_renames.get(successor, {})


_NAME = re.compile(r"\{(tf(?:\.\w+)+)\}")


def _plain(match: re.Match) -> str:
    return match.group(1)


def needs_call(api: str) -> bool:
    """True when the API's rows change its arguments: a use that is no call
    (the function passed as a value) cannot be rewritten."""
    return (
        api in SPEC.positional_to_keyword
        or api in SPEC.added_keywords
        or api in SPEC.dropped_defaults
    )


def describe(api: str) -> str:
    """The API's argument rows in words, for a finding's text ('' if none)."""
    parts = []
    names = [n for n in SPEC.positional_to_keyword.get(api, ()) if n]
    if names:
        parts.append("positional " + ", ".join(f"{n}=" for n in names) + " by keyword")
    renames = SPEC.keyword_renames.get(api, {})
    if renames:
        parts.append(
            "keywords renamed: "
            + ", ".join(f"{a}= -> {b}=" for a, b in renames.items())
        )
    added = SPEC.added_keywords.get(api, ())
    if added:
        text = ", ".join(f"{k}={_NAME.sub(_plain, v)}" for k, v in added)
        parts.append(f"{text} added")
    return "; ".join(parts)


def dropped_texts(api: str) -> list[str]:
    """The API's `dropped_defaults` rows in words, one per parameter."""
    return [
        f"{name}={default} (contrib's default) dropped: another {name} is left "
        f"for you ({other})"
        for name, _, default, other in SPEC.dropped_defaults.get(api, ())
    ]


def _added_edits(call, api, off, spell) -> list[Edit] | None:
    added = SPEC.added_keywords.get(api, ())
    if not added:
        return []
    passed = {k.arg for k in call.keywords}
    if None in passed or passed & {k for k, _ in added}:
        return None  # **kwargs, or the call sets the keyword itself
    text = ", ".join(
        f"{k}={_NAME.sub(lambda m: spell(m.group(1)), v)}" for k, v in added
    )
    nodes = list(call.args) + list(call.keywords)
    if not nodes:
        end = off.span(call)[1] - 1
        return [Edit(end, end, text)]
    end = max(off.span(n)[1] for n in nodes)
    return [Edit(end, end, f", {text}")]


def argument_edits(
    call: ast.Call, api: str, off: Offsets, spell: Callable[[str], str] = str
) -> list[Edit] | None:
    """The edits that apply the API's rows to `call`'s arguments, or None
    when a positional argument cannot be named (a `*args`, or more arguments
    than the legacy API takes) or a keyword to add is passed already.

    `spell(name)` gives a TF name (`tf.compat.v1.GraphKeys`) as the module
    writes it, for the values the rows add.

    Raises:
      Unsafe: the call passes a `dropped_defaults` parameter another value
        than the legacy default, or unpacks arguments where one is dropped.
    """
    names = SPEC.positional_to_keyword.get(api)
    added = _added_edits(call, api, off, spell)
    if added is None:
        return None
    out = added
    if names is not None:
        if len(call.args) > len(names) or any(
            isinstance(a, ast.Starred) for a in call.args
        ):
            return None
        for name, arg in zip(names, call.args):
            if name is not None:
                start = off.span(arg)[0]
                out.append(Edit(start, start, f"{name}="))
    renames = SPEC.keyword_renames.get(api, {})
    for k in call.keywords:
        if k.arg in renames:
            start = off.span(k)[0]
            out.append(Edit(start, start + len(k.arg), renames[k.arg]))
    return out + _dropped_edits(call, api, off)


def _passed(call: ast.Call, name: str, position: int) -> ast.AST | None:
    """The argument node (a value or a keyword) of `call` for parameter `name`."""
    if position < len(call.args):
        return call.args[position]
    return next((k for k in call.keywords if k.arg == name), None)


def _dropped_edits(call: ast.Call, symbol: str, off: Offsets) -> list[Edit]:
    """The edits removing the arguments `symbol`'s `dropped_defaults` rows name.

    Raises:
      Unsafe: the call passes another value, or unpacks arguments.
    """
    rows = SPEC.dropped_defaults.get(symbol, ())
    if not rows:
        return []
    unpacked = any(isinstance(a, ast.Starred) for a in call.args)
    if unpacked or any(k.arg is None for k in call.keywords):
        raise Unsafe(f"`{symbol}` with unpacked arguments may pass another value")
    nodes = sorted([*call.args, *call.keywords], key=lambda n: off.span(n)[0])
    out = []
    for name, position, default, _ in rows:
        node = _passed(call, name, position)
        if node is None:
            continue
        value = node.value if isinstance(node, ast.keyword) else node
        if off.segment(value) != default:
            raise Unsafe(f"`{symbol}` passes {name}= other than contrib's {default}")
        out.append(_removal(node, nodes, off))
    return out


def _removal(node: ast.AST, nodes: list, off: Offsets) -> Edit:
    """The edit deleting argument `node` of `nodes` with the comma beside it."""
    i = nodes.index(node)
    start, end = off.span(node)
    if i + 1 < len(nodes):
        return Edit(start, off.span(nodes[i + 1])[0], "")
    if i > 0:
        return Edit(off.span(nodes[i - 1])[1], end, "")
    # The only argument: its trailing comma goes too (`f(\n  a=1,  # c\n)`
    # would become `f(\n  ,  # c\n)`); a comment after it stays.
    rest = off.source[end:]
    after = len(rest) - len(rest.lstrip(" \t"))
    if rest[after : after + 1] == ",":
        end += after + 1
    return Edit(start, end, "")
