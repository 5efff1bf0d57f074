"""`# emg-migrate: ignore[rule]`, `# emg-migrate: ignore` and `--ignore RULE`: a CI gate that can pass."""

import pytest

from estimator_multigpu.migrate import _ignore, _runner
from estimator_multigpu.migrate.__main__ import main

TWO_RULES = (
    "import tensorflow.compat.v1 as tf\n"
    "sv, c = tf.train.Supervisor(), tf.train.start_queue_runners(){comment}\n"
)


def _rules(tmp_path, source, ignored=frozenset()):
    path = tmp_path / "a.py"
    path.write_text(source)
    return sorted(f.rule.rule_id for f in _runner.process(str(path), ignored).findings)


@pytest.mark.parametrize(
    "comment, left",
    [
        ("", ["queue-runner", "supervisor"]),
        ("  # emg-migrate: ignore[supervisor]", ["queue-runner"]),
        ("  # emg-migrate: ignore[supervisor, queue-runner]", []),
        ("  # emg-migrate: ignore", []),
        ("  # EMG-MIGRATE: IGNORE[queue-runner]", ["supervisor"]),
        ("  # emg-migrate: ignore[layers]", ["queue-runner", "supervisor"]),
    ],
    ids=["none", "one_rule", "two_rules", "all_rules", "case", "other_rule"],
)
def test_inline_comment(tmp_path, comment, left):
    assert _rules(tmp_path, TWO_RULES.format(comment=comment)) == left


def test_comment_covers_its_own_line_only(tmp_path):
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "# emg-migrate: ignore\n"
        "sv = tf.train.Supervisor()\n"
    )
    assert _rules(tmp_path, source) == ["supervisor"]


def test_text_in_a_string_is_not_a_comment(tmp_path):
    source = 'import tensorflow.compat.v1 as tf\nsv = tf.train.Supervisor("# emg-migrate: ignore")\n'
    assert _rules(tmp_path, source) == ["supervisor"]


def test_ignore_option_drops_a_rule_everywhere(tmp_path):
    source = TWO_RULES.format(comment="")
    assert _rules(tmp_path, source, frozenset({"supervisor"})) == ["queue-runner"]


def test_ignore_option_is_repeatable_and_exits_0(tmp_path, capsys):
    path = tmp_path / "a.py"
    path.write_text(TWO_RULES.format(comment=""))
    assert main([str(path)]) == 1
    assert main([str(path), "--ignore", "supervisor", "--ignore=queue-runner"]) == 0
    assert "0 finding(s) in 1 file(s)" in capsys.readouterr().out


def test_unknown_rule_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    with pytest.raises(SystemExit) as exit_info:
        main([str(path), "--ignore", "queue_runner"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--ignore 'queue_runner' is not a rule id; use one of:" in err
    assert "queue-runner" in err


def test_help_documents_both_forms(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = "".join(capsys.readouterr().out.split())  # help text wraps anywhere
    assert "[--ignoreRULE]" in out and "#emg-migrate:ignore[RULE]" in out


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\ny = tf.compat.v1.layers.dense\n",
        "import tensorflow as tf\nsaver = tf.compat.v1.train.Saver()\n",
        "import tensorflow.compat.v1 as tf\ny = tf.layers.dense\n",
        "import tensorflow as tf\ntf1 = tf.compat.v1\ny = tf1.layers.conv2d\n",
        "from tensorflow.compat.v1 import layers\ny = layers.dense\n",
    ],
    ids=["compat_layers", "compat_saver", "v1_import_layers", "v1_alias", "from_v1"],
)
def test_a_correct_port_is_not_a_finding(tmp_path, capsys, source):
    path = tmp_path / "a.py"
    path.write_text(source)
    assert main([str(path)]) == 0
    capsys.readouterr()


def test_a_fully_migrated_tree_exits_0(tmp_path, capsys):
    (tmp_path / "a.py").write_text(
        "import tensorflow as tf\nrc = tf.estimator.RunConfig()\n"
        "tf.logging.set_verbosity(tf.logging.INFO)\n"
    )
    (tmp_path / "b.py").write_text(TWO_RULES.format(comment="  # emg-migrate: ignore"))
    assert main([str(tmp_path), "--fix", "--no-backup"]) == 0
    assert main([str(tmp_path)]) == 0
    capsys.readouterr()


def test_comments_reads_only_comments():
    source = 'x = "# emg-migrate: ignore"  # emg-migrate: ignore[a, b]\n# emg-migrate: ignore\n'
    assert _ignore.comments(source) == {1: {"a", "b"}, 2: {"*"}}


CHAIN = (
    "import tensorflow.compat.v1 as tf\n\n\n"
    "def inputs(files):\n"
    "    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)\n"
    "    reader = tf.TextLineReader()\n"
    "    _, line = reader.read(queue)\n"
    "    return tf.train.batch([line], batch_size=2){comment}\n"
)


def test_fix_never_rewrites_an_ignored_line(tmp_path, capsys):
    path = tmp_path / "a.py"
    source = CHAIN.format(comment="  # emg-migrate: ignore[queue-batcher]")
    path.write_text(source)
    assert main([str(path), "--fix"]) == 1
    out = capsys.readouterr().out
    assert "a.py:8: note: not rewritten: the rewrite would change line 8, whose " in out
    assert "queue-batcher finding is ignored; file left unchanged" in out
    assert path.read_text() == source and not (tmp_path / "a.py.bak").exists()


def test_fix_rewrites_the_chain_when_nothing_in_it_is_ignored(tmp_path, capsys):
    path = tmp_path / "a.py"
    path.write_text(CHAIN.format(comment=""))
    assert main([str(path), "--fix", "--no-backup"]) == 0
    assert "emg.inputs.queues.batch" in path.read_text()
    capsys.readouterr()
