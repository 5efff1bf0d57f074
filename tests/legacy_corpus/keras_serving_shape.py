"""A Keras model declared for flat inputs, exported through a 2-D placeholder (official/mnist's shape)."""
import tensorflow as tf  # port: compat-v1


def create_model():
    layers = tf.keras.layers
    return tf.keras.Sequential(
        [
            layers.Reshape(target_shape=[28, 28, 1], input_shape=(28 * 28,)),
            layers.Flatten(),
            layers.Dense(10),
        ]
    )


def export(classifier, export_dir):
    image = tf.placeholder(tf.float32, [None, 28, 28])
    input_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(  # expect: estimator  # port: estimator, keras-input-shape
        {"image": image}
    )
    classifier.export_savedmodel(export_dir, input_fn)
