"""input_fn builders that feed several devices from tf.data, and data sources."""

__all__ = []
