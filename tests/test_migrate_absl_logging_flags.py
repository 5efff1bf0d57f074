"""A program's own flag named like one of absl.logging's (`--log_dir`).

TensorFlow imports absl.logging since TF 1.14, which defines `--log_dir`,
`--logtostderr`, `--verbosity` and more; TF 1.x code that defined its own
`log_dir` with tf.app.flags raises DuplicateFlagError on import. `--fix`
deletes absl.logging's flag right before the program defines its own.
"""

import sys

import pytest
from migrate_helpers import CORPUS, assert_program_fix_is_final, fixed_program, run

from estimator_multigpu.migrate import _absl_logging_flags, _runner

PROGRAM = CORPUS / "log_dir_flag_program"


def _fixed(tmp_path, source, header="import tensorflow as tf\n"):
    path = tmp_path / "a.py"
    path.write_text(header + source)
    return _runner.process(str(path))


def _own(result):
    return [f for f in result.findings if f.rule.rule_id == "absl-logging-flag"]


def test_the_names_are_the_flags_absl_logging_defines():
    from absl import flags, logging  # noqa: F401  (defines them)

    defined = {
        name
        for name in flags.FLAGS
        if flags.FLAGS.find_module_defining_flag(name) == "absl.logging"
    }
    assert defined == set(_absl_logging_flags.NAMES)


def test_the_original_definition_is_refused_by_todays_absl():
    proc = run(
        [
            sys.executable,
            "-c",
            "import tensorflow as tf\n"
            "tf.compat.v1.app.flags.DEFINE_string('log_dir', 'x', 'logs')\n",
        ]
    )
    assert "DuplicateFlagError: The flag 'log_dir' is defined twice" in proc.stderr


@pytest.mark.parametrize(
    "header, define, module",
    [
        (
            "import tensorflow as tf\n",
            'tf.app.flags.DEFINE_string("log_dir", "l", "h")',
            "tf.app.flags",
        ),
        (
            "import tensorflow as tf\n",
            'tf.flags.DEFINE_bool("logtostderr", 1, "h")',
            "tf.flags",
        ),
        (
            "import tensorflow as tf\nflags = tf.app.flags\n",
            'flags.DEFINE_integer("verbosity", 0, "h")',
            "flags",
        ),
        (
            "from absl import flags\n",
            'flags.DEFINE_string("log_dir", "l", "h")',
            "flags",
        ),
        (
            "import tensorflow.compat.v1 as tf1\n",
            'tf1.flags.DEFINE_string(name="log_dir", default="l", help="h")',
            "tf1.flags",
        ),
    ],
    ids=["tf_app_flags", "tf_flags", "alias", "absl", "keyword_name"],
)
def test_absl_loggings_flag_is_deleted_before_the_definition(
    tmp_path, header, define, module
):
    result = _fixed(tmp_path, f"{define}\n", header=header)
    name = define.split('"')[1]
    assert (
        f'if "{name}" in {module}.FLAGS:\n    delattr({module}.FLAGS, "{name}")\n'
        f"{define}\n"
    ) in result.rewritten
    [finding] = _own(result)
    assert finding.fixed and finding.api == f"{name} flag"


def test_a_definition_inside_a_function_keeps_its_indent(tmp_path):
    source = 'def define():\n    tf.app.flags.DEFINE_string("log_dir", "l", "h")\n'
    result = _fixed(tmp_path, source)
    assert (
        '    if "log_dir" in tf.app.flags.FLAGS:\n'
        '        delattr(tf.app.flags.FLAGS, "log_dir")\n'
        '    tf.app.flags.DEFINE_string("log_dir", "l", "h")\n'
    ) in result.rewritten


@pytest.mark.parametrize(
    "source",
    [
        'tf.app.flags.DEFINE_string("train_dir", "t", "h")\n',
        "tf.app.flags.DEFINE_string(NAME, 'l', 'h')\n",
        'parser.DEFINE_string("log_dir", "l", "h")\n',
        'if "log_dir" in tf.app.flags.FLAGS:\n'
        '    delattr(tf.app.flags.FLAGS, "log_dir")\n'
        'tf.app.flags.DEFINE_string("log_dir", "l", "h")\n',
    ],
    ids=["other_name", "name_not_written", "not_a_flag_module", "already_guarded"],
)
def test_what_does_not_clash_is_left(tmp_path, source):
    assert _own(_fixed(tmp_path, source)) == []


def test_a_definition_inside_an_expression_keeps_a_finding(tmp_path):
    result = _fixed(tmp_path, 'f = tf.app.flags.DEFINE_string("log_dir", "l", "h")\n')
    [finding] = _own(result)
    assert not finding.fixed and not finding.rule.fixable
    assert "delattr" not in (result.rewritten or "")


def test_the_finding_says_why(tmp_path):
    [finding] = _own(_fixed(tmp_path, 'tf.flags.DEFINE_string("log_dir", "l", "h")\n'))
    assert finding.rule.summary == (
        "absl.logging, which TensorFlow imports since TF 1.14, defines --log_dir "
        "itself: a second definition raises DuplicateFlagError"
    )
    assert finding.rule.guide == "migration_guide.md#absl-logging-flags"


def test_a_second_fix_changes_nothing(tmp_path):
    first = assert_program_fix_is_final(PROGRAM, tmp_path)
    assert 'delattr(flags.FLAGS, "log_dir")' in first["config.py"]


@pytest.mark.slow
def test_the_fixed_program_reads_its_own_log_dir(tmp_path):
    program = fixed_program(PROGRAM, tmp_path)
    logs = tmp_path / "logs"
    proc = run(
        [sys.executable, program / "train.py", f"--log_dir={logs}", "--logtostderr"],
        cwd=program,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "final loss 0.0" in proc.stdout
    assert "summaries 1" in proc.stdout
