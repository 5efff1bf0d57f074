"""Drop-ins for TF 1.x's `tensorflow.examples.tutorials.mnist` package.

No TensorFlow 2 package ships `tensorflow.examples`; 2016-2018 scripts
imported its MNIST modules. These mirror them (`emg-migrate --fix` rewrites
the imports to these)::

    from estimator_multigpu.tutorials import input_data  # read_data_sets
    from estimator_multigpu.tutorials import mnist  # inference, loss, training

`input_data` also stands for TF 1.x's
`tensorflow.contrib.learn.python.learn.datasets.mnist`.
"""

from estimator_multigpu.tutorials import input_data, mnist

__all__ = ["input_data", "mnist"]
