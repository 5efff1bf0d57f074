"""The function library of a dataset graph: the bodies of map, filter and interleave functions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import tensorflow as tf

from estimator_multigpu._dataset_graph import function_names


class Library:
    """Functions by name, merged from one or more serialized graphs."""

    def __init__(self):
        self._functions: dict[str, tf.compat.v1.FunctionDef] = {}

    def add(self, library: tf.compat.v1.FunctionDefLibrary) -> None:
        for function in library.function:
            self._functions.setdefault(function.signature.name, function)

    def get(self, name: str) -> tf.compat.v1.FunctionDef | None:
        return self._functions.get(name)

    def nodes(self, names: Iterable[str]) -> Iterator[tf.compat.v1.NodeDef]:
        """Every node of the named functions and of the functions they call."""
        pending, seen = list(names), set()
        while pending:
            name = pending.pop()
            function = self._functions.get(name)
            if name in seen or function is None:
                continue
            seen.add(name)
            for node in function.node_def:
                yield node
                pending.extend(function_names(node))

    def op_types(self, names: Iterable[str]) -> set[str]:
        """The op types used anywhere in the named functions."""
        return {node.op for node in self.nodes(names)}
