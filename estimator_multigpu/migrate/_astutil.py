"""Small AST helpers: scope-limited walks, name reads and writes, statement blocks."""

from __future__ import annotations

import ast
import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_SCOPE_CLASSES = frozenset(SCOPES)  # none has a subclass
# The nodes that bind a name: defs and classes, stored or deleted names,
# import aliases, parameters (`writes`, and the rules asking whether a
# module binds a name itself, filter `nodes(tree, *BINDING_NODES)`).
BINDING_NODES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Name,
    ast.alias,
    ast.arg,
)
_DEFS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def walk(node: ast.AST) -> Iterable[ast.AST]:
    """`ast.walk(node)`'s nodes, in its order, found once per node.

    The rules walk the same trees many times over (a module, each function,
    each statement), and most of a walk is finding each node's children.
    A tree is never changed in place (rewrites are text edits), so the nodes
    under `node` are kept on it (without `node` itself: no reference cycle)
    and each later walk is a list.
    """
    below = node.__dict__.get(_BELOW)
    if below is None:
        below = _breadth_first(node)[1:]
        setattr(node, _BELOW, below)
    return itertools.chain((node,), below)


_BELOW = "_emg_nodes_below"


def _children(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`, read from the fields directly and
    kept on the node: the walks of a module, of its functions and of their
    statements each go through the same nodes. Do not modify the result."""
    found = node.__dict__.get(_CHILDREN)
    if found is None:
        found, node_class = [], ast.AST
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, node_class):
                found.append(value)
            elif type(value) is list:
                found.extend(v for v in value if isinstance(v, node_class))
        node.__dict__[_CHILDREN] = found
    return found


_CHILDREN = "_emg_children"


def _breadth_first(node: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(node))`: the same nodes in the same order, without its
    two generators per node (most of a first walk's time)."""
    found, i = [node], 0
    while i < len(found):
        found.extend(_children(found[i]))
        i += 1
    return found


def nodes(tree: ast.AST, *types: type) -> list[ast.AST]:
    """The nodes of `walk(tree)` of any of `types`, in walk order.

    Most rules look at one or two kinds of node (calls, imports, functions)
    in the whole module, and a filter over every node is most of such a look.
    The first call sorts the tree's nodes by their class, once per tree (kept
    on it, as `walk` keeps its nodes); later calls are a lookup. Several
    classes, or a class with subclasses (`ast.expr`, `ast.stmt`), are
    filtered for once per tree and tuple of classes (by `isinstance` only
    when one has subclasses). Do not modify the result.
    """
    index = tree.__dict__.get(_INDEX)
    if index is None:
        index = {}
        for node in walk(tree):
            kind = type(node)
            same = index.get(kind)
            if same is None:
                index[kind] = [node]
            else:
                same.append(node)
        setattr(tree, _INDEX, index)
    if len(types) == 1 and not types[0].__subclasses__():
        return index.get(types[0], [])
    found = index.get(types)
    if found is None:
        if any(t.__subclasses__() for t in types):
            found = [n for n in walk(tree) if isinstance(n, types)]
        else:
            classes = frozenset(types)
            found = [n for n in walk(tree) if type(n) in classes]
        index[types] = found
    return found


_INDEX = "_emg_nodes_by_class"


def walk_scope(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Yields every node under `nodes`, not entering nested defs or classes
    (depth first, the last of `nodes` first), each node's part found once."""
    return itertools.chain.from_iterable(_in_scope(n) for n in reversed(nodes))


def _in_scope(node: ast.AST) -> Iterable[ast.AST]:
    """`node` and the nodes under it outside nested scopes, kept as `walk` keeps
    its nodes."""
    below = node.__dict__.get(_SCOPE_BELOW)
    if below is None:
        below, stack = [], [node]
        while stack:
            found = stack.pop()
            below.append(found)
            stack.extend(c for c in _children(found) if type(c) not in _SCOPE_CLASSES)
        below = below[1:]
        setattr(node, _SCOPE_BELOW, below)
    return itertools.chain((node,), below)


_SCOPE_BELOW = "_emg_scope_nodes_below"


@functools.lru_cache(maxsize=2)
def parse(source: str) -> ast.Module:
    """`ast.parse(source)`, parsed once for the same text running twice.

    The ports each parse the rewritten text, and most leave it as it is, so
    the next port (and the final check that the rewrite parses) gets the
    same text. A tree is never changed in place (rewrites are text edits).
    """
    return ast.parse(source)


def reads(node: ast.AST) -> Counter:
    """Counts the names `node` reads (an augmented assignment reads its target).

    Counted once per node (kept on it, as `walk` keeps its nodes); each call
    returns a new Counter.
    """
    found = node.__dict__.get(_READS)
    if found is None:
        found = Counter()
        for n in walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                found[n.id] += 1
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                found[n.target.id] += 1
        setattr(node, _READS, found)
    return Counter(found)


_READS = "_emg_reads"


@functools.lru_cache(maxsize=2)
def module_reads(tree: ast.Module) -> Counter:
    """`reads(tree)` for a whole module, counted once per tree, not per caller.

    For the checks a pass makes once per loop or call site (a module is never
    changed in place: rewrites are text edits). Do not modify the result.
    """
    return reads(tree)


def writes(node: ast.AST) -> set[str]:
    """Returns the names `node` binds (found once per node; a new set each call)."""
    found = node.__dict__.get(_WRITES)
    if found is None:
        found = set()
        binders = (
            nodes(node, *BINDING_NODES) if type(node) is ast.Module else walk(node)
        )
        for n in binders:
            kind = type(n)
            if kind is ast.Name:
                if type(n.ctx) is not ast.Load:
                    found.add(n.id)
            elif kind in _DEFS:
                found.add(n.name)
            elif kind is ast.arg:
                found.add(n.arg)
            elif kind is ast.alias:
                found.add((n.asname or n.name).split(".")[0])
        found = frozenset(found)
        setattr(node, _WRITES, found)
    return set(found)


_WRITES = "_emg_writes"


def blocks(scope: ast.AST) -> list[list[ast.stmt]]:
    """Each statement list in `scope` (not inside nested defs), found once per
    scope (kept on it, as `walk` keeps its nodes). Do not modify the result."""
    found = scope.__dict__.get(_BLOCKS)
    if found is None:
        found = _blocks(scope)
        setattr(scope, _BLOCKS, found)
    return found


def _blocks(scope: ast.AST) -> list[list[ast.stmt]]:
    """`blocks`, in `walk_scope`'s order, through statements only: no
    expression holds a statement, so none is entered."""
    found, stack = [], [scope]
    while stack:
        node = stack.pop()
        if type(node) in _WITH_BLOCKS:
            for field in ("body", "orelse", "finalbody"):
                value = getattr(node, field, None)
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    found.append(value)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(
                    c
                    for c in value
                    if isinstance(c, _HOLDS) and not isinstance(c, SCOPES)
                )
    return found


# What can hold a statement list: statements, except clauses, match cases.
_HOLDS = (ast.stmt, ast.excepthandler, ast.match_case)


_BLOCKS = "_emg_blocks"


def _classes(base: type) -> Iterator[type]:
    for cls in base.__subclasses__():
        yield cls
        yield from _classes(cls)


# The node classes with a `body`, `orelse` or `finalbody` field (statement
# lists, or an expression's parts, which `blocks` leaves out).
_WITH_BLOCKS = frozenset(
    cls
    for cls in _classes(ast.AST)
    if {"body", "orelse", "finalbody"} & set(getattr(cls, "_fields", ()))
)


def scopes(tree: ast.Module) -> Iterator[ast.AST]:
    """Yields the module and every function in it."""
    yield tree
    yield from nodes(tree, ast.FunctionDef, ast.AsyncFunctionDef)


def call_target(call: ast.AST) -> str | None:
    """Returns the last name of the called function (`f` for `a.b.f()`)."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def unique(base: str, taken: set[str]) -> str:
    """Returns `base`, or `base_2`, `base_3`, ... if taken; marks it taken."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name
