"""`python -m estimator_multigpu.diagnose`: formats, exit codes, usage errors."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from estimator_multigpu.diagnose.__main__ import main

USER_MODULE = textwrap.dedent(
    """
    import time

    import tensorflow as tf


    def leaky():  # Workers' shards overlap: an error.
        return tf.data.Dataset.range(100).shuffle(10).shard(2, 0).batch(4)


    def clean():
        return tf.data.Dataset.range(100).shard(2, 0).shuffle(10, seed=1).batch(4).prefetch(1)


    def input_fn(params, mode):
        return tf.data.Dataset.range(10**6).batch(params["batch"]).prefetch(1)


    def step(batch):
        return tf.reduce_sum(batch)


    def tensors_input_fn():
        return tf.zeros([2]), tf.zeros([2])


    def needs_batch_size(batch_size):
        return tf.data.Dataset.range(batch_size)


    def _sleep(value):
        time.sleep(3600)
        return value


    def never_yields():  # Blocks in its first element, using no CPU.
        return tf.data.Dataset.range(1).map(
            lambda x: tf.py_function(_sleep, [x], tf.int64)
        )


    NUMBER = 3
    """
)


@pytest.fixture
def user_pkg(tmp_path, monkeypatch):
    """A package `user_pkg.pipelines` in a folder on sys.path (and the cwd)."""
    package = tmp_path / "user_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "pipelines.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(folder, *args):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [sys.executable, "-m", "estimator_multigpu.diagnose", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_json_report_and_exit_1_on_errors(user_pkg):
    result = _run(user_pkg, "user_pkg.pipelines:leaky", "--format=json")
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    rules = {f["rule"]: f["severity"] for f in document["findings"]}
    assert rules["shard-after-unseeded-shuffle"] == "error"
    assert rules["no-final-prefetch"] == "warning"
    assert document["summary"]["error"] == 1


@pytest.mark.slow
def test_clean_pipeline_table_and_exit_0(user_pkg):
    result = _run(user_pkg, "user_pkg.pipelines:clean")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("No findings")


@pytest.mark.slow
def test_missing_module_exits_2_with_the_fix(user_pkg):
    result = _run(user_pkg, "user_pkg.nothing_here:fn")
    assert result.returncode == 2
    assert (
        "Module 'user_pkg.nothing_here' of 'user_pkg.nothing_here:fn' was not found"
        in (result.stderr)
    )
    assert result.stdout == ""


@pytest.mark.slow
def test_input_bound_subcommand_prints_a_table_and_a_plot(user_pkg):
    pytest.importorskip("matplotlib")
    result = _run(
        user_pkg,
        "user_pkg.pipelines:input_fn",
        "--input-bound",
        "--step=user_pkg.pipelines:step",
        '--params={"batch": 8}',
        "--steps=3",
        "--warmup-steps=1",
        "--stage-seconds=0.1",
        "--plot=stages.png",
    )
    assert result.returncode == 0, result.stderr
    assert "Input-bound analysis: 3 steps, 8 examples per step." in result.stdout
    assert "Slowest stage:" in result.stdout
    assert "real input: 3/3" in result.stderr  # Progress goes to stderr.
    assert (user_pkg / "stages.png").read_bytes()[:4] == b"\x89PNG"


def test_input_fn_gets_params_and_mode(user_pkg, capsys):
    status = main(
        ["user_pkg.pipelines:input_fn", '--params={"batch": 2}', "--mode=eval"]
    )
    assert status == 0
    assert capsys.readouterr().out.startswith("No findings")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["user_pkg.pipelines:nope"], r"'user_pkg.pipelines' has no attribute 'nope'"),
        (["user_pkg.pipelines:NUMBER"], r"is not callable \(it is of type int\)"),
        (["user_pkg.pipelines"], r"must be 'package.module:function'"),
        (["user_pkg.pipelines:needs_batch_size"], r"requires \['batch_size'\]"),
        (["user_pkg.pipelines:tensors_input_fn"], r"no tf.data iterator produces"),
    ],
    ids=["attribute", "not-callable", "no-colon", "extra-argument", "no-dataset"],
)
def test_usage_errors_exit_2(user_pkg, capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert re.search(message, err), err


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["user_pkg.pipelines:clean", "--input-bound"],
            "exactly one of --step and --model-fn",
        ),
        (["user_pkg.pipelines:clean", "--params=[1]"], "must be a JSON object"),
        (["user_pkg.pipelines:clean", "--num-devices=0"], "must be an integer >= 1"),
    ],
    ids=["input-bound-without-step", "params", "num-devices"],
)
def test_bad_options_exit_2(user_pkg, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_emg_diagnose_loads_lazily_from_the_top_level():
    import estimator_multigpu as emg
    from estimator_multigpu import diagnose

    assert "diagnose" in emg.__all__ and "diagnose" in dir(emg)
    assert emg.diagnose is diagnose
    assert emg.diagnose.check is diagnose.check


@pytest.mark.parametrize(
    "plot, message",
    [
        ("missing/stages.png", r"--plot: the folder 'missing' does not exist"),
        ("exists.png", r"--plot: 'exists.png' exists; it is never overwritten"),
    ],
    ids=["missing-folder", "existing-file"],
)
def test_plot_path_is_checked_before_measuring(user_pkg, capsys, plot, message):
    (user_pkg / "exists.png").write_text("keep me")
    status = main(
        [
            "user_pkg.pipelines:input_fn",
            "--input-bound",
            "--step=user_pkg.pipelines:step",
            '--params={"batch": 2}',
            "--steps=2",
            "--warmup-steps=0",
            f"--plot={plot}",
        ]
    )
    captured = capsys.readouterr()
    assert status == 2
    assert re.search(message, captured.err), captured.err
    assert "real input" not in captured.err  # Nothing was measured.
    assert captured.out == ""
    assert (user_pkg / "exists.png").read_text() == "keep me"


def test_plot_without_matplotlib_is_refused_before_measuring(
    user_pkg, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    status = main(
        [
            "user_pkg.pipelines:input_fn",
            "--input-bound",
            "--step=user_pkg.pipelines:step",
            '--params={"batch": 2}',
            "--plot=stages.png",
        ]
    )
    captured = capsys.readouterr()
    assert status == 2
    assert "plot_stages needs matplotlib: pip install" in captured.err
    assert "real input" not in captured.err


@pytest.mark.slow
def test_input_that_never_yields_fails_after_the_timeout(user_pkg):
    """The first element never comes: a bounded wait, a message naming it."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "estimator_multigpu.diagnose",
            "user_pkg.pipelines:never_yields",
            "--input-bound",
            "--step=user_pkg.pipelines:step",
            "--input-timeout=2",
        ],
        cwd=user_pkg,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert (
        "error: the input gave no element in 2 s (step 1 of 55, real input)"
        in result.stderr
    )
    assert "pass a larger `input_timeout` (--input-timeout" in result.stderr


_BROKEN = "import tensorflow as tf\n\n\ndef fn():\n    return tf.data.Dataset.range(3\n"


@pytest.mark.parametrize(
    "files, broken",
    [
        ({"broken.py": _BROKEN}, "broken.py"),
        (
            {"broken.py": "from user_pkg.helper import fn\n", "helper.py": _BROKEN},
            "helper.py",
        ),
        ({"broken.py": "def fn():\n  x = 1\n    return x\n"}, "broken.py"),
    ],
    ids=["in_the_module", "in_a_module_it_imports", "indentation"],
)
def test_syntax_error_in_the_module_names_file_and_line(
    user_pkg, capsys, monkeypatch, files, broken
):
    for name in [m for m in sys.modules if m.split(".")[0] == "user_pkg"]:
        monkeypatch.delitem(sys.modules, name)  # This test's user_pkg, not one before.
    for name, text in files.items():
        (user_pkg / "user_pkg" / name).write_text(text)
    assert main(["user_pkg.broken:fn"]) == 2
    err = capsys.readouterr().err
    path = re.escape(str(user_pkg / "user_pkg" / broken))
    assert re.match(
        rf"error: {path}, line \d+: (SyntaxError|IndentationError): .+ \(while "
        r"importing module 'user_pkg.broken' of 'user_pkg.broken:fn'\); fix the "
        r"code there and run again\.\n$",
        err,
    ), err


@pytest.mark.slow
def test_syntax_error_exits_2_without_a_traceback(user_pkg):
    (user_pkg / "user_pkg" / "broken.py").write_text(_BROKEN)
    result = _run(user_pkg, "user_pkg.broken:fn")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert (
        f"{user_pkg / 'user_pkg' / 'broken.py'}, line 5: SyntaxError: " in result.stderr
    )
    assert result.stdout == ""
