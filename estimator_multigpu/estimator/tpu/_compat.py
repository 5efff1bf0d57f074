"""The rest of the `tpu` names TPUEstimator code imports on its non-TPU path."""

from __future__ import annotations

import tensorflow as tf

# tf.compat.v1.tpu's own: a custom getter that keeps bfloat16 variables in
# float32 and casts them where read, which works on CPUs and GPUs too.
bfloat16_scope = tf.compat.v1.tpu.bfloat16_scope


class CrossShardOptimizer(tf.compat.v1.train.Optimizer):
    """`tf.compat.v1.tpu.CrossShardOptimizer` off TPU: the wrapped optimizer as is.

    TPU code wraps its optimizer in it only with `use_tpu=True`, to average
    gradients over the TPU cores. Off TPU, the towers of `emg.replicate_model_fn`
    already average them over the devices, so if it is applied it passes
    every call to the optimizer it wraps.
    """

    def __init__(
        self,
        opt: tf.compat.v1.train.Optimizer,
        reduction=tf.compat.v1.losses.Reduction.MEAN,
        name: str = "CrossShardOptimizer",
        group_assignment=None,
    ):
        """Wraps `opt`.

        Args:
          opt: the `tf.compat.v1.train.Optimizer` every call goes to.
          reduction: kept; TPU-only (how the TPU cores' gradients combine).
          name: the optimizer's name.
          group_assignment: kept; TPU-only (which cores sum together).

        Raises:
          TypeError: if `opt` is not a `tf.compat.v1.train.Optimizer`.
        """
        if not isinstance(opt, tf.compat.v1.train.Optimizer):
            raise TypeError(
                "CrossShardOptimizer only works with tf.compat.v1.train.Optimizer "
                f"and not Keras Optimizer; received {opt!r}. Pass a "
                "tf.compat.v1.train optimizer."
            )
        super().__init__(False, name)
        self._opt = opt
        self._reduction = reduction
        self._group_assignment = group_assignment

    def compute_gradients(self, loss, var_list=None, **kwargs):
        """The wrapped optimizer's `compute_gradients`."""
        return self._opt.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped optimizer's `apply_gradients`."""
        return self._opt.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot."""
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables."""
        return self._opt.variables()
