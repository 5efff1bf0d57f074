"""`from tensorflow import *`: the scan cannot see which TF names a file uses."""

from __future__ import annotations

import ast
import builtins

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _rules,
)
from estimator_multigpu.migrate._guide_rules import rule

API = "star import"
_SHOWN = 12


def _free_names(tree: ast.Module) -> list[str]:
    """Names the module reads but never binds (nor are builtins), sorted."""
    read = _astutil.reads(tree)
    bound = _astutil.writes(tree) | set(dir(builtins))
    return sorted(n for n in read if n not in bound)


def _rule(module: str, names: list[str]):
    shown = ", ".join(names[:_SHOWN]) + (", ..." if len(names) > _SHOWN else "")
    prefix = "tf." + module[len("tensorflow.") :] + "." if "." in module else "tf."
    what = (
        f"write {prefix}<name> for each name it gave; this file reads {shown} "
        "without defining them"
        if names
        else "the file reads no name it could give: delete the import"
    )
    return rule(
        _rules.STAR_IMPORT_RULE.rule_id,
        f"`from {module} import *` hides which TF names the file uses: "
        "emg-migrate cannot see them (bare TF 1.x names such as placeholder or "
        "Session fail on TF 2 with NameError)",
        "import tensorflow.compat.v1 as tf, then tf.disable_v2_behavior() right "
        f"after the imports, and {what}",
        "step-0-the-compatv1-port",
    )


def find(tree: ast.Module):
    """Yields (node, api, text, rule) for each `from tensorflow... import *`.

    Star imports of `tensorflow.compat.v1` (whose names TF 2 keeps) and of
    modules the rule table reports (tf.contrib...) are left to those.
    """
    names = None
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        api = _aliases.canonical(node.module)
        if [a.name for a in node.names] != ["*"] or api is None:
            continue
        if "compat.v1" in node.module or _rules.lookup(api) is not None:
            continue
        names = _free_names(tree) if names is None else names
        yield node, API, f"from {node.module} import *", _rule(node.module, names)
