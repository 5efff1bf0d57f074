"""aymericdamien/TensorFlow-Examples (2017-2019): the TF 1.x example scripts,
from a hand-written multi-GPU tower loop to an Estimator, tf.contrib.rnn and
tf.data, each a script of its own on the TF 1.x MNIST tutorial reader.

multigpu_cnn.py fixes its tower count in the code (`num_gpus = 2`); after
`--fix` it resolves its devices through `emg.devices.env_num_gpus`, so
EMG_NUM_GPUS picks 1 or 2 towers, as it picks the Estimator's devices
(convolutional_network.py). recurrent_network.py and
tensorflow_dataset_api.py build one model on one device, with no device
count of their own: they run the same under both counts.
Not run: 6_MultiGPU/multigpu_basics.py pins matmuls to /gpu:0 and /gpu:1
(it needs two real GPUs; on CPUs it fails to place, as under TF 1.x) and
multiplies 10,000x10,000 matrices; build_an_image_dataset.py needs its
DATASET_PATH placeholder edited and trains 10,000 steps of 64x64 images;
the GANs train 20,000-100,000 hard-coded steps."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command
from benchmarks.real_code.cases import _mnist_idx

# Every script reads MNIST with input_data.read_data_sets("/tmp/data/").
MNIST_DIR = pathlib.Path("/tmp/data")


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """/tmp/data/: the four idx .gz files read_data_sets("/tmp/data/") reads
    (it downloads only what is missing), at the absolute path the scripts
    name. 5,128 training images: its default validation_size takes the
    first 5,000, leaving 128, a full batch of the scripts that reshape it
    (recurrent_network.py); TF 1.x's next_batch never returns more than
    twice the training set, so multigpu_cnn.py's 2,048 examples per step
    (1,024 per tower) become 128 to 256."""
    del data, tree
    _mnist_idx.write(MNIST_DIR, 5128, 128)


_STEP_LOSS = r"Step 1[,:] Minibatch Loss= ([\d.]+)"

CASE = Case(
    name="tf_examples_multigpu",
    repo="aymericdamien/TensorFlow-Examples",
    commit="573b050086b47b2f101526c8cb33179a6bfafd30",
    what=(
        "aymericdamien's TF 1.x examples (2017-2019): a module-level multi-GPU "
        "tower loop (sliced placeholder batches per /gpu:i, a device function "
        "keeping variables on the CPU, average_gradients, tf.layers and "
        "tf.contrib.layers.flatten, the count a constant after read_data_sets), "
        "a tf.layers CNN in a tf.estimator model_fn fed by numpy_input_fn, a "
        "tf.contrib.rnn BasicLSTMCell/static_rnn classifier, and a convnet "
        "fed by a tf.data initializable iterator"
    ),
    paths=(
        "examples/6_MultiGPU/multigpu_cnn.py",
        "examples/3_NeuralNetworks/convolutional_network.py",
        "examples/3_NeuralNetworks/recurrent_network.py",
        "examples/5_DataManagement/tensorflow_dataset_api.py",
    ),
    commands=[
        Command.script(
            "multigpu_cnn.py",
            r"Testing Accuracy: [\d.]+",
            cwd="examples/6_MultiGPU",
            loss=_STEP_LOSS,
            timeout=1200,
        ),
        Command.script(
            "convolutional_network.py",
            r"Testing Accuracy: [\d.]+",
            cwd="examples/3_NeuralNetworks",
            timeout=1200,
        ),
        Command.script(
            "recurrent_network.py",
            r"Testing Accuracy: [\d.]+",
            cwd="examples/3_NeuralNetworks",
            loss=_STEP_LOSS,
            timeout=1200,
        ),
        Command.script(
            "tensorflow_dataset_api.py",
            r"Optimization Finished!",
            cwd="examples/5_DataManagement",
            loss=_STEP_LOSS,
            timeout=1200,
        ),
    ],
    make_data=make_data,
    env={"EMG_NUM_GPUS": "{num_gpus}"},
)
