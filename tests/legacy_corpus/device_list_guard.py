"""A trainer that checks the GPUs it was asked for, as tf_cnn_benchmarks-era scripts do.

After `emg-migrate --fix` the GPU list is emg.devices.resolve(num_gpus=FLAGS.num_gpus),
so the guard passes on a machine without GPUs (simulated devices).
Usage: python device_list_guard.py --num_gpus=2
"""

from absl import app, flags
import tensorflow as tf
from tensorflow.python.client import device_lib

flags.DEFINE_integer("num_gpus", 2, "GPUs to train on.")
FLAGS = flags.FLAGS


def get_available_gpus():
    local_device_protos = device_lib.list_local_devices()  # expect: device-lib
    return [x.name for x in local_device_protos if x.device_type == "GPU"]


def main(_):
    gpus = get_available_gpus()
    if len(gpus) < FLAGS.num_gpus:
        raise ValueError("fewer GPUs (%d) than --num_gpus=%d" % (len(gpus), FLAGS.num_gpus))
    print("devices", len(gpus))


if __name__ == "__main__":
    app.run(main)
