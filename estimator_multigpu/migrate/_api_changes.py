"""The declarative API changes: keyword renames and positional arguments that become keywords.

Like tf_upgrade_v2's `APIChangeSpec`, each change is a row keyed by the
canonical API (`tf.contrib...`) and one function applies them all to a call,
so a new change is data. Symbol renames are the `rename` of the rules in
`_rules.TABLE` (written by the `renames` rule); names with no successor are
rules without one, whose replacement says why.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from estimator_multigpu.migrate._edits import Edit, Offsets

# api -> the names of its positional parameters (None: stays positional);
# a positional argument whose name is given becomes that keyword, as the
# successor takes its parameters in another order.
POSITIONAL_TO_KEYWORD = {
    # contrib: replicate_model_fn(model_fn, loss_reduction=..., devices=None);
    # emg takes devices second.
    "tf.contrib.estimator.replicate_model_fn": (None, "loss_reduction", "devices"),
    # contrib: local_variable(initial_value, validate_shape, name, use_resource);
    # tf.compat.v1.Variable takes trainable and collections second and third.
    "tf.contrib.framework.local_variable": (
        None,
        "validate_shape",
        "name",
        "use_resource",
    ),
}

# api -> (keyword, value) the successor needs for what the legacy API did
# implicitly; `{tf.x.y}` in a value is the TF name `tf.x.y` as the module
# spells it. A call that passes one of these keywords itself is refused.
ADDED_KEYWORDS = {
    # contrib's local_variable is variable(initial_value, trainable=False,
    # collections=[LOCAL_VARIABLES], ...); tf_slim's crashes on TF 2.21
    # (variable_scope has no `variable`).
    "tf.contrib.framework.local_variable": (
        ("trainable", "False"),
        ("collections", "[{tf.compat.v1.GraphKeys.LOCAL_VARIABLES}]"),
    ),
}

# api -> {keyword of the legacy API: the successor's keyword}.
KEYWORD_RENAMES = {
    "tf.contrib.tfprof.model_analyzer.print_model_analysis": {
        "tfprof_cmd": "cmd",
        "tfprof_options": "options",
    },
}


def named_arguments(call: ast.Call, api: str) -> list[tuple[str | None, ast.expr]]:
    """(parameter name, value) of each argument of `call`, by the API's row."""
    names = POSITIONAL_TO_KEYWORD.get(api, ())
    out = [(names[i] if i < len(names) else None, a) for i, a in enumerate(call.args)]
    return out + [(k.arg, k.value) for k in call.keywords]


_NAME = re.compile(r"\{(tf(?:\.\w+)+)\}")


def _plain(match: re.Match) -> str:
    return match.group(1)


def needs_call(api: str) -> bool:
    """True when the API's rows change its arguments: a use that is no call
    (the function passed as a value) cannot be rewritten."""
    return api in POSITIONAL_TO_KEYWORD or api in ADDED_KEYWORDS


def describe(api: str) -> str:
    """The API's argument rows in words, for a finding's text ('' if none)."""
    parts = []
    names = [n for n in POSITIONAL_TO_KEYWORD.get(api, ()) if n]
    if names:
        parts.append("positional " + ", ".join(f"{n}=" for n in names) + " by keyword")
    renames = KEYWORD_RENAMES.get(api, {})
    if renames:
        parts.append(
            "keywords renamed: "
            + ", ".join(f"{a}= -> {b}=" for a, b in renames.items())
        )
    added = ADDED_KEYWORDS.get(api, ())
    if added:
        text = ", ".join(f"{k}={_NAME.sub(_plain, v)}" for k, v in added)
        parts.append(f"{text} added")
    return "; ".join(parts)


def _added_edits(call, api, off, spell) -> list[Edit] | None:
    added = ADDED_KEYWORDS.get(api, ())
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
    """
    names = POSITIONAL_TO_KEYWORD.get(api)
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
    renames = KEYWORD_RENAMES.get(api, {})
    for k in call.keywords:
        if k.arg in renames:
            start = off.span(k)[0]
            out.append(Edit(start, start + len(k.arg), renames[k.arg]))
    return out
