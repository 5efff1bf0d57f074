"""A program's own flag named like one of absl.logging's (`--log_dir`).

TensorFlow imports absl.logging since TF 1.14, and absl.logging defines
`--log_dir`, `--logtostderr`, `--verbosity` and a few more on import. TF 1.x
code of TF 1.13 and before defined its own `log_dir` with
`tf.app.flags.DEFINE_string("log_dir", ...)`; on today's TensorFlow that
raises `DuplicateFlagError: The flag 'log_dir' is defined twice. First from
absl.logging`. absl lets a flag be deleted and defined again, so `--fix`
writes, right before the definition,

    if "log_dir" in tf.app.flags.FLAGS:
        delattr(tf.app.flags.FLAGS, "log_dir")

and the program's flag is the only `--log_dir`, as it was (absl.logging
reads the flag by name, so it reads the program's value).
"""

from __future__ import annotations

import ast

from estimator_multigpu.migrate import _astutil
from estimator_multigpu.migrate._edits import Edit
from estimator_multigpu.migrate._engine import Module, ProgramContext
from estimator_multigpu.migrate._finding import at
from estimator_multigpu.migrate._guide_rules import rule

RULE_ID = "absl-logging-flag"
ANCHOR = "absl-logging-flags"
# The flags absl.logging defines on import (tests check them against absl).
NAMES = frozenset(
    {
        "alsologtostderr",
        "log_dir",
        "logger_levels",
        "logtostderr",
        "showprefixforinfo",
        "stderrthreshold",
        "v",
        "verbosity",
    }
)
# The flag modules whose DEFINE_* functions register in absl's global FLAGS.
_MODULES = ("tf.app.flags", "tf.flags", "absl.flags")


def _rule(name: str, fixable: bool):
    summary = (
        f"absl.logging, which TensorFlow imports since TF 1.14, defines --{name} "
        "itself: a second definition raises DuplicateFlagError"
    )
    replacement = (
        f'`if "{name}" in FLAGS: delattr(FLAGS, "{name}")` right before the '
        "definition, so the program's flag is the only one"
    )
    if fixable:
        replacement += " (emg-migrate --fix writes it)"
    else:
        replacement += (
            "; --fix cannot here: the definition is not a statement of its own"
        )
    return rule(RULE_ID, summary, replacement, ANCHOR, fixable=fixable)


def _flag_module(m: Module, call: ast.Call) -> str | None:
    """The flag module `call` is `<module>.DEFINE_*` of, as spelled (`tf.app.flags`)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr.startswith("DEFINE")):
        return None
    path = m.table.resolve_tf(func.value) or m.table.resolve(func.value)
    return m.off.segment(func.value) if path in _MODULES else None


def _flag_name(call: ast.Call) -> str | None:
    """The flag's name, when it is a string written in the call."""
    named = [k.value for k in call.keywords if k.arg == "name"]
    first = call.args[0] if call.args else (named[0] if named else None)
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


# The node classes with a statement list: a `body`, `orelse`, `finalbody`
# or `handlers` field (an expression's `body` is no list of statements).
_HOLDERS = tuple(
    cls
    for cls in vars(ast).values()
    if isinstance(cls, type)
    and issubclass(cls, ast.AST)
    and {"body", "orelse", "finalbody", "handlers"} & set(cls._fields)
)


def _statement_lists(tree: ast.AST):
    """Every list of statements in `tree` (a module's, a function's, ...)."""
    for node in _astutil.nodes(tree, *_HOLDERS):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield stmts
        for handler in getattr(node, "handlers", []):
            yield handler.body


def _is_release(stmt: ast.stmt | None, name: str) -> bool:
    """True for `if "<name>" in ...: delattr(..., "<name>")` (the fix's guard)."""
    if not isinstance(stmt, ast.If) or len(stmt.body) != 1 or stmt.orelse:
        return False
    test, body = stmt.test, stmt.body[0]
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Constant)
        and test.left.value == name
        and isinstance(test.ops[0], ast.In)
        and isinstance(body, ast.Expr)
        and isinstance(body.value, ast.Call)
        and getattr(body.value.func, "id", None) == "delattr"
    )


def _definitions(m: Module):
    """(call, name, module text, statement or None) for each clashing DEFINE."""
    statements = {}
    for stmts in _statement_lists(m.tree):
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                statements[id(stmt.value)] = (stmt, stmts[i - 1] if i else None)
    for node in _astutil.walk(m.tree):
        if not isinstance(node, ast.Call):
            continue
        module, name = _flag_module(m, node), _flag_name(node)
        if module is None or name not in NAMES:
            continue
        stmt, before = statements.get(id(node), (None, None))
        if not _is_release(before, name):
            yield node, name, module, stmt


def find(m: Module, ctx: ProgramContext) -> list:
    """The findings so far plus one per definition of an absl.logging flag."""
    del ctx
    out = list(m.findings)
    for call, name, _, stmt in _definitions(m):
        out.append(
            at(
                m,
                call,
                f"{name} flag",
                m.off.segment(call) or name,
                _rule(name, stmt is not None),
            )
        )
    return out


def edits(m: Module, ctx: ProgramContext) -> list[Edit]:
    """The edits so far plus the guard before each fixable definition."""
    del ctx
    out = list(m.edits)
    fixable = {id(f.node): f for f in m.findings if f.rule.rule_id == RULE_ID}
    for call, name, module, stmt in _definitions(m):
        finding = fixable.get(id(call))
        if stmt is None or finding is None or finding.fixed:
            continue
        start = m.off.line_start(stmt.lineno)
        indent = m.source[start : m.off.at(stmt.lineno, stmt.col_offset)]
        if indent.strip():
            continue  # another statement shares the line
        nl = m.off.newline
        guard = (
            f'{indent}if "{name}" in {module}.FLAGS:{nl}'
            f'{indent}    delattr({module}.FLAGS, "{name}"){nl}'
        )
        out.append(Edit(start, start, guard))
        finding.fixed = True
    return out
