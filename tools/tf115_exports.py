"""Reads what TF 1.15's Python sources export, statically (for tools/contrib_surface.py).

Two readers over an unpacked TF 1.15 wheel (`tensorflow_core/`, imported as
`tensorflow`): `Exports` follows a module's imports, `from X import *`,
`__all__`, `del` and `remove_undocumented` (its `@@name` docstring lines and
allowed lists) to the names the module keeps and the module each name is
defined in; `tf_exports` reads the `tf_export` / `keras_export` /
`estimator_export` decorators and calls of `tensorflow.python` to the public
names each private symbol had.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib
import re

_DOC_REFS = re.compile(r"^@@(\w+)\s*$", re.MULTILINE)
_FUTURE = {"absolute_import", "division", "print_function"}
_EXPORTERS = {"tf_export", "keras_export", "estimator_export"}


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where an exported name comes from.

    Attributes:
      module: the dotted module that defines it (`tensorflow.contrib.x.python.y`).
      name: its name there.
      is_module: True when the name is a module itself.
    """

    module: str
    name: str
    is_module: bool = False


class Exports:
    """The names TF 1.15 modules keep after their imports and clean-ups.

    Args:
      root: the unpacked `tensorflow_core` directory.
    """

    def __init__(self, root: pathlib.Path):
        self._root = root
        self._done: dict[str, dict[str, Origin]] = {}
        self._busy: set[str] = set()
        # module -> the names it binds itself (not through `import *`), and
        # whether it names its public ones (`__all__`, `remove_undocumented`).
        self.explicit: dict[str, set[str]] = {}
        self.listed: set[str] = set()

    def file(self, module: str) -> pathlib.Path | None:
        """The source file of dotted `module` (`tensorflow.a.b`), if any."""
        parts = module.split(".")
        if parts[0] != "tensorflow":
            return None
        base = self._root.joinpath(*parts[1:])
        for path in (base / "__init__.py", base.with_suffix(".py")):
            if path.is_file():
                return path
        return None

    def of(self, module: str) -> dict[str, Origin]:
        """name -> Origin for every public name `module` keeps."""
        if module in self._done:
            return self._done[module]
        if module in self._busy:
            return {}
        self._busy.add(module)
        path = self.file(module)
        reader = _Reader(self, module)
        names = reader.read(path) if path else {}
        self.explicit[module] = reader.explicit
        if reader.listed:
            self.listed.add(module)
        self._busy.discard(module)
        self._done[module] = names
        return names

    def origin(self, module: str, name: str) -> Origin:
        """Where `name`, imported from `module`, is defined."""
        if self.file(f"{module}.{name}") is not None:
            return Origin(f"{module}.{name}", name, True)
        found = self.of(module).get(name)
        return found if found is not None else Origin(module, name)


class _Reader:
    """Reads one module's top-level statements into its exported names."""

    def __init__(self, exports: Exports, module: str):
        self._exports = exports
        self._module = module
        self.names: dict[str, Origin] = {}
        self._lists: dict[str, list[str]] = {}
        self._keep: set[str] | None = None
        self._all: list[str] | None = None
        self._unread_star = False
        self.explicit: set[str] = set()

    @property
    def listed(self) -> bool:
        """True when the module names its public names itself."""
        return self._keep is not None or self._all is not None

    def read(self, path: pathlib.Path) -> dict[str, Origin]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        self._doc = set(_DOC_REFS.findall(doc))
        for stmt in _top_level(tree.body):
            self._statement(stmt)
        names = {n: o for n, o in self.names.items() if not n.startswith("_")}
        names = {n: o for n, o in names.items() if n not in _FUTURE}
        if self._keep is not None:
            if self._unread_star:  # from a package outside the wheel
                for name in self._keep - set(names):
                    names[name] = Origin(self._module, name)
            return {n: o for n, o in names.items() if n in self._keep}
        if self._all is not None:
            return {n: o for n, o in names.items() if n in self._all}
        return names

    def _statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.ImportFrom):
            self._import_from(stmt)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self.names[alias.asname] = Origin(alias.name, alias.asname, True)
                    self.explicit.add(alias.asname)
        elif isinstance(stmt, ast.FunctionDef | ast.ClassDef):
            self.names[stmt.name] = Origin(self._module, stmt.name)
            self.explicit.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
            self._assign(stmt)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self.names.pop(target.id, None)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self._call(stmt.value)

    def _import_from(self, stmt: ast.ImportFrom) -> None:
        if stmt.level or not stmt.module:
            return
        for alias in stmt.names:
            if alias.name == "*":
                self._unread_star |= self._exports.file(stmt.module) is None
                star = self._exports.of(stmt.module)
                self.names.update(star)
                if stmt.module in self._exports.listed:
                    self.explicit |= set(star)  # a module's own public names
            else:
                origin = self._exports.origin(stmt.module, alias.name)
                self.names[alias.asname or alias.name] = origin
                self.explicit.add(alias.asname or alias.name)

    def _assign(self, stmt: ast.stmt) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        strings = _strings(stmt.value)
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if isinstance(stmt, ast.AugAssign):
                self._lists.setdefault(target.id, []).extend(strings)
                continue
            self._lists[target.id] = strings
            self.explicit.add(target.id)
            if target.id == "__all__" and _is_literal(stmt.value):
                self._all = strings
            self.names[target.id] = self._value_origin(stmt.value, target.id)

    def _value_origin(self, value: ast.expr | None, name: str) -> Origin:
        """`x = y` and `x = module.y` name what they alias; else `x` itself."""
        if isinstance(value, ast.Name) and value.id in self.names:
            return self.names[value.id]
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            owner = self.names.get(value.value.id)
            if owner is not None and owner.is_module:
                return self._exports.origin(owner.module, value.attr)
        return Origin(self._module, name)

    def _call(self, call: ast.Call) -> None:
        func = call.func
        name = getattr(func, "attr", None) or getattr(func, "id", None)
        if name == "extend" and isinstance(func, ast.Attribute):
            owner = getattr(func.value, "id", None)
            if owner is not None and call.args:
                self._lists.setdefault(owner, []).extend(_strings(call.args[0]))
        elif name == "remove_undocumented":
            self._remove_undocumented(call)

    def _remove_undocumented(self, call: ast.Call) -> None:
        args = dict(zip(("module_name", "allowed_exception_list"), call.args))
        args.update({k.arg: k.value for k in call.keywords})
        module = args.get("module_name")
        if not (isinstance(module, ast.Name) and module.id == "__name__"):
            return  # a submodule's clean-up (`nest.__name__`): not this module
        keep = set(self._doc)
        allowed = args.get("allowed_exception_list")
        if allowed is not None:
            keep |= set(self._list_value(allowed))
        for doc_module in getattr(args.get("doc_string_modules"), "elts", []):
            origin = self.names.get(getattr(doc_module, "id", ""))
            if origin is not None:
                keep |= self._docstring_refs(origin.module)
        self._keep = keep

    def _docstring_refs(self, module: str) -> set[str]:
        path = self._exports.file(module)
        if path is None:
            return set()
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        return set(_DOC_REFS.findall(doc))

    def _list_value(self, node: ast.expr) -> list[str]:
        if isinstance(node, ast.Name):
            return self._lists.get(node.id, [])
        if isinstance(node, ast.BinOp):
            return self._list_value(node.left) + self._list_value(node.right)
        return _strings(node)


def _top_level(body: list[ast.stmt]):
    """The module's statements, with those of top-level if/try blocks."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.With):
            yield from _top_level(stmt.body)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
        else:
            yield stmt


def _is_literal(node: ast.expr | None) -> bool:
    """True for a list/tuple/set literal or a sum of them (not `make_all(...)`)."""
    if isinstance(node, ast.BinOp):
        return _is_literal(node.left) and _is_literal(node.right)
    return isinstance(node, ast.List | ast.Tuple | ast.Set)


def _strings(node: ast.expr | None) -> list[str]:
    """The string constants of a list/tuple/set literal (or a sum of them)."""
    if isinstance(node, ast.BinOp):
        return _strings(node.left) + _strings(node.right)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


@dataclasses.dataclass(frozen=True)
class Public:
    """The public names one private symbol was exported under in TF 1.15.

    Attributes:
      v1: names under `tf.` in TF 1.x (`tf.compat.v1.` in TF 2.x).
      v2: names under `tf.` in TF 2.x.
    """

    v1: tuple[str, ...]
    v2: tuple[str, ...]


def _export_names(call: ast.Call, decorator: str) -> Public:
    prefix = "keras." if decorator == "keras_export" else ""
    prefix = "estimator." if decorator == "estimator_export" else prefix
    names = [a.value for a in call.args if isinstance(a, ast.Constant)]
    v1 = names
    for k in call.keywords:
        if k.arg == "v1":
            v1 = _strings(k.value)
    if prefix:
        names = [n if n.startswith(prefix) else prefix + n for n in names]
        v1 = [n if n.startswith(prefix) else prefix + n for n in v1]
    return Public(tuple(v1), tuple(names))


def _exporter(node: ast.expr) -> ast.Call | None:
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in _EXPORTERS:
        return node
    return None


def _module_exports(tree: ast.Module) -> dict[str, Public]:
    """name -> Public for each decorated or exported symbol of one module."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.col_offset == 0:
            for deco in node.decorator_list:
                call = _exporter(deco)
                if call is not None:
                    out[node.name] = _export_names(call, call.func.id)
        elif isinstance(node, ast.Call) and _exporter(node.func) is not None:
            call = node.func
            if len(node.args) == 1 and isinstance(node.args[0], ast.Name):
                out[node.args[0].id] = _export_names(call, call.func.id)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") in (
            "export_constant",
        ):
            owner = _exporter(node.func.value)
            if owner is not None and len(node.args) == 2:
                name = node.args[1]
                if isinstance(name, ast.Constant):
                    out[name.value] = _export_names(owner, owner.func.id)
    return out


def tf_exports(root: pathlib.Path) -> dict[str, dict[str, Public]]:
    """`tensorflow.python.x.y` -> {name: Public} over TF 1.15's python/ tree."""
    out = {}
    for path in sorted((root / "python").rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "_export" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        names = _module_exports(tree)
        if names:
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(("tensorflow",) + parts)] = names
    return out
