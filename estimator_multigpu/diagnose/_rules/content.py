"""Rules on what the functions and constants of a pipeline hold."""

from __future__ import annotations

from estimator_multigpu.diagnose._findings import ERROR, WARNING
from estimator_multigpu.diagnose._pipeline import Pipeline, Stage
from estimator_multigpu.diagnose._rules._common import (
    PARSE_OPS,
    PY_OPS,
    Context,
    batch_levels,
    finding,
    has_scalar_string_input,
)

GRAPH_DEF_LIMIT = 2 << 30


def per_example_parse(pipeline: Pipeline, ctx: Context):
    levels = batch_levels(pipeline)
    for stage in pipeline.stages:
        if stage.family != "map" or not has_scalar_string_input(stage, levels):
            continue
        used = stage.function_ops()
        if used & PARSE_OPS:
            yield finding(
                pipeline,
                stage,
                "per-example-parse",
                WARNING,
                f"The map parses one serialized record per call "
                f"({', '.join(sorted(used & PARSE_OPS))}); tf.io.parse_example "
                "parses a whole [batch] of records in one op, many times faster.",
                "dataset = dataset.batch(batch_size)\n"
                "dataset = dataset.map(lambda s: tf.io.parse_example(s, features),\n"
                "                      num_parallel_calls=tf.data.AUTOTUNE)",
            )
        if "DecodeRaw" in used:
            yield finding(
                pipeline,
                stage,
                "per-record-decode-raw",
                WARNING,
                "decode_raw runs once per record; on a [batch] of fixed-length "
                "records one decode_raw decodes them all ([batch, record_bytes]).",
                "dataset = dataset.batch(batch_size)\n"
                "dataset = dataset.map(lambda r: tf.io.decode_raw(r, tf.uint8),\n"
                "                      num_parallel_calls=tf.data.AUTOTUNE)",
            )


def py_function(pipeline: Pipeline, ctx: Context):
    for stage in pipeline.stages:
        used = sorted(stage.function_ops() & PY_OPS)
        if used:
            yield finding(
                pipeline,
                stage,
                "py-function",
                WARNING,
                f"Python runs for every element here ({', '.join(used)}): it "
                "holds the GIL, so calls run one at a time whatever "
                "num_parallel_calls says, competing with the training loop's "
                "own Python, and the pipeline can no longer be serialized "
                "(tf.data service, snapshots, distributed input).",
                "# Rewrite the function with TensorFlow ops (tf.io, tf.strings,\n"
                "# tf.image, tf.math), or do the Python work once, offline.",
            )


def _const_bytes(nodes) -> int:
    return sum(
        n.attr["value"].tensor.ByteSize() for n in nodes if n and n.op == "Const"
    )


def _stage_bytes(stage: Stage, counted: set[str]) -> int:
    names = [n for n in stage.functions if n not in counted]
    counted.update(names)
    return _const_bytes(stage.arg_nodes) + _const_bytes(stage.library.nodes(names))


def large_constants(pipeline: Pipeline, ctx: Context):
    counted: set[str] = set()
    for stage in pipeline.stages:
        size = _stage_bytes(stage, counted)
        if size < ctx.large_constant_bytes:
            continue
        yield finding(
            pipeline,
            stage,
            "large-constant",
            ERROR if size >= GRAPH_DEF_LIMIT else WARNING,
            f"{size / 2**20:.0f} MiB of constants are embedded in the dataset "
            "graph here (from_tensor_slices of an array, or an array a function "
            "captures). A GraphDef cannot exceed 2 GiB, and every copy of the "
            "graph (graph mode, tf.data service, distributed input) carries them.",
            "# Write the data to TFRecord files and read them, or keep the array\n"
            "# in a variable: emg.inputs.device_array_dataset(array, indices, ...)",
        )


RULES = (per_example_parse, py_function, large_constants)
