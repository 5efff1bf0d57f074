"""A tiny CIFAR-10 trainer configuration shared by the trainer tests (no tests here)."""

from cifar10 import config as config_lib

TWO = ("/cpu:0", "/cpu:1")


def tiny_config(tmp_path, **kwargs) -> config_lib.TrainConfig:
    """ResNet-20 on 2 logical CPUs, 40/12 generated examples, batch 8, 6 steps."""
    base = dict(
        model_dir=str(tmp_path / "model"),
        cache_dir=str(tmp_path / "cache"),
        devices=TWO,
        global_batch_size=8,
        train_steps=6,
        synthetic_examples=(40, 12),
        log_every_steps=2,
    )
    return config_lib.TrainConfig(**{**base, **kwargs})
