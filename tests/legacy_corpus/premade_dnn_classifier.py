"""TF's premade-Estimator tutorial shape: iris-like CSVs, numeric columns, a DNNClassifier.

Runs on TF <= 2.15 (tf.estimator); after `emg-migrate --fix` it runs on TF
2.16+. Usage: python premade_dnn_classifier.py DATA_DIR MODEL_DIR [DEVICES]
(DATA_DIR holds train.csv and test.csv; DEVICES, e.g. /cpu:0,/cpu:1, trains
with a MirroredStrategy over them).
"""

import os
import sys

import numpy as np
import pandas as pd
import tensorflow as tf

CSV_COLUMNS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth", "Species"]
SPECIES = ["Setosa", "Versicolor", "Virginica"]


def load_data(data_dir):
    train = pd.read_csv(
        os.path.join(data_dir, "train.csv"), names=CSV_COLUMNS, header=0
    )
    test = pd.read_csv(os.path.join(data_dir, "test.csv"), names=CSV_COLUMNS, header=0)
    return (train, train.pop("Species")), (test, test.pop("Species"))


def train_input_fn(features, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return dataset.shuffle(1000, seed=1).repeat().batch(batch_size)


def main(data_dir, model_dir, devices=None):
    (train_x, train_y), (test_x, test_y) = load_data(data_dir)
    columns = [tf.feature_column.numeric_column(key=key) for key in train_x.keys()]
    strategy = tf.distribute.MirroredStrategy(devices.split(",")) if devices else None
    config = tf.estimator.RunConfig(  # expect: estimator
        model_dir=model_dir, tf_random_seed=1, train_distribute=strategy
    )
    classifier = tf.estimator.DNNClassifier(  # expect: estimator
        feature_columns=columns, hidden_units=[10, 10], n_classes=3, config=config
    )
    classifier.train(input_fn=lambda: train_input_fn(train_x, train_y, 16), steps=200)
    eval_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(  # expect: estimator
        test_x, test_y, batch_size=16, shuffle=False
    )
    result = classifier.evaluate(input_fn=eval_fn)
    print("eval keys", sorted(result))
    print("accuracy", round(float(result["accuracy"]), 2))
    predict_x = {key: np.asarray(test_x[key][:3]) for key in test_x}
    predict_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(  # expect: estimator
        predict_x, batch_size=2, shuffle=False
    )
    for prediction in classifier.predict(input_fn=predict_fn):
        class_id = prediction["class_ids"][0]
        print("prediction keys", sorted(prediction))
        print("prediction", SPECIES[class_id], prediction["probabilities"].shape)
    spec = tf.feature_column.make_parse_example_spec(columns)
    serving_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(  # expect: estimator
        spec
    )
    export = classifier.export_saved_model(
        os.path.join(model_dir, "export"), serving_fn
    )
    print("signatures", sorted(tf.saved_model.load(os.fsdecode(export)).signatures))


if __name__ == "__main__":
    main(*sys.argv[1:])
