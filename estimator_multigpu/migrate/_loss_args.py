"""Cross-entropy calls of the TF 0.x era: positional (logits, labels), and
contrib's `deprecated_flipped_*` losses that kept that order."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate._edits import Edit, Offsets

# TF 0.x positional parameters (TF 1.x takes keywords only).
TF0 = {
    "tf.nn.softmax_cross_entropy_with_logits": ("logits", "labels", "axis", "name"),
    "tf.nn.sparse_softmax_cross_entropy_with_logits": ("logits", "labels", "name"),
    "tf.nn.sigmoid_cross_entropy_with_logits": ("logits", "labels", "name"),
}
_FLIPPED = "tf.contrib.nn.deprecated_flipped_"
# contrib name (after _FLIPPED) -> (core name under tf.nn, its positional params).
FLIPPED = {
    "softmax_cross_entropy_with_logits": ("logits", "labels", "dim", "name"),
    "sparse_softmax_cross_entropy_with_logits": ("logits", "labels", "name"),
    "sigmoid_cross_entropy_with_logits": ("logits", "targets", "name"),
}
_RENAMES = {"dim": "axis", "targets": "labels"}


def is_flipped(api: str) -> bool:
    return api.startswith(_FLIPPED) and api[len(_FLIPPED) :] in FLIPPED


def fits(call: ast.Call, params: tuple) -> bool:
    """No *args/**kwargs, and no more positional arguments than `params`."""
    star = any(isinstance(a, ast.Starred) for a in call.args)
    return (
        not star
        and all(k.arg for k in call.keywords)
        and (len(call.args) <= len(params))
    )


def tf0_edits(call: ast.Call, api: str, off: Offsets) -> list[Edit]:
    """`logits=`, `labels=`... before each positional argument, in TF 0.x order."""
    return [
        Edit(off.span(a)[0], off.span(a)[0], f"{p}=")
        for p, a in zip(TF0[api], call.args)
    ]


def flipped_edits(call: ast.Call, api: str, off: Offsets, root: str) -> list[Edit]:
    """contrib's flipped loss -> `tf.nn.<loss>(logits=..., labels=...)`."""
    name = api[len(_FLIPPED) :]
    params = FLIPPED[name]
    out = [off.replace(call.func, f"{root}.nn.{name}")]
    for param, arg in zip(params, call.args):
        start = off.span(arg)[0]
        out.append(Edit(start, start, f"{_RENAMES.get(param, param)}="))
    for k in call.keywords:
        if k.arg in _RENAMES:
            start = off.span(k)[0]
            out.append(Edit(start, start + len(k.arg), _RENAMES[k.arg]))
    return out
