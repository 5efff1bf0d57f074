"""TF_USE_LEGACY_KERAS=1 in a module that uses tf.compat.v1.layers or rnn_cell.

On TF 2.16+ `tf.compat.v1.layers.*` and `tf.compat.v1.nn.rnn_cell.*` are
served by the tf-keras package only when `TF_USE_LEGACY_KERAS` is `1` (or
`true`); else each raises `AttributeError: ... is not available with Keras
3`. TensorFlow reads the variable twice (TF 2.21, tensorflow/__init__.py and
python/util/lazy_loader.py): at `import tensorflow`, for the import path of
`tensorflow.keras` submodules, and lazily, when a lazily loaded module
(`tf.keras`, `tf.compat.v1.layers`, `tf.compat.v1.nn.rnn_cell`) has its
first attribute read, each once. Set before the module's TensorFlow import,
it is in place for both, whichever module of the program imports TensorFlow
first, as long as no module uses the layers before this one is imported.

A module whose rewritten text uses such a name gets, before its first
module-level TensorFlow import, `os.environ.setdefault("TF_USE_LEGACY_KERAS",
"1")` (and `import os` where none precedes it): a value the user set is
kept, and a module that names the variable already is left as it is, so a
second `--fix` adds nothing. Where `tf_keras` cannot be imported here, a
note says to install it.
"""

from __future__ import annotations

import ast
import importlib.util

from estimator_multigpu.migrate import _aliases, _astutil

VARIABLE = "TF_USE_LEGACY_KERAS"
# The canonical (`tf.`) prefixes of the names tf-keras serves on TF 2.16+.
_LEGACY_PREFIXES = ("tf.layers.", "tf.nn.rnn_cell.")
SETTING = (
    "# tf.compat.v1.layers and tf.compat.v1.nn.rnn_cell come from tf-keras on\n"
    "# TF 2.16+, only with TF_USE_LEGACY_KERAS=1 set before they are first used\n"
    "# (emg-migrate --fix; a value set before is kept).\n"
    f'os.environ.setdefault("{VARIABLE}", "1")\n'
)
INSTALL_NOTE = (
    f"{VARIABLE}=1 set for tf.compat.v1.layers / rnn_cell, but tf_keras is not "
    "importable here: pip install tf-keras (the version matching TensorFlow's)"
)


def uses_legacy_keras(tree: ast.Module) -> bool:
    """True when the module reads a name of tf.layers or tf.nn.rnn_cell."""
    table = _aliases.AliasTable(tree)
    return any(
        (table.resolve_tf(node) or "").startswith(_LEGACY_PREFIXES)
        for node in _astutil.nodes(tree, ast.Attribute, ast.Name)
    )


def _names_variable(source: str, tree: ast.Module) -> bool:
    return VARIABLE in source and any(
        n.value == VARIABLE for n in _astutil.nodes(tree, ast.Constant)
    )


def _is_tf_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return any(a.name.split(".")[0] == "tensorflow" for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
        return stmt.module.split(".")[0] == "tensorflow"
    return False


def _is_preamble(index: int, stmt: ast.stmt) -> bool:
    """The docstring and `from __future__` imports, which must stay first."""
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
        return True
    return (
        index == 0
        and isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _place(body: list[ast.stmt]) -> int:
    """The index of the statement the setting goes before."""
    for i, stmt in enumerate(body):
        if _is_tf_import(stmt):
            return i
    i = 0
    while i < len(body) and _is_preamble(i, body[i]):
        i += 1
    return i


def _imports_os(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(s, ast.Import)
        and any(a.name == "os" and a.asname is None for a in s.names)
        for s in body
    )


def tf_keras_installed() -> bool:
    return importlib.util.find_spec("tf_keras") is not None


def setting(source: str) -> str:
    """`source` with the setting before its TensorFlow import, where needed."""
    if not any(word in source for word in ("layers", "rnn_cell")):
        return source  # no spelling of a tf.layers or rnn_cell name
    tree = _astutil.parse(source)
    if not uses_legacy_keras(tree) or _names_variable(source, tree):
        return source
    at = _place(tree.body)
    text = SETTING if _imports_os(tree.body[:at]) else "import os\n\n" + SETTING
    lines = source.splitlines(keepends=True)
    if at == len(tree.body):
        head = source if source.endswith("\n") or not source else source + "\n"
        return head + text
    line = tree.body[at].lineno - 1
    decorated = getattr(tree.body[at], "decorator_list", None)
    if decorated:
        line = decorated[0].lineno - 1
    return "".join(lines[:line]) + text + "\n" + "".join(lines[line:])


def port(source: str, m, ctx) -> str:
    """The `ports` rule: the setting, and a note when tf_keras is missing."""
    new = setting(source)
    if new != source and not tf_keras_installed():
        m.notes.append((1, INSTALL_NOTE))
    return new


def install_advice() -> str:
    """What the layers finding says of tf-keras: installed, or how to install it."""
    if tf_keras_installed():
        return "tf-keras is installed"
    return "tf-keras is not importable here: pip install tf-keras"
