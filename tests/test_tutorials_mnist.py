"""The TF 1.x MNIST tutorial drop-ins: `read_data_sets`/`DataSet` and the model.

The data files are written here in MNIST's idx format (gzip, big-endian
uint32 header, magic 2051 for images and 2049 for labels); `next_batch` is
checked against a numpy replay of TF 1.x's algorithm.
"""

import gzip
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu.tutorials import input_data, mnist

N_TRAIN, N_TEST, SIDE = 25, 6, 3
FILES = [
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
]


def _idx(header, payload) -> bytes:
    return np.array(header, ">u4").tobytes() + np.asarray(payload, np.uint8).tobytes()


def _write(path, data: bytes):
    with gzip.open(path, "wb") as f:
        f.write(data)


def _arrays(n, seed):
    rng = np.random.RandomState(seed)
    return rng.randint(0, 256, (n, SIDE, SIDE)), rng.randint(0, 10, n)


@pytest.fixture
def data_dir(tmp_path):
    """Four idx files: 25 training and 6 test images of 3x3 pixels."""
    for prefix, n, seed in (("train", N_TRAIN, 1), ("t10k", N_TEST, 2)):
        images, labels = _arrays(n, seed)
        _write(
            tmp_path / f"{prefix}-images-idx3-ubyte.gz",
            _idx([2051, n, SIDE, SIDE], images),
        )
        _write(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", _idx([2049, n], labels))
    return tmp_path


def test_splits_shapes_and_float32_scaling(data_dir):
    sets = input_data.read_data_sets(str(data_dir), validation_size=5)
    images, labels = _arrays(N_TRAIN, 1)
    assert isinstance(sets, input_data.Datasets)
    assert (sets.train.num_examples, sets.validation.num_examples) == (20, 5)
    assert sets.test.num_examples == N_TEST
    assert sets.train.images.shape == (20, SIDE * SIDE)
    assert sets.train.images.dtype == np.float32
    want = images.reshape(N_TRAIN, -1).astype(np.float32) / 255.0
    np.testing.assert_allclose(sets.validation.images, want[:5], rtol=1e-6)
    np.testing.assert_allclose(sets.train.images, want[5:], rtol=1e-6)
    assert sets.train.labels.dtype == np.uint8
    np.testing.assert_array_equal(sets.train.labels, labels[5:])


def test_uint8_unreshaped_images_keep_their_pixels(data_dir):
    sets = input_data.read_data_sets(
        str(data_dir), dtype=tf.uint8, reshape=False, validation_size=0
    )
    images, _ = _arrays(N_TRAIN, 1)
    assert sets.train.images.shape == (N_TRAIN, SIDE, SIDE, 1)
    assert sets.train.images.dtype == np.uint8
    np.testing.assert_array_equal(sets.train.images[..., 0], images)
    assert sets.validation.num_examples == 0


def test_one_hot_labels_are_float64_rows_as_tf1_gave(data_dir):
    sets = input_data.read_data_sets(str(data_dir), one_hot=True, validation_size=5)
    _, labels = _arrays(N_TEST, 2)
    assert sets.test.labels.shape == (N_TEST, 10)
    assert sets.test.labels.dtype == np.float64
    np.testing.assert_array_equal(sets.test.labels.argmax(1), labels)
    np.testing.assert_array_equal(sets.test.labels.sum(1), np.ones(N_TEST))


@pytest.mark.parametrize("size", [-1, N_TRAIN + 1], ids=["negative", "too_big"])
def test_validation_size_out_of_range_is_refused(data_dir, size):
    with pytest.raises(ValueError, match=f"between 0 and {N_TRAIN}. Received: {size}"):
        input_data.read_data_sets(str(data_dir), validation_size=size)


def test_other_image_dtypes_are_refused(data_dir):
    with pytest.raises(
        TypeError, match="Invalid image dtype.*expected uint8 or float32"
    ):
        input_data.read_data_sets(str(data_dir), dtype=tf.float64)


def _replay(seed, n, batch_sizes, shuffle=True):
    """TF 1.x's next_batch, replayed on example indices.

    TF 1.x shuffled with numpy's global generator after `np.random.seed(seed)`;
    a `RandomState(seed)` draws the same permutations without touching it.
    """
    rng = np.random.RandomState(seed)
    order, index, epochs, out = np.arange(n), 0, 0, []
    for size in batch_sizes:
        if epochs == 0 and index == 0 and shuffle:
            perm = np.arange(n)
            rng.shuffle(perm)
            order = order[perm]
        if index + size > n:
            epochs += 1
            rest = order[index:]
            if shuffle:
                perm = np.arange(n)
                rng.shuffle(perm)
                order = order[perm]
            index = size - len(rest)
            out.append((np.concatenate([rest, order[:index]]), epochs))
        else:
            out.append((order[index : index + size], epochs))
            index += size
    return out


SIZES = [7, 7, 7, 7, 10, 20, 3]  # crosses the 20-example epoch three times


@pytest.mark.parametrize("shuffle", [True, False], ids=["shuffled", "file_order"])
def test_next_batch_matches_tf1_across_epoch_ends(data_dir, shuffle):
    sets = input_data.read_data_sets(str(data_dir), validation_size=5, seed=5)
    _, labels = _arrays(N_TRAIN, 1)
    images = sets.train.images.copy()
    for size, (want, epochs) in zip(SIZES, _replay(5, 20, SIZES, shuffle)):
        got_images, got_labels = sets.train.next_batch(size, shuffle=shuffle)
        np.testing.assert_array_equal(got_images, images[want])
        np.testing.assert_array_equal(got_labels, labels[5:][want])
        assert sets.train.epochs_completed == epochs


def test_without_an_op_seed_the_graph_seed_drives_the_shuffle(data_dir):
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(3)
        sets = input_data.read_data_sets(str(data_dir), validation_size=5)
    first = sets.train.images.copy()
    ((want, _),) = _replay(3, 20, [20])
    np.testing.assert_array_equal(sets.train.next_batch(20)[0], first[want])


def test_fake_data_serves_ones_and_label_zero():
    sets = input_data.read_data_sets("unused", fake_data=True, one_hot=True)
    images, labels = sets.train.next_batch(2, fake_data=True)
    assert images == [[1] * 784] * 2
    assert labels == [[1] + [0] * 9] * 2


def test_extract_functions_take_file_objects(data_dir):
    with open(data_dir / FILES[1], "rb") as f:
        labels = input_data.extract_labels(f, one_hot=True)
    assert labels.shape == (N_TRAIN, 10)
    with open(data_dir / FILES[0], "rb") as f:
        assert input_data.extract_images(f).shape == (N_TRAIN, SIDE, SIDE, 1)


def _truncate(path):
    _write(path, _idx([2051, N_TRAIN, SIDE, SIDE], np.zeros(10)))


def _not_gzip(path):
    path.write_bytes(b"<html>not found</html>")


def _cut_gzip(path):
    path.write_bytes(path.read_bytes()[:30])


def _labels_as_images(path):
    _write(path, _idx([2049, N_TRAIN], np.zeros(N_TRAIN)))


@pytest.mark.parametrize(
    "damage, message",
    [
        (_truncate, "is truncated: its header promises 225 bytes of data, it holds 10"),
        (_not_gzip, "is not a complete gzip file"),
        (_cut_gzip, "is not a complete gzip file"),
        (_labels_as_images, "Invalid magic number 2049 .* expected 2051 \\(images\\)"),
    ],
    ids=["truncated_data", "not_gzip", "cut_gzip", "wrong_magic"],
)
def test_damaged_files_are_named_with_what_is_wrong(data_dir, damage, message):
    damage(data_dir / FILES[0])
    with pytest.raises(ValueError, match=message) as caught:
        input_data.read_data_sets(str(data_dir))
    assert FILES[0] in str(caught.value)


def _bad_label(data_dir, index=3, value=10):
    """Label `index` of the training labels becomes `value` (>= 10 classes)."""
    labels = _arrays(N_TRAIN, 1)[1]
    labels[index] = value
    _write(data_dir / FILES[1], _idx([2049, N_TRAIN], labels))


@pytest.mark.parametrize("one_hot", [True, False], ids=["one_hot", "ids"])
def test_a_label_out_of_range_is_named_with_its_offset(data_dir, one_hot):
    _bad_label(data_dir, index=3, value=10)
    path = str(data_dir / FILES[1])
    with pytest.raises(
        ValueError,
        match=rf"MNIST file '{path}' has label 10 at byte offset 11 of its data "
        r"\(label 3; 1 bad in all\): class ids must be below num_classes=10",
    ):
        input_data.read_data_sets(str(data_dir), one_hot=one_hot)


def test_extract_labels_checks_against_its_num_classes(data_dir):
    _bad_label(data_dir, index=0, value=7)
    with open(data_dir / FILES[1], "rb") as f:
        assert input_data.extract_labels(f, num_classes=10)[0] == 7
        with pytest.raises(
            ValueError, match=r"has label 7 at byte offset 8 .*below num_classes=5"
        ):
            input_data.extract_labels(f, one_hot=True, num_classes=5)


@pytest.mark.parametrize("split", [0, 2], ids=["train", "test"])
def test_images_and_labels_counts_that_differ_name_both_files(data_dir, split):
    n = N_TRAIN if split == 0 else N_TEST
    _write(data_dir / FILES[split + 1], _idx([2049, n - 1], np.zeros(n - 1)))
    images, labels = (str(data_dir / FILES[split + i]) for i in (0, 1))
    with pytest.raises(
        ValueError,
        match=rf"MNIST files disagree: '{images}' holds {n} images but "
        rf"'{labels}' holds {n - 1} labels",
    ):
        input_data.read_data_sets(str(data_dir))


def test_a_partial_folder_names_the_missing_files(data_dir):
    os.remove(data_dir / FILES[3])
    with pytest.raises(FileNotFoundError, match=f"lacks {FILES[3]} \\(looked for"):
        input_data.read_data_sets(str(data_dir))


_OFFLINE = """
import sys, tensorflow as tf
from estimator_multigpu.tutorials import input_data
try:
    input_data.read_data_sets(sys.argv[1])
except FileNotFoundError as error:
    print("ERROR", error)
"""


@pytest.mark.slow
def test_an_empty_folder_tries_keras_then_says_where_to_put_the_files(tmp_path):
    env = dict(os.environ, KERAS_HOME=str(tmp_path / "keras"), no_proxy="")
    env.update(https_proxy="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    proc = subprocess.run(
        [sys.executable, "-c", _OFFLINE, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "no MNIST files in" in proc.stderr, proc.stderr[-2000:]
    assert "reading tf.keras.datasets.mnist.load_data()" in proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("ERROR")]
    assert f"lacks {', '.join(FILES)}" in line
    assert "load_data() failed" in line
    assert "Put the four MNIST files in" in line
    assert not (tmp_path / "data").exists()  # nothing written into train_dir


def test_keras_arrays_become_what_the_files_give(data_dir):
    images, labels = _arrays(N_TRAIN, 1)
    test_images, test_labels = _arrays(N_TEST, 2)
    converted = input_data._idx.from_keras_arrays(
        (images.astype(np.uint8), labels), (test_images, test_labels)
    )
    for got, want in zip(converted, input_data._idx.read_dir(str(data_dir))):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


KERAS_MNIST = pathlib.Path(
    os.environ.get("KERAS_HOME", "~/.keras"), "datasets", "mnist.npz"
).expanduser()


@pytest.mark.skipif(
    not KERAS_MNIST.is_file(),
    reason=f"needs Keras' cached {KERAS_MNIST} (tests download nothing)",
)
def test_an_empty_folder_reads_keras_mnist_as_tf1_split_it(tmp_path):
    sets = input_data.read_data_sets(str(tmp_path), one_hot=True)
    assert sets.train.images.shape == (55000, 784)
    assert (sets.validation.num_examples, sets.test.num_examples) == (5000, 10000)
    assert sets.test.labels.shape == (10000, 10)
    assert 0.0 <= sets.train.images.min() and sets.train.images.max() <= 1.0
    assert list(tmp_path.iterdir()) == []


def _model_step(hidden):
    """One gradient step of the tutorial model; (loss before, after, correct)."""
    rng = np.random.RandomState(0)
    x = rng.rand(16, mnist.IMAGE_PIXELS).astype(np.float32)
    y = rng.randint(0, mnist.NUM_CLASSES, 16).astype(np.int32)
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(1)
        images = tf.compat.v1.placeholder(tf.float32, [None, mnist.IMAGE_PIXELS])
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        logits = mnist.inference(images, *hidden)
        loss = mnist.loss(logits, labels)
        train_op = mnist.training(loss, 0.5)
        correct = mnist.evaluation(logits, labels)
        variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            feed = {images: x, labels: y}
            before, count = sess.run([loss, correct], feed)
            sess.run(train_op, feed)
            after = sess.run(loss, feed)
            step = sess.run(variables["global_step"])
    return before, after, count, sorted(variables), step


def test_the_tutorial_model_trains_one_step():
    before, after, count, names, step = _model_step((8, 4))
    assert after < before
    assert 0 <= count <= 16
    assert step == 1
    assert names == [
        "global_step",
        "hidden1/biases",
        "hidden1/weights",
        "hidden2/biases",
        "hidden2/weights",
        "softmax_linear/biases",
        "softmax_linear/weights",
    ]


def test_model_constants_are_tf1s():
    assert (mnist.IMAGE_SIZE, mnist.IMAGE_PIXELS, mnist.NUM_CLASSES) == (28, 784, 10)
