"""A text classifier's input: sentences to word ids with contrib.learn's
VocabularyProcessor, saved beside the model and restored for evaluation.

After `emg-migrate --fix` each spelling of the processor is
emg.estimator.preprocessing.VocabularyProcessor, the drop-in of the same
methods and ids. Usage: python contrib_learn_vocabulary.py
"""

import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn
from tensorflow.contrib.learn.python.learn.preprocessing import text

SENTENCES = ["the film was good", "the plot was thin", "good acting , thin plot"]


def main():
    longest = max(len(s.split(" ")) for s in SENTENCES)
    processor = learn.preprocessing.VocabularyProcessor(longest)  # expect: contrib
    ids = np.array(list(processor.fit_transform(SENTENCES)))
    path = os.path.join(tempfile.mkdtemp(), "vocab")
    processor.save(path)
    restored = learn.preprocessing.VocabularyProcessor.restore(path)  # expect: contrib
    again = np.array(list(restored.transform(["the acting was new"])))
    trimmed = text.VocabularyProcessor(3, min_frequency=1)  # expect: contrib
    trimmed.fit(SENTENCES)
    with tf.Graph().as_default():
        table = tf.constant(ids)
        with tf.Session() as sess:
            print("ids", sess.run(table).tolist())
    print("vocabulary", len(processor.vocabulary_))
    print("restored", again.tolist())
    print("trimmed", len(trimmed.vocabulary_), list(trimmed.reverse([[1, 2, 0]])))


if __name__ == "__main__":
    main()
