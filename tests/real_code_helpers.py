"""Shared helpers for the tests of benchmarks/real_code's driver."""

import pathlib
import subprocess


def git_mirror(mirrors: pathlib.Path, name: str, train: str) -> str:
    """A mirror at mirrors/owner+NAME/repo whose one commit holds train.py
    (text `train`), as the driver finds a fetched repository; that commit."""
    repo = mirrors / f"owner+{name}" / "repo"
    repo.mkdir(parents=True)
    (repo / "train.py").write_text(train)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "train.py"], check=True)
    subprocess.run(git + ["commit", "-qm", name], check=True)
    return subprocess.run(
        git + ["rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
