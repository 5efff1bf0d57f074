"""tf.contrib.learn.preprocessing.VocabularyProcessor onto its emg drop-in:
every spelling is rewritten, and the drop-in gives TF 1.x's word ids."""

import numpy as np
import pytest
from migrate_helpers import CORPUS, assert_fix_is_final, fix_source, run_fixed

from estimator_multigpu.estimator import preprocessing

SCRIPT = CORPUS / "contrib_learn_vocabulary.py"
DROP_IN = "emg.estimator.preprocessing.VocabularyProcessor"


def _fixed(tmp_path, source):
    return fix_source(tmp_path, "import tensorflow as tf\n" + source)


@pytest.mark.parametrize(
    "imports, use",
    [
        ("", "tf.contrib.learn.preprocessing.VocabularyProcessor(5)"),
        (
            "from tensorflow.contrib import learn\n",
            "learn.preprocessing.VocabularyProcessor(5)",
        ),
        (
            "from tensorflow.contrib.learn.python.learn.preprocessing import text\n",
            "text.VocabularyProcessor(5)",
        ),
        (
            "from tensorflow.contrib.learn import preprocessing\n",
            "preprocessing.VocabularyProcessor.restore(path)",
        ),
    ],
    ids=["dotted", "from_contrib", "module_path", "classmethod"],
)
def test_each_spelling_becomes_the_drop_in(tmp_path, imports, use):
    result = _fixed(tmp_path, f"{imports}v = {use}\n")
    assert all(f.fixed for f in result.findings), [
        (f.api, f.rule.replacement) for f in result.findings
    ]
    call = use.split(".VocabularyProcessor", 1)[1]
    assert f"v = {DROP_IN}{call}\n" in result.rewritten
    assert "import estimator_multigpu as emg\n" in result.rewritten
    assert "tensorflow.contrib" not in result.rewritten


def test_the_finding_names_the_drop_in(tmp_path):
    [finding] = _fixed(
        tmp_path, "v = tf.contrib.learn.preprocessing.VocabularyProcessor(5)\n"
    ).findings
    assert finding.rule.replacement.startswith(f"{DROP_IN} (the drop-in")
    assert finding.rule.replacement.endswith("emg-migrate --fix writes it)")


def test_a_second_fix_changes_nothing(tmp_path):
    assert_fix_is_final(SCRIPT.name, tmp_path)


@pytest.mark.slow
def test_the_rewritten_corpus_script_runs_on_tf2(tmp_path):
    out = run_fixed(SCRIPT.name, tmp_path, all_fixed=True, timeout=240)
    assert out.splitlines() == [
        "ids [[1, 2, 3, 4, 0], [1, 5, 3, 6, 0], [4, 7, 6, 5, 0]]",
        "vocabulary 8",
        "restored [[1, 7, 3, 0, 0]]",
        "trimmed 6 ['good plot <UNK>']",
    ]


def test_ids_follow_first_appearance_and_unknown_words_are_zero():
    processor = preprocessing.VocabularyProcessor(4)
    ids = list(processor.fit_transform(["a b a", "c d e f g"]))
    assert [i.tolist() for i in ids] == [[1, 2, 1, 0], [3, 4, 5, 6]]
    assert ids[0].dtype == np.int64
    assert next(processor.transform(["b z"])).tolist() == [2, 0, 0, 0]
    assert list(processor.reverse([[2, 1, 0]])) == ["b a <UNK>"]


def test_the_tokenizer_splits_as_tf1s_did():
    assert list(preprocessing.tokenizer(["don't stop-me NOW, HelloWorld"])) == [
        ["don't", "stop-me", "NOW", "Hello", "World"]
    ]


def test_min_frequency_keeps_the_frequent_words_by_count_then_name():
    processor = preprocessing.VocabularyProcessor(3, min_frequency=1)
    processor.fit(["b a c", "a b", "a d"])
    assert len(processor.vocabulary_) == 3
    assert next(processor.transform(["a b c"])).tolist() == [1, 2, 0]


def test_save_and_restore_round_trip(tmp_path):
    processor = preprocessing.VocabularyProcessor(2).fit(["x y", "y z"])
    processor.save(str(tmp_path / "vocab"))
    restored = preprocessing.VocabularyProcessor.restore(str(tmp_path / "vocab"))
    assert next(restored.transform(["z x"])).tolist() == [3, 1]


def test_bad_input_is_refused_with_what_was_received(tmp_path):
    with pytest.raises(
        ValueError, match=r"max_document_length must be a positive integer; got 0"
    ):
        preprocessing.VocabularyProcessor(0)
    vocabulary = preprocessing.CategoricalVocabulary(support_reverse=False)
    with pytest.raises(ValueError, match="support_reverse=False"):
        vocabulary.reverse(0)
    (tmp_path / "other").write_bytes(__import__("pickle").dumps({"a": 1}))
    with pytest.raises(TypeError, match=r"holds a dict, not a VocabularyProcessor"):
        preprocessing.VocabularyProcessor.restore(str(tmp_path / "other"))
