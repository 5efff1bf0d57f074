"""Uses of private tensorflow.python symbols, each found with its public name."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil, _private_names
from estimator_multigpu.migrate._contrib_outcomes import SurfaceRule
from estimator_multigpu.migrate._guide_rules import rule

ANCHOR = "private-tensorflowpython-imports"
RULE_ID = "private-tf"
_GRAPPLER = (
    "TF 2 runs Grappler on every tf.function graph by itself: choose its passes "
    "with tf.config.optimizer.set_experimental_options({...}) (a tf.compat.v1 "
    "Session: ConfigProto(graph_options=GraphOptions(rewrite_options=...))) "
    "instead of optimizing a GraphDef by hand; there is no public OptimizeGraph"
)
# Private paths TF 1.15 exported under no public name, with what to do.
HAND = {
    "tf.python.grappler.tf_optimizer.OptimizeGraph": (
        "Grappler's tf_optimizer.OptimizeGraph is private, with no public successor",
        _GRAPPLER,
    ),
    "tf.core.protobuf.rewriter_config_pb2.RewriterConfig": (
        "RewriterConfig (Grappler's options) is a private protocol buffer module",
        "tf.config.optimizer.set_experimental_options takes its switches as a "
        "dict ({'constant_folding': False, ...}); " + _GRAPPLER.split(": ", 1)[0],
    ),
}


def _is_gone(module: str, name: str) -> bool:
    gone = _private_names.GONE.get(module, ())
    return name in gone or gone == ("*",)


def rule_for(path: str):
    """The rule for a use of `path` (`tf.python.x.y.name`), or None when the
    table knows no public name history for it."""
    if path in HAND:
        return rule(RULE_ID, *HAND[path], ANCHOR)
    module, _, name = path.rpartition(".")
    public = _private_names.NAMES.get(module, {}).get(name)
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


def find(tree: ast.AST, table):
    """Yields (node, path, rule, covered) for each use of a private symbol the
    table knows (a name or attribute chain, by any import spelling)."""
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Name | ast.Attribute):
            continue
        if not isinstance(node.ctx, ast.Load):
            continue
        path = table.resolve_tf(node)
        if path is None or not path.startswith(("tf.python.", "tf.core.")):
            continue
        found = rule_for(path)
        if found is not None:
            yield node, path, found, set()
