"""benchmarks/real_code: the manifest's checks and the driver, end to end on a
legacy multi-GPU script committed to a git repository made here."""

from __future__ import annotations

import pathlib
import subprocess
import textwrap

import pytest
from real_code_helpers import git_mirror

from benchmarks.real_code import _case, cases, run

LEGACY = textwrap.dedent(
    '''
    """A TF 1.x trainer: queue input from CSV, a tower loop over --num_gpus."""
    import os
    import tensorflow as tf

    flags = tf.app.flags
    flags.DEFINE_string("data_dir", "", "folder of train.csv")
    flags.DEFINE_integer("num_gpus", 1, "towers")
    FLAGS = flags.FLAGS


    def inputs():
        files = tf.train.string_input_producer([os.path.join(FLAGS.data_dir, "train.csv")])
        _, line = tf.TextLineReader().read(files)
        x, y = tf.decode_csv(line, [[0.0], [0.0]])
        return tf.train.batch([x, y], batch_size=4)


    def tower_loss(w, x, y):
        return tf.reduce_mean(tf.square(w * x - y))


    def average_gradients(tower_grads):
        average_grads = []
        for grad_and_vars in zip(*tower_grads):
            grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
            grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
            average_grads.append((grad, grad_and_vars[0][1]))
        return average_grads


    def main(_):
        x, y = inputs()
        opt = tf.train.GradientDescentOptimizer(0.1)
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        xs = tf.split(x, FLAGS.num_gpus)
        ys = tf.split(y, FLAGS.num_gpus)
        tower_grads = []
        for i in range(FLAGS.num_gpus):
            with tf.device("/gpu:%d" % i):
                with tf.name_scope("tower_%d" % i):
                    loss = tower_loss(w, xs[i], ys[i])
                    grads = opt.compute_gradients(loss)
                    tower_grads.append(grads)
        grads = average_gradients(tower_grads)
        train_op = opt.apply_gradients(grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            for step in range(2):
                _, l = sess.run([train_op, loss])
                print("step %d loss %.4f" % (step, l))
            coord.request_stop()
            coord.join(threads)
        print("done")


    if __name__ == "__main__":
        tf.app.run()
    '''
)


def _write_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    (data / "train.csv").write_text("".join(f"{i},{2 * i}\n" for i in range(8)))


def _git_repo(root: pathlib.Path) -> str:
    """A mirror at root/owner+legacy/repo holding train.py; its commit."""
    return git_mirror(root, "legacy", LEGACY)


def _case_for(commit: str = "0" * 40, **overrides) -> _case.Case:
    fields = dict(
        name="legacy",
        repo="owner/legacy",
        commit=commit,
        what="a test trainer",
        make_data=_write_data,
        commands=[
            _case.Command(
                ["{python}", "train.py", "--data_dir={data}", "--num_gpus={num_gpus}"],
                expect=r"\ndone",
                loss=r"step 0 loss ([\d.]+)",
                timeout=300,
            )
        ],
    )
    return _case.Case(**{**fields, **overrides})


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"repo": "legacy"}, "owner/name"),
        ({"commit": "abc"}, "40 hex"),
        ({"commands": []}, "no commands"),
        ({"devices": (1,)}, "single_device_why"),
        ({"devices": (2, 4)}, r"\(1, 2\) or \(1,\)"),
    ],
)
def test_a_case_with_bad_fields_is_refused_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        _case_for(**fields)


def test_commands_and_hand_edits_are_checked_when_made():
    with pytest.raises(ValueError, match=r"\['modeldir'\]"):
        _case.Command(["{python}", "--dir={modeldir}"], expect="x")
    with pytest.raises(ValueError, match="one group"):
        _case.Command(["x"], expect="x", loss=r"loss \d+")
    with pytest.raises(ValueError, match="list of words"):
        _case.Command("python train.py", expect="x")
    with pytest.raises(ValueError, match="say why"):
        _case.HandEdit("a.py", "x", "y", why="because")


def test_every_case_of_the_manifest_is_well_formed():
    found = cases.all_cases()
    names = [c.name for c in found]
    assert len(names) == len(set(names))
    for case in found:
        assert case.what.strip(), case.name
        assert all(isinstance(c, _case.Command) for c in case.commands), case.name


def test_a_missing_mirror_says_where_it_looked(tmp_path):
    with pytest.raises(ValueError, match="No git mirror of owner/none"):
        run.git_dir(tmp_path, "owner/none")


def test_a_bare_mirror_at_owner_name_repo_is_found(tmp_path):
    # The layout a fetched snapshot has: <owner>+<name>/repo is itself bare.
    bare = tmp_path / "owner+bare" / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    assert run.git_dir(tmp_path, "owner/bare") == bare


def test_a_hand_edit_that_no_longer_matches_once_is_refused(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    case = _case_for(
        hand_edits=[_case.HandEdit("a.py", "x = 1", "x = 2", "a reason with words")]
    )
    with pytest.raises(ValueError, match="occurs 2 times"):
        run.apply_hand_edits(case, tmp_path)


def test_the_table_gives_the_hand_edits_median_and_max():
    rows = [
        {
            "name": n,
            "repo": "o/r",
            "commit": "a" * 40,
            "findings": 3,
            "fixed": 3,
            "left": [],
            "hand_edits": [{}] * k,
            "single_device_why": "",
            "runs": {"1": [{"ok": True, "loss": "1.0"}]},
        }
        for n, k in (("a", 0), ("b", 0), ("c", 1))
    ]
    page = run.table(rows)
    assert "median 0, max 1, total 1" in page
    assert "runs (first loss 1.0)" in page
    assert "| c (o/r) | aaaaaaaa | 3 | 3 | 0 | 1 |" in page


@pytest.mark.slow
def test_the_driver_fixes_a_legacy_trainer_and_runs_it_on_1_and_2_devices(tmp_path):
    commit = _git_repo(tmp_path / "mirrors")
    result = run.run_case(_case_for(commit), tmp_path / "mirrors", tmp_path / "scratch")
    assert result["findings"] >= 5 and result["fixed"] >= 5, result
    tree = (tmp_path / "scratch" / "legacy" / "tree" / "train.py").read_text()
    assert "tf.train.string_input_producer" not in tree and "/gpu:%d" not in tree
    for n in ("1", "2"):
        (step,) = result["runs"][n]
        assert step["ok"], step
    assert result["runs"]["1"][0]["loss"] == result["runs"]["2"][0]["loss"]
    log = (tmp_path / "scratch" / "legacy" / "log_2dev_0.txt").read_text()
    assert "simulating 2 logical devices" in log
