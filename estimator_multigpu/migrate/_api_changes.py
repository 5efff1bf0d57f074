"""The declarative API changes: keyword renames and positional arguments that become keywords.

Like tf_upgrade_v2's `APIChangeSpec`, each change is a row keyed by the
canonical API (`tf.contrib...`) and one function applies them all to a call,
so a new change is data. Symbol renames are the `rename` of the rules in
`_rules.TABLE` (written by the `renames` rule); names with no successor are
rules without one, whose replacement says why.
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate._edits import Edit, Offsets

# api -> the names of its positional parameters (None: stays positional);
# a positional argument whose name is given becomes that keyword, as the
# successor takes its parameters in another order.
POSITIONAL_TO_KEYWORD = {
    # contrib: replicate_model_fn(model_fn, loss_reduction=..., devices=None);
    # emg takes devices second.
    "tf.contrib.estimator.replicate_model_fn": (None, "loss_reduction", "devices"),
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


def argument_edits(call: ast.Call, api: str, off: Offsets) -> list[Edit] | None:
    """The edits that apply the API's rows to `call`'s arguments, or None
    when a positional argument cannot be named (a `*args`, or more arguments
    than the legacy API takes)."""
    names = POSITIONAL_TO_KEYWORD.get(api)
    out = []
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
