"""A TF 1.x Estimator trainer whose input_fn calls the TF 1.x Dataset methods
(make_one_shot_iterator, make_initializable_iterator) on datasets another
module made: the TF 1.x names here make --fix port this file to compat.v1,
but the datasets stay TF 2 datasets, so the methods must become
tf.compat.v1.data's functions."""

import argparse
import sys

import tensorflow as tf

import slices_data

parser = argparse.ArgumentParser()
parser.add_argument("--train_steps", default=20, type=int)
parser.add_argument("--model_dir", default=None)


def from_dataset(ds):
    return lambda: ds.make_one_shot_iterator().get_next()


def initializable_input_fn(ds):
    def input_fn():
        iterator = ds.make_initializable_iterator()
        tf.add_to_collection(tf.GraphKeys.TABLE_INITIALIZERS, iterator.initializer)
        return iterator.get_next()

    return input_fn


def main(argv):
    args = parser.parse_args(argv[1:])
    features, labels = slices_data.load_data()
    train = slices_data.make_dataset(features, labels).shuffle(64).batch(8).repeat()
    test = slices_data.make_dataset(features, labels).batch(8)
    columns = [tf.feature_column.numeric_column(k) for k in ("a", "b")]
    model = tf.estimator.LinearRegressor(feature_columns=columns, model_dir=args.model_dir)
    model.train(input_fn=from_dataset(train), steps=args.train_steps)
    result = model.evaluate(input_fn=initializable_input_fn(test))
    print("average_loss %.4f" % result["average_loss"])


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run(main=main, argv=sys.argv)
