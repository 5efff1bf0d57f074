"""The pipeline model the rules read: stages (dataset nodes) wired source -> final."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import tensorflow as tf

from estimator_multigpu.diagnose import _ops
from estimator_multigpu.diagnose._library import Library, function_names

DEVICE_COPY = "device_copy"  # prefetch_to_device / copy_to_device.
MULTI_DEVICE = "multi_device"  # A MultiDeviceIterator's per-device stage.


@dataclasses.dataclass(eq=False)
class Stage:
    """One dataset node of the pipeline graph.

    Attributes:
      op: the op type, e.g. `'ParallelMapDatasetV2'`.
      name: the node's name in its graph (for reports).
      inputs: the stages it reads from, in the op's input order.
      library: the functions of the graph it came from.
      node: its `NodeDef`; None for a stage TensorFlow could not serialize.
      arg_nodes: the nodes producing each data input (Identity followed);
        None where the producer is unknown.
      kind: `DEVICE_COPY`, `MULTI_DEVICE` or `''`.
    """

    op: str
    name: str
    inputs: list[Stage]
    library: Library
    node: tf.compat.v1.NodeDef | None = None
    arg_nodes: list[tf.compat.v1.NodeDef | None] = dataclasses.field(
        default_factory=list
    )
    kind: str = ""

    @property
    def family(self) -> str:
        return _ops.family(self.op)

    @property
    def label(self) -> str:
        """What the user wrote, with the op: `'map (ParallelMapDatasetV2)'`."""
        api = {DEVICE_COPY: "prefetch_to_device", MULTI_DEVICE: "MultiDeviceIterator"}
        return f"{api.get(self.kind) or _ops.api_name(self.op)} ({self.op})"

    def arg(self, name: str) -> Any:
        """A constant input by argument name (e.g. `'buffer_size'`), or None."""
        index = _ops.ARGUMENTS.get(self.op, {}).get(name)
        if index is None or not -len(self.arg_nodes) <= index < len(self.arg_nodes):
            return None
        return const_value(self.arg_nodes[index])

    def int_arg(self, name: str) -> int | None:
        value = self.arg(name)
        return None if value is None else int(np.asarray(value).reshape(-1)[0])

    def attr_text(self, key: str) -> str | None:
        if self.node is None or key not in self.node.attr:
            return None
        value = self.node.attr[key]
        return value.s.decode() if value.WhichOneof("value") == "s" else None

    @property
    def functions(self) -> list[str]:
        return [] if self.node is None else function_names(self.node)

    def function_ops(self) -> set[str]:
        """Op types in this stage's functions, nested functions included."""
        return self.library.op_types(self.functions)

    def output_signature(self) -> list[tuple[tf.DType, tf.TensorShape]] | None:
        """`(dtype, shape)` of each component of the elements, when recorded."""
        if self.node is None:
            return None
        attrs = self.node.attr
        types_key = "output_types" if "output_types" in attrs else "Toutput_types"
        if types_key not in attrs or "output_shapes" not in attrs:
            return None
        types = [tf.dtypes.as_dtype(t) for t in attrs[types_key].list.type]
        shapes = [tf.TensorShape(s) for s in attrs["output_shapes"].list.shape]
        return list(zip(types, shapes))


def const_value(node: tf.compat.v1.NodeDef | None) -> Any:
    """The value of a `Const` node as numpy, else None."""
    if node is None or node.op != "Const":
        return None
    if node.attr["dtype"].type in (
        tf.resource.as_datatype_enum,
        tf.variant.as_datatype_enum,
    ):
        return None
    return tf.make_ndarray(node.attr["value"].tensor)


def topological(roots: list, inputs_of) -> list:
    """Nodes reachable from `roots`, each after its inputs (depth-first, in input order).

    The same order for the graph's stages and for the Python datasets that
    made them, so the two can be matched one to one.
    """
    order, seen = [], set()
    stack = [(root, False) for root in reversed(roots)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((i, False) for i in reversed(inputs_of(node)))
    return order


class Pipeline:
    """The stages reachable from one or more final stages (`roots`)."""

    def __init__(self, roots: list[Stage]):
        self.roots = list(roots)
        self.stages: list[Stage] = topological(self.roots, lambda s: s.inputs)
        self.consumers: dict[Stage, list[Stage]] = {s: [] for s in self.stages}
        for stage in self.stages:
            for upstream in stage.inputs:
                if stage not in self.consumers[upstream]:
                    self.consumers[upstream].append(stage)
        self._positions: dict[Stage, int] = {}
        for root in self.roots:
            for index, stage in enumerate(self.upstream(root) + [root]):
                self._positions.setdefault(stage, index + 1)

    def position(self, stage: Stage) -> int:
        """1-based position from the sources, within the first root's pipeline.

        Per-device copies of one pipeline give their stages equal positions.
        """
        return self._positions[stage]

    def upstream(self, stage: Stage) -> list[Stage]:
        """Every stage `stage` reads from, directly or not, sources first."""
        return self._closure(stage, lambda s: s.inputs)

    def downstream(self, stage: Stage) -> list[Stage]:
        """Every stage that reads `stage`'s elements, directly or not."""
        return self._closure(stage, lambda s: self.consumers.get(s, []))

    def _closure(self, stage: Stage, step) -> list[Stage]:
        found, pending = set(), list(step(stage))
        while pending:
            current = pending.pop()
            if current not in found:
                found.add(current)
                pending.extend(step(current))
        return [s for s in self.stages if s in found]

    def last(self, root: Stage) -> Stage:
        """The final transformation of a root, options wrappers skipped."""
        while root.op in _ops.PASS_THROUGH and root.inputs:
            root = root.inputs[0]
        return root
