"""emg.devices.session_config: explicit session configs keep the logical devices.

conftest splits the CPU into 4. A `tf.compat.v1.Session` with any explicit
`ConfigProto` builds its devices from that proto alone, so without
`session_config` it lists only `CPU:0`.
"""

import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

from estimator_multigpu import devices

pytestmark = pytest.mark.tf_compat

ConfigProto = tf.compat.v1.ConfigProto
CONFIGS = {
    "empty": ConfigProto,
    "allow_growth": lambda: ConfigProto(
        gpu_options=tf.compat.v1.GPUOptions(allow_growth=True)
    ),
    "no_gpus": lambda: ConfigProto(device_count={"GPU": 0}),
    "one_cpu_no_gpus": lambda: ConfigProto(device_count={"CPU": 1, "GPU": 0}),
}


def _session_devices(config) -> list[str]:
    with tf.Graph().as_default(), tf.compat.v1.Session(config=config) as session:
        return [d.name.rpartition("/device:")[2] for d in session.list_devices()]


def _cpus(n):
    return [f"CPU:{i}" for i in range(n)]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_an_explicit_config_alone_loses_the_logical_cpus(name):
    assert _session_devices(CONFIGS[name]()) == _cpus(1)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_session_config_keeps_the_logical_cpus(name):
    config = devices.session_config(CONFIGS[name]())
    assert _session_devices(config) == _cpus(len(ALL_DEVICES))


def test_none_is_an_empty_config_with_the_devices():
    assert _session_devices(devices.session_config()) == _cpus(len(ALL_DEVICES))


def test_the_rest_of_the_config_stays_and_the_given_one_is_not_changed():
    given = ConfigProto(
        allow_soft_placement=True,
        intra_op_parallelism_threads=3,
        device_count={"GPU": 0},
    )
    config = devices.session_config(given)
    assert config.allow_soft_placement and config.intra_op_parallelism_threads == 3
    assert config.device_count["GPU"] == 0  # The TF1 way of hiding the GPUs.
    assert dict(given.device_count) == {"GPU": 0}
    assert config is not given


def test_a_larger_cpu_count_is_kept():
    config = devices.session_config(ConfigProto(device_count={"CPU": 6}))
    assert config.device_count["CPU"] == 6


def test_a_config_that_is_not_a_config_proto_is_a_type_error():
    with pytest.raises(
        TypeError,
        match=r"`config` must be a tf.compat.v1.ConfigProto or None; received "
        r"\{'allow_soft_placement': True\} of type dict\. Pass "
        r"tf.compat.v1.ConfigProto\(\.\.\.\)\.",
    ):
        devices.session_config({"allow_soft_placement": True})


def test_a_split_gpu_is_described_as_gpu_options_describe_it():
    """The GPU branch's proto (no GPU here): one entry per physical GPU."""
    options = tf.compat.v1.GPUOptions()
    split = [
        tf.config.LogicalDeviceConfiguration(memory_limit=1024),
        tf.config.LogicalDeviceConfiguration(memory_limit=512),
    ]
    devices._add_virtual_devices(options.experimental.virtual_devices.add(), split)
    devices._add_virtual_devices(options.experimental.virtual_devices.add(), None)
    virtual = options.experimental.virtual_devices
    assert [list(v.memory_limit_mb) for v in virtual] == [[1024, 512], []]
    assert not virtual[0].priority and not virtual[0].device_ordinal


def test_without_a_gpu_the_gpu_options_stay_empty():
    config = devices.session_config(ConfigProto())
    assert config.gpu_options == tf.compat.v1.GPUOptions()
    assert "GPU" not in config.device_count


VISIBLE = {
    "one": "0",
    "two": "0,1",
    "spaced": "0, 1",
}


@pytest.mark.parametrize("visible", sorted(VISIBLE))
def test_a_visible_device_list_without_a_gpu_is_kept_as_it_is(visible):
    """Horovod-style `visible_device_list=str(local_rank)` on a CPU machine."""
    given = ConfigProto(
        gpu_options=tf.compat.v1.GPUOptions(visible_device_list=VISIBLE[visible])
    )
    config = devices.session_config(given)
    assert config.gpu_options.visible_device_list == VISIBLE[visible]
    assert _session_devices(config) == _cpus(len(ALL_DEVICES))


@pytest.mark.parametrize(
    "visible,why",
    [("1", "1 is not one"), ("0,2", "2 is not one"), ("0,x", "'x' is no index")],
    ids=["past_the_end", "second_past_the_end", "not_an_index"],
)
def test_a_visible_device_list_naming_no_visible_gpu_is_a_value_error(visible, why):
    """One GPU (its list entry is all the check reads): TensorFlow's own error."""
    with pytest.raises(
        ValueError,
        match=rf"`gpu_options\.visible_device_list` \('{visible}'\) names GPUs by "
        rf"their index among the 1 visible GPU\(s\) \(0 to 0\); {why}.*Pass ",
    ):
        devices._visible_gpu_indices(visible, ["GPU:0"])


def test_the_type_error_names_an_empty_proto_by_its_type():
    with pytest.raises(
        TypeError,
        match=r"received an empty GPUOptions message of type GPUOptions\. Pass "
        r"tf\.compat\.v1\.ConfigProto\(gpu_options=\.\.\.\)",
    ):
        devices.session_config(tf.compat.v1.GPUOptions())
