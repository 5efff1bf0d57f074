"""Imports of tf.contrib's internal module paths onto tf_slim's modules.

`from tensorflow.contrib.layers.python.layers import utils` (and slim's
`...slim.python.slim.data.parallel_reader`, framework's `...python.ops.
variables`) name contrib's files; tf_slim is those files, moved. A module
the code still reads after the name-by-name rewrites is imported from tf_slim.
"""

import importlib
import re

import pytest
from migrate_helpers import CORPUS, RuleCorpus, fix_source

from estimator_multigpu.migrate import _aliases, _api_spec, _contrib_module_paths
from estimator_multigpu.migrate import _contrib_surface as surface

RULE = _contrib_module_paths.RULE_ID
SCRIPT = CORPUS / "contrib_module_paths.py"
CHECKS = RuleCorpus(RULE, SCRIPT, _contrib_module_paths.ANCHOR)
_ours = CHECKS.ours


@pytest.mark.parametrize("contrib, slim", sorted(_api_spec.CONTRIB_MODULES.items()))
def test_every_tf_slim_module_of_the_table_holds_contrib_s_public_names(contrib, slim):
    module = importlib.import_module(slim)
    names = surface._sources().get(_aliases.canonical(contrib), {})
    lacks = {n for n in names if n and not hasattr(module, n)}
    assert lacks == _api_spec.CONTRIB_MISSING.get(contrib, set())


@pytest.mark.parametrize(
    "source",
    [
        "from tensorflow.contrib.framework.python.ops import variables\n"
        "v = variables.zero_initializer(w)\nu = variables.get_unique_variable('u')\n",
        "from tensorflow.contrib.framework.python.ops.variables import "
        "zero_initializer\nv = zero_initializer(w)\n",
    ],
    ids=["read", "imported"],
)
def test_a_name_tf_slim_s_copy_lacks_keeps_the_import(tmp_path, source):
    result = fix_source(tmp_path, source)
    assert "from tf_slim" not in (result.rewritten or "")
    assert not all(f.fixed for f in result.findings)


@pytest.mark.parametrize(
    "source, expected, use",
    [
        (
            "from tensorflow.contrib.layers.python.layers import utils\n"
            "y = utils.collect_named_outputs(None, 'a', 1)\n",
            "from tf_slim.layers import utils\n",
            "utils.collect_named_outputs",
        ),
        (
            "from tensorflow.contrib.slim.python.slim.data import parallel_reader\n"
            "f = parallel_reader.get_data_files('x')\n",
            "from tf_slim.data import parallel_reader\n",
            "parallel_reader.get_data_files",
        ),
        (
            "import tensorflow.contrib.slim.python.slim.data.parallel_reader as pr\n"
            "f = pr.get_data_files('x')\n",
            "import tf_slim.data.parallel_reader as pr\n",
            "pr.get_data_files",
        ),
        (
            "from tensorflow.contrib.layers.python.layers.utils import "
            "collect_named_outputs as collect  # keep\n"
            "y = collect(None, 'a', 1)\n",
            "from tf_slim.layers.utils import collect_named_outputs as collect  # keep\n",
            "collect(None",
        ),
    ],
    ids=["module_from_package", "slim_data", "aliased_module", "name_from_module"],
)
def test_the_import_moves_to_tf_slim_and_the_reads_stay(
    tmp_path, source, expected, use
):
    result = fix_source(tmp_path, source)
    assert result.rewritten.startswith(expected)
    assert use in result.rewritten and "contrib" not in result.rewritten
    assert _ours(result) and all(f.fixed for f in _ours(result))
    # slim's data modules keep the slim rule's tf.data advice (not a failure)
    left = [f for f in result.findings if not f.fixed]
    assert all(f.rule.rule_id == "contrib-slim" for f in left)


def test_an_import_whose_reads_other_rules_rewrote_is_dropped(tmp_path):
    source = (
        "from tensorflow.contrib.framework.python.ops import variables\n"
        "v = variables.model_variable('w', [1])\n"
    )
    text = fix_source(tmp_path, source).rewritten
    assert "tf_slim.model_variable('w', [1])" in text
    assert "import variables" not in text and "contrib" not in text


def test_an_unused_import_is_left_to_the_unused_import_rule(tmp_path):
    source = "from tensorflow.contrib.layers.python.layers import utils\nx = 1\n"
    result = fix_source(tmp_path, source)
    assert not _ours(result)
    assert "import utils" not in result.rewritten


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow.contrib.layers.python.layers.utils\n"
        "y = tensorflow.contrib.layers.python.layers.utils.collect_named_outputs\n",
        "from tensorflow.contrib.layers.python.layers import utils, encoders\n"
        "y = utils, encoders\n",
    ],
    ids=["whole_path", "not_all_in_tf_slim"],
)
def test_an_import_tf_slim_cannot_take_whole_is_reported(tmp_path, source):
    result = fix_source(tmp_path, source)
    [finding] = _ours(result)
    assert not finding.fixed and not finding.rule.fixable
    assert "from tf_slim" not in (result.rewritten or "")


def test_the_corpus_script_reports_exactly_its_marked_findings():
    found = CHECKS.assert_marked_findings()
    assert all(f.fixed for f in found)


def test_the_guide_has_the_section_the_finding_links_to():
    CHECKS.assert_guide_anchor()


def test_a_second_fix_changes_nothing(tmp_path):
    CHECKS.assert_second_fix_changes_nothing(tmp_path)


@pytest.mark.slow
def test_the_fixed_script_runs_on_tf_slim(tmp_path):
    out = CHECKS.run_fixed(tmp_path)
    assert re.search(r"^step 2 loss [\d.]+$", out, re.M)
    assert "ends ['scaled', 'scaled_1']" in out
