"""tensorflow/benchmarks: tf_cnn_benchmarks (Aug 2017), the TensorFlow team's
multi-GPU CNN benchmark: one tower per device over --num_gpus, a
VariableMgr that places variables and aggregates the towers' gradients
(parameter server by default), synthetic images, a tf.train.Supervisor."""

from __future__ import annotations

import pathlib

from benchmarks.real_code._case import Case, Command


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """Nothing: without --data_dir the program makes synthetic ImageNet-shaped
    images and labels on each device, its own default."""
    del data, tree


CASE = Case(
    name="tf_cnn_benchmarks",
    repo="tensorflow/benchmarks",
    commit="615c4ff44fbdac75e4f049ae915feb96ec4218bd",
    what=(
        "tf_cnn_benchmarks (Aug 2017): towers built in a loop over "
        "--num_gpus with tf.device, gradients aggregated by its VariableMgr, "
        "contrib batch_norm and get_global_step, contrib.data and queue input "
        "paths, StagingArea, cPickle; run on synthetic data with the trivial model"
    ),
    paths=("scripts/tf_cnn_benchmarks",),
    make_data=make_data,
    commands=[
        Command(
            [
                "{python}",
                "tf_cnn_benchmarks.py",
                "--device=cpu",
                "--model=trivial",
                "--num_gpus={num_gpus}",
                "--batch_size=2",
                "--num_batches=3",
                "--num_warmup_batches=1",
                "--data_format=NHWC",
            ],
            cwd="scripts/tf_cnn_benchmarks",
            expect=r"total images/sec: [\d.]+",
            loss=r"\n1\timages/sec: [^\t]+\t([\d.]+)",
            timeout=600,
        )
    ],
    # variable_mgr.py's nccl.all_sum (--variable_update=replicated with
    # --use_nccl) has no public TF 2 name: --fix leaves it as
    # emg.migrate_gone(...) and drops the contrib import, so the default
    # parameter_server path runs and the nccl path stops there.
)
