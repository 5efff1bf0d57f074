"""taki0112/StyleGAN-Tensorflow: StyleGAN (2019) with progressive growing, a
session program that builds one tower per GPU in a loop over --gpu_num
(tf.device(tf.DeviceSpec(device_type="GPU", device_index=i)) around a
tf.data pipeline of tf.contrib.data shuffle_and_repeat, map_and_batch and
prefetch_to_device('/gpu:i')), averages the towers' losses and minimizes
them with colocate_gradients_with_ops; then generates images from the
checkpoint (--phase test).

It reads its images from ./dataset/<--dataset>/ and saves them with cv2:
opencv-python-headless and tqdm were installed into the environment for it.
Its per-GPU batch sizes are fixed in the code (128 images at 4 x 4) and
--iteration counts ten thousands of images, so the run is one resolution,
4 x 4 (--img_size 4 --start_res 4), for 5,000 images: 39 steps on one
device, 19 steps of two towers on two.

After `--fix` the towers are on emg.devices.resolve(num_gpus=self.gpu_num)
[gpu_id] (the DeviceSpec and prefetch_to_device's '/gpu:{}'), and main.py,
which opens its tf.Session before StyleGAN.build_model resolves them,
resolves args.gpu_num right after parse_args() and wraps its ConfigProto in
emg.devices.session_config: with --gpu_num=2 the session has two logical
CPUs and tower 1's ops run on the second (a traced discriminator step ran
nodes on both), where they were soft-placed on the one CPU before. The
tower loop itself stays a finding: two optimizers over averaged tower
losses, for a hand rewrite to emg.towers.
"""

from __future__ import annotations

import pathlib

import numpy as np
from PIL import Image

from benchmarks.real_code._case import Case, Command

_DATASET = "faces"


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    """dataset/<name>/*.jpg under the tree, the folder load_data globs
    (`./dataset/<--dataset>/*.*`, relative to the working folder)."""
    del data
    folder = tree / "dataset" / _DATASET
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(8):
        pixels = rng.integers(0, 256, size=(16, 16, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / f"{i:05d}.jpg")


def _main(phase: str, *extra: str) -> list[str]:
    return [
        "{python}",
        "main.py",
        f"--phase={phase}",
        f"--dataset={_DATASET}",
        "--img_size=4",
        "--start_res=4",
        "--progressive=True",
        "--iteration=1",
        "--max_iteration=1",
        "--gpu_num={num_gpus}",
        "--checkpoint_dir={model_dir}/checkpoint",
        "--result_dir={model_dir}/results",
        "--log_dir={model_dir}/logs",
        "--sample_dir={model_dir}/samples",
        *extra,
    ]


CASE = Case(
    name="stylegan_towers",
    repo="taki0112/StyleGAN-Tensorflow",
    commit="0007c589698ec1fa021ee89467a3c04e85aa3623",
    what=(
        "StyleGAN with progressive growing (Jul-Dec 2019): a tower per GPU in "
        "a loop over --gpu_num placed by tf.DeviceSpec, a tf.data pipeline "
        "per tower with tf.contrib.data shuffle_and_repeat, map_and_batch and "
        "prefetch_to_device, make_one_shot_iterator, tower losses averaged "
        "and minimized with colocate_gradients_with_ops, variables with "
        "VariableAggregation.ONLY_FIRST_TOWER, contrib slim's model_analyzer"
    ),
    paths=("main.py", "StyleGAN.py", "ops.py", "utils.py"),
    make_data=make_data,
    commands=[
        Command(
            _main("train"),
            expect=r"\[\*\] Training finished!",
            loss=r"\[\s*0/\s*\d+\] time: [\d.]+, d_loss: (-?[\d.]+)",
            timeout=900,
        ),
        Command(
            _main("test", "--batch_size=4", "--test_num=2"),
            expect=r"\[\*\] Load SUCCESS[\s\S]*\[\*\] Test finished!",
            timeout=600,
        ),
    ],
)
