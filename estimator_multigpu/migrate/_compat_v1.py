"""Step zero: TF 1.x names used under `import tensorflow as tf` (the compat.v1 port)."""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _aliases,
    _api_uses,
    _astutil,
    _rules,
)
from estimator_multigpu.migrate._api_spec import SPEC
from estimator_multigpu.migrate._edits import Edit, Offsets, apply
from estimator_multigpu.migrate._guide_rules import COMPAT_ANCHOR, rule
from estimator_multigpu.migrate._kept_comments import apply_keeping_comments

RULE_ID = "compat-v1"
# The api of the one finding that stands for every bare TF 1.x name of a module.
GROUP_API = "tf (TF 1.x names)"
_DISABLE = "disable_v2_behavior()"
# Findings of other rules on bare names that the compat.v1 import resolves.
PORTED_RULES = ("layers", "summary-v1", "name-scope-v1")


@dataclasses.dataclass
class Use:
    """One bare TF 1.x name: the node, its `tf.` path and the name it goes through."""

    node: ast.expr
    api: str
    root: str


def _root(node: ast.expr) -> ast.Name | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def root_name(node: ast.expr) -> str | None:
    """The name a dotted chain starts from (`tf` for `tf.layers.dense`)."""
    root = _root(node)
    return root.id if root is not None else None


def _never(api: str, node: ast.expr) -> bool:
    return False


def _none(api: str) -> bool:
    return False


def is_bare(table: _aliases.AliasTable, node: ast.expr) -> bool:
    """True if `node` reaches TensorFlow through `tensorflow`, not `compat.v1`."""
    path = table.resolve(node) or ""
    return path.startswith("tensorflow.") and not path.startswith("tensorflow.compat")


def find(tree: ast.Module, table: _aliases.AliasTable, skip=_never, include=_none):
    """Returns (uses of TF1-only names, uses of names compat.v1 lacks).

    Reads the one visitor's matches of the compat.v1 tables (`Uses.v1`:
    the outermost bare chains), in source order.

    Args:
      tree: the module.
      table: its aliases.
      skip: `skip(api, node)` is True for names another pass reports.
      include: `include(api)` is True for names to port although another
        table's rule reports them (`tf.layers` for the per-use port).
    """
    uses, v2 = [], []
    for hit in sorted(_api_uses.uses(tree, table).v1, key=_position):
        root = _root(hit.node).id
        if root in table.assigned:
            continue  # `FLAGS = tf.app.flags.FLAGS`: reported where assigned
        other = _rules.lookup(hit.api) or skip(hit.api, hit.node)
        if hit.v1_call and not other:
            uses.append(Use(hit.node, hit.api, root))
        elif other and not include(hit.api):
            continue  # another rule reports it
        elif hit.v1:
            uses.append(Use(hit.node, hit.v1, root))
        elif hit.v2:
            v2.append(hit.node)
    return uses, v2


def _position(hit: _api_uses.V1Use) -> tuple[int, int]:
    return hit.node.lineno, hit.node.col_offset


def tf_import(tree: ast.Module) -> ast.Import | None:
    """The module-level `import tensorflow as NAME` statement, if exactly one."""
    found = [
        s
        for s in tree.body
        if isinstance(s, ast.Import)
        and any(a.name == "tensorflow" and a.asname for a in s.names)
    ]
    return found[0] if len(found) == 1 and len(found[0].names) == 1 else None


def blocker(tree, table, uses, v2_uses) -> str | None:
    """Why the import cannot be switched to compat.v1, or None if it can."""
    stmt = tf_import(tree)
    if stmt is None:
        return (
            "no single module-level `import tensorflow as tf` to switch "
            "(rename each name to tf.compat.v1.<name> by hand)"
        )
    if v2_uses:
        node = v2_uses[0]
        api = SPEC.v2_prefix(table.resolve_tf(node))
        return (
            f"line {node.lineno} uses {api}, which tf.compat.v1 lacks; write "
            f"tf.compat.v1.<name> for each TF1 name instead of switching the import"
        )
    return None


def _summary(uses: list[Use]) -> str:
    names: dict[str, list[int]] = {}
    for u in uses:
        lines = names.setdefault(u.api, [])
        if u.node.lineno not in lines:
            lines.append(u.node.lineno)
    parts = [f"{api} (line {', '.join(map(str, ln[:5]))})" for api, ln in names.items()]
    return f"{len(uses)} TF 1.x name(s): " + "; ".join(parts)


def group_rule(name: str, why: str | None) -> _rules.Rule:
    """The rule of the one finding that stands for every bare TF1 name in a file."""
    replacement = (
        f"import tensorflow.compat.v1 as {name}, then {name}.{_DISABLE} right "
        "after the imports (emg-migrate --fix does it)"
    )
    if why:
        replacement += f"; --fix cannot here: {why}"
    return rule(
        RULE_ID,
        "these names exist only in tf.compat.v1 on TF 2.x (AttributeError under "
        "`import tensorflow as tf`), or take the TF 1.x arguments passed only "
        "there (TypeError)",
        replacement,
        COMPAT_ANCHOR,
        fixable=not why,
    )


def per_use_rule(use: Use) -> _rules.Rule:
    """A finding for one bare name `--fix` cannot port through the import."""
    rest = use.api[len("tf.") :]
    return rule(
        RULE_ID,
        f"{use.api} exists only in tf.compat.v1 on TF 2.x",
        f"tf.compat.v1.{rest} (`from tensorflow.compat.v1 import ...` for an "
        "imported name), in graph mode: tf.compat.v1.disable_v2_behavior() at start",
        COMPAT_ANCHOR,
    )


def text(uses: list[Use]) -> str:
    """The finding's text: how many TF1 names, which, and their first lines."""
    return _summary(uses)


def _imports_end(tree: ast.Module, stmt: ast.stmt) -> ast.stmt:
    """The last statement of the run of module-level imports that holds `stmt`.

    The opening run when `stmt` is in it; otherwise (a module that sets, say,
    an environment variable before importing TensorFlow) the later run that
    imports TensorFlow, so a call on `tf` never comes before `tf` is bound.
    """
    last, held = None, False
    for i, node in enumerate(tree.body):
        doc = (
            i == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
        )
        if doc or isinstance(node, ast.Import | ast.ImportFrom):
            last, held = node, held or node is stmt
        elif held:
            break
    return last


def port(source: str) -> tuple[str, str | None]:
    """Switches `import tensorflow as tf` to compat.v1 and disables v2 behaviour.

    Args:
      source: a module that `find` says uses TF1-only names.

    Returns:
      (new source, None), or (source unchanged, the reason) when the switch
      is not safe.
    """
    tree = _astutil.parse(source)
    table = _aliases.AliasTable(tree)
    uses, v2_uses = find(tree, table)
    why = blocker(tree, table, uses, v2_uses)
    if why:
        return source, why
    off = Offsets(source)
    stmt = tf_import(tree)
    name = stmt.names[0].asname
    edits = [off.replace(stmt, f"import tensorflow.compat.v1 as {name}")]
    if _DISABLE not in source:
        pos = off.line_end(_imports_end(tree, stmt).end_lineno)
        edits.append(Edit(pos, pos, f"{name}.{_DISABLE}{off.newline}"))
    return apply_keeping_comments(source, edits), None


def rename(source: str) -> str:
    """Writes `<tf>.compat.v1.<name>` for each bare TF1-only name (tf.layers too).

    The per-use port, for code that TensorFlow's tf_upgrade_v2 already renamed
    (it leaves some names, and graph mode, to the user).
    """
    tree = _astutil.parse(source)
    uses, _ = find(tree, _aliases.AliasTable(tree), include=_is_layers)
    off = Offsets(source)
    edits = []
    for use in uses:
        text = off.segment(use.node)
        edits.append(
            off.replace(use.node, f"{use.root}.compat.v1{text[len(use.root) :]}")
        )
    return apply_keeping_comments(source, edits)


def _is_layers(api: str) -> bool:
    return api == "tf.layers" or api.startswith("tf.layers.")


def graph_mode(source: str) -> str:
    """Adds `tf.compat.v1.disable_v2_behavior()` after the opening imports of
    a module that imports TensorFlow as `tf` and does not call it yet.

    tf_upgrade_v2 renames names to `tf.compat.v1.*` but leaves eager mode on,
    where placeholders and sessions fail.
    """
    tree = _astutil.parse(source)
    stmt = tf_import(tree)
    if stmt is None or _DISABLE in source:
        return source
    off = Offsets(source)
    pos = off.line_end(_imports_end(tree, stmt).end_lineno)
    call = f"{stmt.names[0].asname}.compat.v1.{_DISABLE}{off.newline}"
    return apply(source, [Edit(pos, pos, call)])
