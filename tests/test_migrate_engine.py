"""The migrate rule engine: the registry's declared order, its checks, structured rule fields."""

import ast
import dataclasses
import pathlib
import textwrap

import pytest

from estimator_multigpu.migrate import (
    _aliases,
    _api_changes,
    _api_spec,
    _compat_v1,
    _edit_rules,
    _engine,
    _passes,
    _reader_helpers,
    _registry,
    _slim,
)
from estimator_multigpu.migrate._edits import Offsets, apply
from estimator_multigpu.migrate._engine import Registry, Rule

MIGRATE = pathlib.Path(_engine.__file__).parent


def _noop(module, ctx):
    return module.findings


def test_the_registry_keeps_its_declared_order():
    names = _registry.REGISTRY.names()
    assert len(names) == len(set(names))
    for rule in _registry.REGISTRY.rules:
        assert all(names.index(dep) < names.index(rule.name) for dep in rule.after)


@pytest.mark.parametrize(
    "rules, match",
    [
        (
            (Rule("b", "table", _noop, after=("a",)), Rule("a", "table", _noop)),
            r"rule 'b' runs after 'a' \(after=\('a',\)\) but is declared before it; "
            r"move 'b' below 'a'",
        ),
        (
            (Rule("a", "table", _noop, after=("missing",)),),
            r"rule 'a': after=\('missing',\) names 'missing', which is not registered",
        ),
        (
            (Rule("a", "table", _noop), Rule("a", "passes", _noop)),
            r"rule name 'a' is registered twice",
        ),
        (
            (Rule("a", "edits", _noop), Rule("b", "table", _noop)),
            r"rule 'b' \(phase 'table'\) is declared after 'a' \(phase 'edits'\); "
            r"declare the rules phase by phase",
        ),
        (
            (Rule("a", "rewrite", _noop),),
            r"rule 'a': phase 'rewrite' is not one of \('table', 'passes'",
        ),
    ],
    ids=["dependency_declared_later", "unknown_dependency", "twice", "phase", "bad"],
)
def test_a_bad_registry_is_refused(rules, match):
    with pytest.raises(ValueError, match=match):
        Registry(rules)


def test_a_registered_rule_runs_in_its_phase_in_order():
    seen = []

    def rule(name):
        def run(module, ctx):
            seen.append(name)
            return module.findings

        return run

    registry = Registry(
        (
            Rule("first", "table", rule("first")),
            Rule("second", "table", rule("second"), after=("first",)),
            Rule("later", "passes", rule("later")),
        )
    )
    module = _engine.Module("x = 1\n", ast.parse("x = 1\n"))
    _engine.find(registry, "table", module, _engine.ProgramContext())
    assert seen == ["first", "second"]


def _scan(source):
    source = textwrap.dedent(source)
    return _passes.scan_tree(ast.parse(source), source, "snippet.py")


def _group(findings):
    return [f for f in findings if f.api == "tf (TF 1.x names)"]


def test_the_compat_port_reads_whether_the_rule_is_fixable_not_its_text():
    (found,) = _group(
        _scan("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    )
    assert found.rule.fixable and _edit_rules._portable([found]) == [found]
    # The words "--fix cannot" in the advice decide nothing.
    found.rule = dataclasses.replace(
        found.rule, replacement=found.rule.replacement + "; --fix cannot here: no"
    )
    assert _edit_rules._portable([found]) == [found]
    found.rule = dataclasses.replace(found.rule, fixable=False)
    assert _edit_rules._portable([found]) == []


def test_a_blocked_compat_group_rule_is_not_fixable():
    assert not _compat_v1.group_rule("tf", "a reason").fixable
    assert _compat_v1.group_rule("tf", None).fixable


def test_the_slim_core_group_is_known_by_its_kind():
    assert _slim.group_rule(_slim.CORE).kind == _slim.CORE_KIND
    assert _slim.group_rule("learning").kind != _slim.CORE_KIND


# Fields whose values are keys, not messages (`Finding.api` may hold spaces:
# 'tf (TF 1.x names)').
_KEYS = ("api", "rule_id", "kind")


def _message(node: ast.AST) -> bool:
    """A string constant that reads as a message's words (it holds a space)."""
    return isinstance(node, ast.Constant) and " " in str(node.value).strip()


def _reads_words(node: ast.Compare) -> bool:
    """`'words of a reason' in why` (or ==): a decision on a message's text."""
    sides = [node.left, *node.comparators]
    others = [s for s in sides if not _message(s)]
    keys = [s for s in others if isinstance(s, ast.Attribute) and s.attr in _KEYS]
    return len(others) < len(sides) and bool(others) and not keys


def _rule_text_reads(path: pathlib.Path):
    """(line, source) of each comparison that reads a rule's advice text or
    a reason's words."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        advice = [
            side
            for side in [node.left, *node.comparators]
            if isinstance(side, ast.Attribute)
            and side.attr in ("replacement", "summary")
        ]
        if advice or _reads_words(node):
            yield node.lineno, ast.unparse(node)


def test_no_migrate_decision_reads_a_rule_text():
    reads = [
        f"{path.relative_to(MIGRATE)}:{line}: {text}"
        for path in sorted(MIGRATE.rglob("*.py"))
        for line, text in _rule_text_reads(path)
    ]
    assert not reads, "decide on a structured field (Rule.fixable, Rule.kind):\n" + (
        "\n".join(reads)
    )


@pytest.mark.parametrize(
    "line, found",
    [
        ('ok = "--fix cannot" in f.rule.replacement\n', True),
        ('ok = "has no drop-in" not in why\n', True),
        ('ok = reason == "a module gone"\n', True),
        ('ok = f.api == "tf (TF 1.x names)"\n', False),
        ('ok = name in ("input_data", "mnist")\n', False),
        ('ok = "words here" == "words here"\n', False),
    ],
    ids=["advice", "reason_words", "reason_equal", "api_key", "names", "constants"],
)
def test_the_text_check_catches_a_decision_on_rule_text(tmp_path, line, found):
    bad = tmp_path / "bad.py"
    bad.write_text(line)
    reads = list(_rule_text_reads(bad))
    assert reads == ([(1, ast.unparse(ast.parse(line).body[0].value))] if found else [])


def _call(source):
    tree = ast.parse(source)
    return next(n for n in ast.walk(tree) if isinstance(n, ast.Call)), Offsets(source)


def _applied(source, api):
    call, off = _call(source)
    new = _api_changes.argument_edits(call, api, off)
    return None if new is None else apply(source, new)


@pytest.mark.parametrize(
    "source, api, expected",
    [
        (
            "f(model_fn, SUM, ['/gpu:0'])",
            "tf.contrib.estimator.replicate_model_fn",
            "f(model_fn, loss_reduction=SUM, devices=['/gpu:0'])",
        ),
        (
            "f(graph, tfprof_cmd='scope', tfprof_options=o)",
            "tf.contrib.tfprof.model_analyzer.print_model_analysis",
            "f(graph, cmd='scope', options=o)",
        ),
        (
            "f(x, False)",
            "tf.contrib.framework.local_variable",
            "f(x, validate_shape=False, trainable=False, "
            "collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])",
        ),
        ("f(x, trainable=True)", "tf.contrib.framework.local_variable", None),
        ("f(a, b)", "tf.not.listed", "f(a, b)"),
        ("f(m, *rest)", "tf.contrib.estimator.replicate_model_fn", None),
        ("f(m, a, b, c)", "tf.contrib.estimator.replicate_model_fn", None),
    ],
    ids=[
        "reorder",
        "keyword_renames",
        "added_keywords",
        "added_keyword_passed",
        "unlisted",
        "starred",
        "too_many",
    ],
)
def test_the_api_change_rows_apply_to_a_call(source, api, expected):
    assert _applied(source, api) == expected


def test_a_new_api_change_row_is_applied_without_code(monkeypatch):
    api = "tf.contrib.example.old"
    monkeypatch.setitem(_api_spec.POSITIONAL_TO_KEYWORD, api, (None, "rate"))
    monkeypatch.setitem(_api_spec.KEYWORD_RENAMES, api, {"keep": "keep_all"})
    assert _applied("f(x, 0.5, keep=1)", api) == "f(x, rate=0.5, keep_all=1)"


def test_a_function_that_reads_no_queue_is_no_failed_reader_helper():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        def scale(x):
            return x * 2
        """
    )
    tree = ast.parse(source)
    helpers, failed = _reader_helpers.find(tree, _aliases.AliasTable(tree))
    assert helpers == {} and failed == {}
    with pytest.raises(_reader_helpers.NotAReader, match=r"`scale` reads no param"):
        _reader_helpers._read_index(tree.body[1], ["x"])


def _fix_with(monkeypatch, source, drop=()):
    """`fixer.fix` of `source` under the registry without the rules `drop`."""
    from estimator_multigpu.migrate import _fixer, _scanner

    rules = tuple(r for r in _registry.REGISTRY.rules if r.name not in drop)
    monkeypatch.setattr(_fixer, "REGISTRY", Registry(rules))
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _scanner.scan_rules(tree, source, "snippet.py")
    return _fixer.fix(source, tree, findings).source, findings


DEAD = """\
import tensorflow as tf
from tensorflow.contrib.estimator import replicate_model_fn

model_fn = replicate_model_fn(lambda f, l, mode: None)
"""


def test_the_finishing_imports_are_registry_rules(monkeypatch):
    assert [r.name for r in _registry.REGISTRY.phase("finish")] == [
        "dead-imports",
        "emg-import",
    ]
    new, _ = _fix_with(monkeypatch, DEAD)
    assert "import estimator_multigpu as emg\n" in new
    assert "from tensorflow.contrib" not in new
    assert "emg.replicate_model_fn(" in new
    # fix runs what the registry holds, nothing more.
    new, _ = _fix_with(monkeypatch, DEAD, drop=("dead-imports", "emg-import"))
    assert "from tensorflow.contrib.estimator import replicate_model_fn\n" in new
    assert "import estimator_multigpu" not in new
    assert "emg.replicate_model_fn(" in new


def test_the_record_flattening_is_a_registry_stage(monkeypatch):
    from migrate_helpers import CORPUS

    source = (CORPUS / "cifar10_record_eval.py").read_text()
    assert [r.name for r in _registry.REGISTRY.phase("stages")] == ["record-objects"]
    new, findings = _fix_with(monkeypatch, source)
    assert "class CIFAR10Record" not in new and all(f.fixed for f in findings)
    new, findings = _fix_with(monkeypatch, source, drop=("record-objects",))
    assert "class CIFAR10Record" in new and not all(f.fixed for f in findings)


def test_a_stage_carries_fixed_to_the_nth_finding_of_each_api():
    def finding(api, fixed=False):
        return dataclasses.replace(FINDING, api=api, fixed=fixed)

    old = [finding("a"), finding("b"), finding("a")]
    staged = [finding("a"), finding("a", True), finding("b")]
    assert _engine.carry(old, staged)
    assert [f.fixed for f in old] == [False, False, True]
    old = [finding("a")]
    assert not _engine.carry(old, [finding("a"), finding("c", True)])
    assert not old[0].fixed


FINDING = _passes.scan_tree(
    ast.parse("import tensorflow as tf\ntf.train.Supervisor()\n"),
    "import tensorflow as tf\ntf.train.Supervisor()\n",
    "snippet.py",
)[0]


def test_finding_edits_places_each_unfixed_finding_of_the_rule_once():
    from types import SimpleNamespace

    from estimator_multigpu.migrate._edits import Edit
    from estimator_multigpu.migrate._engine import finding_edits

    def finding(rule_id, start, fixed=False):
        return SimpleNamespace(
            rule=SimpleNamespace(rule_id=rule_id), fixed=fixed, start=start
        )

    earlier = Edit(10, 20, "x")
    ours = [finding("r", 0), finding("r", 15), finding("r", 30), finding("r", 40)]
    other, done = finding("other", 50), finding("r", 60, fixed=True)
    module = SimpleNamespace(edits=[earlier], findings=[*ours, other, done])

    def make(f):
        return None if f.start == 40 else [Edit(f.start, f.start + 2, "y")]

    out = finding_edits(module, "r", make)
    assert out == [earlier, Edit(0, 2, "y"), Edit(30, 32, "y")]
    # Overlapping an earlier edit, or refused by `make`: left unfixed.
    assert [f.fixed for f in ours] == [True, False, True, False]
    assert not other.fixed and module.edits == [earlier]


def test_place_adds_each_plan_that_overlaps_nothing_placed_and_marks_its_findings():
    from types import SimpleNamespace

    from estimator_multigpu.migrate._edits import Edit, place

    earlier = Edit(10, 20, "x")
    a, b, c, d = (SimpleNamespace(fixed=False) for _ in range(4))
    plans = [
        (Edit(0, 2, "y"), [a, b]),
        (Edit(15, 25, "y"), [c]),  # overlaps the earlier edit: left
        (Edit(1, 3, "y"), [d]),  # overlaps a plan placed before it: left
        (Edit(30, 32, "y"), []),
    ]
    prior = [earlier]
    out = place(prior, iter(plans))
    assert out == [earlier, Edit(0, 2, "y"), Edit(30, 32, "y")]
    assert [f.fixed for f in (a, b, c, d)] == [True, True, False, False]
    assert prior == [earlier]


def test_a_program_rule_is_all_process_all_needs(monkeypatch, tmp_path):
    """A new fact about the whole run is a `program` rule: `process_all`
    processes the files it names again, with the fact set, and no other."""
    from estimator_multigpu.migrate import _queue_program, _runner  # noqa: PLC0415

    paths = []
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("import tensorflow as tf\nx = tf.Session()\n")
        paths.append(str(tmp_path / name))
    seen = []

    def facts(results):
        seen.append([pathlib.Path(r.path).name for r in results])
        return {1: {"keep_runners": "an example queue elsewhere"}}

    rule = Rule("example-program", "program", facts)
    registry = Registry((*_registry.REGISTRY.rules, rule))
    monkeypatch.setattr(_queue_program, "REGISTRY", registry)
    calls = []
    process_in = _runner.process_in

    def counted(path, ignored, upgraded, ctx):
        calls.append((pathlib.Path(path).name, ctx.keep_runners))
        return process_in(path, ignored, upgraded, ctx)

    monkeypatch.setattr(_runner, "process_in", counted)
    results = _queue_program.process_all(paths)
    assert seen == [["a.py", "b.py", "c.py"]]
    assert calls == [
        ("a.py", None),
        ("b.py", None),
        ("c.py", None),
        ("b.py", "an example queue elsewhere"),
    ]
    assert [pathlib.Path(r.path).name for r in results] == ["a.py", "b.py", "c.py"]


def test_program_rules_come_last_and_in_order():
    names = [r.name for r in _registry.REGISTRY.phase("program")]
    assert names[-1] == "queue-starters-program"  # rewords what the others leave
    assert _registry.REGISTRY.rules[-len(names) :] == _registry.REGISTRY.phase(
        "program"
    )
