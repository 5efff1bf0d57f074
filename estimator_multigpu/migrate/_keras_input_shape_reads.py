"""Where a module reads what only a built Keras model answers (keras-input-shape's guard).

A first layer's declared `input_shape` builds a `Sequential` at
construction; without it the model is built at its first call. Before that
call, a Keras Model or Layer has no weights (`weights`, `kernel`,
`get_weights()`, `count_params()`), no shapes or graph tensors (`input`,
`output_shape`, ...), and answers `built`, `get_config()`, `to_json()`,
`summary()` and `save()` differently or fails. So `--fix` keeps the argument
wherever a module may read such state, by whatever spelling:

- an attribute of `STATE` on any object (the names are Keras' own), of
  `OWNED_STATE` on a model-derived value, or a call of a `TOOLS` function;
- `getattr`/`hasattr` of such a name, or of a name that is not a constant,
  and `vars(model)` or `model.__dict__`;
- the model passed to a function the module cannot see into (imported, a
  method of another object), except the builtins that only name or print
  it (`SAFE_CALLS`); a function of the module receiving it is followed.

What a custom layer's `build` and `call` read does not count: Keras runs
them only while or after the model is built.

Model-derived values are tracked by name, not scope (conservative): the
`Sequential(...)` calls, what a module function returns from them, names and
attributes assigned from them (`self.net = create_model()`), their layers
(`.layers[i]`, `.get_layer(...)`), loop variables over them, and the
parameters of module functions they are passed to. A file importing the
module starts from the functions and names it offers (`Seeds`). Attribute
chains rooted at an imported module (`tf.trainable_variables`, `tf.losses`)
are that module's names, not model state.
"""

from __future__ import annotations

import ast
import dataclasses

from estimator_multigpu.migrate import _astutil

# Keras Model/Layer attributes that need the model built; names no other
# common object has, so they count on any owner.
STATE = frozenset(
    {
        "weights",
        "trainable_weights",
        "non_trainable_weights",
        "trainable_variables",
        "non_trainable_variables",
        "get_weights",
        "set_weights",
        "count_params",
        "kernel",
        "recurrent_kernel",
        "depthwise_kernel",
        "pointwise_kernel",
        "embeddings",
        "moving_mean",
        "moving_variance",
        "input_shape",
        "output_shape",
        "input_spec",
        "input_names",
        "output_names",
        "get_input_at",
        "get_output_at",
        "get_input_shape_at",
        "get_output_shape_at",
        "get_input_mask_at",
        "get_output_mask_at",
        "inbound_nodes",
        "outbound_nodes",
        "_inbound_nodes",
        "_outbound_nodes",
        "_trainable_weights",
        "_non_trainable_weights",
        "_build_input_shape",
        "state_updates",
        "save_weights",
        "load_weights",
        "save_spec",
        "to_json",
        "to_yaml",
    }
)
# Attributes that need the model built but are common names elsewhere
# (`args.output`, `saver.save`): they count on a model-derived owner.
OWNED_STATE = frozenset(
    {
        "input",
        "output",
        "inputs",
        "outputs",
        "input_mask",
        "output_mask",
        "variables",
        "losses",
        "updates",
        "built",
        "bias",
        "gamma",
        "beta",
        "alpha",
        "get_config",
        "save",
        "export",
        "reset_states",
        "__dict__",
        "__getattribute__",
    }
)
# Called on any owner not an imported module (`tf.summary` is one).
CALLED_STATE = frozenset({"summary"})
# Functions that read a model's built state whatever they are given.
TOOLS = frozenset({"plot_model", "model_to_dot", "print_summary", "save_model"})
# Builtins that only name, compare or print what they are given.
SAFE_CALLS = frozenset(
    {"isinstance", "issubclass", "type", "id", "print", "repr", "str", "hash"}
)
# Calls on a model-derived value that give one of its layers.
_LAYER_CALLS = frozenset({"get_layer"})
# Attributes of a model-derived value that hold its layers.
_LAYER_ATTRS = frozenset(
    {"layers", "_layers", "submodules", "_self_tracked_trackables"}
)
_ATTR_FNS = frozenset({"getattr", "hasattr"})
MODEL_CLASSES = frozenset({"Sequential"})
# A custom layer's methods that Keras runs only while or after it is built.
_BUILT_METHODS = frozenset({"build", "call"})


@dataclasses.dataclass
class Seeds:
    """What another module of the program hands this one.

    Attributes:
      functions: dotted names whose call returns a model (`model_def.create`).
      names: dotted names that hold a model (`model_def.model`).
      modules: local names bound to that module (attribute chains rooted
        there are not skipped as an imported module's names).
    """

    functions: set[str] = dataclasses.field(default_factory=set)
    names: set[str] = dataclasses.field(default_factory=set)
    modules: set[str] = dataclasses.field(default_factory=set)


def _called_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


class _Models:
    """The model-derived names and functions of one module (a fixpoint)."""

    def __init__(self, tree: ast.AST, seeds: Seeds):
        self.names = set(seeds.names)
        self.functions = set(seeds.functions)
        self.tree = tree
        self.defs = _defs(_astutil.nodes(tree, *_DEFS))
        # What each pass of the fixpoint looks at, found once: every binding,
        # the calls of the module's own functions, what each function returns.
        self.bindings = [
            b for node in _astutil.nodes(tree, *_BINDERS) for b in _bindings(node)
        ]
        self.calls = [
            n
            for n in _astutil.nodes(tree, ast.Call)
            if self.defs.get(local_callee(n.func) or "") is not None
        ]
        self.returns = [
            (n.name, _returned(n))
            for n in _astutil.nodes(tree, ast.FunctionDef, ast.AsyncFunctionDef)
        ]
        self.returns += [
            (_dotted(target), [n.value.body])
            for n in _astutil.nodes(tree, ast.Assign)
            if isinstance(n.value, ast.Lambda)
            for target in n.targets
        ]
        while self._grow():
            pass

    def derived(self, node: ast.AST | None) -> bool:
        """True if `node` may evaluate to the model or one of its layers."""
        if isinstance(node, ast.Name | ast.Attribute):
            if _dotted(node) in self.names:
                return True
        if isinstance(node, ast.Attribute) and node.attr not in _LAYER_ATTRS:
            return False
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            return self.derived(node.value)
        if isinstance(node, ast.Call):
            return self._derived_call(node.func)
        if isinstance(node, ast.IfExp):
            return self.derived(node.body) or self.derived(node.orelse)
        if isinstance(node, ast.BoolOp):
            return any(self.derived(v) for v in node.values)
        if isinstance(node, ast.NamedExpr):
            return self.derived(node.value)
        return False

    def holds(self, node: ast.AST) -> bool:
        """True if `node` is model-derived or a literal container holding one."""
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return any(self.holds(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.holds(v) for v in node.values)
        return self.derived(node)

    def _derived_call(self, func: ast.AST) -> bool:
        if _called_name(func) in MODEL_CLASSES or _dotted(func) in self.functions:
            return True
        if isinstance(func, ast.Attribute) and func.attr in _LAYER_CALLS:
            return self.derived(func.value)
        return local_callee(func) in self.functions

    def _grow(self) -> bool:
        """One pass of the fixpoint; True if anything was added."""
        size = len(self.names) + len(self.functions)
        for target, value in self.bindings:
            if self.holds(value):
                self._bind(target)
        for call in self.calls:
            self._into_params(call)
        for name, returned in self.returns:
            self._returns(name, returned)
        return len(self.names) + len(self.functions) > size

    def _bind(self, target: ast.AST) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind(element)
        elif isinstance(target, ast.Starred | ast.Subscript):
            self._bind(target.value)
        elif _dotted(target) is not None:
            self.names.add(_dotted(target))

    def _returns(self, name: str | None, returned: list) -> None:
        if name and any(v is not None and self.holds(v) for v in returned):
            self.functions.add(name)

    def _into_params(self, call: ast.Call) -> None:
        """A module function given the model: its parameters hold it too."""
        found = self.defs.get(local_callee(call.func) or "")
        if found is None:
            return
        fn, skip = found
        args = fn.args
        params = [a.arg for a in [*args.posonlyargs, *args.args]][skip:]
        for i, arg in enumerate(call.args):
            if self.holds(arg):
                rest = args.vararg.arg if args.vararg else None
                self.names.update(
                    filter(None, [params[i] if i < len(params) else rest])
                )
        for keyword in call.keywords:
            if self.holds(keyword.value):
                rest = args.kwarg.arg if args.kwarg else None
                self.names.update(filter(None, [keyword.arg, rest]))


def _returned(fn: ast.AST) -> list:
    return [n.value for n in _astutil.walk(fn) if type(n) in _RETURNS]


_RETURNS = frozenset({ast.Return, ast.Yield, ast.YieldFrom})


def _defs(nodes: list) -> dict:
    """`{name: (def, parameters to skip)}` of the module's functions and classes.

    A method's `self` and a class's `__init__` (called through the class)
    skip their first parameter.
    """
    out = {}
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.args.args[0].arg if node.args.args else None
            out.setdefault(node.name, (node, int(first in ("self", "cls"))))
        elif isinstance(node, ast.ClassDef):
            init = [n for n in node.body if getattr(n, "name", None) == "__init__"]
            out[node.name] = (init[0], 1) if init else None
    return out


def local_callee(func: ast.AST) -> str | None:
    """The module's own name a call resolves to (`f(...)`, `self.f(...)`)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id in ("self", "cls") else None
    return None


# The node classes `_defs`, `_bindings` and `_import_roots` look at.
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BINDERS = (
    ast.Assign,
    ast.AnnAssign,
    ast.NamedExpr,
    ast.For,
    ast.AsyncFor,
    ast.comprehension,
    ast.withitem,
)
_IMPORTS = (ast.Import, ast.ImportFrom)


def _bindings(node: ast.AST) -> list:
    """(target, value) pairs `node` binds: assignments and loop variables."""
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return [(node.target, node.iter)]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(node.optional_vars, node.context_expr)]
    return []


def _import_roots(nodes: list, seeds: Seeds) -> set[str]:
    """Names bound by imports, except those bound to the program's module."""
    roots = set()
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                roots.add((alias.asname or alias.name).split(".")[0])
    kept = seeds.modules | seeds.names | seeds.functions
    return roots - {name.split(".")[0] for name in kept}


def _module_chain(node: ast.AST, roots: set[str]) -> bool:
    """True for `tf.losses` and the like: attributes of an imported module."""
    name = _dotted(node)
    return name is not None and name.split(".")[0] in roots


def _built_methods(nodes: list) -> set[int]:
    """ids of the nodes in a class's `build` and `call`: they run once it is built."""
    out = set()
    for node in nodes:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name in _BUILT_METHODS:
                out.update(id(n) for n in _astutil.walk(item))
    return out


class _Reads:
    """Each place a module reads the built model: (line, what it does)."""

    def __init__(self, tree: ast.AST, seeds: Seeds):
        self.models = _Models(tree, seeds)
        self.roots = _import_roots(_astutil.nodes(tree, *_IMPORTS), seeds)
        self.built = _built_methods(_astutil.nodes(tree, ast.ClassDef))

    def found(self) -> list[tuple[int, str]]:
        out = []
        for node in _astutil.nodes(self.models.tree, ast.Attribute, ast.Call):
            if id(node) in self.built:
                continue
            if isinstance(node, ast.Attribute):
                what = self._attribute(node)
            elif isinstance(node, ast.Call):
                what = self._call(node)
            else:
                continue
            if what:
                out.append((node.lineno, _tail(what, node.lineno)))
        return sorted(out)

    def _attribute(self, node: ast.Attribute) -> str | None:
        if not isinstance(node.ctx, ast.Load) or _module_chain(node.value, self.roots):
            return None
        owned = node.attr in OWNED_STATE and self.models.derived(node.value)
        return f"reads `.{node.attr}`" if node.attr in STATE or owned else None

    def _call(self, call: ast.Call) -> str | None:
        func, name = call.func, _called_name(call.func)
        if isinstance(func, ast.Attribute) and name in CALLED_STATE:
            chain = _module_chain(func.value, self.roots)
            return None if chain else f"reads `.{name}()`"
        if name in TOOLS:
            return f"calls `{ast.unparse(func)}`"
        if isinstance(func, ast.Name) and name in _ATTR_FNS | {"vars"}:
            return self._reflection(call)
        return self._escape(call)

    def _reflection(self, call: ast.Call) -> str | None:
        """`getattr(model, 'weights')`, `hasattr(layer, name)`, `vars(model)`."""
        if not call.args:
            return None
        owner, text = call.args[0], f"reads `{ast.unparse(call)}`"
        if call.func.id == "vars" or len(call.args) < 2:
            return text if self.models.derived(owner) else None
        attr = call.args[1]
        if not isinstance(attr, ast.Constant):
            return text if self.models.derived(owner) else None
        owned = attr.value in OWNED_STATE and self.models.derived(owner)
        return text if attr.value in STATE or owned else None

    def _escape(self, call: ast.Call) -> str | None:
        """The model passed to a function the module cannot see into."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in SAFE_CALLS:
            return None
        if local_callee(func) in self.models.defs or self.models.derived(func):
            return None
        values = [*call.args, *(k.value for k in call.keywords)]
        if not any(self.models.holds(v) for v in values):
            return None
        return f"passes the model to `{ast.unparse(func)}`"


def _tail(what: str, line: int) -> str:
    if what.startswith("passes"):
        return (
            f"{what} at line {line}, a function it cannot see into (it may read "
            "what only a model built from the declared shape answers)"
        )
    return (
        f"{what} at line {line}, which needs the model built from the declared "
        "shape before its first call"
    )


def exported(tree: ast.AST) -> Seeds:
    """The module-level model functions and names `tree` offers an importer."""
    models = _Models(tree, Seeds())
    top = {n for n in models.functions | models.names if "." not in n}
    return Seeds(models.functions & top, models.names & top)


def reads(tree: ast.AST, seeds: Seeds | None = None) -> list[tuple[int, str]]:
    """(line, what) for each place `tree` may read what only a built model answers.

    Args:
      tree: the module.
      seeds: what another module of the program hands it (its model
        functions and names), else None.

    Returns:
      Sorted by line; `what` reads as "reads `.kernel` at line 7, which
      needs the model built ..." or "passes the model to `f` at line 7, a
      function it cannot see into (...)", after "the module".
    """
    return _Reads(tree, seeds or Seeds()).found()
