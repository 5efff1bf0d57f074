"""The CIFAR-10 trainer's progress line shows the global step."""

import tensorflow as tf

from cifar10 import progress
from estimator_multigpu import estimator


def _run(increment, steps, every_n_steps=2):
    lines = []
    with tf.Graph().as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        loss = tf.constant(1.5)
        train_op = tf.compat.v1.assign_add(step, increment)
        hook = progress.ProgressHook(
            loss, tf.constant(0.1), 8, 100, every_n_steps, write=lines.append
        )
        with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as session:
            for _ in range(steps):
                session.run(train_op)
    return [line for line in lines if line is not None]


def test_one_worker_counts_its_steps():
    lines = _run(increment=1, steps=5)
    assert [line.split()[1] for line in lines] == ["3/100", "5/100"]


def test_the_global_step_moved_by_others_is_shown():
    """On a cluster other workers move the global step (here: 3 per run)."""
    lines = _run(increment=3, steps=5)
    assert [line.split()[1] for line in lines] == ["9/100", "15/100"]
    assert "loss 1.500" in lines[0]


def test_hook_is_a_session_run_hook():
    assert issubclass(progress.ProgressHook, estimator.SessionRunHook)
