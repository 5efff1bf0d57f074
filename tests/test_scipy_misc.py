"""emg.scipy_misc: SciPy 1.1's scipy.misc image functions (removed in SciPy
1.2/1.3), checked against SciPy 1.1's formulas written out in numpy and
against PIL itself."""

import numpy as np
import pytest

from estimator_multigpu import scipy_misc

# Pillow is a test extra; the TF 2.15 leg (tf_compat tests only) leaves it out.
Image = pytest.importorskip("PIL.Image")


def reference_bytescale(data, cmin=None, cmax=None, high=255, low=0):
    """SciPy 1.1's bytescale, in numpy."""
    if data.dtype == np.uint8:
        return data
    cmin = data.min() if cmin is None else cmin
    cmax = data.max() if cmax is None else cmax
    cscale = (cmax - cmin) or 1
    scaled = (data - cmin) * (float(high - low) / cscale) + low
    return np.floor(np.clip(scaled, low, high) + 0.5).astype(np.uint8)


RNG = np.random.default_rng(0)
FLOATS = RNG.normal(size=(6, 5)) * 3.0


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"cmin": -1.0, "cmax": 1.0}, {"high": 200, "low": 10}, {"cmin": 0.0}],
    ids=["own-range", "cmin-cmax-clipped", "high-low", "cmin-only"],
)
def test_bytescale_is_scipy_1_1s_formula(kwargs):
    got = scipy_misc.bytescale(FLOATS, **kwargs)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, reference_bytescale(FLOATS, **kwargs))


def test_bytescale_values_by_hand():
    np.testing.assert_array_equal(
        scipy_misc.bytescale(np.array([0.0, 0.5, 1.0])), [0, 128, 255]
    )
    np.testing.assert_array_equal(
        scipy_misc.bytescale(np.array([-1.0, 0.0, 2.0]), cmin=0.0, cmax=1.0),
        [0, 0, 255],
    )
    np.testing.assert_array_equal(
        scipy_misc.bytescale(np.array([3.0, 3.0])), [0, 0]
    )  # a constant array: scale 1
    np.testing.assert_array_equal(
        scipy_misc.bytescale(np.array([0, 50, 100]), high=200, low=100),
        [100, 150, 200],
    )


def test_bytescale_keeps_uint8_and_checks_its_bounds():
    data = np.arange(6, dtype=np.uint8)
    assert scipy_misc.bytescale(data) is data
    for kwargs in ({"high": 256}, {"low": -1}, {"high": 10, "low": 20}):
        with pytest.raises(ValueError):
            scipy_misc.bytescale(FLOATS, **kwargs)
    with pytest.raises(ValueError, match="cmax"):
        scipy_misc.bytescale(FLOATS, cmin=1.0, cmax=0.0)


def test_imsave_round_trips_uint8_rgb_and_gray(tmp_path):
    rgb = RNG.integers(0, 256, (7, 9, 3), dtype=np.uint8)
    gray = RNG.integers(0, 256, (7, 9), dtype=np.uint8)
    for name, image in (("rgb.png", rgb), ("gray.png", gray)):
        scipy_misc.imsave(tmp_path / name, image)
        back = scipy_misc.imread(tmp_path / name)
        assert back.dtype == np.uint8
        np.testing.assert_array_equal(back, image)


@pytest.mark.parametrize("shape", [(6, 5), (6, 5, 3), (6, 5, 4)])
def test_imsave_byte_scales_floats_from_their_own_range(tmp_path, shape):
    image = RNG.normal(size=shape)
    scipy_misc.imsave(tmp_path / "f.png", image)
    back = scipy_misc.imread(tmp_path / "f.png")
    np.testing.assert_array_equal(back, reference_bytescale(image))


def test_imsave_takes_a_format_and_a_file_object(tmp_path):
    image = RNG.integers(0, 256, (4, 4, 3), dtype=np.uint8)
    with open(tmp_path / "noext", "wb") as f:
        scipy_misc.imsave(f, image, format="png")
    np.testing.assert_array_equal(scipy_misc.imread(tmp_path / "noext"), image)


def test_toimage_modes_and_channel_axis():
    image = RNG.normal(size=(3, 6, 5))  # channels first
    rgb = scipy_misc.toimage(image)  # the first 3-long axis
    assert rgb.mode == "RGB" and rgb.size == (5, 6)
    np.testing.assert_array_equal(
        np.array(rgb), np.transpose(reference_bytescale(image), (1, 2, 0))
    )
    middle = scipy_misc.toimage(np.transpose(image, (1, 0, 2)), channel_axis=1)
    np.testing.assert_array_equal(np.array(middle), np.array(rgb))
    assert scipy_misc.toimage(FLOATS).mode == "L"
    assert scipy_misc.toimage(FLOATS, mode="P").mode == "P"
    floats = scipy_misc.toimage(FLOATS, mode="F")
    np.testing.assert_array_equal(np.array(floats), FLOATS.astype(np.float32))
    # '1': SciPy 1.1 handed PIL one byte per pixel (data > high) as is.
    ones = Image.frombytes("1", (5, 6), (FLOATS > 0).tobytes())
    assert scipy_misc.toimage(FLOATS, mode="1", high=0).tobytes() == ones.tobytes()
    assert scipy_misc.toimage(RNG.normal(size=(4, 4, 4)), mode="CMYK").mode == "CMYK"
    for bad, kwargs in (
        (FLOATS + 1j, {}),
        (np.zeros((5, 5, 2)), {}),
        (np.zeros((4, 4, 3)), {"mode": "RGBA"}),
        (FLOATS, {"mode": "RGB"}),
    ):
        with pytest.raises(ValueError):
            scipy_misc.toimage(bad, **kwargs)


def test_fromimage_and_imread_modes(tmp_path):
    image = RNG.integers(0, 256, (6, 5, 3), dtype=np.uint8)
    Image.fromarray(image).convert("P").save(tmp_path / "p.png")
    assert scipy_misc.imread(tmp_path / "p.png").shape == (6, 5, 3)  # P -> RGB
    flat = scipy_misc.imread(tmp_path / "p.png", flatten=True)
    assert flat.dtype == np.float32 and flat.shape == (6, 5)
    assert scipy_misc.imread(tmp_path / "p.png", mode="L").shape == (6, 5)
    with pytest.raises(TypeError):
        scipy_misc.fromimage(image)


@pytest.mark.parametrize(
    "size, shape",
    [(50, (4, 3)), (200, (16, 12)), (0.5, (4, 3)), (1.5, (12, 9)), ((5, 7), (5, 7))],
    ids=["percent", "percent-up", "fraction", "fraction-up", "tuple"],
)
def test_imresize_sizes(size, shape):
    image = RNG.integers(0, 256, (8, 6), dtype=np.uint8)
    assert scipy_misc.imresize(image, size).shape == shape
    assert scipy_misc.imresize(np.dstack([image] * 3), size).shape == (*shape, 3)


@pytest.mark.parametrize(
    "interp", ["nearest", "lanczos", "bilinear", "bicubic", "cubic"]
)
def test_imresize_is_pil_resize_of_the_byte_scaled_image(interp):
    image = RNG.normal(size=(8, 6, 3))
    got = scipy_misc.imresize(image, (5, 4), interp=interp)
    filters = {"nearest": 0, "lanczos": 1, "bilinear": 2, "bicubic": 3, "cubic": 3}
    want = Image.fromarray(reference_bytescale(image)).resize(
        (4, 5), resample=filters[interp]
    )
    np.testing.assert_array_equal(got, np.array(want))


def test_imresize_nearest_doubles_pixels_and_keeps_a_float_mode():
    image = RNG.integers(0, 256, (3, 4), dtype=np.uint8)
    np.testing.assert_array_equal(
        scipy_misc.imresize(image, 200, interp="nearest"),
        np.repeat(np.repeat(image, 2, 0), 2, 1),
    )
    floats = scipy_misc.imresize(FLOATS, (12, 10), interp="nearest", mode="F")
    assert floats.dtype == np.float32
    np.testing.assert_array_equal(
        floats, np.repeat(np.repeat(FLOATS, 2, 0), 2, 1).astype(np.float32)
    )
