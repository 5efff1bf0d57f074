"""The wide-and-deep census shape (TF 1.x, ported with tf.compat.v1): a DNNLinearCombinedClassifier.

Its wide part takes the sparse columns (vocabulary, hash, bucketized, crossed);
its deep part the dense ones (numeric, indicator, embedding). Runs on TF
<= 2.15 (tf.estimator); after `emg-migrate --fix` on TF 2.16+.
Usage: python wide_deep_census.py DATA_DIR MODEL_DIR [DEVICES]
(DATA_DIR holds adult.data and adult.test, CSVs with a header row; DEVICES,
e.g. /cpu:0,/cpu:1, trains with a MirroredStrategy over them).
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

EDUCATION = ["Bachelors", "HS-grad", "Masters", "Doctorate"]
DEFAULTS = [[0.0], [""], [""], [0.0], [0]]


def build_columns():
    age = tf.feature_column.numeric_column("age")
    hours = tf.feature_column.numeric_column("hours_per_week")
    education = tf.feature_column.categorical_column_with_vocabulary_list(
        "education", EDUCATION
    )
    occupation = tf.feature_column.categorical_column_with_hash_bucket(
        "occupation", hash_bucket_size=20
    )
    age_buckets = tf.feature_column.bucketized_column(age, boundaries=[25, 35, 45, 55])
    crossed = tf.feature_column.crossed_column(
        [age_buckets, "education"], hash_bucket_size=50
    )
    wide = [education, occupation, age_buckets, crossed]
    deep = [
        age,
        hours,
        tf.feature_column.indicator_column(education),
        tf.feature_column.embedding_column(occupation, dimension=4),
    ]
    return wide, deep


def input_fn(path, num_epochs, shuffle, batch_size=32):
    dataset = tf.data.experimental.make_csv_dataset(
        path,
        batch_size,
        column_defaults=DEFAULTS,
        label_name="income_bracket",
        num_epochs=num_epochs,
        shuffle=shuffle,
        shuffle_seed=1,
    )
    return dataset


def main(data_dir, model_dir, devices=None):
    wide, deep = build_columns()
    strategy = tf.distribute.MirroredStrategy(devices.split(",")) if devices else None
    config = tf.estimator.RunConfig(  # expect: estimator
        model_dir=model_dir, tf_random_seed=1, train_distribute=strategy
    )
    model = tf.estimator.DNNLinearCombinedClassifier(  # expect: estimator
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[16, 8],
        config=config,
    )
    train_path = os.path.join(data_dir, "adult.data")
    test_path = os.path.join(data_dir, "adult.test")
    model.train(input_fn=lambda: input_fn(train_path, None, True), steps=100)
    result = model.evaluate(input_fn=lambda: input_fn(test_path, 1, False))
    print("eval keys", sorted(result))
    print("accuracy", round(float(result["accuracy"]), 2))
    predictions = model.predict(input_fn=lambda: input_fn(test_path, 1, False))
    first = next(iter(predictions))
    print("prediction keys", sorted(first))
    print("prediction classes", first["classes"])
    spec = tf.feature_column.make_parse_example_spec(wide + deep)
    serving_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(  # expect: estimator
        spec
    )
    export = model.export_saved_model(os.path.join(model_dir, "export"), serving_fn)
    with tf.Session(graph=tf.Graph()) as session:
        meta = tf.saved_model.loader.load(session, ["serve"], os.fsdecode(export))
    print("signatures", sorted(meta.signature_def))


if __name__ == "__main__":
    main(*sys.argv[1:])
