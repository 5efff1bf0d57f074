"""emg-migrate --fix on canned estimators, heads and input helpers, and two tutorial-shaped scripts.

The scripts (tests/legacy_corpus/premade_dnn_classifier.py, TF's premade
Estimator tutorial on an iris-like CSV, and wide_deep_census.py, the
wide-and-deep census model on a census-like CSV) run with the real
tf.estimator on TF 2.15, and after `--fix` alone on TF 2.16+ on 1 and 2
devices; both print what tf.estimator's canned estimators give (metric keys,
prediction keys, SavedModel signatures), compared with what the real ones
printed.
"""

import csv
import os
import textwrap

import numpy as np
import pytest
from migrate_helpers import CORPUS, TWO_DEVICES, rewrite, run_scripts

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu import migrate
from estimator_multigpu.migrate import _canned_names


def fix(tmp_path, source):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    return migrate.process(str(path))


COLUMNS = "feature_columns=[]"
SPELLINGS = {
    "v2": (
        f"import tensorflow as tf\nm = tf.estimator.DNNClassifier([2], {COLUMNS})\n",
        "m = emg.estimator.DNNClassifier([2], feature_columns=[])",
    ),
    "compat_v1_attribute": (
        f"import tensorflow as tf\nm = tf.compat.v1.estimator.DNNRegressor([2], {COLUMNS})\n",
        "m = emg.estimator.v1.DNNRegressor([2], feature_columns=[])",
    ),
    "compat_v1_import": (
        f"import tensorflow.compat.v1 as tf\nm = tf.estimator.LinearRegressor({COLUMNS})\n",
        "m = emg.estimator.v1.LinearRegressor(feature_columns=[])",
    ),
    "from_compat_v1": (
        "from tensorflow.compat.v1.estimator import BaselineClassifier\n"
        "m = BaselineClassifier(n_classes=3)\n",
        "m = emg.estimator.v1.BaselineClassifier(n_classes=3)",
    ),
    "from_v2": (
        "from tensorflow.estimator import LinearClassifier\n"
        f"m = LinearClassifier({COLUMNS})\n",
        "m = emg.estimator.LinearClassifier(feature_columns=[])",
    ),
    "tf1_program": (
        "import tensorflow as tf\ntf.logging.set_verbosity(tf.logging.INFO)\n"
        "m = tf.estimator.DNNLinearCombinedClassifier(dnn_hidden_units=[2])\n",
        "m = emg.estimator.v1.DNNLinearCombinedClassifier(dnn_hidden_units=[2])",
    ),
    "head_under_compat_v1": (
        "import tensorflow.compat.v1 as tf\nh = tf.estimator.MultiClassHead(3)\n",
        "h = emg.estimator.MultiClassHead(3)",
    ),
    "head_estimator": (
        "import tensorflow as tf\n"
        "m = tf.estimator.DNNEstimator(tf.estimator.BinaryClassHead(), [], [2])\n",
        "m = emg.estimator.DNNEstimator(emg.estimator.BinaryClassHead(), [], [2])",
    ),
    "compat_v1_inputs": (
        "import tensorflow as tf\n"
        "fn = tf.compat.v1.estimator.inputs.numpy_input_fn(x, shuffle=False)\n",
        "fn = emg.estimator.inputs.numpy_input_fn(x, shuffle=False)",
    ),
    "tf1_inputs": (
        "import tensorflow as tf\n"
        "fn = tf.estimator.inputs.pandas_input_fn(frame, shuffle=True)\n",
        "fn = emg.estimator.inputs.pandas_input_fn(frame, shuffle=True)",
    ),
}


@pytest.mark.parametrize("case", sorted(SPELLINGS), ids=sorted(SPELLINGS))
def test_fix_rewrites_each_spelling_onto_its_emg_form(case, tmp_path):
    source, expected = SPELLINGS[case]
    result = fix(tmp_path, source)
    assert expected in result.rewritten, result.rewritten
    assert "estimator_multigpu as emg" in result.rewritten
    assert "tensorflow.estimator" not in result.rewritten
    assert "tf.estimator" not in result.rewritten.replace("tf.compat.v1", "")
    assert not result.remaining, [f.to_dict() for f in result.remaining]


@pytest.mark.parametrize("name", _canned_names.CANNED)
@pytest.mark.parametrize("form", ["v2", "v1"])
def test_every_canned_estimator_is_rewritten_onto_a_name_emg_has(name, form, tmp_path):
    prefix = "tf.estimator" if form == "v2" else "tf.compat.v1.estimator"
    result = fix(tmp_path, f"import tensorflow as tf\nm = {prefix}.{name}\n")
    target = f"emg.estimator.{'v1.' if form == 'v1' else ''}{name}"
    assert f"m = {target}\n" in result.rewritten
    namespace = emg_estimator.v1 if form == "v1" else emg_estimator
    assert callable(getattr(namespace, name))


@pytest.mark.parametrize("name", [*_canned_names.HEADS, *_canned_names.INPUTS])
def test_every_head_and_input_helper_is_rewritten_onto_a_name_emg_has(name, tmp_path):
    result = fix(tmp_path, f"import tensorflow as tf\nh = tf.estimator.{name}\n")
    assert f"h = emg.estimator.{name}\n" in result.rewritten
    value = emg_estimator
    for part in name.split("."):
        value = getattr(value, part)
    assert callable(value)


@pytest.mark.parametrize(
    "name, reason",
    [
        ("BoostedTreesClassifier", "gradient-boosted trees grow layer by layer"),
        ("BoostedTreesRegressor", "TensorFlow Decision Forests"),
        ("PoissonRegressionHead", "emg builds the four heads"),
        ("experimental.LinearSDCA", "emg does not build it"),
    ],
    ids=["boosted_classifier", "boosted_regressor", "poisson_head", "linear_sdca"],
)
def test_what_emg_does_not_build_is_reported_with_the_reason(name, reason, tmp_path):
    result = fix(tmp_path, f"import tensorflow as tf\nm = tf.estimator.{name}()\n")
    (finding,) = result.remaining
    assert finding.rule.rule_id == "canned-estimator-missing"
    text = f"{finding.rule.summary} {finding.rule.replacement}"
    assert reason in text
    assert finding.rule.guide == "migration_guide.md#canned-estimators"


def test_the_estimator_family_no_longer_says_canned_estimators_need_a_model_fn(
    tmp_path,
):
    result = fix(tmp_path, "import tensorflow as tf\nx = tf.estimator.SomethingNew\n")
    (finding,) = result.remaining
    assert "canned estimators need a model_fn" not in finding.rule.replacement
    assert "canned estimators" in finding.rule.replacement


# What the real tf.estimator printed on TF 2.15 (the scripts print them).
PRINTED = {
    "premade_dnn_classifier.py": [
        "eval keys ['accuracy', 'average_loss', 'global_step', 'loss']",
        "prediction keys ['all_class_ids', 'all_classes', 'class_ids', 'classes', "
        "'logits', 'probabilities']",
        "signatures ['classification', 'predict', 'serving_default']",
    ],
    "wide_deep_census.py": [
        "eval keys ['accuracy', 'accuracy_baseline', 'auc', 'auc_precision_recall', "
        "'average_loss', 'global_step', 'label/mean', 'loss', 'precision', "
        "'prediction/mean', 'recall']",
        "prediction keys ['all_class_ids', 'all_classes', 'class_ids', 'classes', "
        "'logistic', 'logits', 'probabilities']",
        "signatures ['classification', 'predict', 'regression', 'serving_default']",
    ],
}
SCRIPTS = sorted(PRINTED)
SPECIES_CENTERS = [[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]]
EDUCATION = ["Bachelors", "HS-grad", "Masters", "Doctorate"]
OCCUPATIONS = ["Tech-support", "Sales", "Exec-managerial", "Craft-repair", "Sales"]


def _write(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def write_iris_like(folder, seed=0):
    """train.csv (120 rows) and test.csv (30): 4 measurements, a species id."""
    rng = np.random.RandomState(seed)
    header = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth", "Species"]
    for name, n in (("train.csv", 120), ("test.csv", 30)):
        labels = rng.permutation(np.arange(n) % 3)
        x = np.asarray(SPECIES_CENTERS)[labels] + rng.normal(0, 0.25, (n, 4))
        rows = [[f"{v:.2f}" for v in r] + [int(k)] for r, k in zip(x, labels)]
        _write(os.path.join(folder, name), header, rows)


def write_census_like(folder, seed=0):
    """adult.data (400 rows) and adult.test (100): age, education, occupation, hours."""
    rng = np.random.RandomState(seed)
    header = ["age", "education", "occupation", "hours_per_week", "income_bracket"]
    for name, n in (("adult.data", 400), ("adult.test", 100)):
        rows = []
        for _ in range(n):
            age, edu, occ = rng.randint(18, 70), rng.randint(4), rng.randint(5)
            hours = rng.randint(20, 60)
            score = (age - 40) / 15 + edu - 1.5 + (hours - 40) / 20
            label = int(score + rng.normal(0, 0.5) > 0)
            rows.append([age, EDUCATION[edu], OCCUPATIONS[occ], hours, label])
        _write(os.path.join(folder, name), header, rows)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("canned_data")
    write_iris_like(folder)
    write_census_like(folder)
    return folder


def _check_printed(name, lines):
    for line in PRINTED[name]:
        assert line in lines, lines
    (accuracy,) = [
        float(line.split()[1]) for line in lines if line.startswith("accuracy")
    ]
    assert 0.0 <= accuracy <= 1.0


@pytest.mark.slow
@pytest.mark.tf_compat
@pytest.mark.parametrize("name", SCRIPTS)
def test_the_script_runs_on_the_real_tf_estimator(name, data_dir, tmp_path):
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    runs = [("original", CORPUS / name, [data_dir, tmp_path / "model"])]
    out = run_scripts(runs, timeout=600)["original"]
    assert out["error"] is None, out
    _check_printed(name, out["stdout"])


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_the_script_runs_after_fix_alone_on_one_and_two_devices(
    name, data_dir, tmp_path
):
    script = rewrite(name, tmp_path)
    runs = [
        ("1dev", script, [data_dir, tmp_path / "one"]),
        ("2dev", script, [data_dir, tmp_path / "two", "/cpu:0,/cpu:1"]),
    ]
    out = run_scripts(runs, preamble=TWO_DEVICES, timeout=900)
    for label in ("1dev", "2dev"):
        assert out[label]["error"] is None, (label, out[label])
        _check_printed(name, out[label]["stdout"])
