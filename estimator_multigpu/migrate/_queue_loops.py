"""Queue-runner starters: the eval scripts' `for qr in tf.get_collection(QUEUE_RUNNERS):
qr.create_threads(...)` loop, `start_queue_runners` and the Coordinator.

They go only when every queue of the program is rewritten: a starter dropped
while one queue is left leaves that queue's threads unstarted, and the first
`sess.run` of its dequeue blocks forever.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _aliases, _astutil
from estimator_multigpu.migrate._edits import Edit, Offsets
from estimator_multigpu.migrate._rules import Rule

RULE = Rule(
    "queue-runner",
    "the loop starts the threads of the graph's QueueRunners",
    "nothing: a tf.data pipeline registers no queue runners; drop the loop "
    "(the thread list stays empty, coord.join of it returns at once)",
    "runners",
)
API = "tf.GraphKeys.QUEUE_RUNNERS loop"
# Findings that start or stop queue-runner threads (they make no queue).
_STARTERS = {
    API: "the loop starts the threads of the graph's QueueRunners",
    "tf.train.start_queue_runners": "start_queue_runners starts the threads "
    "that fill queues",
    "tf.train.Coordinator": "the Coordinator stops queue-runner threads",
}
STARTERS = tuple(_STARTERS)
# Findings that are not queues although their rules are queue rules.
_NOT_QUEUES = STARTERS + ("tf.train.match_filenames_once",)
_QUEUE_RULES = (
    "queue",
    "queue-producer",
    "queue-batcher",
    "queue-reader",
    "queue-runner",
    "slim-prefetch-queue",
)


def queues_left(findings) -> list:
    """The findings among `findings` that still make a queue or a queue
    runner (not rewritten): producers, readers, batchers, queues,
    QueueRunner/add_queue_runner, prefetch queues."""
    return [
        f
        for f in findings
        if not f.fixed and f.rule.rule_id in _QUEUE_RULES and f.api not in _NOT_QUEUES
    ]


def reason(left) -> str | None:
    """Why starters stay: the first queue left, with its file and line."""
    if not left:
        return None
    first = min(left, key=lambda f: (f.path, f.line, f.col))
    more = f" (and {len(left) - 1} more)" if len(left) > 1 else ""
    return (
        f"`{first.text}` at {first.path}:{first.line} is still a queue{more}; "
        "its threads must start"
    )


def kept(findings, why=None) -> str | None:
    """Rewords the starters among `findings` if a queue is left (`why`, else
    the first of `findings`); returns the reason, or None when none is."""
    why = why or reason(queues_left(findings))
    if why is not None:
        keep(findings, why)
    return why


def keep(findings, why: str) -> None:
    """Rewords the starters among `findings`: they stay, because of `why`."""
    for f in findings:
        if f.api in STARTERS and not f.fixed:
            f.rule = dataclasses.replace(
                f.rule,
                summary=f"{_STARTERS[f.api]}; kept: {why}",
                replacement="keep it while that queue is left; once every "
                "queue of the program is rewritten it has nothing to start or "
                "stop (run emg-migrate --fix on all the program's files at once)",
            )


def _is_runner_loop(node: ast.AST, table: _aliases.AliasTable) -> bool:
    if not isinstance(node, ast.For) or not isinstance(node.target, ast.Name):
        return False
    it = node.iter
    if not (
        isinstance(it, ast.Call)
        and table.resolve_tf(it.func) == "tf.get_collection"
        and it.args
        and table.resolve_tf(it.args[0]) == "tf.GraphKeys.QUEUE_RUNNERS"
    ):
        return False
    name = node.target.id
    uses = [n for n in _astutil.nodes(node, ast.Name) if n.id == name]
    methods = [
        n
        for n in _astutil.nodes(node, ast.Attribute)
        if isinstance(n.value, ast.Name)
        and n.value.id == name
        and n.attr == "create_threads"
    ]
    return len(uses) == len(methods) + 1


def find(tree: ast.AST, table: _aliases.AliasTable) -> list[ast.For]:
    """The loops that start queue-runner threads by hand."""
    return [n for n in _astutil.walk(tree) if _is_runner_loop(n, table)]


def _alone(off: Offsets, stmt: ast.stmt) -> bool:
    before = off.lines[stmt.lineno - 1].encode()[: stmt.col_offset]
    after = off.lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset :].strip()
    return not before.strip() and (not after or after.startswith(b"#"))


def _drop(f, off: Offsets, parents) -> Edit:
    """The edit that drops loop `f.node` (`pass` when it is alone in its block)."""
    start = off.line_start(f.node.lineno)
    edit = Edit(start, off.line_end(f.node.end_lineno), "")
    if len(parents.get(id(f.node), [])) == 1:
        indent = off.lines[f.node.lineno - 1][: f.node.col_offset]
        edit = Edit(edit.start, edit.end, f"{indent}pass{off.newline}")
    return edit


def edits(tree, off: Offsets, findings, prior: list[Edit], notes, why=None):
    """Drops the loops (a lone one becomes `pass`); marks their findings fixed.

    Nothing is dropped while a queue is left (`why`, a `reason`, says which;
    by default the first of this file's `findings`): the loops and the other
    starters are reworded (`keep`) and each loop gets a note in `notes`.

    Returns:
      `prior` plus the new edits.
    """
    why = kept(findings, why)
    if why is not None:
        loops = [f for f in findings if f.api == API]
        notes.extend((f.line, f"queue-runner loop kept: {why}") for f in loops)
        return list(prior)
    out = list(prior)
    parents = {
        id(s): block for block in _blocks(tree) for s in block if isinstance(s, ast.For)
    }
    for f in findings:
        if f.fixed or f.api != API or not _alone(off, f.node):
            continue
        edit = _drop(f, off, parents)
        if any(e.start < edit.end and edit.start < e.end for e in out):
            continue
        out.append(edit)
        f.fixed = True
    return out


def _blocks(tree: ast.AST):
    for scope in _astutil.scopes(tree):
        yield from _astutil.blocks(scope)


def _program_reason(results) -> str | None:
    return reason([f for r in results for f in r.queues])


def program(results) -> dict[int, dict]:
    """The `'program'` rule: `{index: {"keep_runners": why}}` for the files
    whose starters `--fix` dropped while another file keeps a queue."""
    why = _program_reason(results)
    if why is None:
        return {}
    return {
        i: {"keep_runners": why}
        for i, result in enumerate(results)
        if any(f.fixed and f.api == API for f in result.findings)
    }


def program_starters(results) -> dict[int, dict]:
    """The last `'program'` rule: every file's starters that stay name the
    queue left in the program; no file is processed again."""
    why = _program_reason(results)
    if why is not None:
        for result in results:
            keep(result.findings, why)
    return {}
