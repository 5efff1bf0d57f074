"""A TF 1.x graph-convolution trainer of the SciPy 1.x era: it scales its
graph Laplacian by the largest eigenvalue (eigsh from
scipy.sparse.linalg.eigen.arpack), smooths its node features with
scipy.ndimage.filters, grows a mask with ndimage's morphology module and
convolves its loss curve with scipy.signal.signaltools' convolve.

SciPy 1.8 made those modules private: scipy.sparse.linalg.eigen.arpack is
gone (ModuleNotFoundError at the import) and the others are stubs that warn
and go in SciPy 2.0. `emg-migrate --fix` imports each name from the public
namespace that holds the same object.
Usage: python scipy_private_paths.py
"""

import warnings

import numpy as np
import scipy.ndimage.filters  # port: scipy-private-paths
import scipy.sparse as sp
import scipy.sparse.linalg.isolve as isolve  # port: scipy-private-paths
import tensorflow as tf  # port: compat-v1
from scipy.ndimage import morphology  # port: scipy-private-paths
from scipy.signal.signaltools import convolve  # port: scipy-private-paths
from scipy.sparse.linalg.eigen.arpack import eigsh  # port: scipy-private-paths

# a private SciPy path fails here, not only when SciPy 2.0 removes it
warnings.filterwarnings("error", "Please import", DeprecationWarning)


def scaled_laplacian(adj):
    degree = np.asarray(adj.sum(1)).flatten()
    d_inv_sqrt = sp.diags(np.power(degree, -0.5))
    laplacian = sp.eye(adj.shape[0]) - d_inv_sqrt.dot(adj).dot(d_inv_sqrt)
    largest = eigsh(laplacian, 1, which="LM", return_eigenvectors=False)[0]
    return (2.0 / largest) * laplacian - sp.eye(adj.shape[0])


def main():
    rng = np.random.RandomState(0)
    upper = sp.random(12, 12, density=0.3, random_state=rng)
    adj = ((upper + upper.T) > 0).astype(np.float64) + sp.eye(12)
    lap = scaled_laplacian(sp.csr_matrix(adj)).toarray().astype(np.float32)
    raw = rng.rand(12, 4)
    feats = scipy.ndimage.filters.gaussian_filter(raw, 1.0)  # port: scipy-private-paths
    mask = morphology.binary_dilation(raw[:, 0] > 0.7)
    solved, info = isolve.cg(np.eye(4) * 2.0, np.ones(4))
    with tf.Graph().as_default():
        x = tf.constant(feats.astype(np.float32))
        a = tf.constant(lap)
        w = tf.Variable(tf.ones([4, 1]) * 0.1)
        out = tf.matmul(a, tf.matmul(x, w))
        loss = tf.reduce_mean(tf.square(out - 0.5))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                _, value = sess.run([train_op, loss])
                losses.append(value)
                print(f"step {step} loss {value:.4f}")
    smooth = convolve(np.array(losses), np.ones(2) / 2.0, mode="valid")
    print(f"smoothed {len(smooth)} mask {mask.sum()} cg {info} {solved[0]:.1f}")


if __name__ == "__main__":
    main()
