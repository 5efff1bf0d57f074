"""`_astutil.walk`: ast.walk's nodes in ast.walk's order, found once per node."""

import ast
import gc
import weakref

from estimator_multigpu.migrate import _astutil

SOURCE = """
import tensorflow as tf

def tower(x, i):
    with tf.device('/gpu:%d' % i):
        return [tf.reduce_sum(y) for y in tf.split(x, 2)]

class A:
    def f(self):
        return lambda z: z + 1
"""


def test_walk_yields_ast_walks_nodes_in_its_order():
    tree = ast.parse(SOURCE)
    expected = list(ast.walk(tree))
    assert list(_astutil.walk(tree)) == expected
    assert list(_astutil.walk(tree)) == expected  # the kept list, again
    func = tree.body[1]
    assert list(_astutil.walk(func)) == list(ast.walk(func))


def test_a_walk_is_kept_on_the_node_and_read_back():
    tree = ast.parse(SOURCE)
    list(_astutil.walk(tree))
    kept = tree.__dict__[_astutil._BELOW]
    kept.append(marker := ast.Pass())  # what is kept is what a walk yields
    assert list(_astutil.walk(tree))[-1] is marker


def test_a_walked_tree_is_freed_without_the_cycle_collector():
    tree = ast.parse(SOURCE)
    list(_astutil.walk(tree))
    list(_astutil.walk(tree.body[1]))
    ref = weakref.ref(tree)
    gc.disable()
    try:
        del tree
        assert ref() is None  # no reference cycle through the kept lists
    finally:
        gc.enable()


def _stack_walk(nodes):
    """walk_scope's order, written out: a stack, nested scopes not entered."""
    stack, out = list(nodes), []
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(
            c for c in ast.iter_child_nodes(node) if not isinstance(c, _astutil.SCOPES)
        )
    return out


def test_walk_scope_keeps_its_order_and_leaves_nested_scopes_out():
    tree = ast.parse(SOURCE)
    for nodes in ([tree], tree.body, [tree.body[1]], tree.body[1].body):
        assert list(_astutil.walk_scope(nodes)) == _stack_walk(nodes)
        assert list(_astutil.walk_scope(nodes)) == _stack_walk(nodes)  # kept
    module_scope = list(_astutil.walk_scope([tree]))
    assert not any(isinstance(n, ast.Return) for n in module_scope)
