"""GreedyLoadBalancingStrategy + byte_size_load_fn place variables by size, as
tf.contrib.training did, through tf.compat.v1.train.replica_device_setter."""

import pytest
import tensorflow as tf

from estimator_multigpu.estimator import GreedyLoadBalancingStrategy, byte_size_load_fn

pytestmark = pytest.mark.tf_compat


@pytest.mark.parametrize("resource", [True, False], ids=["resource", "ref"])
def test_variables_go_to_the_least_loaded_task(resource):
    strategy = GreedyLoadBalancingStrategy(2, byte_size_load_fn)
    setter = tf.compat.v1.train.replica_device_setter(
        ps_tasks=2,
        ps_device="/job:ps",
        worker_device="/job:worker",
        ps_strategy=strategy,
    )
    with tf.Graph().as_default(), tf.compat.v1.device(setter):
        shapes = {"big": [100, 10], "a": [10], "b": [20], "c": [5]}
        made = {
            name: tf.compat.v1.get_variable(name, shape, use_resource=resource)
            for name, shape in shapes.items()
        }
    tasks = {name: v.device for name, v in made.items()}
    # big (4000 B) -> task 0; a (40) -> 1; b (80) -> 1 (40 < 4000); c -> 1.
    assert tasks == {
        "big": "/job:ps/task:0",
        "a": "/job:ps/task:1",
        "b": "/job:ps/task:1",
        "c": "/job:ps/task:1",
    }


def test_byte_size_of_a_resource_variable():
    with tf.Graph().as_default():
        v = tf.compat.v1.get_variable("v", [3, 4], dtype=tf.float64, use_resource=True)
        assert byte_size_load_fn(v.op) == 3 * 4 * 8


def test_bad_arguments():
    with pytest.raises(
        ValueError, match=r"`num_tasks` must be an int >= 1; received 0"
    ):
        GreedyLoadBalancingStrategy(0, byte_size_load_fn)
    with pytest.raises(TypeError, match=r"`load_fn` must be callable"):
        GreedyLoadBalancingStrategy(2, None)
