"""tf.contrib.slim: one finding per file and slim module; `import tf_slim as slim` where it works."""

from __future__ import annotations

import ast
import copy

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._edits import Offsets
from estimator_multigpu.migrate._guide_rules import rule
from estimator_multigpu.migrate._kept_comments import apply_keeping_comments

RULE_ID = "contrib-slim"
ANCHOR = "contrib-slim"
CORE = "layers"
CORE_KIND = "slim-core"  # the kind of the core module's group rule
_INPUT = (
    "emg.inputs.sharded_input_fn(dataset_fn) over a tf.data pipeline "
    "(emg.inputs.record_dataset_fn for TFRecords), one shard per device; "
    "slim.prefetch_queue.prefetch_queue becomes emg.inputs.queues.prefetch_queue "
    "(--fix rewrites it)"
)
_ADVICE = {
    CORE: "import tf_slim as slim (pip install tf-slim): tf_slim 1.1 runs slim's "
    "layers, arg_scope, losses and learning.create_train_op on TF 2.21 under the "
    "compat.v1 port; slim.batch_norm and slim.local_variable run through slim = "
    "emg.tf_slim() (batch_norm with tf-keras; --fix writes it where they are used)",
    "tfexample_decoder": "slim = emg.tf_slim() (import estimator_multigpu as "
    "emg; --fix writes it): the tf_slim module with control_flow_ops.case/cond "
    "restored, without which tf_slim 1.1's tfexample_decoder crashes on TF 2.21 "
    "(control_flow_ops has no `case`); or tf.io.parse_single_example + "
    "tf.io.decode_image in a tf.data map (emg.inputs.record_dataset_fn)",
    "dataset_data_provider": _INPUT,
    "prefetch_queue": _INPUT,
    "parallel_reader": _INPUT,
    "queues": _INPUT,
    "dataset": _INPUT,
    "data": _INPUT,
    "learning": "emg.estimator.Estimator (or tf.compat.v1.train."
    "MonitoredTrainingSession) for slim.learning.train; tf_slim's "
    "learning.create_train_op works as is",
}
# What tf_slim 1.1 lacks on TF 2.21 (checked by calling each): reported at
# each use; the import still switches, so the module (and its package) imports.
_RESTORING = (
    "slim = emg.tf_slim() (import estimator_multigpu as emg; --fix writes it): "
    "the tf_slim module with the TensorFlow names its {name} reads restored"
)
LACKS = {
    "batch_norm": "tf_slim 1.1's batch_norm fails on TF 2.21 (ModuleNotFoundError: "
    "tf_keras.legacy_tf_layers; with updates_collections=None, AttributeError: "
    "ops.Tensor); "
    + _RESTORING.format(name="batch_norm")
    + " (its v1 BatchNormalization layer needs tf-keras: pip install tf-keras), "
    "also as normalizer_fn and in arg_scope lists",
    "local_variable": "tf_slim 1.1's local_variable fails on TF 2.21 "
    "(AttributeError: variable_scope has no `variable`); "
    + _RESTORING.format(name="local_variable")
    + "; or tf.compat.v1.Variable(initial_value, trainable=False, collections="
    "[tf.compat.v1.GraphKeys.LOCAL_VARIABLES], validate_shape=validate_shape, "
    "name=name, use_resource=use_resource)",
    "tfexample_decoder": _ADVICE["tfexample_decoder"],
}
BROKEN = tuple(LACKS)
# What `slim = emg.tf_slim()` makes work: --fix binds slim that way in a file
# that uses one of these, and their findings then go.
RESTORED = ("tfexample_decoder", "batch_norm", "local_variable")
_DATA = ("tfexample_decoder", "dataset_data_provider")
CLONES = rule(
    "slim-clones",
    "slim model_deploy clones are hand-written towers (one model copy per device)",
    "clones are towers: put clone_fn's body in a model_fn and wrap it with "
    "emg.replicate_model_fn(model_fn, devices=emg.devices.resolve(num_gpus="
    "config.num_clones)); optimize_clones -> emg.TowerOptimizer(optimizer) "
    "(it averages the clones' gradients)",
    ANCHOR,
)
_CLONE_CALLS = ("create_clones", "optimize_clones", "deploy", "DeploymentConfig")


def module_of(api: str) -> str:
    """`'tf.contrib.slim.prefetch_queue.x'` -> `'prefetch_queue'`; layers etc. -> CORE."""
    parts = api.split(".")
    sub = parts[3] if len(parts) > 3 else ""
    return sub if sub in _ADVICE else CORE


def group_rule(module: str) -> object:
    what = "slim" if module == CORE else f"slim.{module}"
    return rule(
        RULE_ID,
        f"tf.contrib.{what} is gone since TF 2.0",
        _ADVICE[module],
        ANCHOR,
        kind=CORE_KIND if module == CORE else "",
    )


def _text(members) -> str:
    counts: dict[str, int] = {}
    lines: list[int] = []
    for f in members:
        name = f.api.replace("tf.contrib.", "", 1)
        counts[name] = counts.get(name, 0) + 1
        lines += [] if f.line in lines else [f.line]
    names = ", ".join(f"{n} x{c}" for n, c in counts.items())
    shown = ", ".join(map(str, lines[:12])) + (", ..." if len(lines) > 12 else "")
    return f"{len(members)} use(s): {names} (line {shown})"


def lacking(api: str) -> str | None:
    """The slim name in `api` that tf_slim lacks on TF 2.21, else None."""
    parts = api.split(".")
    return parts[3] if len(parts) > 3 and parts[3] in LACKS else None


def lack_rule(name: str) -> object:
    return rule(
        RULE_ID,
        f"slim.{name}: tf_slim (what `import tf_slim as slim` gives) lacks it on "
        "TF 2.21",
        LACKS[name],
        ANCHOR,
    )


def group(findings: list) -> list:
    """Replaces the per-use slim findings by one per slim module (first line);
    what tf_slim lacks stays one finding per use, at its own line."""
    groups: dict[str, list] = {}
    out = []
    for f in findings:
        if f.rule.rule_id == RULE_ID and lacking(f.api):
            f.rule, f.text = lack_rule(lacking(f.api)), _text([f])
            out.append(f)
        elif f.rule.rule_id == RULE_ID:
            groups.setdefault(module_of(f.api), []).append(f)
        else:
            out.append(f)
    for module, members in groups.items():
        first = members[0]
        first.rule, first.text = group_rule(module), _text(members)
        out.append(first)
    return out


def clone_calls(tree: ast.Module, table: _aliases.AliasTable):
    """Yields (node, api, text, rule) for model_deploy clone calls."""
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in _CLONE_CALLS:
            continue
        base = table.resolve(node.value) or ""
        if base.rsplit(".", 1)[-1] == "model_deploy":
            yield node, f"model_deploy.{node.attr}", ast.unparse(node), CLONES


def _imported_as(stmt: ast.stmt) -> str | None:
    """The name an `import tensorflow.contrib.slim as x` (or `from tensorflow.contrib
    import slim`) binds, else None."""
    if isinstance(stmt, ast.Import) and len(stmt.names) == 1:
        alias = stmt.names[0]
        if alias.name == "tensorflow.contrib.slim" and alias.asname:
            return alias.asname
    elif isinstance(stmt, ast.ImportFrom) and stmt.module == "tensorflow.contrib":
        if [a.name for a in stmt.names] == ["slim"]:
            return stmt.names[0].asname or "slim"
    return None


def _binding(tree: ast.Module) -> tuple[ast.stmt, str] | None:
    """The one module-level statement that binds slim, and the name it binds."""
    found, table = [], None
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            name = _imported_as(stmt)
            found += [(stmt, name)] if name else []
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            table = table or _aliases.AliasTable(tree)  # one table, not one per line
            value = table.resolve_tf(stmt.value)
            if value == "tf.contrib.slim" and isinstance(stmt.targets[0], ast.Name):
                found.append((stmt, stmt.targets[0].id))
    return found[0] if len(found) == 1 else None


def blocker(source: str) -> str | None:
    """Why `import tf_slim` cannot replace the slim import, or None.

    Uses of what tf_slim lacks do not block it: they fail only when called
    (each is reported), while the contrib import fails the whole module.
    """
    if _binding(_astutil.parse(source)) is None:
        return "no single `import tensorflow.contrib.slim as slim` to replace"
    return None


def _uses(tree: ast.Module, name: str, attrs: tuple) -> bool:
    """Whether `<name>.<attr>` appears for one of `attrs`."""
    return any(
        isinstance(n, ast.Attribute)
        and n.attr in attrs
        and isinstance(n.value, ast.Name)
        and n.value.id == name
        for n in _astutil.walk(tree)
    )


def _emg_before(tree: ast.Module, stmt: ast.stmt) -> str | None:
    """The name a module-level `import estimator_multigpu [as x]` before `stmt` binds."""
    for node in tree.body[: tree.body.index(stmt)]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "estimator_multigpu":
                    return alias.asname or alias.name
    return None


def _emg_binding(tree: ast.Module, stmt: ast.stmt, name: str, nl: str) -> str:
    """`[import estimator_multigpu as emg\n]<name> = emg.tf_slim()`."""
    emg = _emg_before(tree, stmt)
    if emg:
        return f"{name} = {emg}.tf_slim()"
    bound = _aliases.AliasTable(tree).bindings
    emg = (
        "emg" if bound.get("emg", "estimator_multigpu") == "estimator_multigpu" else ""
    )
    head = f"import estimator_multigpu as {emg}" if emg else "import estimator_multigpu"
    return f"{head}{nl}{name} = {emg or 'estimator_multigpu'}.tf_slim()"


def port(source: str) -> tuple[str, str | None]:
    """Rewrites the slim import to `import tf_slim as <name>` (plus
    `import tf_slim.nets` where `<name>.nets` is used).

    Where the file uses slim's tfexample_decoder, dataset_data_provider,
    batch_norm or local_variable, binds `<name> = emg.tf_slim()` instead: the
    same module, with the TensorFlow names they read restored first.
    """
    why = blocker(source)
    if why:
        return source, why
    tree = _astutil.parse(source)
    stmt, name = _binding(tree)
    off = Offsets(source)
    if _uses(tree, name, _DATA + RESTORED):
        new = _emg_binding(tree, stmt, name, off.newline)
    else:
        new = "import tf_slim" if name == "tf_slim" else f"import tf_slim as {name}"
    if _uses(tree, name, ("nets",)):
        new += f"{off.newline}import tf_slim.nets  # {name}.nets"
    return apply_keeping_comments(source, [off.replace(stmt, new)]), None


def restored(tree: ast.Module, table: _aliases.AliasTable) -> set[str]:
    """The module-level names bound by `<emg>.tf_slim()` (the restoring form)."""
    names = set()
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        call, target = stmt.value, stmt.targets[0]
        if isinstance(call, ast.Call) and isinstance(target, ast.Name):
            if table.resolve(call.func) == "estimator_multigpu.tf_slim":
                names.add(target.id)
    return names


def fixed_by_port(finding, source: str) -> bool:
    """Whether the ported `source` makes `finding` (a slim lack) go."""
    name = lacking(finding.api)
    if name not in RESTORED:
        return False
    tree = _astutil.parse(source)
    return bool(restored(tree, _aliases.AliasTable(tree)))


def _outer_attributes(tree: ast.AST, table: _aliases.AliasTable):
    """(attribute, path) of each outermost `tf_slim.x.y` chain in `tree`, in
    source order."""
    found, inside = [], set()
    for node in _astutil.nodes(tree, ast.Attribute):  # an outer chain first
        if id(node) in inside:
            inside.add(id(node.value))
            continue
        if type(node.ctx) is not ast.Load:
            continue
        path = table.resolve(node) or ""
        if path.startswith("tf_slim."):
            found.append((node, path))
            inside.add(id(node.value))
    return sorted(found, key=lambda hit: (hit[0].lineno, hit[0].col_offset))


def tf_slim_uses(tree: ast.Module, table: _aliases.AliasTable):
    """Yields (node, api, text, rule) for tf_slim uses that still need work.

    After `--fix` switched the import, what a plain `import tf_slim` lacks
    (`slim.batch_norm`) and slim's queue-based data modules are still to
    migrate; they are reported under their contrib name, as before the switch. A name bound
    by `emg.tf_slim()` counts as tf_slim, and what it restores is not
    reported.
    """
    from estimator_multigpu.migrate import _rules

    names = restored(tree, table)
    if names:
        table = copy.copy(table)
        table.bindings = {**table.bindings, **dict.fromkeys(names, "tf_slim")}
    for node, path in _outer_attributes(tree, table):
        api = "tf.contrib.slim." + path[len("tf_slim.") :]
        if names and lacking(api) in RESTORED:
            continue
        if lacking(api) or module_of(api) != CORE:
            yield node, api, ast.unparse(node), _rules.TABLE["tf.contrib.slim"]
