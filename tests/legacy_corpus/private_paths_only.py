"""An arg-scope helper in the style of the first TF-slim (2016): it keeps its
stack of default arguments in a graph collection and imports TensorFlow only
through private module paths (`from tensorflow.python.framework import ops`),
never `import tensorflow`.

Each private name has a public one (tf.compat.v1.get_collection, ...);
`emg-migrate --fix` writes those and imports the package itself, since the
module has no `tf` to spell them with.
Usage: python private_paths_only.py
"""

import contextlib

from tensorflow.python.client import session
from tensorflow.python.framework import constant_op, ops
from tensorflow.python.ops import math_ops

_ARGSTACK_KEY = ("__arg_stack",)


def _get_arg_stack():
    stack = ops.get_collection(_ARGSTACK_KEY)  # expect: private-tf
    if stack:
        return stack[0]
    stack = [{}]
    ops.add_to_collection(_ARGSTACK_KEY, stack)  # expect: private-tf
    return stack


@contextlib.contextmanager
def arg_scope(**defaults):
    stack = _get_arg_stack()
    current = dict(stack[-1])
    current.update(defaults)
    stack.append(current)
    try:
        yield current
    finally:
        stack.pop()


def scale(x, factor=1.0):
    factor = _get_arg_stack()[-1].get("factor", factor)
    return math_ops.multiply(x, factor)  # expect: private-tf


def main():
    with ops.Graph().as_default():  # expect: private-tf
        x = constant_op.constant([1.0, 2.0])  # expect: private-tf
        with arg_scope(factor=3.0):
            y = scale(x)
        z = scale(x)
        with session.Session() as sess:  # expect: private-tf
            print("scaled", sess.run(y).tolist(), sess.run(z).tolist())


if __name__ == "__main__":
    main()
