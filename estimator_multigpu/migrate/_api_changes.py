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
    # contrib: xavier_initializer(uniform=True, seed=None, dtype=float32);
    # glorot_uniform_initializer takes no uniform (contrib's default is
    # dropped, see _contrib_outcomes.DROPPED_DEFAULTS).
    "tf.contrib.layers.xavier_initializer": (None, "seed", "dtype"),
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


# TF 2 name -> {TF 1.x keyword: TF 2's}, for the TF 2 names --fix writes in
# place of another spelling (a private path's public name, an exact
# successor): tf_upgrade_v2's function_keyword_renames (TF 2.21) for those
# names, the renames only (a keyword TF 2 dropped, its None, stays for the
# user to see). tf.compat.v1 names keep TF 1.x's keywords and need no row.
SUCCESSOR_KEYWORD_RENAMES = {
    "tf.batch_to_space": {"block_size": "block_shape"},
    "tf.cond": {"fn1": "true_fn", "fn2": "false_fn"},
    "tf.convert_to_tensor": {"preferred_dtype": "dtype_hint"},
    "tf.debugging.assert_all_finite": {"msg": "message", "t": "x"},
    "tf.expand_dims": {"dim": "axis"},
    "tf.image.crop_and_resize": {"box_ind": "box_indices"},
    "tf.io.decode_raw": {"bytes": "input_bytes"},
    "tf.math.argmax": {"dimension": "axis"},
    "tf.math.argmin": {"dimension": "axis"},
    "tf.math.count_nonzero": {
        "input_tensor": "input",
        "keep_dims": "keepdims",
        "reduction_indices": "axis",
    },
    "tf.math.l2_normalize": {"dim": "axis"},
    "tf.math.reduce_any": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_logsumexp": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_max": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_mean": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_min": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_prod": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_sum": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.nn.avg_pool": {"value": "input"},
    "tf.nn.avg_pool2d": {"value": "input"},
    "tf.nn.batch_norm_with_global_normalization": {
        "m": "mean",
        "t": "input",
        "v": "variance",
    },
    "tf.nn.conv1d": {"value": "input"},
    "tf.nn.conv2d": {"filter": "filters"},
    "tf.nn.conv2d_transpose": {"filter": "filters", "value": "input"},
    "tf.nn.conv3d": {"filter": "filters"},
    "tf.nn.conv3d_transpose": {"filter": "filters", "value": "input"},
    "tf.nn.convolution": {"dilation_rate": "dilations", "filter": "filters"},
    "tf.nn.depthwise_conv2d": {"rate": "dilations"},
    "tf.nn.dilation2d": {"filter": "filters", "rates": "dilations"},
    "tf.nn.erosion2d": {"kernel": "filters", "rates": "dilations"},
    "tf.nn.log_softmax": {"dim": "axis"},
    "tf.nn.max_pool": {"value": "input"},
    "tf.nn.max_pool_with_argmax": {"Targmax": "output_dtype"},
    "tf.nn.moments": {"keep_dims": "keepdims"},
    "tf.nn.pool": {"dilation_rate": "dilations"},
    "tf.nn.separable_conv2d": {"rate": "dilations"},
    "tf.nn.softmax": {"dim": "axis"},
    "tf.nn.softmax_cross_entropy_with_logits": {"dim": "axis"},
    "tf.nn.sufficient_statistics": {"keep_dims": "keepdims"},
    "tf.nn.weighted_cross_entropy_with_logits": {"targets": "labels"},
    "tf.nn.weighted_moments": {"keep_dims": "keepdims"},
    "tf.norm": {"keep_dims": "keepdims"},
    "tf.ones_like": {"tensor": "input"},
    "tf.reduce_all": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.reverse_sequence": {"batch_dim": "batch_axis", "seq_dim": "seq_axis"},
    "tf.space_to_batch": {"block_size": "block_shape"},
    "tf.sparse.add": {"thresh": "threshold"},
    "tf.sparse.concat": {
        "concat_dim": "axis",
        "expand_nonconcat_dim": "expand_nonconcat_dims",
    },
    "tf.sparse.reduce_max": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "tf.sparse.reduce_sum": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "tf.sparse.split": {"split_dim": "axis"},
    "tf.squeeze": {"squeeze_dims": "axis"},
    "tf.strings.reduce_join": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.strings.to_hash_bucket": {"string_tensor": "input"},
    "tf.strings.to_number": {"string_tensor": "input"},
    "tf.zeros_like": {"tensor": "input"},
}


def successor_renames(successor: str) -> dict[str, str]:
    """The TF 1.x keywords to rename in a call rewritten to `successor`."""
    return SUCCESSOR_KEYWORD_RENAMES.get(successor, {})


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
