"""`python -m cifar10 [flags]`: the same as `... .main [flags]`."""

from absl import app

from cifar10 import main


def run() -> None:
    """Parses the flags of `cifar10.main` and trains."""
    app.run(main.main)


if __name__ == "__main__":
    run()
