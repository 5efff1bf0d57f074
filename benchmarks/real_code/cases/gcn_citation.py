"""Graph convolutional networks (Kipf & Welling): a tf.Session loop over the
Planetoid citation pickles."""

from __future__ import annotations

import pathlib
import pickle

from benchmarks.real_code._case import Case, Command

_TRAIN, _ALL, _TEST = 20, 600, 100  # labelled, all training-side, test nodes
_FEATURES, _CLASSES = 40, 3


def _planetoid(folder: pathlib.Path, name: str, seed: int = 0) -> None:
    """`ind.<name>.{x,y,tx,ty,allx,ally,graph}` pickles and `test.index`, as
    gcn/utils.load_data reads them: x, tx, allx scipy CSR matrices of binary
    features; y, ty, ally one-hot numpy arrays; graph a dict of neighbour lists."""
    import numpy as np  # noqa: PLC0415 (only the case's data needs them)
    import scipy.sparse as sp  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    nodes = _ALL + _TEST
    labels = rng.integers(0, _CLASSES, nodes)
    centres = rng.random((_CLASSES, _FEATURES)) < 0.3
    noise = rng.random((nodes, _FEATURES)) < 0.05
    features = (centres[labels] ^ noise).astype(np.float32)
    onehot = np.eye(_CLASSES, dtype=np.int64)[labels]
    test = np.arange(_ALL, nodes)
    order = rng.permutation(test)  # test.index lists the test nodes unsorted
    objects = {
        "x": sp.csr_matrix(features[:_TRAIN]),
        "y": onehot[:_TRAIN],
        "allx": sp.csr_matrix(features[:_ALL]),
        "ally": onehot[:_ALL],
        "tx": sp.csr_matrix(features[np.sort(order)]),
        "ty": onehot[np.sort(order)],
        "graph": {
            int(n): [
                int(m)
                for m in rng.choice(np.flatnonzero(labels == labels[n]), 4)
                if m != n
            ]
            for n in range(nodes)
        },
    }
    folder.mkdir(parents=True, exist_ok=True)
    for suffix, value in objects.items():
        with open(folder / f"ind.{name}.{suffix}", "wb") as f:
            pickle.dump(value, f, protocol=2)
    (folder / f"ind.{name}.test.index").write_text(
        "".join(f"{i}\n" for i in order), encoding="utf-8"
    )


def make_data(data: pathlib.Path, tree: pathlib.Path) -> None:
    # load_data opens "data/ind.<dataset>.*" relative to the working folder
    # (gcn/, where the README runs train.py).
    _planetoid(tree / "gcn" / "data", "cora")


CASE = Case(
    name="gcn_citation",
    repo="tkipf/gcn",
    commit="98357bded82fdc19595aa5b1448ee0e76557a399",
    what=(
        "tkipf/gcn (Dec 2018): a two-layer GCN in a plain tf.Session loop with "
        "sparse placeholders and feed dicts, on Cora-format Planetoid pickles "
        "(needs scipy and networkx beside TensorFlow)"
    ),
    paths=(
        "gcn/__init__.py",
        "gcn/inits.py",
        "gcn/layers.py",
        "gcn/metrics.py",
        "gcn/models.py",
        "gcn/train.py",
        "gcn/utils.py",
    ),
    commands=[
        Command(
            ["{python}", "train.py", "--dataset=cora", "--epochs=5"],
            cwd="gcn",
            expect=r"Test set results:",
            loss=r"train_loss= ([\d.]+)",
            timeout=300,
        )
    ],
    make_data=make_data,
    devices=(1,),
    single_device_why=(
        "train.py builds one model on one device and has no device flag or "
        "tower form: full-batch training on one graph"
    ),
)
