"""`DeviceArray`: one resident copy of a static host array per device."""

from __future__ import annotations

import weakref

import numpy as np
import tensorflow as tf

from estimator_multigpu import _tf_internals, per_device
from estimator_multigpu import devices as devices_lib


def _check_array(array, argument: str) -> np.ndarray:
    """Returns `array` as a C-contiguous numeric ndarray (no copy if it is one)."""
    if isinstance(array, (str, bytes)) or not hasattr(array, "__len__"):
        raise TypeError(
            f"`{argument}` must be a numpy array of shape [length, ...]; received "
            f"{type(array).__name__}. Pass np.asarray(your_data)."
        )
    array = np.ascontiguousarray(array)
    if array.ndim < 1 or array.shape[0] == 0:
        raise ValueError(
            f"`{argument}` must have shape [length, ...] with length >= 1; "
            f"received shape {array.shape}."
        )
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"`{argument}` must hold numbers or booleans; received dtype "
            f"{array.dtype}. Encode strings or objects as numbers first."
        )
    return array


def _replica_device() -> str | None:
    """The device of the current tf.distribute replica, if in a replica context."""
    context = tf.distribute.get_replica_context()
    if context is None or not tf.distribute.has_strategy():
        return None
    replica = tf.get_static_value(context.replica_id_in_sync_group)
    worker_devices = context.strategy.extended.worker_devices
    if replica is None or len(worker_devices) <= int(replica):
        return None
    return worker_devices[int(replica)]


def current_device() -> str:
    """The canonical name of the device the code being built runs on.

    The replica's device inside `strategy.run`; else the current `tf.device`
    scope; else the first of `emg.devices.available()`.
    """
    name = _replica_device()
    if name is None and tf.executing_eagerly():
        name = _tf_internals.eager_device_name()
    elif name is None:
        name = tf.no_op(name="current_device_probe").device
    return devices_lib.canonical(name or devices_lib.available()[0])


def device_tag(device: str) -> str:
    """A short op-name-safe tag of a device, e.g. `'gpu_1'` for `'/gpu:1'`."""
    spec = tf.DeviceSpec.from_string(device)
    return f"{(spec.device_type or 'cpu').lower()}_{spec.device_index or 0}"


def host_of(device: str) -> str:
    """The CPU of the job/task that holds `device` (where host memory lives)."""
    spec = tf.DeviceSpec.from_string(device)
    return spec.replace(device_type="CPU", device_index=0).to_string()


class DeviceArray:
    """A static host array of shape `[length, ...]` with one copy per device.

    `on(device)` returns that device's copy: a resource variable created on
    the device and initialised from host memory, never from a graph constant,
    so arrays above the 2 GB GraphDef limit work and serialized graphs and
    datasets do not grow with the array. Copies are made once per device (and
    per graph in graph mode) and shared by every dataset built from this
    object, e.g. a training and an evaluation pipeline.

    - Eager mode (tf.distribute, Keras): a plain resource variable on the
      device, outside any strategy's variable creator (so it is never
      mirrored), holding the array from the moment it is created.
    - Graph mode (Estimator, `sharded_input_fn`): a local, untrained,
      unsaved resource variable whose initializer copies the host array in at
      session start (a host-side `numpy_function`; it runs again in every new
      session). The initializer is registered with
      `emg.per_device.register_initializer`, so the Estimator's Scaffold runs
      it; a plain `tf.compat.v1.Session` must run `tf.compat.v1.tables_initializer()`
      (or `per_device.INPUT_INITIALIZERS`). Such a graph runs only in the
      process that built it.

    The variable is not in GLOBAL_VARIABLES: checkpoints do not contain it.
    A dataset that reads a copy captures a resource, so in graph mode it
    needs an initializable iterator (`make_one_shot_iterator` refuses
    stateful captures). tf.data's in-process rewrites keep the resource as a
    handle; explicit serialization of the dataset (tf.data service,
    `snapshot`) would write the variable's value, like any captured resource.
    """

    def __init__(self, array, name: str = "device_array"):
        """Wraps a host array.

        Args:
          array: numeric or boolean array of shape `[length, ...]`; kept by
            reference (no copy when it is already C-contiguous).
          name: base name of the per-device variables.

        Raises:
          TypeError: if `array` is not a numeric array.
          ValueError: if `array` is a scalar or empty.
        """
        self._array = _check_array(array, "array")
        self._name = name
        self._eager_copies: dict[str, tf.Variable] = {}
        self._graph_copies = weakref.WeakKeyDictionary()

    @property
    def array(self) -> np.ndarray:
        return self._array

    @property
    def length(self) -> int:
        return int(self._array.shape[0])

    @property
    def dtype(self) -> tf.DType:
        return tf.as_dtype(self._array.dtype)

    def on(self, device: str | None = None) -> tf.Variable:
        """Returns the copy on `device` (default: the current device scope).

        Inside a `tf.function` or a tf.data function the copy is made (or
        found) in the outermost context, eager or the tf.compat.v1 graph, and
        captured from there.
        """
        device = devices_lib.canonical(device) if device else current_device()
        with tf.init_scope():
            if tf.executing_eagerly():
                copies = self._eager_copies
            else:
                graph = tf.compat.v1.get_default_graph()
                copies = self._graph_copies.setdefault(graph, {})
            if device not in copies:
                copies[device] = self._make_copy(device)
                tf.get_logger().info(
                    "Resident copy of a %s %s array (%.1f MB) on %s.",
                    self._array.shape,
                    self._array.dtype,
                    self._array.nbytes / 2**20,
                    device,
                )
            return copies[device]

    def _make_copy(self, device: str) -> tf.Variable:
        name = f"{self._name}_{device_tag(device)}"
        if not tf.executing_eagerly():
            return self._make_graph_copy(device, name)
        with tf.device(device):
            return _tf_internals.resource_variable(
                self._array, trainable=False, name=name
            )

    def _make_graph_copy(self, device: str, name: str) -> tf.Variable:
        array = self._array
        with tf.device(host_of(device)):
            value = tf.numpy_function(
                lambda: array, [], self.dtype, stateful=True, name=f"{name}_host"
            )
            value.set_shape(array.shape)
        with tf.device(device):
            variable = tf.compat.v1.Variable(
                value, trainable=False, collections=[], use_resource=True, name=name
            )
        per_device.register_initializer(variable.initializer)
        return variable

    def gather_fragments(
        self, starts: tf.Tensor, fragment_length: int, device: str | None = None
    ) -> tf.Tensor:
        """Gathers `array[s : s + fragment_length]` for every `s` in `starts`.

        One gather op on `device`, reading that device's copy. Use it in a
        model_fn or a replica step on batches of starts from
        `device_array_dataset(..., gather_in_dataset=False)`: only the
        `[batch_size]` starts then reach the device. The starts are not
        checked here; `device_array_dataset` checked them up front. Inside
        `strategy.run(replica_fn)` the default device is the replica's; wrap
        the `strategy.run` call in a `tf.function`, not `replica_fn` itself
        (a `tf.function` passed to `strategy.run` is traced once and shared
        by all replicas, so every replica would read one copy).

        Args:
          starts: integer `[batch_size]` start indices.
          fragment_length: length of each slice.
          device: the device whose copy to read; default the current scope.

        Returns:
          `[batch_size, fragment_length, *array.shape[1:]]` tensor on `device`.
        """
        return gather_fragments(self.on(device), starts, fragment_length)


def gather_fragments(
    variable: tf.Variable, starts: tf.Tensor, fragment_length: int
) -> tf.Tensor:
    """One gather of `variable[s : s + fragment_length]` for all `s`, on its device."""
    with tf.device(variable.device):
        offsets = tf.range(fragment_length, dtype=tf.int64)
        positions = tf.cast(starts, tf.int64)[:, None] + offsets[None, :]
        name = f"gather_fragments_{device_tag(variable.device)}"
        return tf.gather(variable, positions, name=name)
