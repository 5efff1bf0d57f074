"""Tests for `--fix`: renames, queue-chain rewrites, refusals, layout kept."""

import ast
import re

import pytest
from migrate_helpers import CORPUS, CORPUS_FILES, fix_snippet, parse_ok

from estimator_multigpu.migrate import (
    _fixer,
    _passes,
    _scanner,
)


def squash(text):
    """`text` without whitespace or trailing commas: wrapped code compares equal."""
    return "".join(text.split()).replace(",)", ")")


def rescan(source):
    return _scanner.scan_rules(ast.parse(source), source, "snippet.py")


CHAIN = """\
import tensorflow.compat.v1 as tf


def inputs(files):
    # queue of file names
    q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader()
    key, line = reader.read(q)
    scale = 2
    number = tf.strings.to_number(line) * scale  # per-example
    images, keys = tf.train.batch([number, key], batch_size=2)
    return images, keys
"""


def test_chain_becomes_a_mapped_function():
    result, findings = fix_snippet(CHAIN)
    new = result.source
    assert "def _example_fn(key, line):" in new
    assert "        number = tf.strings.to_number(line) * scale  # per-example" in new
    assert "        return (number, key)" in new
    assert "examples = emg.inputs.queues.read(q, reader).map(_example_fn)" in new
    assert squash(
        "images, keys = emg.inputs.queues.get_next("
        "emg.inputs.queues.batch(examples, batch_size=2,))"
    ) in squash(new)
    assert "q = emg.inputs.queues.string_input_producer(files" in new
    assert "reader = emg.inputs.queues.TextLineReader()" in new
    assert all(f.fixed for f in findings) and rescan(new) == []


def test_chain_keeps_unrelated_statements_outside_the_function():
    new = fix_snippet(CHAIN)[0].source
    assert new.index("    scale = 2\n") < new.index("def _example_fn")
    assert "    # queue of file names\n" in new


def test_one_element_list_returns_the_bare_tensor():
    source = CHAIN.replace("[number, key]", "[number]").replace(
        "images, keys", "images"
    )
    new = fix_snippet(source)[0].source
    assert "        return number\n" in new


@pytest.mark.parametrize(
    "tensors, returned",
    [
        ("{'n': number, 'k': key}", "{'n': number, 'k': key}"),
        ("(number, key)", "(number, key)"),
    ],
    ids=["dict", "tuple"],
)
def test_structures(tensors, returned):
    new = fix_snippet(CHAIN.replace("[number, key]", tensors))[0].source
    assert f"        return {returned}\n" in new


def test_named_list_becomes_a_tuple():
    source = CHAIN.replace(
        "    images, keys = tf.train.batch([number, key], batch_size=2)",
        "    pair = [number, key]\n    images, keys = tf.train.batch(pair, batch_size=2)",
    )
    new = fix_snippet(source)[0].source
    assert "        return tuple(pair)\n" in new and parse_ok(new)


def test_slice_input_producer_chain():
    source = """\
    import tensorflow.compat.v1 as tf
    x, y = tf.train.slice_input_producer([xs, ys], num_epochs=1)
    x = x * 2
    bx, by = tf.train.shuffle_batch([x, y], 4, 100, 10, seed=1)
    """
    new = fix_snippet(source)[0].source
    assert "def _example_fn(x, y):" in new
    assert (
        "examples = emg.inputs.queues.slice_input_producer([xs, ys], num_epochs=1)"
        in new
    )
    assert squash(
        "emg.inputs.queues.shuffle_batch(examples, 4, 100, 10, seed=1"
    ) in squash(new)


def test_dequeue_chain_and_maybe_batch_keep_input():
    source = """\
    import tensorflow.compat.v1 as tf
    i = tf.train.range_input_producer(10, shuffle=False).dequeue()
    b = tf.train.maybe_batch([i * i], keep_flag, 3)
    """
    new = fix_snippet(source)[0].source
    assert "def _example_fn(i):" in new
    assert (
        "examples = emg.inputs.queues.range_input_producer(10, shuffle=False).map("
        in new
    )
    assert squash("maybe_batch(examples, lambda *_: (keep_flag), 3") in squash(new)


def test_stores_into_what_the_per_example_code_made_move_with_it():
    # decode_csv's list of columns, changed in place, and a list of defaults
    # made and changed next to it: both objects are made anew at each trace.
    source = CHAIN.replace(
        "    number = tf.strings.to_number(line) * scale  # per-example\n",
        "    defaults = [[1.0], [1.0]]\n"
        "    defaults[1] = ['']\n"
        "    columns = tf.decode_csv(line, record_defaults=defaults)\n"
        "    columns[1] = tf.strings.length(columns[1])\n"
        "    number = columns[0] * scale\n",
    )
    result, findings = fix_snippet(source)
    new = result.source
    assert "def _example_fn(key, line):" in new, result.notes
    assert "        columns[1] = tf.strings.length(columns[1])\n" in new
    assert all(f.fixed for f in findings)


@pytest.mark.parametrize(
    "change, reason",
    [
        (
            ("    return images, keys", "    return images, keys, q"),
            "`q` is used elsewhere",
        ),
        (
            ("    return images, keys", "    return images, number"),
            "`number` is also used outside",
        ),
        (
            ("  # per-example", "\n    tf.summary.scalar('n', number)"),
            "tf.summary.scalar` cannot run inside",
        ),
        (("tf.train.batch(", "tf.train.batch_join("), r"\*_join` batchers"),
        (("    key, line = reader.read(q)\n", ""), "no `reader.read"),
        (
            ("    scale = 2\n", "    scale = 2; other = 1\n"),
            "holds more than one statement",
        ),
        (
            ("[number, key]", "make_list(number, key)"),
            "not a list, tuple or dict display",
        ),
        (
            (
                "    q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)\n",
                "",
            ),
            "`q` is not made by a simple assignment",
        ),
        (
            ("    reader = tf.TextLineReader()\n", "    reader = make_reader()\n"),
            "is not one of",
        ),
        (("* scale", "* scale\n    scale = 3"), "`scale` changes after"),
        (
            ("# per-example", "# per-example\n    scale = number"),
            "`scale` is read before",
        ),
        (
            ("# per-example", "# per-example\n    seen.append(number)"),
            "calls `seen.append` on an outside object",
        ),
        (
            ("# per-example", "# per-example\n    holder.value = number"),
            "stores into `holder.value`",
        ),
        (
            (
                "# per-example",
                "# per-example\n    alias = holder\n    alias.value = number",
            ),
            "stores into `alias.value`",
        ),
    ],
    ids=[
        "queue_reused",
        "example_escapes",
        "summary",
        "join",
        "no_source",
        "shared_line",
        "computed_tensors",
        "queue_from_argument",
        "unknown_reader",
        "changed_later",
        "read_before_assigned",
        "outside_mutation",
        "attribute_store",
        "store_into_an_alias",
    ],
)
def test_chains_left_alone_with_a_reason(change, reason):
    source = CHAIN.replace(*change)
    result, findings = fix_snippet(source)
    assert result.source == source
    assert not any(f.fixed for f in findings)
    ((line, note),) = result.notes
    assert re.search(reason, note), note
    assert "batch" in source.splitlines()[line - 1]


ESTIMATOR = """\
\"\"\"Docstring.\"\"\"
import tensorflow as tf
from tensorflow.contrib.estimator import replicate_model_fn

# A comment that must survive.
def main(model_fn):
    spec = tf.estimator.EstimatorSpec  # trailing comment
    mode = tf.estimator.ModeKeys.TRAIN
    return tf.estimator.Estimator(replicate_model_fn(model_fn))
"""


def test_renames_and_dead_contrib_import():
    result, findings = fix_snippet(ESTIMATOR)
    assert result.source == ESTIMATOR.replace(
        "from tensorflow.contrib.estimator import replicate_model_fn\n",
        "import estimator_multigpu as emg\n",
    ).replace("tf.estimator.", "emg.estimator.").replace(
        "(replicate_model_fn(", "(emg.replicate_model_fn("
    )
    assert all(f.fixed for f in findings)


@pytest.mark.parametrize(
    "header, prefix",
    [
        ("import estimator_multigpu as emg\n", "emg"),
        ("import estimator_multigpu as mg\n", "mg"),
        ("import estimator_multigpu\n", "estimator_multigpu"),
        ("emg = 3\n", "emg_2"),
    ],
    ids=["already_imported", "other_alias", "plain_import", "name_taken"],
)
def test_package_is_imported_once_under_a_free_name(header, prefix):
    source = header + "import tensorflow as tf\nx = tf.estimator.RunConfig()\n"
    new = fix_snippet(source)[0].source
    assert f"x = {prefix}.estimator.RunConfig()" in new
    assert new.count("import estimator_multigpu") == 1


LOCAL_IMPORT = (
    "def f():\n    import tensorflow as tf\n    return tf.estimator.RunConfig()\n"
)


@pytest.mark.parametrize(
    "header, expected",
    [
        ('"""Doc."""\n', '"""Doc."""\nimport estimator_multigpu as emg\n'),
        (
            "#!/usr/bin/env python\n# note\n",
            "#!/usr/bin/env python\n# note\nimport estimator_multigpu as emg\n",
        ),
        (
            "from tensorflow import estimator\nx = estimator.RunConfig\n",
            "import estimator_multigpu as emg\nx = emg.estimator.RunConfig\n",
        ),
    ],
    ids=["after_docstring", "after_leading_comments", "replaces_dead_tf_import"],
)
def test_where_the_package_import_goes(header, expected):
    new = fix_snippet(header + LOCAL_IMPORT)[0].source
    assert new == expected + LOCAL_IMPORT.replace("tf.estimator", "emg.estimator")


def test_contrib_module_import_removed_once_its_uses_are_rewritten():
    source = (
        "from tensorflow.contrib import estimator as contrib_estimator\n"
        "x = contrib_estimator.replicate_model_fn(f)\n"
    )
    new = fix_snippet(source)[0].source
    assert new == "import estimator_multigpu as emg\nx = emg.replicate_model_fn(f)\n"


def test_only_the_rewritten_names_leave_a_legacy_import():
    source = (
        "from tensorflow.contrib.estimator import replicate_model_fn, stop_if_no_decrease_hook\n"
        "a = replicate_model_fn(f)\nb = stop_if_no_decrease_hook\n"
    )
    new = fix_snippet(source)[0].source
    # stop_if_no_decrease_hook has no TF 2.16+ successor: a stand-in that
    # fails where reached takes its place (test_migrate_contrib_gone), so
    # nothing is left for the import
    assert new == (
        "import estimator_multigpu as emg\n"
        "a = emg.replicate_model_fn(f)\nb = emg.migrate_gone("
        '"tf.contrib.estimator.stop_if_no_decrease_hook", "the core API named '
        'in the guide (tf.data, tf.keras, emg.*)")\n'
    )
    kept = (
        "from tensorflow.contrib.estimator import replicate_model_fn\n"
        "from tensorflow.contrib.layers import xavier_initializer\n"
        "a = replicate_model_fn(f)\nb = xavier_initializer(uniform=False)\n"
    )
    assert fix_snippet(kept)[0].source == (
        "from tensorflow.contrib.layers import xavier_initializer\n"
        "import estimator_multigpu as emg\n"
        "a = emg.replicate_model_fn(f)\nb = xavier_initializer(uniform=False)\n"
    )


@pytest.mark.parametrize(
    "call, expected",
    [
        ("replicate_model_fn(f)", "emg.replicate_model_fn(f)"),
        (
            "replicate_model_fn(f, tf.losses.Reduction.SUM)",
            "emg.replicate_model_fn(f, loss_reduction='sum')",
        ),
        (
            "replicate_model_fn(f, loss_reduction=tf.compat.v1.losses.Reduction.MEAN)",
            "emg.replicate_model_fn(f, loss_reduction='mean')",
        ),
        (
            "replicate_model_fn(f, tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS, ['/gpu:0'])",
            "emg.replicate_model_fn(f, loss_reduction='mean', devices=['/gpu:0'])",
        ),
        ("replicate_model_fn(f, devices=d)", "emg.replicate_model_fn(f, devices=d)"),
    ],
    ids=[
        "plain",
        "positional_sum",
        "keyword_mean",
        "positional_devices",
        "keyword_devices",
    ],
)
def test_replicate_model_fn_arguments(call, expected):
    source = f"import tensorflow as tf\nfrom tensorflow.contrib.estimator import replicate_model_fn\nx = {call}\n"
    new = fix_snippet(source)[0].source
    assert f"x = {expected}\n" in new and "tensorflow.contrib" not in new


def test_replicate_model_fn_with_an_unknown_reduction_is_left_alone():
    source = (
        "import tensorflow as tf\nx = tf.contrib.estimator.replicate_model_fn(f, red)\n"
    )
    result, findings = fix_snippet(source)
    assert result.source == source and not findings[0].fixed


def test_crlf_and_untouched_lines_are_kept_byte_for_byte():
    source = ESTIMATOR.replace("\n", "\r\n")
    new = fix_snippet(source)[0].source
    assert "\r\n# A comment that must survive.\r\n" in new
    assert "  # trailing comment\r\n" in new
    assert "\n" not in new.replace("\r\n", "")


def refined_scan(source):
    """The tool's findings: the rule scan, then its passes (era shapes, port)."""
    tree = ast.parse(source)
    found = _scanner.scan_rules(tree, source, "snippet.py")
    return tree, _passes.scan(tree, source, "snippet.py", found)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_fix_parses_and_only_manual_findings_remain(name):
    source = (CORPUS / name).read_text()
    tree, findings = refined_scan(source)
    result = _fixer.fix(source, tree, findings)
    assert parse_ok(result.source)
    remaining = sorted(f.api for f in findings if not f.fixed)
    assert sorted(f.api for f in refined_scan(result.source)[1]) == remaining


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_fix_is_idempotent(name):
    once = fix_snippet((CORPUS / name).read_text())[0].source
    assert fix_snippet(once)[0].source == once


HELPER = """\
import tensorflow.compat.v1 as tf


def read_record(queue, header):
    reader = tf.TextLineReader(skip_header_lines=header)
    _, line = reader.read(queue)
    number = tf.strings.to_number(line)
    return number, line


def inputs(files):
    q = tf.train.string_input_producer(files)
    number, line = read_record(q, 1)
    return tf.train.batch([number * 2, line], 4)
"""


def test_reader_helper_returns_a_dataset_and_the_caller_maps_it():
    result, findings = fix_snippet(HELPER)
    new = result.source
    assert (
        "    def _decode_fn(_, line):\n        number = tf.strings.to_number(line)"
        in new
    )
    assert "        return (number, line)\n" in new
    assert "    return emg.inputs.queues.read(queue, reader).map(_decode_fn)\n" in new
    assert "    examples = read_record(q, 1).map(_example_fn)\n" in new
    assert (
        "    def _example_fn(number, line):\n        return (number * 2, line)\n" in new
    )
    assert all(f.fixed for f in findings) and rescan(new) == []


@pytest.mark.parametrize(
    "change, reason",
    [
        (
            (
                "    return tf.train.batch",
                "    other = read_record\n    return tf.train.batch",
            ),
            "`read_record` is also used outside queue chains",
        ),
        (
            ("    return number, line", "    return {'n': number}"),
            "the dict that `read_record` returns is unpacked",
        ),
        (
            (
                "    number = tf.strings.to_number(line)\n",
                "    number = tf.strings.to_number(line)\n    if header:\n        return line\n",
            ),
            "returns from more than one place",
        ),
        (
            ("read_record(q, 1)", "read_record(header=1)"),
            "`read_record` is called without its queue",
        ),
    ],
    ids=["helper_used_elsewhere", "dict_unpacked", "two_returns", "no_queue_argument"],
)
def test_reader_helpers_left_alone_with_a_reason(change, reason):
    source = HELPER.replace(*change)
    result, findings = fix_snippet(source)
    assert result.source == source
    assert not any(f.fixed for f in findings)
    ((_, note),) = result.notes
    assert re.search(reason, note), note


BATCH_HELPER = """\
import tensorflow.compat.v1 as tf


def make_batch(image, label, size, shuffle):
    if shuffle:
        return tf.train.shuffle_batch([image, label], size, 100, 10)
    return tf.train.batch([image, label], size)


def inputs(files):
    q = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(q)
    image = tf.io.decode_raw(value, tf.uint8)
    return make_batch(image, value, 4, shuffle=True)
"""


def test_batch_helper_takes_the_mapped_examples():
    result, findings = fix_snippet(BATCH_HELPER)
    new = result.source
    assert "def make_batch(examples, size, shuffle):" in new
    assert squash(
        "return emg.inputs.queues.get_next("
        "emg.inputs.queues.shuffle_batch(examples, size, 100, 10))"
    ) in squash(new)
    assert squash(
        "return emg.inputs.queues.get_next(emg.inputs.queues.batch(examples, size))"
    ) in squash(new)
    assert "    return make_batch(examples, 4, shuffle=True)\n" in new
    assert "        return (image, value)\n" in new
    assert all(f.fixed for f in findings) and rescan(new) == [] and not result.notes


@pytest.mark.parametrize(
    "change, reason",
    [
        (
            (
                "    return tf.train.batch([image, label], size)",
                "    return tf.train.batch([label, image], size)",
            ),
            "no `reader.read",
        ),
        (
            ("def make_batch(image, label, size", "def make_batch(image, size, label"),
            "no `reader.read",
        ),
        (("    if shuffle:", "    print(image)\n    if shuffle:"), "no `reader.read"),
        (
            ("def inputs(files):", "other = make_batch\n\n\ndef inputs(files):"),
            "`make_batch` is also used outside queue chains",
        ),
        (
            ("make_batch(image, value, 4", "make_batch(*[image, value], 4"),
            "called without `image`",
        ),
    ],
    ids=[
        "different_tensors",
        "not_adjacent",
        "param_used_elsewhere",
        "helper_used_elsewhere",
        "starred_call",
    ],
)
def test_batch_helpers_left_alone_with_a_reason(change, reason):
    source = BATCH_HELPER.replace(*change)
    result, findings = fix_snippet(source)
    assert result.source == source
    assert not any(f.fixed for f in findings)
    assert any(re.search(reason, note) for _, note in result.notes), result.notes


BRANCHES = """\
import tensorflow.compat.v1 as tf


def inputs(files, shuffle):
    q = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, value = reader.read(q)
    image = tf.io.decode_raw(value, tf.uint8)
    if shuffle:
        images = tf.train.shuffle_batch([image], 4, 100, 10)
    else:
        images = tf.train.batch([image], 4)
    return images
"""


def test_branches_that_batch_the_same_examples_share_one_dataset():
    result, findings = fix_snippet(BRANCHES)
    new = result.source
    assert "examples = emg.inputs.queues.read(q, reader).map(_example_fn)" in new
    assert squash(
        "images = emg.inputs.queues.get_next("
        "emg.inputs.queues.shuffle_batch(examples, 4, 100, 10))"
    ) in squash(new)
    assert squash(
        "images = emg.inputs.queues.get_next(emg.inputs.queues.batch(examples, 4))"
    ) in squash(new)
    assert all(f.fixed for f in findings) and not result.notes


def test_branches_that_batch_different_tensors_are_left_alone():
    source = BRANCHES.replace("batch([image], 4)\n", "batch([image, value], 4)\n")
    result, findings = fix_snippet(source)
    assert result.source == source and not any(f.fixed for f in findings)
    assert any("batch different tensors" in note for _, note in result.notes)


def test_tab_indented_files_get_tab_indented_functions():
    source = CHAIN.replace("    ", "\t")
    result, findings = fix_snippet(source)
    assert "\tdef _example_fn(key, line):\n\t\tnumber = " in result.source
    assert "\t\treturn (number, key)\n" in result.source
    assert parse_ok(result.source) and all(f.fixed for f in findings)


@pytest.mark.parametrize(
    "tensors, mapped",
    [("[key]", True), ("[key, line]", False), ("[line, key]", True)],
    ids=["first_only", "both_in_order", "swapped"],
)
def test_a_map_is_added_unless_it_would_return_the_record(tensors, mapped):
    source = CHAIN.replace(
        "    number = tf.strings.to_number(line) * scale  # per-example\n", ""
    ).replace("[number, key]", tensors)
    new = fix_snippet(source)[0].source
    assert (".map(_example_fn)" in new) == mapped
    assert ("examples = emg.inputs.queues.read(q, reader)\n" in new) == (not mapped)


@pytest.mark.parametrize(
    "keep, expected",
    [
        ("number > 0", "lambda number, key: (number > 0)"),
        ("True", "True"),
        ("flag", "lambda *_: (flag)"),
    ],
    ids=["reads_the_example", "constant", "outside_tensor"],
)
def test_maybe_batch_keep_input_becomes_a_function_of_the_example(keep, expected):
    source = CHAIN.replace(
        "tf.train.batch([number, key], batch_size=2)",
        f"tf.train.maybe_batch([number, key], {keep}, batch_size=2)",
    )
    result, findings = fix_snippet(source)
    assert squash(f"maybe_batch(examples, {expected}, batch_size=2)") in squash(
        result.source
    )
    assert all(f.fixed for f in findings)


def test_keep_input_reading_unbatched_values_is_left_alone():
    source = (
        CHAIN.replace(
            "tf.train.batch([number, key], batch_size=2)",
            "tf.train.maybe_batch([number], line > '', batch_size=2)",
        )
        .replace("images, keys =", "images =")
        .replace("return images, keys", "return images")
    )
    result, findings = fix_snippet(source)
    assert result.source == source and not any(f.fixed for f in findings)
    assert any("not batched" in note for _, note in result.notes), result.notes


def test_a_reader_function_that_cannot_be_a_source_is_named_in_the_note():
    # A caller that hands the whole record on keeps the record object.
    source = (CORPUS / "cifar10_tutorial_input.py").read_text()
    source = source.replace(
        "    read_input.label.set_shape([1])\n",
        "    read_input.label.set_shape([1])\n    log_record(read_input)\n",
    )
    result, _ = fix_snippet(source)
    assert any(
        "`read_cifar10` reads the queue but cannot become a source: the records "
        "are unpacked into something other than names" in note
        for _, note in result.notes
    ), result.notes
