"""Queue chains: recognise a reader-to-batcher chain and render its tf.data text."""
