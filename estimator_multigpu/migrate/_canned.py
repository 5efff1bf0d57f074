"""tf.compat.v1.estimator's canned estimators (and TF 1.x code's) onto emg.estimator.v1."""

from __future__ import annotations

import dataclasses

from estimator_multigpu.migrate import _canned_names, _compat_v1
from estimator_multigpu.migrate._engine import Module, ProgramContext

# The compat.v1 port's finding: the module uses TF 1.x names under `tf`.
_TF1_NAMES = _compat_v1.GROUP_API


def _is_v1(m: Module, node, tf1: bool) -> bool:
    """True where `node` names tf.compat.v1.estimator's form, or TF 1.x's."""
    path = m.table.resolve(node) or ""
    if path.startswith("tensorflow.compat.v1."):
        return True
    # `import tensorflow as tf` in a TF 1.x program: its tf.estimator was v1.
    return tf1 and _compat_v1.is_bare(m.table, node)


def v1_forms(m: Module, ctx: ProgramContext) -> list:
    """Points each v1 canned estimator's rename at `emg.estimator.v1`.

    `tf.compat.v1.estimator.DNNClassifier` (however it is imported) and
    `tf.estimator.DNNClassifier` in a module that uses TF 1.x names (one
    written for TF 1.x, whose tf.estimator was the v1 one) keep the v1
    defaults: `emg.estimator.v1.DNNClassifier`. Every other canned estimator
    stays on `emg.estimator`, the TF 2 form.
    """
    del ctx
    tf1 = any(f.api == _TF1_NAMES for f in m.findings)
    out = []
    for f in m.findings:
        name = _canned_names.canned_name(f.api)
        if name and f.rule.rename and _is_v1(m, f.node, tf1):
            rule = dataclasses.replace(
                f.rule,
                rename=f"emg.estimator.v1.{name}",
                replacement=_canned_names.v1_replacement(name),
            )
            f = dataclasses.replace(f, rule=rule)
        out.append(f)
    return out
