"""Every public tf.contrib name of TF 1.15 is found with its outcome, by any spelling.

Row by row over migrate/_contrib_surface (tools/contrib_surface.py writes it):
each name is found with its row's text, each exact successor exists on this
TensorFlow, the table agrees with the older tables of emg-migrate, and the
module-path, import and alias spellings of a name resolve to it.
"""

import ast
import importlib
import sys

import pytest
from migrate_helpers import run, run_fixed

from estimator_multigpu.migrate import (
    _contrib_names,
    _contrib_outcomes,
    _contrib_surface,
    _exact_calls,
    _passes,
    _rules,
    _runner,
    _slim_layers,
)

ROWS = [
    _contrib_surface.row(f"tf.contrib.{m}.{n}")
    for m in _contrib_surface.MODULES
    for n in _contrib_surface.table(m).ROWS
]
EXACT = [
    r
    for r in ROWS
    if r.outcome == "exact" and r.successor.split(".")[0] in ("tf", "tf_slim")
]
# TF 2.16+ serves these only from tf-keras, under TF_USE_LEGACY_KERAS=1.
_LEGACY_PREFIXES = ("tf.compat.v1.layers.", "tf.compat.v1.nn.rnn_cell.")
LEGACY = [r for r in EXACT if r.successor.startswith(_LEGACY_PREFIXES)]
CURRENT = [r for r in EXACT if r not in LEGACY]


def _scan(source):
    return _passes.scan_tree(ast.parse(source), source, "a.py")


def _ids(rows):
    return [r.symbol.removeprefix("tf.contrib.") for r in rows]


def _expected_text(row):
    """What the finding of `row`'s name must say: the older table's text it
    copies, else its successor, else why there is none."""
    if row.note and row.note != _contrib_surface.LEGACY_NOTE:
        return row.note
    return row.successor if row.outcome != "none" else row.advice


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_every_contrib_name_is_found_with_its_outcome(row):
    [finding] = _scan(f"import tensorflow as tf\nx = {row.symbol}\n")
    assert finding.api == row.symbol
    text = finding.rule.replacement
    assert row.outcome in ("exact", "emg", "none")
    if finding.rule.rule_id == "contrib":
        assert _expected_text(row) in text, text
    else:  # a pass of its own (slim's port, the TPU and learn rules) owns it
        assert text != _rules.TABLE["tf.contrib"].replacement


@pytest.mark.parametrize("row", [r for r in ROWS if r.outcome == "none"][:1])
def test_a_name_without_successor_says_why_and_what_to_do(row):
    rule = _contrib_outcomes.rule_for(row.symbol)
    module = row.symbol.split(".")[2]
    assert f"fate for tf.contrib.{module}: {row.fate}" in rule.summary
    assert rule.replacement.startswith("no TF 2.x successor (")
    assert rule.replacement.endswith(row.advice)


def test_lazy_adam_has_no_successor_and_says_so():
    [finding] = _scan(
        "import tensorflow as tf\nopt = tf.contrib.opt.LazyAdamOptimizer(0.1)\n"
    )
    assert finding.rule.summary == (
        "tf.contrib.opt.LazyAdamOptimizer is gone since TF 2.0 (the contrib-sunset "
        "RFC's fate for tf.contrib.opt: move to tensorflow/contrib?)"
    )
    assert finding.rule.replacement.startswith(
        "no TF 2.x successor (no tf.*, tf.compat.v1.* or tf_slim name takes its "
        "place): tf.keras.optimizers, tf.compat.v1.train; TensorFlow Addons"
    )
    assert not finding.fixed


def test_a_same_named_successor_with_other_arguments_is_no_exact_one():
    row = _contrib_surface.row("tf.contrib.framework.py_func")
    assert (row.outcome, row.successor) == ("none", "tf.compat.v1.py_func")
    assert "it takes (func, inp, Tout, stateful, name)" in row.note


def _resolve(tf, dotted):
    """The object at `dotted` (`tf.` or `tf_slim.`), importing tf_slim's modules."""
    parts = dotted.split(".")
    if parts[0] == "tf_slim":
        try:
            return importlib.import_module(dotted)
        except ImportError:
            module = importlib.import_module(".".join(parts[:-1]))
            return getattr(module, parts[-1])
    obj = tf
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("row", CURRENT, ids=_ids(CURRENT))
def test_every_exact_successor_exists_on_this_tensorflow(row):
    import tensorflow as tf

    assert _resolve(tf, row.successor) is not None


_LEGACY_CHECK = """
import os, sys
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf
missing = []
for dotted in sys.argv[1:]:
    obj = tf
    try:
        for part in dotted.split(".")[1:]:
            obj = getattr(obj, part)
    except AttributeError:
        missing.append(dotted)
print(missing)
"""


def test_the_legacy_keras_successors_exist_with_tf_keras():
    names = sorted({r.successor for r in LEGACY})
    assert names, "the rnn cells need tf-keras"
    proc = run([sys.executable, "-c", _LEGACY_CHECK, *names], timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_a_sample_of_exact_successors_takes_contribs_arguments(tmp_path):
    """Called as TF 1.15's contrib took them (by position and keyword)."""
    import tensorflow as tf

    def successor(name):
        return _resolve(tf, _contrib_surface.row(f"tf.contrib.{name}").successor)

    a, b = tf.data.Dataset.from_tensors(1).repeat(), tf.data.Dataset.from_tensors(2)
    mixed = successor("data.sample_from_datasets")([a, b.repeat()], [1.0, 0.0], 7)
    assert [int(x) for x in mixed.take(3)] == [1, 1, 1]
    frames = successor("signal.frame")(tf.range(6), 4, 2)
    assert frames.numpy().tolist() == [[0, 1, 2, 3], [2, 3, 4, 5]]
    uniform = successor("stateless.stateless_random_uniform")
    assert uniform([2], seed=[1, 2]).shape == (2,)
    checkpoint = tf.train.Checkpoint(v=tf.Variable([3.0]))
    path = checkpoint.write(str(tmp_path / "ckpt"))
    row = _contrib_surface.row("tf.contrib.framework.load_variable")
    load = _resolve(tf, row.successor)
    keyword = row.renames["checkpoint_dir"]
    value = load(**{keyword: path, "name": "v/.ATTRIBUTES/VARIABLE_VALUE"})
    assert value.tolist() == [3.0]


def _existing_rows():
    """symbol -> the row the older tables give it, in the order they win."""
    out = {}
    for symbol, (module, rest) in _exact_calls._NAMES.items():
        out.setdefault(symbol, ("exact", f"{module or 'tf'}.{rest}"))
    for name in _slim_layers.NAMES:
        out.setdefault(_slim_layers.CONTRIB + name, ("exact", f"tf_slim.{name}"))
    for key, text in _contrib_names.REPLACEMENTS.items():
        out.setdefault(f"tf.contrib.{key}", text)
    for symbol, rule in _rules.TABLE.items():
        if rule.rule_id != "contrib":
            out.setdefault(symbol, rule.replacement)
    return {s: e for s, e in out.items() if _contrib_surface.row(s) is not None}


EXISTING = _existing_rows()


@pytest.mark.parametrize("symbol", sorted(EXISTING))
def test_the_table_agrees_with_the_older_tables(symbol):
    """tools/contrib_surface.py copies their rows; rerun it after changing one."""
    row, expected = _contrib_surface.row(symbol), EXISTING[symbol]
    if isinstance(expected, tuple):
        assert (row.outcome, row.successor) == expected
    else:
        assert row.note == expected


SPELLINGS = {
    "attribute_chain": "x = tf.contrib.data.sample_from_datasets(ds)\n",
    "compat_v1_root": "x = tf1.contrib.data.sample_from_datasets(ds)\n",
    "from_contrib_import_module": (
        "from tensorflow.contrib import data\nx = data.sample_from_datasets(ds)\n"
    ),
    "import_module_as": (
        "import tensorflow.contrib.data as cdata\nx = cdata.sample_from_datasets(ds)\n"
    ),
    "assigned_alias": "contrib = tf.contrib\nx = contrib.data.sample_from_datasets(ds)\n",
    "internal_module": (
        "from tensorflow.contrib.data.python.ops import interleave_ops\n"
        "x = interleave_ops.sample_from_datasets(ds)\n"
    ),
    "internal_name": (
        "from tensorflow.contrib.data.python.ops.interleave_ops import "
        "sample_from_datasets\nx = sample_from_datasets(ds)\n"
    ),
    "internal_name_as": (
        "from tensorflow.contrib.data.python.ops.interleave_ops import "
        "sample_from_datasets as mix\nx = mix(ds)\n"
    ),
    "internal_attribute_chain": (
        "x = tf.contrib.data.python.ops.interleave_ops.sample_from_datasets(ds)\n"
    ),
}
HEAD = "import tensorflow as tf\nimport tensorflow.compat.v1 as tf1\n"


@pytest.mark.parametrize("source", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_every_spelling_of_a_name_resolves_to_it(tmp_path, source):
    path = tmp_path / "a.py"
    path.write_text(HEAD + source)
    result = _runner.process(str(path))
    [finding] = [f for f in result.findings if "sample_from" in f.api]
    assert finding.rule.summary.startswith("tf.contrib.data.sample_from_datasets"), (
        finding.rule.summary
    )
    assert finding.rule.replacement.startswith(
        "tf.data.experimental.sample_from_datasets (the same arguments"
    )
    assert finding.fixed
    new = result.rewritten
    assert "x = tf.data.experimental.sample_from_datasets(ds)\n" in new
    assert "tensorflow.contrib" not in new and "contrib" not in new.split("x =")[1]


def test_a_module_path_of_a_name_the_older_tables_know_names_both():
    source = (
        "import tensorflow as tf\nfrom tensorflow.contrib.layers.python.layers "
        "import regularizers\nreg = regularizers.l1_regularizer(0.1)\n"
    )
    # (The import itself is the contrib-module-path rule's: tf_slim.layers.)
    [finding] = [f for f in _scan(source) if f.rule.rule_id != "contrib-module-path"]
    assert finding.rule.summary == (
        "tf.contrib.layers.l1_regularizer is gone since TF 2.0 (written "
        "tf.contrib.layers.python.layers.regularizers.l1_regularizer)"
    )
    assert (
        finding.rule.replacement == _contrib_names.REPLACEMENTS["layers.l1_regularizer"]
    )


def test_keyword_renames_are_written(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "import tensorflow as tf\n"
        "v = tf.contrib.framework.load_variable(checkpoint_dir=d, name='w')\n"
    )
    result = _runner.process(str(path))
    assert "v = tf.train.load_variable(ckpt_dir_or_file=d, name='w')\n" in (
        result.rewritten
    )


def test_a_compat_v1_only_module_spells_v2_names_through_compat_v2(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(
        "import tensorflow.compat.v1 as tf\nf = tf.contrib.signal.frame(x, 4, 2)\n"
    )
    result = _runner.process(str(path))
    assert "f = tf.compat.v2.signal.frame(x, 4, 2)\n" in result.rewritten


def test_a_tf_slim_successor_imports_tf_slim(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("import tensorflow as tf\nx = tf.contrib.layers.gdn(y)\n")
    result = _runner.process(str(path))
    assert "import tf_slim\n" in result.rewritten
    assert "x = tf_slim.gdn(y)\n" in result.rewritten


@pytest.mark.parametrize(
    "v1_import, written",
    [
        ("import tensorflow as tf\n", "tf.compat.v1.train.get_global_step()"),
        ("import tensorflow.compat.v1 as tf\n", "tf.train.get_global_step()"),
    ],
    ids=["tf2_root", "compat_v1_root"],
)
def test_a_successor_named_by_its_call_alone_is_written(tmp_path, v1_import, written):
    # The older table's replacement text is the successor's call and nothing
    # more: the same arguments, so --fix writes it.
    path = tmp_path / "a.py"
    path.write_text(
        v1_import + "step = tf.contrib.framework.get_global_step()\n"
        "made = tf.contrib.framework.get_or_create_global_step(g)\n"
    )
    result = _runner.process(str(path))
    assert all(f.fixed for f in result.findings), result.notes
    assert f"step = {written}\n" in result.rewritten
    assert "get_or_create_global_step(g)\n" in result.rewritten


@pytest.mark.parametrize("module", _contrib_surface.MODULES)
def test_every_internal_module_name_maps_to_a_public_row(module):
    for inner, names in _contrib_surface.table(module).SOURCES.items():
        for name, public in names.items():
            api = f"{inner}.{name}" if name else inner
            symbol, prefix = _contrib_surface.public(api)
            assert prefix == api
            # (a module two contrib modules export maps to the one that holds it)
            assert symbol.endswith(f".{public}"), (api, symbol)
            if name:
                assert _contrib_surface.row(symbol) is not None, symbol


def test_an_unknown_name_of_a_known_module_names_the_module():
    [finding] = _scan("import tensorflow as tf\nx = tf.contrib.layers.no_such_thing\n")
    assert finding.rule.summary.startswith(
        "tf.contrib.layers.no_such_thing is no public name of TF 1.15's "
        "tf.contrib.layers;"
    )
    assert finding.rule.replacement == _contrib_surface.module_advice("layers")[1]


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    """Every contrib spelling and the private import of the script, fixed, run."""
    out = run_fixed("contrib_surface_names.py", tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == [
        "mixed [1, 1, 1]",
        "again [2, 2]",
        "rows [[1, 2], [3, 4]]",
        "frames [[0, 1, 2, 3], [2, 3, 4, 5]]",
        "noise shape [2]",
        "metres 3.5",
    ]
