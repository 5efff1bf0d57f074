"""`HParams`: tf.contrib.training.HParams (TF 1.x) for code that still builds one."""

from __future__ import annotations

import json
import numbers
import re

import numpy as np

# name, optional [index], '=', then a scalar or a bracketed list (TF 1.x's syntax).
_PARAM_RE = re.compile(
    r"""
  (?P<name>[a-zA-Z][\w\.]*)
  (\[\s*(?P<index>\d+)\s*\])?
  \s*=\s*
  ((?P<val>[^,\[]*)
   |
   \[(?P<vals>[^\]]*)\])
  ($|,\s*)""",
    re.VERBOSE,
)


def _parse_fail(name, var_type, value, values):
    raise ValueError(
        f"Could not parse hparam '{name}' of type '{var_type.__name__}' with "
        f"value {value!r} in {values!r}"
    )


def _parse_one(var_type, text: str):
    """`text` as `var_type`; bools take true/false/True/False or an int."""
    if var_type is not bool:
        return var_type(text)
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    return bool(int(text))


def _store(results: dict, name: str, index, value, values: str) -> None:
    """Records one assignment, refusing a second one to the same name/index."""
    if index is None:
        if name in results:
            raise ValueError(f"Multiple assignments to variable '{name}' in {values!r}")
        results[name] = value
        return
    slot = results.setdefault(name, {})
    if not isinstance(slot, dict) or index in slot:
        raise ValueError(
            f"Multiple assignments to variable '{name}[{index}]' in {values!r}"
        )
    slot[index] = value


def parse_values(values: str, type_map: dict) -> dict:
    """Parses `'a=1,b=[1,2],c[0]=x'` into `{name: value}` (TF 1.x syntax).

    Args:
      values: comma-separated `name=value` pairs; lists in square brackets;
        `name[i]=value` sets one element.
      type_map: name -> the type of the value (of its elements for lists).

    Returns:
      A dict name -> value (list, or {index: value} for indexed assignments).

    Raises:
      ValueError: for a malformed string, an unknown name, a value that does not
        parse as its type, or two assignments to one name.
    """
    results: dict = {}
    pos = 0
    while pos < len(values):
        m = _PARAM_RE.match(values, pos)
        if not m:
            raise ValueError(f"Malformed hyperparameter value: {values[pos:]!r}")
        pos = m.end()
        name = m.group("name")
        if name not in type_map:
            raise ValueError(f"Unknown hyperparameter type for {name}")
        var_type = type_map[name]
        index = int(m.group("index")) if m.group("index") is not None else None
        try:
            if m.group("val") is not None:
                value = _parse_one(var_type, m.group("val"))
            elif index is not None:
                raise ValueError("a list for one element")
            else:
                items = [e for e in re.split("[ ,]", m.group("vals")) if e]
                value = [_parse_one(var_type, e) for e in items]
        except (ValueError, TypeError):
            _parse_fail(name, var_type, m.group("val") or m.group("vals"), values)
        _store(results, name, index, value, values)
    return results


def _cast(name: str, param_type: type, value):
    """`value` as `param_type` where TF 1.x allowed it (int -> float, not back)."""
    fail = ValueError(
        f"Could not cast hparam '{name}' of type '{param_type.__name__}' from "
        f"value {value!r}"
    )
    if issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, str | bytes) and not isinstance(value, str | bytes):
        raise fail
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise fail
    if issubclass(param_type, numbers.Integral) and not isinstance(
        value, numbers.Integral
    ):
        raise fail
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise fail
    return param_type(value)


def _as_python(value):
    """json.dumps' `default`: a numpy scalar or array as Python values."""
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _check_jsonable(name: str, value) -> None:
    """ValueError naming hyperparameter `name` if JSON cannot hold `value`."""
    try:
        json.dumps(value, default=_as_python)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"Hyperparameter '{name}' = {value!r} cannot be written as JSON "
            f"({error}); give it a str, number or bool (or a list of them)."
        ) from None


class HParams:
    """Hyperparameters as typed name-value pairs (`tf.contrib.training.HParams`).

    Each keyword becomes an attribute; its type is taken from the value (from
    the first element for lists) and later assignments through `parse`,
    `set_hparam`, `override_from_dict` or `parse_json` are checked against it
    as TF 1.x did: an int may become a float, never the reverse; bools, numbers
    and strings do not mix; a list stays a list.
    """

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError(
                "`hparam_def` (an HParamDef protocol buffer) is not supported; "
                f"received {type(hparam_def).__name__}. Pass the values as "
                "keyword arguments: HParams(**values)."
            )
        self._hparam_types = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value) -> None:
        """Adds hyperparameter `name`; ValueError for a taken name or `[]`."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, list | tuple):
            if not value:
                raise ValueError(
                    f"Multi-valued hyperparameters cannot be empty: {name}"
                )
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value) -> None:
        """Sets an existing hyperparameter, checking the value's type."""
        if name not in self._hparam_types:
            raise KeyError(
                f"Unknown hyperparameter {name!r}; known: {sorted(self._hparam_types)}"
                ". Use add_hparam to add one."
            )
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(
                    f"Must not pass a list for single-valued parameter: {name}"
                )
            setattr(self, name, [_cast(name, param_type, v) for v in value])
        else:
            if is_list:
                raise ValueError(
                    f"Must pass a list for multi-valued parameter: {name}."
                )
            setattr(self, name, _cast(name, param_type, value))

    def del_hparam(self, name: str) -> None:
        """Removes hyperparameter `name` if it exists."""
        if hasattr(self, name) and name in self._hparam_types:
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides values from `'name=value,...'` (see `parse_values`)."""
        type_map = {name: t for name, (t, _) in self._hparam_types.items()}
        parsed = parse_values(values, type_map)
        for name, value in parsed.items():
            if isinstance(value, dict):  # indexed assignments into a list
                parsed[name] = self._with_elements(name, value, values)
        return self.override_from_dict(parsed)

    def _with_elements(self, name: str, elements: dict, values: str) -> list:
        """A copy of list hyperparameter `name` with `elements` {index: value} set."""
        if not self._hparam_types[name][1]:
            index = next(iter(elements))
            raise ValueError(
                f"Hyperparameter '{name}' is not a list, so {values!r} cannot set "
                f"'{name}[{index}]'; assign the value whole ('{name}=...')."
            )
        current = list(getattr(self, name))
        for index, item in elements.items():
            if index >= len(current):
                raise ValueError(
                    f"Index {index} is out of range for hyperparameter '{name}', a "
                    f"list of {len(current)} element(s), in {values!r}; use an "
                    f"index in 0..{len(current) - 1}, or assign the whole list "
                    f"('{name}=[...]')."
                )
            current[index] = item
        return current

    def override_from_dict(self, values_dict: dict) -> HParams:
        """Sets every `name: value` of `values_dict`; returns self."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure) -> None:
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False) -> str:
        """The values as a JSON object; numpy scalars and arrays as Python values.

        Raises:
          ValueError: for a value JSON cannot hold, naming its hyperparameter.
        """
        values = self.values()
        for name, value in values.items():
            _check_jsonable(name, value)
        return json.dumps(
            values,
            indent=indent,
            separators=separators,
            sort_keys=sort_keys,
            default=_as_python,
        )

    def parse_json(self, values_json: str) -> HParams:
        """Overrides values from a JSON object string; returns self.

        Raises:
          ValueError: for text that is not JSON or not a JSON object, and for
            values `set_hparam` refuses.
        """
        values = json.loads(values_json)
        if not isinstance(values, dict):
            raise ValueError(
                "`values_json` must be a JSON object of hyperparameter values; "
                f"received a {type(values).__name__}: {values_json!r}. Write e.g. "
                "'{\"learning_rate\": 0.1}'."
            )
        return self.override_from_dict(values)

    def values(self) -> dict:
        """The hyperparameters as a dict name -> value."""
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key: str, default=None):
        """The value of `key`, or `default` (type-checked as TF 1.x did)."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            param_type, is_list = self._hparam_types[key]
            kind = f"list<{param_type}>" if is_list else str(param_type)
            fail = ValueError(
                f"Hparam '{key}' of type '{kind}' is incompatible with default "
                f"{default!r}"
            )
            if is_list != isinstance(default, list | tuple):
                raise fail
            for item in default if is_list else [default]:
                try:
                    _cast(key, param_type, item)
                except ValueError as error:
                    raise fail from error
        return getattr(self, key)

    def __contains__(self, key) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return str(sorted(self.values().items()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"
