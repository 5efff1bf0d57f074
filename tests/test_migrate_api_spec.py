"""The declarative API spec and its one visitor: a new row of any table is
found and fixed with no other change, and each tree is walked once."""

import ast
import dataclasses
import textwrap

import pytest
from migrate_helpers import fix_with_passes

from estimator_multigpu.migrate import _api_spec, _api_uses, _rules, _runner
from estimator_multigpu.migrate._api_spec import SPEC, Renamed
from estimator_multigpu.migrate._engine import Module

KINDS = {
    "symbols",
    "tf0_renames",
    "numpy_builtins",
    "numpy_aliases",
    "numpy_values",
    "numpy_calls",
    "positional_to_keyword",
    "added_keywords",
    "dropped_defaults",
    "keyword_renames",
    "successor_keyword_renames",
    "contrib_modules",
    "contrib_missing",
    "scipy_paths",
    "python2_modules",
    "private_names",
    "private_gone",
    "private_unexported",
    "v1_only",
    "v2_only",
    "v1_signatures",
}


def test_the_spec_declares_every_kind_of_table():
    assert {f.name for f in dataclasses.fields(_api_spec.ApiSpec)} == KINDS
    for kind in KINDS:
        table = getattr(SPEC, kind)
        assert isinstance(table, dict | frozenset) and table, kind


_RENAMED = _rules.Rule(
    "example-rename",
    "tf.old_thing is an example name that was renamed",
    "tf.math.new_thing",
    "contrib",
    rename="tf.math.new_thing",
)
_GONE = _rules.Rule(
    "example-gone",
    "tf.lost_thing is an example name with no successor",
    "nothing: no TF 2 module has it, because it was an example",
    "contrib",
    fixable=False,
)
_GET_VARIABLES = "tf.contrib.framework.get_variables"

# (kind, key, row, source, the rule id found, the text --fix writes).
ROWS = [
    (
        "symbols",
        "tf.old_thing",
        _RENAMED,
        "import tensorflow as tf\nx = tf.old_thing(1)\n",
        "example-rename",
        "x = tf.math.new_thing(1)",
    ),
    (
        "tf0_renames",
        "tf.old_op",
        Renamed("new_op", (("a", "b"),), 1),
        "import tensorflow as tf\nx = tf.old_op(y, a=3)\n",
        "tf0-name",
        "x = tf.new_op(y, b=3)",
    ),
    (
        "numpy_aliases",
        "oldname",
        "newname",
        "import numpy as np\nx = np.oldname\n",
        "numpy-removed",
        "x = np.newname",
    ),
    (
        "numpy_builtins",
        "oldint",
        "int",
        "import numpy as np\nx = np.oldint(2)\n",
        "numpy-removed",
        "x = int(2)",
    ),
    (
        "positional_to_keyword",
        _GET_VARIABLES,
        (None, "suffix"),
        "import tensorflow as tf\nx = tf.contrib.framework.get_variables('a', 'b')\n",
        "contrib",
        "x = tf_slim.get_variables('a', suffix='b')",
    ),
    (
        "keyword_renames",
        _GET_VARIABLES,
        {"collection": "coll"},
        "import tensorflow as tf\nx = tf.contrib.framework.get_variables(collection=c)\n",
        "contrib",
        "x = tf_slim.get_variables(coll=c)",
    ),
    (
        "added_keywords",
        _GET_VARIABLES,
        (("extra", "{tf.compat.v1.GraphKeys.LOCAL_VARIABLES}"),),
        "import tensorflow as tf\nx = tf.contrib.framework.get_variables('a')\n",
        "contrib",
        "x = tf_slim.get_variables('a', extra=tf.compat.v1.GraphKeys.LOCAL_VARIABLES)",
    ),
    (
        "dropped_defaults",
        _GET_VARIABLES,
        (("suffix", 1, "None", "suffix='x': a tf_slim call"),),
        "import tensorflow as tf\nx = tf.contrib.framework.get_variables('a', None)\n",
        "contrib",
        "x = tf_slim.get_variables('a')",
    ),
    (
        "private_names",
        "tf.python.example",
        {"old_add": "tf.math.add"},
        "import tensorflow as tf\nfrom tensorflow.python.example import old_add\n"
        "x = old_add(1, 2)\n",
        "private-tf",
        "x = tf.math.add(1, 2)",
    ),
    (
        "successor_keyword_renames",
        "tf_slim.get_variables",
        {"collection": "coll"},
        "import tensorflow as tf\nx = tf.contrib.framework.get_variables(collection=c)\n",
        "contrib",
        "x = tf_slim.get_variables(coll=c)",
    ),
    (
        "contrib_modules",
        "tensorflow.contrib.example.python.ops.bar",
        "tf_slim.ops.bar",
        "from tensorflow.contrib.example.python.ops import bar\nx = bar.baz()\n",
        "contrib-module-path",
        "from tf_slim.ops import bar",
    ),
    (
        "scipy_paths",
        "scipy.example.private",
        ("scipy.example", frozenset({"f"})),
        "from scipy.example.private import f\nx = f(1)\n",
        "scipy-private-paths",
        "from scipy.example import f",
    ),
    (
        "python2_modules",
        "OldModule",
        "newmodule",
        "import OldModule\nx = OldModule.f()\n",
        "python2-builtin",
        "import newmodule as OldModule",
    ),
]


def _found(source, rule_id):
    fixed, findings = fix_with_passes(source)
    return fixed, [f for f in findings if f.rule.rule_id == rule_id]


@pytest.mark.parametrize(
    "kind, key, row, source, rule_id, written", ROWS, ids=[r[0] for r in ROWS]
)
def test_a_new_row_of_each_kind_is_found_and_fixed_with_no_other_change(
    monkeypatch, kind, key, row, source, rule_id, written
):
    before, _ = _found(source, rule_id)
    assert written not in before  # the row is what makes the rewrite
    monkeypatch.setitem(getattr(SPEC, kind), key, row)
    after, found = _found(source, rule_id)
    assert found and all(f.fixed for f in found)
    assert written in after.splitlines()


def test_a_new_row_with_no_successor_is_reported_with_its_reason(monkeypatch):
    source = "import tensorflow as tf\nx = tf.lost_thing(2)\n"
    assert not _found(source, "example-gone")[1]
    monkeypatch.setitem(SPEC.symbols, "tf.lost_thing", _GONE)
    after, found = _found(source, "example-gone")
    assert [(f.api, f.fixed) for f in found] == [("tf.lost_thing", False)]
    assert found[0].rule.replacement == _GONE.replacement
    assert after == source


def test_every_spelling_of_a_row_is_matched_by_the_one_visitor(monkeypatch):
    monkeypatch.setitem(SPEC.symbols, "tf.old_thing", _RENAMED)
    source = textwrap.dedent(
        """
        import tensorflow as tf
        import tensorflow.compat.v1 as v1
        from tensorflow import old_thing as alias
        t = tf.compat.v1
        tf.old_thing(1)
        v1.old_thing(2)
        alias(3)
        t.old_thing(4)
        """
    )
    found = Module(source, ast.parse(source)).uses.symbols
    reads = [(u.node.lineno, u.api) for u in found if u.api == "tf.old_thing"]
    assert reads == [
        (6, "tf.old_thing"),
        (7, "tf.old_thing"),
        (8, "tf.old_thing"),
        (9, "tf.old_thing"),
    ]


def test_the_scan_and_the_fix_of_a_tree_share_one_walk(monkeypatch, tmp_path):
    visited = []
    visit = _api_uses._Visitor.visit

    def counted(self, tree):
        visited.append(id(tree))
        return visit(self, tree)

    monkeypatch.setattr(_api_uses._Visitor, "visit", counted)
    path = tmp_path / "a.py"
    path.write_text(
        "import numpy as np\nimport tensorflow as tf\n"
        "x = tf.mul(np.float_(1), 2)\nw = tf.train.SummaryWriter('d')\n"
    )
    result = _runner.process(str(path))
    assert result.rewritten and any(f.fixed for f in result.findings)
    assert visited and len(visited) == len(set(visited))  # once per tree


_PRIVATE = "tf.python.example"


def test_a_new_private_path_row_is_matched_at_every_spelling(monkeypatch):
    monkeypatch.setitem(SPEC.private_names, _PRIVATE, {"old_add": "tf.math.add"})
    source = textwrap.dedent(
        """
        import tensorflow as tf
        from tensorflow.python import example
        from tensorflow.python.example import old_add as alias
        example.old_add(1)
        alias(2)
        tf.python.example.old_add(3)
        """
    )
    found = Module(source, ast.parse(source)).uses.private
    assert [(n.lineno, api) for n, api in found] == [
        (5, "tf.python.example.old_add"),
        (6, "tf.python.example.old_add"),
        (7, "tf.python.example.old_add"),
    ]


def test_private_gone_rows_say_the_path_is_gone(monkeypatch):
    source = "from tensorflow.python.example import old_add\nx = old_add(1, 2)\n"
    monkeypatch.setitem(SPEC.private_names, _PRIVATE, {"old_add": "tf.math.add"})
    (kept,) = _found(source, "private-tf")[1]
    assert "still there on TF 2.21" in kept.rule.summary
    monkeypatch.setitem(SPEC.private_gone, _PRIVATE, ("old_add",))
    (gone,) = _found(source, "private-tf")[1]
    assert "gone from there on TF 2.21" in gone.rule.summary


def test_a_new_unexported_private_path_is_reported_with_its_advice(monkeypatch):
    source = "from tensorflow.python.example import hidden\nx = hidden(1)\n"
    assert not _found(source, "private-tf")[1]
    advice = ("hidden is an example private name", "write it yourself")
    monkeypatch.setitem(SPEC.private_unexported, f"{_PRIVATE}.hidden", advice)
    after, found = _found(source, "private-tf")
    assert [(f.api, f.fixed) for f in found] == [(f"{_PRIVATE}.hidden", False)]
    assert (found[0].rule.summary, found[0].rule.replacement) == advice
    assert after == source


# The compat.v1 port's tables: a name only tf.compat.v1 has, a name it
# lacks, a function whose compat.v1 twin takes TF 1.x's other arguments.
_V1_SOURCE = "import tensorflow as tf\n\nx = tf.example_v1_name(2)\n"
_V1_CALL = "import tensorflow as tf\n\nx = tf.example_fn(2, legacy_kw=True)\n"


def _ported(tmp_path, source):
    """(the text --fix writes, the compat-v1 findings) of `source`."""
    path = tmp_path / "a.py"
    path.write_text(source)
    result = _runner.process(str(path))
    found = [f for f in result.findings if f.rule.rule_id == "compat-v1"]
    return result.rewritten or source, found


def _compat(monkeypatch, kind, value):
    # ApiSpec is frozen: its rows change through the instance's dict.
    monkeypatch.setitem(SPEC.__dict__, kind, value)


@pytest.mark.parametrize(
    "kind, value, source",
    [
        ("v1_only", SPEC.v1_only | {"tf.example_v1_name"}, _V1_SOURCE),
        (
            "v1_signatures",
            {**SPEC.v1_signatures, "tf.example_fn": (3, ("legacy_kw",))},
            _V1_CALL,
        ),
    ],
)
def test_a_new_compat_v1_row_makes_the_import_switch(
    monkeypatch, tmp_path, kind, value, source
):
    before, found = _ported(tmp_path, source)
    assert not found and before == source
    _compat(monkeypatch, kind, value)
    after, (found,) = _ported(tmp_path, source)
    assert found.fixed and found.line == 1
    assert after.splitlines()[0] == "import tensorflow.compat.v1 as tf"
    assert "tf.disable_v2_behavior()" in after


def test_a_call_within_tf2_arguments_is_not_a_v1_call(monkeypatch, tmp_path):
    row = {**SPEC.v1_signatures, "tf.example_fn": (3, ("legacy_kw",))}
    _compat(monkeypatch, "v1_signatures", row)
    source = "import tensorflow as tf\n\nx = tf.example_fn(1, 2, 3, kw=True)\n"
    assert _ported(tmp_path, source) == (source, [])


def test_a_new_v2_only_row_blocks_the_import_switch(monkeypatch, tmp_path):
    source = _V1_SOURCE.replace("tf.example_v1_name(2)", "tf.Session()")
    source += "y = tf.example_v2_name.f(3)\n"
    (switch,) = _ported(tmp_path, source)[1]
    assert switch.fixed
    _compat(monkeypatch, "v2_only", SPEC.v2_only | {"tf.example_v2_name"})
    after, (blocked,) = _ported(tmp_path, source)
    assert not blocked.fixed and after == source
    assert "line 4 uses tf.example_v2_name, which tf.compat.v1 lacks" in (
        blocked.rule.replacement
    )


def test_the_compat_v1_tables_match_the_outermost_bare_chain_once(monkeypatch):
    _compat(monkeypatch, "v1_only", SPEC.v1_only | {"tf.example_v1_name"})
    source = textwrap.dedent(
        """
        import tensorflow as tf
        import tensorflow.compat.v1 as v1
        a = tf.example_v1_name.inner.deeper(1)
        b = v1.example_v1_name(2)
        tf.example_v1_name.attr = 3
        """
    )
    found = Module(source, ast.parse(source)).uses.v1
    assert [(u.node.lineno, u.api, u.v1) for u in found] == [
        (4, "tf.example_v1_name.inner.deeper", "tf.example_v1_name"),
        (6, "tf.example_v1_name", "tf.example_v1_name"),
    ]
