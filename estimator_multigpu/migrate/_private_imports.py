"""Uses of private tensorflow.python symbols, each found with its public name."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _api_uses
from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._contrib_outcomes import SurfaceRule
from estimator_multigpu.migrate._guide_rules import rule

ANCHOR = "private-tensorflowpython-imports"
RULE_ID = "private-tf"


def _is_gone(module: str, name: str) -> bool:
    gone = SPEC.private_gone.get(module, ())
    return name in gone or gone == ("*",)


def rule_for(path: str):
    """The rule for a use of `path` (`tf.python.x.y.name`), or None when the
    table knows no public name history for it."""
    if path in SPEC.private_unexported:
        return rule(RULE_ID, *SPEC.private_unexported[path], ANCHOR)
    module, _, name = path.rpartition(".")
    public = SPEC.private_names.get(module, {}).get(name)
    if public is None:
        return None
    if _is_gone(module, name):
        where = "gone from there on TF 2.21: it moved"
    else:
        where = "still there on TF 2.21, but a private path may move in any release"
    summary = f"{path} is a private TensorFlow path, {where}"
    if not public:
        return rule(
            RULE_ID,
            summary,
            "no public name on TF 2.21 (TF 1.15 exported it, TF 2.x dropped it): "
            "keep the code it needs in your program, or pin TensorFlow",
            ANCHOR,
        )
    if not _writable(public):
        return rule(RULE_ID, summary, f"{public} (its public name)", ANCHOR)
    return SurfaceRule(
        RULE_ID,
        summary,
        f"{public} (its public name, the same symbol; emg-migrate --fix writes it)",
        "contrib",
        anchor=ANCHOR,
        prefix=path,
        successor=public,
    )


def _writable(public: str) -> bool:
    """True when `--fix` may write `public` for the private path: not a Keras
    name (TF 2.16+'s tf.keras is Keras 3, another library than
    tensorflow.python.keras), nor one another rule reports in its turn."""
    from estimator_multigpu.migrate import _rules

    keras = public.startswith(("tf.keras.", "tf.compat.v1.keras."))
    return not keras and _rules.lookup(public) is None


def find(tree: ast.Module, table):
    """Yields (node, path, rule, covered) for each use of a private symbol the
    spec's tables know (a name or attribute chain, by any import spelling),
    as the one visitor matched them (`_api_uses`)."""
    for node, path in _api_uses.uses(tree, table).private:
        yield node, path, rule_for(path), set()
