"""Packaging for estimator-multigpu."""

import setuptools

setuptools.setup(
    name="estimator-multigpu",
    version="0.1.0",
    description=(
        "Move TF1-era Estimator, queue and multi-GPU tower code onto tf.data "
        "and several devices, on a TensorFlow that still installs."
    ),
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    # The library only. The CIFAR reference (`cifar10/`) runs from the
    # checkout (`python -m cifar10`); installed as a top-level `cifar10` it
    # would shadow the TF tutorials' own cifar10.py.
    packages=setuptools.find_packages(
        include=["estimator_multigpu", "estimator_multigpu.*"]
    ),
    python_requires=">=3.10",
    install_requires=["tensorflow>=2.15", "numpy", "absl-py"],
    extras_require={
        # tf-keras: the Keras 2 DatasetCreator tests (TF_USE_LEGACY_KERAS=1);
        # matplotlib: the plot tests of emg.diagnose and the benchmarks;
        # tf-slim: the migrated slim trainer of the migrate corpus runs;
        # pandas: emg.estimator.inputs.pandas_input_fn's tests;
        # radon: tests/test_complexity (cyclomatic complexity <= 15);
        # pillow: emg.scipy_misc's tests;
        # pytest-xdist: CI's slow and TF 2.15 legs run one worker per core.
        "test": [
            "pytest>=7",
            "pytest-xdist",
            "ruff==0.17.6",
            "tf-keras",
            "matplotlib",
            "tf-slim",
            "pandas",
            "radon",
            "pillow",
        ],
        "dali": ["nvidia-dali-cuda120"],
        # matplotlib: the per-stage throughput plot of emg.diagnose.input_bound
        # and the --plot charts of benchmarks/cifar_input.py and towers.py.
        "diagnose": ["matplotlib"],
        "legacy-layers": ["tf-keras"],
        # tf-slim: what emg-migrate --fix writes for tf.contrib.slim,
        # tf.contrib.layers and arg_scope; tf-keras: slim.batch_norm's
        # layer through emg.tf_slim().
        "slim": ["tf-slim", "tf-keras"],
        # pillow: emg.scipy_misc, what emg-migrate --fix writes for SciPy's
        # removed scipy.misc.imsave, imread, imresize, ...
        "images": ["pillow"],
    },
    entry_points={
        "console_scripts": [
            "emg-migrate=estimator_multigpu.migrate.__main__:run",
        ],
    },
)
