"""The declarative API changes, by kind: one spec (`SPEC`), matched at every use by one visitor.

Like tf_upgrade_v2's `APIChangeSpec`, every change the table rules make to
a name, an import path or a call's arguments is a row of a table here,
keyed by the name as a module resolves it. One visitor (`_api_uses.uses`)
walks each module once, resolves every spelling through the module's
aliases (`tf.contrib.x.y`, `from tensorflow.contrib.x.python.ops import y`,
`from scipy.ndimage.filters import z`, `np.float`, an alias bound by an
assignment, an attribute chain) and matches each use against every table;
the rule that owns a table (its finding text, its edits) reads the
matches. A new change is a row: nothing else changes.

The kinds (`ApiSpec`'s fields):

- symbols: `_rules.TABLE`, canonical TF name (`tf.x.y`, the longest prefix
  wins) -> rule. A rule with a `rename` is a symbol rename `--fix` writes;
  one without is a name with no successor (or none `--fix` can write
  alone), its replacement says why. Matched at every read and import.
- tf0_renames: TF 0.x names TF 1.0 renamed, with their keyword renames
  and how many positional arguments mean the same in both.
- numpy_builtins, numpy_aliases, numpy_values, numpy_calls: NumPy names
  NumPy 2 removed, by the form of their successor.
- positional_to_keyword, added_keywords, dropped_defaults,
  keyword_renames, successor_keyword_renames: a call's arguments, by the
  API it calls (`_api_changes.argument_edits` applies them to the call the
  visitor found around a matched name); dropped_defaults are parameters the
  successor lacks, removed where the call passes the legacy default.
- contrib_modules (with contrib_missing), scipy_paths, python2_modules:
  module-path aliases, a private or renamed module path -> its successor's.
- private_names (with private_gone), private_unexported: private
  `tensorflow.python` paths (spelled from `tf.`): each symbol's public
  name on TF 2.21 ("" for none), whether TF 2.21 still has it there, and
  the paths with no public name with what to do instead. Matched at every
  read of a name or attribute chain.
- v1_only, v2_only, v1_signatures: the compat.v1 port's tables, from TF
  2.21: the names (`tf.x.y`) only `tf.compat.v1` has, the names it lacks,
  and the TF 2 functions whose compat.v1 twin takes TF 1.x's other
  arguments (TF 2's positional capacity, the keywords only TF 1.x's
  takes). Matched at the outermost name chain of every read that reaches
  TensorFlow other than through `tf.compat` (the shortest listed prefix),
  and at the call around it.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import (
    _private_names,
    _rules,
    _v1_names,
    _v1_signatures,
)
from estimator_multigpu.migrate._scipy_private_table import PATHS

# Symbol renames with keyword renames: TF 0.x names TF 1.0 renamed (`_tf0_names`).
_ANY = 99  # no limit on positional arguments


@dataclasses.dataclass(frozen=True)
class Renamed:
    """One TF 0.x name's successor (after `tf.`), its keywords' new names,
    how many positional arguments mean the same in both, and whether the
    successor's TF 1.x behaviour lives in tf.compat.v1 only (`v1`)."""

    new: str
    keywords: tuple[tuple[str, str], ...] = ()
    positional: int = _ANY
    v1: bool = False


TF0_RENAMES = {
    "tf.mul": Renamed("multiply"),
    "tf.sub": Renamed("subtract"),
    "tf.neg": Renamed("negative"),
    "tf.inv": Renamed("reciprocal"),
    "tf.complex_abs": Renamed("abs"),
    "tf.pack": Renamed("stack"),
    "tf.unpack": Renamed("unstack"),
    "tf.select": Renamed("where", (("t", "x"), ("e", "y")), v1=True),
    "tf.listdiff": Renamed("setdiff1d", (("out_idx", "index_dtype"),), v1=True),
    "tf.batch_matmul": Renamed(
        "matmul",
        (("x", "a"), ("y", "b"), ("adj_x", "adjoint_a"), ("adj_y", "adjoint_b")),
        2,
    ),
    "tf.image.per_image_whitening": Renamed("image.per_image_standardization"),
    "tf.train.SummaryWriter": Renamed("summary.FileWriter", v1=True),
    "tf.merge_all_summaries": Renamed("summary.merge_all", v1=True),
    "tf.merge_summary": Renamed("summary.merge", v1=True),
    "tf.scalar_summary": Renamed(
        "summary.scalar", (("tags", "name"), ("values", "tensor")), 3, v1=True
    ),
    "tf.histogram_summary": Renamed(
        "summary.histogram", (("tag", "name"),), 3, v1=True
    ),
    "tf.image_summary": Renamed(
        "summary.image", (("tag", "name"), ("max_images", "max_outputs")), 4, v1=True
    ),
    "tf.audio_summary": Renamed("summary.audio", (("tag", "name"),), 5, v1=True),
}

# A call's arguments (`_api_changes`).
# api -> the names of its positional parameters (None: stays positional);
# a positional argument whose name is given becomes that keyword, as the
# successor takes its parameters in another order.
POSITIONAL_TO_KEYWORD = {
    # contrib: replicate_model_fn(model_fn, loss_reduction=..., devices=None);
    # emg takes devices second.
    "tf.contrib.estimator.replicate_model_fn": (None, "loss_reduction", "devices"),
    # contrib: local_variable(initial_value, validate_shape, name, use_resource);
    # tf.compat.v1.Variable takes trainable and collections second and third.
    "tf.contrib.framework.local_variable": (
        None,
        "validate_shape",
        "name",
        "use_resource",
    ),
    # contrib: xavier_initializer(uniform=True, seed=None, dtype=float32);
    # glorot_uniform_initializer takes no uniform (contrib's default is
    # dropped, see DROPPED_DEFAULTS).
    "tf.contrib.layers.xavier_initializer": (None, "seed", "dtype"),
}

# api -> (keyword, value) the successor needs for what the legacy API did
# implicitly; `{tf.x.y}` in a value is the TF name `tf.x.y` as the module
# spells it. A call that passes one of these keywords itself is refused.
ADDED_KEYWORDS = {
    # contrib's local_variable is variable(initial_value, trainable=False,
    # collections=[LOCAL_VARIABLES], ...); tf_slim's crashes on TF 2.21
    # (variable_scope has no `variable`).
    "tf.contrib.framework.local_variable": (
        ("trainable", "False"),
        ("collections", "[{tf.compat.v1.GraphKeys.LOCAL_VARIABLES}]"),
    ),
}

# api -> ((parameter, position, the legacy default as source, what else is),):
# parameters the exact successor lacks. --fix drops an argument that passes
# the legacy default and leaves a call that passes anything else.
DROPPED_DEFAULTS = {
    # contrib's uniform xavier_initializer is glorot_uniform: the limit
    # sqrt(6 / (fan_in + fan_out)) both.
    "tf.contrib.layers.xavier_initializer": (
        ("uniform", 0, "True", "uniform=False: tf.compat.v1.glorot_normal_initializer"),
    ),
}

# api -> {keyword of the legacy API: the successor's keyword}.
KEYWORD_RENAMES = {
    "tf.contrib.tfprof.model_analyzer.print_model_analysis": {
        "tfprof_cmd": "cmd",
        "tfprof_options": "options",
    },
}

# TF 2 name -> {TF 1.x keyword: TF 2's}, for the TF 2 names --fix writes in
# place of another spelling (a private path's public name, an exact
# successor): tf_upgrade_v2's function_keyword_renames (TF 2.21) for those
# names, the renames only (a keyword TF 2 dropped, its None, stays for the
# user to see). tf.compat.v1 names keep TF 1.x's keywords and need no row.
SUCCESSOR_KEYWORD_RENAMES = {
    "tf.batch_to_space": {"block_size": "block_shape"},
    "tf.cond": {"fn1": "true_fn", "fn2": "false_fn"},
    "tf.convert_to_tensor": {"preferred_dtype": "dtype_hint"},
    "tf.debugging.assert_all_finite": {"msg": "message", "t": "x"},
    "tf.expand_dims": {"dim": "axis"},
    "tf.image.crop_and_resize": {"box_ind": "box_indices"},
    "tf.io.decode_raw": {"bytes": "input_bytes"},
    "tf.math.argmax": {"dimension": "axis"},
    "tf.math.argmin": {"dimension": "axis"},
    "tf.math.count_nonzero": {
        "input_tensor": "input",
        "keep_dims": "keepdims",
        "reduction_indices": "axis",
    },
    "tf.math.l2_normalize": {"dim": "axis"},
    "tf.math.reduce_any": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_logsumexp": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_max": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_mean": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_min": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_prod": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.math.reduce_sum": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.nn.avg_pool": {"value": "input"},
    "tf.nn.avg_pool2d": {"value": "input"},
    "tf.nn.batch_norm_with_global_normalization": {
        "m": "mean",
        "t": "input",
        "v": "variance",
    },
    "tf.nn.conv1d": {"value": "input"},
    "tf.nn.conv2d": {"filter": "filters"},
    "tf.nn.conv2d_transpose": {"filter": "filters", "value": "input"},
    "tf.nn.conv3d": {"filter": "filters"},
    "tf.nn.conv3d_transpose": {"filter": "filters", "value": "input"},
    "tf.nn.convolution": {"dilation_rate": "dilations", "filter": "filters"},
    "tf.nn.depthwise_conv2d": {"rate": "dilations"},
    "tf.nn.dilation2d": {"filter": "filters", "rates": "dilations"},
    "tf.nn.erosion2d": {"kernel": "filters", "rates": "dilations"},
    "tf.nn.log_softmax": {"dim": "axis"},
    "tf.nn.max_pool": {"value": "input"},
    "tf.nn.max_pool_with_argmax": {"Targmax": "output_dtype"},
    "tf.nn.moments": {"keep_dims": "keepdims"},
    "tf.nn.pool": {"dilation_rate": "dilations"},
    "tf.nn.separable_conv2d": {"rate": "dilations"},
    "tf.nn.softmax": {"dim": "axis"},
    "tf.nn.softmax_cross_entropy_with_logits": {"dim": "axis"},
    "tf.nn.sufficient_statistics": {"keep_dims": "keepdims"},
    "tf.nn.weighted_cross_entropy_with_logits": {"targets": "labels"},
    "tf.nn.weighted_moments": {"keep_dims": "keepdims"},
    "tf.norm": {"keep_dims": "keepdims"},
    "tf.ones_like": {"tensor": "input"},
    "tf.reduce_all": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.reverse_sequence": {"batch_dim": "batch_axis", "seq_dim": "seq_axis"},
    "tf.space_to_batch": {"block_size": "block_shape"},
    "tf.sparse.add": {"thresh": "threshold"},
    "tf.sparse.concat": {
        "concat_dim": "axis",
        "expand_nonconcat_dim": "expand_nonconcat_dims",
    },
    "tf.sparse.reduce_max": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "tf.sparse.reduce_sum": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "tf.sparse.split": {"split_dim": "axis"},
    "tf.squeeze": {"squeeze_dims": "axis"},
    "tf.strings.reduce_join": {"keep_dims": "keepdims", "reduction_indices": "axis"},
    "tf.strings.to_hash_bucket": {"string_tensor": "input"},
    "tf.strings.to_number": {"string_tensor": "input"},
    "tf.zeros_like": {"tensor": "input"},
}

# Module-path aliases: contrib's internal modules, which tf_slim ships
# (`_contrib_module_paths`).
_LAYERS = "tensorflow.contrib.layers.python.layers"
_SLIM = "tensorflow.contrib.slim.python.slim"


def _family(contrib: str, slim: str, names: str) -> dict[str, str]:
    return {f"{contrib}.{n}": f"{slim}.{n}" for n in names.split()}


# contrib's internal module -> the tf_slim module that is its file.
CONTRIB_MODULES = {
    **_family(
        _LAYERS,
        "tf_slim.layers",
        "initializers layers normalization optimizers regularizers "
        "rev_block_lib summaries utils",
    ),
    **_family("tensorflow.contrib.framework.python.ops", "tf_slim.ops", "arg_scope"),
    **_family("tensorflow.contrib.framework.python.ops", "tf_slim.ops", "variables"),
    **_family(
        f"{_SLIM}.data",
        "tf_slim.data",
        "data_decoder data_provider dataset dataset_data_provider "
        "parallel_reader prefetch_queue tfexample_decoder",
    ),
    **_family(_SLIM, "tf_slim", "evaluation learning model_analyzer queues summaries"),
    **_family(
        f"{_SLIM}.nets",
        "tf_slim.nets",
        "alexnet inception inception_v1 inception_v2 inception_v3 overfeat "
        "resnet_utils resnet_v1 resnet_v2 vgg",
    ),
    "tensorflow.contrib.losses.python.losses.loss_ops": "tf_slim.losses.loss_ops",
    "tensorflow.contrib.metrics.python.ops.metric_ops": "tf_slim.metrics.metric_ops",
    "tensorflow.contrib.metrics.python.ops.histogram_ops": (
        "tf_slim.metrics.histogram_ops"
    ),
    **_family(
        "tensorflow.contrib.training.python.training",
        "tf_slim.training",
        "evaluation training",
    ),
}

# Public names of a contrib module that tf_slim's copy of it lacks (contrib's
# zero_initializer ran a contrib-only kernel).
CONTRIB_MISSING = {
    "tensorflow.contrib.framework.python.ops.variables": {"zero_initializer"}
}

# Symbol renames: private tensorflow.python symbols (`_private_imports`).
_GRAPPLER = (
    "TF 2 runs Grappler on every tf.function graph by itself: choose its passes "
    "with tf.config.optimizer.set_experimental_options({...}) (a tf.compat.v1 "
    "Session: ConfigProto(graph_options=GraphOptions(rewrite_options=...))) "
    "instead of optimizing a GraphDef by hand; there is no public OptimizeGraph"
)
# Private paths TF 1.15 exported under no public name -> (what, what to do).
PRIVATE_UNEXPORTED = {
    "tf.python.grappler.tf_optimizer.OptimizeGraph": (
        "Grappler's tf_optimizer.OptimizeGraph is private, with no public successor",
        _GRAPPLER,
    ),
    "tf.core.protobuf.rewriter_config_pb2.RewriterConfig": (
        "RewriterConfig (Grappler's options) is a private protocol buffer module",
        "tf.config.optimizer.set_experimental_options takes its switches as a "
        "dict ({'constant_folding': False, ...}); " + _GRAPPLER.split(": ", 1)[0],
    ),
}

# Module-path aliases: Python 2 modules Python 3 renamed (`_python2_modules`).
# Python 2 module -> its Python 3 name (the same contents).
PYTHON2_MODULES = {
    "cPickle": "pickle",
    "Queue": "queue",
    "ConfigParser": "configparser",
    "copy_reg": "copyreg",
    "__builtin__": "builtins",
    "SocketServer": "socketserver",
    "Tkinter": "tkinter",
    "urlparse": "urllib.parse",
    "httplib": "http.client",
    "cookielib": "http.cookiejar",
}

# NumPy names NumPy 2 removed (`_numpy_removed`).
# np.<name> -> the builtin it was (removed in NumPy 1.24).
NUMPY_BUILTINS = {
    "float": "float",
    "int": "int",
    "complex": "complex",
    "object": "object",
    "str": "str",
    "unicode": "str",
}
# np.<name> -> np.<name> of the same object (removed in NumPy 2.0 and 2.4).
NUMPY_ALIASES = {
    "float_": "float64",
    "complex_": "complex128",
    "cfloat": "complex128",
    "singlecomplex": "complex64",
    "longfloat": "longdouble",
    "longcomplex": "clongdouble",
    "clongfloat": "clongdouble",
    "string_": "bytes_",
    "unicode_": "str_",
    "bool8": "bool_",
    "int0": "intp",
    "uint0": "uintp",
    "object0": "object_",
    "str0": "str_",
    "bytes0": "bytes_",
    "void0": "void",
    "Inf": "inf",
    "Infinity": "inf",
    "infty": "inf",
    "PINF": "inf",
    "NaN": "nan",
    "NAN": "nan",
    "product": "prod",
    "cumproduct": "cumprod",
    "sometrue": "any",
    "alltrue": "all",
    "round_": "round",
    "mat": "asmatrix",
    "trapz": "trapezoid",
}
# np.<name> -> the value it was ("{np}" is how the module spells numpy).
NUMPY_VALUES = {"NINF": "-{np}.inf", "NZERO": "-0.0", "PZERO": "0.0"}
# Removed functions rewritten where they are called.
NUMPY_CALLS = {
    "cast": "{np}.asarray({x}).astype({T})",
    "asscalar": "{x}.item()",
    "in1d": "{np}.isin{args}.ravel()",
}


@dataclasses.dataclass(frozen=True)
class ApiSpec:
    """The tables by kind (the module docstring describes each)."""

    symbols: dict[str, _rules.Rule]
    tf0_renames: dict[str, Renamed]
    numpy_builtins: dict[str, str]
    numpy_aliases: dict[str, str]
    numpy_values: dict[str, str]
    numpy_calls: dict[str, str]
    positional_to_keyword: dict[str, tuple[str | None, ...]]
    added_keywords: dict[str, tuple[tuple[str, str], ...]]
    dropped_defaults: dict[str, tuple[tuple[str, int, str, str], ...]]
    keyword_renames: dict[str, dict[str, str]]
    successor_keyword_renames: dict[str, dict[str, str]]
    contrib_modules: dict[str, str]
    contrib_missing: dict[str, set[str]]
    scipy_paths: dict[str, tuple[str, frozenset[str]]]
    python2_modules: dict[str, str]
    private_names: dict[str, dict[str, str]]
    private_gone: dict[str, tuple[str, ...]]
    private_unexported: dict[str, tuple[str, str]]
    v1_only: frozenset[str]
    v2_only: frozenset[str]
    v1_signatures: dict[str, tuple[int | None, tuple[str, ...]]]

    def numpy_removed(self, name: str) -> bool:
        """Whether np.<name> is a name NumPy removed (a row of any numpy table)."""
        return (
            name in self.numpy_builtins
            or name in self.numpy_aliases
            or name in self.numpy_values
            or name in self.numpy_calls
        )

    def private(self, path: str) -> bool:
        """Whether `path` (`tf.python.x.name`, spelled from `tf.`) is a row of
        a private-path table (`private_names` or `private_unexported`)."""
        if path in self.private_unexported:
            return True
        module, _, name = path.rpartition(".")
        return name in self.private_names.get(module, ())

    def v1_prefix(self, api: str) -> str | None:
        """The prefix of `api` (`tf.train.AdamOptimizer` of
        `tf.train.AdamOptimizer.minimize`) that only tf.compat.v1 has."""
        return _prefix_in(api, self.v1_only)

    def v2_prefix(self, api: str) -> str | None:
        """The prefix of `api` (`tf.autodiff`) that tf.compat.v1 lacks."""
        return _prefix_in(api, self.v2_only)

    def v1_call(self, api: str | None, call: ast.Call) -> bool:
        """True when `call` (a call of `api`) passes TF 1.x's arguments:
        more positional ones than TF 2's function takes, or a keyword only
        TF 1.x's takes. Unpacked arguments (`*args`, `**kw`) decide nothing."""
        row = self.v1_signatures.get(api or "")
        if row is None:
            return False
        capacity, only = row
        positional = [a for a in call.args if type(a) is not ast.Starred]
        if capacity is not None and len(positional) > capacity:
            return True
        return any(k.arg in only for k in call.keywords)


def _prefix_in(api: str, names: frozenset[str]) -> str | None:
    """The shortest prefix of `api` (at least `tf.x`) in `names`, or None."""
    parts = api.split(".")
    for end in range(2, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if prefix in names:
            return prefix
    return None


SPEC = ApiSpec(
    symbols=_rules.TABLE,
    tf0_renames=TF0_RENAMES,
    numpy_builtins=NUMPY_BUILTINS,
    numpy_aliases=NUMPY_ALIASES,
    numpy_values=NUMPY_VALUES,
    numpy_calls=NUMPY_CALLS,
    positional_to_keyword=POSITIONAL_TO_KEYWORD,
    added_keywords=ADDED_KEYWORDS,
    dropped_defaults=DROPPED_DEFAULTS,
    keyword_renames=KEYWORD_RENAMES,
    successor_keyword_renames=SUCCESSOR_KEYWORD_RENAMES,
    contrib_modules=CONTRIB_MODULES,
    contrib_missing=CONTRIB_MISSING,
    scipy_paths=PATHS,
    python2_modules=PYTHON2_MODULES,
    private_names=_private_names.NAMES,
    private_gone=_private_names.GONE,
    private_unexported=PRIVATE_UNEXPORTED,
    v1_only=_v1_names.V1_ONLY,
    v2_only=_v1_names.V2_ONLY,
    v1_signatures=_v1_signatures.SIGNATURES,
)
