"""One logging style: library code logs with `tf.get_logger().<level>(...)` (ast).

docs/architecture.md: library code logs through TensorFlow's logger
(`tf.get_logger()`), never configures handlers and never prints (CLIs print
results), and never calls `logging.basicConfig` (absl's first log call does).
So, in every module of the package: no stdlib `logging` or absl `logging`
import, no `tf.compat.v1.logging` (neither calls nor an alias of it), no
logger of its own (`getLogger`, `basicConfig`, handlers), and `print` only in
a command-line module (one with an `if __name__ == "__main__":` block).
Known-bad and known-good samples at the end prove that the check can fail.
"""

import ast
import pathlib

import pytest

import estimator_multigpu

PACKAGE = pathlib.Path(estimator_multigpu.__file__).parent


def _dotted(node: ast.AST) -> str:
    """`tf.compat.v1.logging` for that attribute chain; '' for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _is_cli(tree: ast.Module) -> bool:
    """Whether the module has an `if __name__ == "__main__":` block."""
    return any(
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and _dotted(node.test.left) == "__name__"
        for node in tree.body
    )


def _import_problems(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [f"import {a.name}" for a in node.names if a.name in ("logging", "absl")]
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        names = {a.name for a in node.names}
        if module in ("logging", "absl.logging") or (
            module == "absl" and "logging" in names
        ):
            return [f"from {module} import {', '.join(sorted(names))}"]
        if module.startswith("estimator_multigpu") and "log" in names:
            return [f"from {module} import log"]
    return []


def _use_problems(node: ast.AST) -> list[str]:
    name = _dotted(node) if isinstance(node, ast.Attribute) else ""
    if name.startswith("tf.compat.v1.logging"):
        return [name]
    if isinstance(node, ast.Attribute) and node.attr in (
        "getLogger",
        "basicConfig",
        "addHandler",
    ):
        return [name or node.attr]
    return []


def logging_problems(tree: ast.Module) -> list[str]:
    """`line: what` for each way `tree` logs other than `tf.get_logger()`."""
    cli = _is_cli(tree)
    found = []
    for node in ast.walk(tree):
        for what in _import_problems(node) + _use_problems(node):
            found.append(f"{node.lineno}: {what}")
        if (
            not cli
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
        ):
            found.append(f"{node.lineno}: print")
    return found


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(), str(path))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


MODULES = _modules()


@pytest.mark.parametrize("path", sorted(MODULES))
def test_the_module_logs_through_tf_get_logger_only(path):
    found = logging_problems(MODULES[path])
    assert not found, f"{path}: log with tf.get_logger().<level>(...): {found}"


BAD = {
    "stdlib logging": "import logging\n\nlogging.info('x')\n",
    "stdlib getLogger": "import logging\n\n_LOG = logging.getLogger(__name__)\n",
    "absl": "from absl import logging\n\nlogging.info('x')\n",
    "tf.compat.v1.logging call": "tf.compat.v1.logging.info('x')\n",
    "tf.compat.v1.logging alias": "logging = tf.compat.v1.logging\n",
    "the runner's old alias": "from estimator_multigpu.estimator import log\n",
    "basicConfig": "import logging\n\nlogging.basicConfig()\n",
    "a handler": "tf.get_logger().addHandler(h)\n",
    "print in a library module": "def f():\n    print('done')\n",
}
GOOD = {
    "tf.get_logger": "tf.get_logger().info('x %s', 1)\ntf.get_logger().warning('y')\n",
    "print in a CLI": "def main():\n    print('ok')\n\nif __name__ == '__main__':\n    main()\n",
    "a local named log": "log = []\nlog.append(1)\n",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_known_bad_samples_are_rejected(name):
    assert logging_problems(ast.parse(BAD[name]))


@pytest.mark.parametrize("name", sorted(GOOD))
def test_known_good_samples_are_accepted(name):
    assert logging_problems(ast.parse(GOOD[name])) == []
