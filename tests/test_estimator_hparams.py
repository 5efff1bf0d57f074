"""emg.estimator.HParams behaves as tf.contrib.training.HParams did (TF 1.x)."""

import json

import numpy as np
import pytest

from estimator_multigpu.estimator import HParams


def _hparams():
    return HParams(lr=0.1, layers=3, name="res", use_bn=True, sizes=[1, 2, 3])


def test_attributes_values_and_str():
    hp = _hparams()
    assert (hp.lr, hp.layers, hp.name, hp.use_bn, hp.sizes) == (
        0.1,
        3,
        "res",
        True,
        [1, 2, 3],
    )
    assert hp.values() == {
        "lr": 0.1,
        "layers": 3,
        "name": "res",
        "use_bn": True,
        "sizes": [1, 2, 3],
    }
    assert str(HParams(b=1, a=2)) == "[('a', 2), ('b', 1)]"
    assert "lr" in hp and "nope" not in hp


def test_parse_converts_each_type():
    hp = _hparams().parse("lr=0.5,layers=8,name=wide,use_bn=false,sizes=[4,5]")
    assert (hp.lr, hp.layers, hp.name, hp.use_bn, hp.sizes) == (
        0.5,
        8,
        "wide",
        False,
        [4, 5],
    )
    assert isinstance(hp.lr, float) and isinstance(hp.layers, int)


def test_parse_bool_takes_ints_and_an_int_becomes_a_float():
    hp = _hparams().parse("use_bn=0,lr=2")
    assert hp.use_bn is False and hp.lr == 2.0 and isinstance(hp.lr, float)


def test_parse_sets_one_element_of_a_list():
    assert _hparams().parse("sizes[1]=9").sizes == [1, 9, 3]


@pytest.mark.parametrize(
    "text, message",
    [
        ("layers=1.5", r"Could not parse hparam 'layers' of type 'int'"),
        ("use_bn=maybe", r"Could not parse hparam 'use_bn' of type 'bool'"),
        ("depth=3", r"Unknown hyperparameter type for depth"),
        ("layers=1,layers=2", r"Multiple assignments to variable 'layers'"),
        ("=3", r"Malformed hyperparameter value"),
        ("layers=[1,2]", r"Must not pass a list for single-valued parameter: layers"),
        ("sizes=4", r"Must pass a list for multi-valued parameter: sizes"),
    ],
)
def test_parse_refuses(text, message):
    with pytest.raises(ValueError, match=message):
        _hparams().parse(text)


@pytest.mark.parametrize(
    "name, value",
    [("layers", 2.5), ("lr", "fast"), ("use_bn", 1), ("layers", True), ("name", 3)],
)
def test_set_hparam_checks_types_as_tf1(name, value):
    with pytest.raises(ValueError, match=rf"Could not cast hparam '{name}'"):
        _hparams().set_hparam(name, value)


def test_set_hparam_unknown_name():
    with pytest.raises(KeyError, match=r"Unknown hyperparameter 'depth'.*add_hparam"):
        _hparams().set_hparam("depth", 1)


def test_add_hparam_refuses_taken_names_and_empty_lists():
    with pytest.raises(ValueError, match=r"Hyperparameter name is reserved: lr"):
        _hparams().add_hparam("lr", 1.0)
    with pytest.raises(ValueError, match=r"reserved: values"):
        HParams(values=1)
    with pytest.raises(ValueError, match=r"cannot be empty: empty"):
        HParams(empty=[])


def test_json_round_trip_and_override_from_dict():
    hp = _hparams()
    other = _hparams().parse_json(
        HParams(**{**hp.values(), "layers": 5}).to_json(sort_keys=True)
    )
    assert other.layers == 5
    assert hp.override_from_dict({"layers": 7, "lr": 1}).values()["layers"] == 7
    assert hp.lr == 1.0 and isinstance(hp.lr, float)


def test_get_and_del_hparam():
    hp = _hparams()
    assert hp.get("layers", 1) == 3 and hp.get("depth", 4) == 4
    with pytest.raises(ValueError, match=r"incompatible with default 'x'"):
        hp.get("layers", "x")
    hp.del_hparam("layers")
    assert "layers" not in hp and not hasattr(hp, "layers")


def test_hparam_def_is_refused_clearly():
    with pytest.raises(ValueError, match=r"`hparam_def`.*keyword arguments"):
        HParams(hparam_def=object())


@pytest.mark.parametrize(
    "text, message",
    [
        ("layers[0]=1", r"Hyperparameter 'layers' is not a list.*'layers=\.\.\.'"),
        (
            "sizes[3]=9",
            r"Index 3 is out of range for hyperparameter 'sizes', a list of 3 "
            r"element\(s\), in 'sizes\[3\]=9'; use an index in 0\.\.2",
        ),
    ],
    ids=["scalar", "out_of_range"],
)
def test_parse_refuses_a_bad_index_naming_the_hyperparameter(text, message):
    hp = _hparams()
    with pytest.raises(ValueError, match=message):
        hp.parse(text)
    assert hp.values() == _hparams().values()  # Nothing was set.


@pytest.mark.parametrize(
    "text, kind", [("[1, 2]", "list"), ('"lr"', "str"), ("3", "int")]
)
def test_parse_json_refuses_what_is_not_an_object(text, kind):
    with pytest.raises(
        ValueError, match=rf"`values_json` must be a JSON object.*received a {kind}"
    ):
        _hparams().parse_json(text)


def test_to_json_writes_numpy_values_as_python_numbers():
    hp = HParams(
        lr=np.float32(0.5), steps=np.int64(7), on=np.bool_(True), sizes=[np.int32(2)]
    )
    assert json.loads(hp.to_json()) == {
        "lr": 0.5,
        "steps": 7,
        "on": True,
        "sizes": [2],
    }


def test_to_json_names_a_value_json_cannot_hold():
    hp = HParams(lr=0.1, shape=object())
    with pytest.raises(ValueError, match=r"Hyperparameter 'shape' = <object .*JSON"):
        hp.to_json()
