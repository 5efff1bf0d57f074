"""Trains a CIFAR ResNet on several devices: python -m cifar10 [flags].

The same trainer as `python -m cifar10.main`. With no data flags it generates
a small synthetic CIFAR-10-format set into --cache_dir and trains a ResNet-20
on 2 simulated devices. --help lists the trainer's flags, --helpfull absl's too.
"""

from absl import app, flags

from cifar10 import main

# --help lists the main module's key flags; this module's are main's.
flags.adopt_module_key_flags(main)


def run() -> None:
    """Parses the flags of `cifar10.main` and trains."""
    app.run(main.main)


if __name__ == "__main__":
    run()
