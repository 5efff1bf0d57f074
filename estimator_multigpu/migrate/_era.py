"""Shapes seen in TF 1.x code of the era: summaries, GPU probes, thread-only
Coordinators, reader classes handed to other APIs, the layers port."""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import (
    _aliases,
    _astutil,
    _compat_v1,
    _legacy_keras_env,
    _queue_loops,
    _rules,
)
from estimator_multigpu.migrate._edits import Offsets
from estimator_multigpu.migrate._guide_rules import COMPAT_ANCHOR, ported, rule

SUMMARY_OPS = ("scalar", "image", "histogram", "audio", "text")
SUMMARY_V1 = ("merge_all", "merge", "FileWriter")
_QUEUE_USERS = ("start_queue_runners", "QueueRunner", "add_queue_runner", "Supervisor")


# Rules whose bare `tf.` name --fix renames to `tf.compat.v1.` one by one
# when the module keeps its `import tensorflow as tf`.
RENAMED_TO_V1 = ("summary-v1", "name-scope-v1")
# TF 1.x's name_scope(name, default_name=None, values=None): TF 2's tf.name_scope
# takes the name alone.
_NAME_SCOPE_V1_KEYWORDS = ("default_name", "values")


def summary_edits(source: str) -> list:
    """Edits renaming each bare graph-mode summary (and TF 1.x-signature
    name_scope) to `tf.compat.v1.*`."""
    tree = ast.parse(source)
    off = Offsets(source)
    out = []
    for node, api, _, found in find(tree, _aliases.AliasTable(tree)):
        text = off.segment(node)
        tail = api[len("tf.") :]
        if found.rule_id in RENAMED_TO_V1 and text.endswith(tail):
            head = text[: -len(tail)]
            out.append(off.replace(node, f"{head}compat.v1.{tail}"))
    return out


def covers(api: str) -> bool:
    """True for the `tf.` names this module reports wherever they are written."""
    return api == "tf.test.is_gpu_available"


def summary_rule(name: str) -> _rules.Rule:
    """The rule for a bare `tf.summary.<name>` in graph-mode code."""
    if name in SUMMARY_V1:
        what = f"tf.summary.{name} exists only in tf.compat.v1 on TF 2.x"
    else:
        what = (
            f"tf.summary.{name} under `import tensorflow as tf` is the TF 2 summary "
            "API (eager, needs a default writer and a step; fails in graph mode)"
        )
    base = rule(
        "summary-v1",
        what,
        f"tf.compat.v1.summary.{name} (emg-migrate --fix writes it)",
        COMPAT_ANCHOR,
    )
    return ported(base, "or the compat.v1 import")


NAME_SCOPE_V1 = ported(
    rule(
        "name-scope-v1",
        "tf.name_scope(name, default_name, values) is TF 1.x's signature; TF 2's "
        "tf.name_scope takes the name alone (TypeError when the line runs)",
        "tf.compat.v1.name_scope (the same arguments; emg-migrate --fix writes it)",
        COMPAT_ANCHOR,
    ),
    "or the compat.v1 import",
)


def _is_v1_name_scope(table, node: ast.Attribute, call: ast.Call | None) -> bool:
    """`<tf>.name_scope(...)` called as TF 1.x did, `<tf>` bound to tensorflow."""
    root = node.value
    return (
        node.attr == "name_scope"
        and call is not None
        and isinstance(root, ast.Name)
        and table.bindings.get(root.id) == "tensorflow"
        and (
            len(call.args) > 1
            or any(k.arg in _NAME_SCOPE_V1_KEYWORDS for k in call.keywords)
        )
    )


def layers_rule() -> _rules.Rule:
    """The rule for bare `tf.layers` under `import tensorflow as tf`."""
    base = rule(
        "layers",
        "tf.layers exists only in tf.compat.v1 on TF 2.x, and there needs "
        "tf-keras on TF 2.16+",
        "the compat.v1 import and, for TF 2.16+, "
        'os.environ.setdefault("TF_USE_LEGACY_KERAS", "1") before the module\'s '
        "TensorFlow import (emg-migrate --fix writes both); "
        + _legacy_keras_env.install_advice()
        + " (or move to tf.keras.layers)",
        "legacy-layers",
    )
    return ported(base)


GPU_PROBE = rule(
    "device-lib",
    "tf.test.is_gpu_available initialises every GPU and grabs its memory",
    "emg.devices.resolve() (the GPUs, else the simulated devices, else "
    "['/cpu:0']: run on what it lists); bool(tf.config.list_physical_devices("
    "'GPU')) only where a real GPU is required (it is False on simulated devices). "
    "Where it only gates the run (`assert`/`if` test), emg-migrate --fix writes "
    "emg.devices.available() (never empty: a GPU-less machine runs the towers on "
    "simulated devices, as allow_soft_placement ran them on the CPU)",
    "device-lib",
)
IDLE_COORDINATOR = rule(
    "queue-runner",
    "a Coordinator with no queue runners or Python threads to coordinate "
    "(the input is tf.data now)",
    "delete it with its should_stop/request_stop/join calls; the end of input "
    "is tf.errors.OutOfRangeError",
    "queue-runners",
)
READER_VALUE = rule(
    "queue-reader",
    "a queue reader class handed to another API reads through queues there",
    "feed that API's consumer from a tf.data pipeline instead: "
    "tf.data.TFRecordDataset(files) + parse (emg.inputs.record_dataset_fn), "
    "e.g. in place of slim.dataset.Dataset + DatasetDataProvider",
    "readers",
)


def _summary_name(table, node) -> str | None:
    """`op` for `<tf>.summary.<op>` with `<tf>` bound to `tensorflow` itself."""
    inner = node.value if isinstance(node, ast.Attribute) else None
    if not (isinstance(inner, ast.Attribute) and inner.attr == "summary"):
        return None
    root = inner.value
    if not (isinstance(root, ast.Name) and table.bindings.get(root.id) == "tensorflow"):
        return None
    return node.attr if node.attr in SUMMARY_OPS + SUMMARY_V1 else None


def _is_v2_summary_call(call: ast.Call) -> bool:
    return any(k.arg == "step" for k in call.keywords) or len(call.args) > 2


def find(tree: ast.Module, table: _aliases.AliasTable):
    """Yields (node, api, text, rule) for bare summaries, TF 1.x-signature
    name_scopes and GPU probes."""
    calls = {id(n.func): n for n in _astutil.nodes(tree, ast.Call)}
    for node in _astutil.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = _summary_name(table, node)
        call = calls.get(id(node))
        if name and not (call and name in SUMMARY_OPS and _is_v2_summary_call(call)):
            yield node, f"tf.summary.{name}", ast.unparse(node), summary_rule(name)
        elif _is_v1_name_scope(table, node, call):
            yield node, "tf.name_scope", ast.unparse(node), NAME_SCOPE_V1
        elif table.resolve_tf(node) == "tf.test.is_gpu_available":
            yield node, "tf.test.is_gpu_available", ast.unparse(node), GPU_PROBE


def _uses_queues(tree, table) -> bool:
    if _queue_loops.find(tree, table):  # starts runners made in another file
        return True
    for node in _astutil.walk(tree):
        if isinstance(node, ast.Attribute | ast.Name):
            path = table.resolve_tf(node) or ""
            last = path.rsplit(".", 1)[-1]
            if last in _QUEUE_USERS + _rules.PRODUCERS + _rules.BATCHERS:
                return True
    return False


def _uses_threads(table: _aliases.AliasTable) -> bool:
    """True if the module imports `threading` (Python threads to coordinate)."""
    return any(p.split(".")[0] == "threading" for p in table.bindings.values())


def _called(tree) -> set[int]:
    return {id(n.func) for n in _astutil.nodes(tree, ast.Call)}


def _via_compat(table, node) -> bool:
    return (table.resolve(node) or "").startswith("tensorflow.compat.v1")


def refine(tree: ast.Module, table: _aliases.AliasTable, findings: list) -> list:
    """Drops or rewords findings the era's shapes make wrong.

    - `tf.compat.v1.layers` is a correct port (not a finding); bare `tf.layers`
      is resolved by the compat.v1 port.
    - A Coordinator in a file with no queue runners only joins Python threads
      (not a finding) if the file uses `threading`; else it coordinates
      nothing and is reported as such (as it is after `--fix` removed the
      queues it stopped).
    - A reader class that is not called is handed to another API.
    """
    queues = _uses_queues(tree, table)
    called = _called(tree)
    stmt = _compat_v1.tf_import(tree)
    tf_name = stmt.names[0].asname if stmt else None
    out = []
    for f in findings:
        rid = f.rule.rule_id
        if rid == "layers" and _via_compat(table, f.node):
            continue
        if rid == "layers" and _compat_v1.root_name(f.node) == tf_name:
            f.rule = layers_rule()
        elif f.api == "tf.train.Coordinator" and not queues:
            if _uses_threads(table):
                continue
            f.rule = IDLE_COORDINATOR
        elif rid == "queue-reader" and id(f.node) not in called and f.rule.chain:
            f.rule = READER_VALUE
        out.append(f)
    return out
