"""A TF 1.x slim-style model that imports contrib's layers utils by its file
path: it collects the named outputs of a custom layer and reads them back as
a dict (no public contrib name has either).

tf.contrib is gone since TF 2.0; tf_slim is the same files, moved.
`emg-migrate --fix` imports each module from tf_slim.
Usage: python contrib_module_paths.py
"""

import tensorflow as tf  # port: compat-v1
from tensorflow.contrib.layers.python.layers import utils  # port: contrib-module-path


def scaled(inputs, outputs_collections=None, scope=None):
    with tf.variable_scope(scope, "scaled", [inputs]) as sc:
        scale = tf.get_variable("scale", [], initializer=tf.ones_initializer())
        outputs = inputs * scale
        return utils.collect_named_outputs(outputs_collections, sc.name, outputs)  # expect: contrib  # port: contrib


def main():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = scaled(scaled(x, "ends"), "ends")
        ends = utils.convert_collection_to_dict("ends")  # expect: contrib  # port: contrib
        loss = tf.reduce_mean(tf.square(y - 2.0))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, l = sess.run([train_op, loss], {x: [[1.0, 1.0]]})
                print("step %d loss %.4f" % (step, l))
    print("ends", sorted(ends))


if __name__ == "__main__":
    main()
