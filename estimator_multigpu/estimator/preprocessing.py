"""tf.contrib.learn.preprocessing's text vocabulary, as a drop-in (no TensorFlow).

`VocabularyProcessor` maps documents to fixed-length arrays of word ids, as
TF 1.x's did: the same tokenizer, ids in order of first appearance (0 is the
unknown word), `min_frequency` trimming, and `save`/`restore` by pickle.
"""

from __future__ import annotations

import collections
import pickle
import re
from collections.abc import Callable, Iterable, Iterator

import numpy as np

__all__ = ["CategoricalVocabulary", "VocabularyProcessor", "tokenizer"]

# TF 1.x's: runs of capitals, a capitalised word before another, or a word
# with apostrophes and hyphens.
TOKENIZER_RE = re.compile(
    r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE
)


def tokenizer(iterator: Iterable[str]) -> Iterator[list[str]]:
    """Yields the list of tokens of each string of `iterator`."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Categories (words) to ids: 0 is `unknown_token`, the rest in order of
    first appearance until `freeze()`; a frozen vocabulary maps new ones to 0."""

    def __init__(self, unknown_token: str = "<UNK>", support_reverse: bool = True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self) -> int:
        return len(self._mapping)

    def freeze(self, freeze: bool = True) -> None:
        """Stops (or, with False, resumes) giving new categories ids."""
        self._freeze = freeze

    def get(self, category) -> int:
        """The id of `category`, given a new one unless frozen (then 0)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count: int = 1) -> None:
        """Counts `count` more of `category` (giving it an id if it has none)."""
        if self.get(category) > 0:
            self._freq[category] += count

    def trim(self, min_frequency: int, max_frequency: int = -1) -> None:
        """Keeps the categories seen more than `min_frequency` times (and fewer
        than `max_frequency` when it is positive), renumbered by falling count,
        ties in sorted order."""
        ranked = sorted(sorted(self._freq.items(), key=_sort_key), key=lambda x: -x[1])
        self._mapping = {self._unknown_token: 0}
        self._reverse_mapping = [self._unknown_token]
        kept = []
        for category, count in ranked:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = len(self._mapping)
            self._reverse_mapping.append(category)
            kept.append((category, count))
        self._freq = collections.defaultdict(int, kept)

    def reverse(self, class_id: int):
        """The category of id `class_id`.

        Raises:
          ValueError: when made with `support_reverse=False`.
        """
        if not self._support_reverse:
            raise ValueError(
                "CategoricalVocabulary.reverse: this vocabulary was made with "
                "support_reverse=False; make it with support_reverse=True."
            )
        return self._reverse_mapping[class_id]


def _sort_key(item):
    return (isinstance(item[0], str), item[0])


class VocabularyProcessor:
    """Documents to arrays of `max_document_length` word ids (0-padded, cut).

    Args:
      max_document_length: the length of each output array.
      min_frequency: words seen this often or less in `fit` map to 0.
      vocabulary: a `CategoricalVocabulary` to start from.
      tokenizer_fn: documents -> token lists (default: `tokenizer`).
    """

    def __init__(
        self,
        max_document_length: int,
        min_frequency: int = 0,
        vocabulary: CategoricalVocabulary | None = None,
        tokenizer_fn: Callable[[Iterable[str]], Iterable[list[str]]] | None = None,
    ):
        if not isinstance(max_document_length, int | np.integer) or (
            max_document_length < 1
        ):
            raise ValueError(
                "VocabularyProcessor: max_document_length must be a positive "
                f"integer; got {max_document_length!r}."
            )
        self.max_document_length = int(max_document_length)
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary or CategoricalVocabulary()
        self._tokenizer = tokenizer_fn or tokenizer

    def fit(self, raw_documents: Iterable[str], unused_y=None) -> VocabularyProcessor:
        """Learns the vocabulary of `raw_documents`, then freezes it."""
        del unused_y
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents: Iterable[str], unused_y=None):
        """`fit`, then `transform`, of `raw_documents` (a list: it is read twice)."""
        del unused_y
        documents = list(raw_documents)
        return self.fit(documents).transform(documents)

    def transform(self, raw_documents: Iterable[str]) -> Iterator[np.ndarray]:
        """Yields each document's word ids, an int64 array [max_document_length]."""
        for tokens in self._tokenizer(raw_documents):
            ids = np.zeros(self.max_document_length, np.int64)
            for i, token in enumerate(tokens[: self.max_document_length]):
                ids[i] = self.vocabulary_.get(token)
            yield ids

    def reverse(self, documents: Iterable[Iterable[int]]) -> Iterator[str]:
        """Yields each array of ids as its words joined by spaces."""
        for ids in documents:
            yield " ".join(self.vocabulary_.reverse(i) for i in ids)

    def save(self, filename: str) -> None:
        """Writes this processor to `filename` (a pickle)."""
        with open(filename, "wb") as f:
            pickle.dump(self, f)

    @classmethod
    def restore(cls, filename: str) -> VocabularyProcessor:
        """The processor `save` wrote to `filename`.

        Raises:
          TypeError: when the file holds something else.
        """
        with open(filename, "rb") as f:
            found = pickle.load(f)
        if not isinstance(found, cls):
            raise TypeError(
                f"VocabularyProcessor.restore({filename!r}): the file holds a "
                f"{type(found).__name__}, not a VocabularyProcessor; pass a file "
                "that VocabularyProcessor.save wrote."
            )
        return found
