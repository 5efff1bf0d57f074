"""`tf.distribute.InputOptions` built and checked before TensorFlow sees them."""

from __future__ import annotations

import tensorflow as tf

_MODES = {mode.name: mode for mode in tf.distribute.InputReplicationMode}
_STRATEGY_TYPES = (tf.distribute.Strategy, tf.compat.v1.distribute.Strategy)
_MIRRORED_TYPES = (
    tf.distribute.MirroredStrategy,
    tf.compat.v1.distribute.MirroredStrategy,
)


def parse_replication_mode(value) -> tf.distribute.InputReplicationMode:
    """Parses `'per_worker'`, `'per_replica'` or an `InputReplicationMode`."""
    if isinstance(value, tf.distribute.InputReplicationMode):
        return value
    if isinstance(value, str) and value.upper() in _MODES:
        return _MODES[value.upper()]
    raise ValueError(
        f"`replication_mode` must be 'per_worker', 'per_replica' or a "
        f"tf.distribute.InputReplicationMode; received {value!r}."
    )


def _check_bool(value, argument: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"`{argument}` must be True or False; received {value!r}.")


def _check_buffer_size(value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            "`per_replica_buffer_size` must be an int >= 0 (0 turns prefetching "
            f"to the replica off); received {value!r}."
        )


def _check_placement(options) -> None:
    per_replica = options.experimental_replication_mode.name == "PER_REPLICA"
    if options.experimental_place_dataset_on_device and not per_replica:
        raise ValueError(
            "`place_dataset_on_device=True` needs `replication_mode='per_replica'`"
            f" (received {options.experimental_replication_mode.name}): only a "
            "pipeline per replica can live on its replica's device."
        )
    if options.experimental_place_dataset_on_device and (
        options.experimental_fetch_to_device
    ):
        raise ValueError(
            "`place_dataset_on_device=True` with `fetch_to_device=True`: a "
            "pipeline placed on its device has nothing to fetch there. Pass "
            "fetch_to_device=False."
        )


def _check_strategy(options, strategy, from_function: bool) -> None:
    if strategy is None:
        return
    if not isinstance(strategy, _STRATEGY_TYPES):
        raise TypeError(
            f"`strategy` must be a tf.distribute.Strategy; received {strategy!r}."
        )
    if options.experimental_replication_mode.name != "PER_REPLICA":
        return
    name = type(strategy).__name__
    if not isinstance(strategy, _MIRRORED_TYPES):
        raise ValueError(
            f"`replication_mode='per_replica'` works only with "
            f"tf.distribute.MirroredStrategy; received a {name}. Use "
            "replication_mode='per_worker' with this strategy."
        )
    if not from_function:
        raise ValueError(
            "`replication_mode='per_replica'` works only with "
            "strategy.distribute_datasets_from_function, not with "
            "experimental_distribute_dataset; pass a dataset_fn instead."
        )


def check_input_options(
    options: tf.distribute.InputOptions | None,
    strategy: tf.distribute.Strategy | None = None,
    from_function: bool = True,
) -> None:
    """Rejects the `InputOptions` that TensorFlow rejects late or cryptically.

    Args:
      options: the options to check; None (TF's defaults) always passes.
      strategy: the strategy they will be used with, if known.
      from_function: whether they go to `distribute_datasets_from_function`
        (True) or to `experimental_distribute_dataset` (False).

    Raises:
      TypeError: for options that are not `tf.distribute.InputOptions`.
      ValueError: for an invalid combination, naming the fix.
    """
    if options is None:
        return
    if not isinstance(options, tf.distribute.InputOptions):
        raise TypeError(
            "`options` must be a tf.distribute.InputOptions (see "
            f"emg.distribute.input_options); received {options!r}."
        )
    parse_replication_mode(options.experimental_replication_mode)
    _check_bool(options.experimental_fetch_to_device, "fetch_to_device")
    _check_bool(options.experimental_place_dataset_on_device, "place_dataset_on_device")
    _check_buffer_size(options.experimental_per_replica_buffer_size)
    _check_placement(options)
    _check_strategy(options, strategy, from_function)


def input_options(
    strategy: tf.distribute.Strategy | None = None,
    *,
    replication_mode: str | tf.distribute.InputReplicationMode = "per_worker",
    fetch_to_device: bool | None = None,
    place_dataset_on_device: bool = False,
    per_replica_buffer_size: int = 1,
    from_function: bool = True,
) -> tf.distribute.InputOptions:
    """Builds `tf.distribute.InputOptions`, checked against each other and the strategy.

    `replication_mode='per_worker'` (TF's default) runs one pipeline per worker
    that feeds all its replicas; `'per_replica'` runs one pipeline per replica
    (MirroredStrategy only). `place_dataset_on_device=True` runs each replica's
    pipeline on the replica's device (for sources that live there: DALI,
    device-resident arrays); it needs `'per_replica'` and
    `fetch_to_device=False`, which is the default it gets here.

    Args:
      strategy: the strategy the options are for (checked when given).
      replication_mode: `'per_worker'`, `'per_replica'` or an
        `InputReplicationMode`.
      fetch_to_device: prefetch elements to the replica devices; None means
        False with `place_dataset_on_device`, else True.
      place_dataset_on_device: build each replica's pipeline on its device.
      per_replica_buffer_size: elements prefetched per replica; 0 turns it off.
      from_function: whether the options go to
        `distribute_datasets_from_function` (else `experimental_distribute_dataset`).

    Returns:
      A `tf.distribute.InputOptions`.

    Raises:
      TypeError, ValueError: for bad values or combinations, naming the fix.
    """
    _check_bool(place_dataset_on_device, "place_dataset_on_device")
    if fetch_to_device is None:
        fetch_to_device = not place_dataset_on_device
    options = tf.distribute.InputOptions(
        experimental_fetch_to_device=fetch_to_device,
        experimental_replication_mode=parse_replication_mode(replication_mode),
        experimental_place_dataset_on_device=place_dataset_on_device,
        experimental_per_replica_buffer_size=per_replica_buffer_size,
    )
    check_input_options(options, strategy, from_function)
    return options
