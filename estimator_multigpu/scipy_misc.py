"""SciPy 1.1's `scipy.misc` image functions, as drop-ins.

TF 1.x-era training scripts saved and loaded their images with
`scipy.misc.imsave`, `imread`, `imresize`, `toimage`, `bytescale` and
`fromimage`. SciPy deprecated them in 1.0 and removed them in 1.2 and 1.3
(SciPy's `pilutil`, a thin layer over PIL). These are the same functions with
the same signatures and the same arithmetic: `bytescale`'s scaling to
`[low, high]` from `cmin`/`cmax` (the array's own minimum and maximum by
default), `toimage`'s choice of PIL mode from the array's shape, `imsave`'s
`toimage(arr, channel_axis=2)`, `imresize`'s size as a percent (an int), a
fraction (a float) or a `(height, width)` tuple.

They need Pillow (`pip install pillow`, or `pip install
estimator-multigpu[images]`), imported on first use.

Example::

    import estimator_multigpu as emg

    emg.scipy_misc.imsave("samples.png", images)  # floats, byte-scaled
    small = emg.scipy_misc.imresize(emg.scipy_misc.imread("a.png"), 0.5)
"""

from __future__ import annotations

import numpy as np

__all__ = ["bytescale", "fromimage", "imread", "imresize", "imsave", "toimage"]

_ERRSTR = "Mode is unknown or incompatible with input array shape."
# imresize's interp -> PIL's resample filter (the same numbers in every Pillow).
_RESAMPLE = {"nearest": 0, "lanczos": 1, "bilinear": 2, "bicubic": 3, "cubic": 3}


def _pil_image():
    try:
        from PIL import Image
    except ImportError as err:  # pragma: no cover - Pillow is optional
        raise ImportError(
            "estimator_multigpu.scipy_misc reads and writes images with "
            "Pillow, which is not installed: pip install pillow"
        ) from err
    return Image


def bytescale(data, cmin=None, cmax=None, high=255, low=0):
    """Scales an array to uint8 in `[low, high]` (a uint8 array as it is).

    Args:
      data: the array.
      cmin: the value that becomes `low` (default: `data.min()`).
      cmax: the value that becomes `high` (default: `data.max()`).
      high: the largest byte written (at most 255).
      low: the smallest byte written (at least 0).

    Returns:
      `((data - cmin) * (high - low) / (cmax - cmin) + low)` clipped to
      `[low, high]` and rounded half up, as uint8 (a scale of 1 when
      `cmax == cmin`).
    """
    if data.dtype == np.uint8:
        return data
    if high > 255:
        raise ValueError("`high` should be less than or equal to 255.")
    if low < 0:
        raise ValueError("`low` should be greater than or equal to 0.")
    if high < low:
        raise ValueError("`high` should be greater than or equal to `low`.")
    if cmin is None:
        cmin = data.min()
    if cmax is None:
        cmax = data.max()
    cscale = cmax - cmin
    if cscale < 0:
        raise ValueError("`cmax` should be larger than `cmin`.")
    if cscale == 0:
        cscale = 1
    scale = float(high - low) / cscale
    bytedata = (data - cmin) * scale + low
    return (bytedata.clip(low, high) + 0.5).astype(np.uint8)


def fromimage(im, flatten=False, mode=None):
    """The array of a PIL image.

    Args:
      im: a PIL image.
      flatten: convert to one float32 gray layer (PIL's mode 'F').
      mode: a PIL mode to convert to first (a palette image becomes 'RGB',
        or 'RGBA' when it has transparency, when None).

    Returns:
      The image's pixels as a numpy array (a 1-bit image as uint8 'L').
    """
    image_module = _pil_image()
    if not isinstance(im, image_module.Image):
        raise TypeError("Input is not a PIL image.")
    if mode is not None:
        if mode != im.mode:
            im = im.convert(mode)
    elif im.mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    if flatten:
        im = im.convert("F")
    elif im.mode == "1":
        im = im.convert("L")
    return np.array(im)


def imread(name, flatten=False, mode=None):
    """Reads an image file into an array.

    Args:
      name: a file name or file object.
      flatten: one float32 gray layer.
      mode: a PIL mode to convert to (see `fromimage`).

    Returns:
      The image's array (`fromimage(PIL.Image.open(name), flatten, mode)`).
    """
    return fromimage(_pil_image().open(name), flatten=flatten, mode=mode)


def imsave(name, arr, format=None):
    """Saves an array as an image, byte-scaled unless it is uint8.

    Args:
      name: a file name or file object.
      arr: a 2-D array (gray) or 3-D with 3 or 4 channels last (RGB, RGBA).
      format: the image format (default: from the file name's extension).
    """
    im = toimage(arr, channel_axis=2)
    if format is None:
        im.save(name)
    else:
        im.save(name, format)


def _two_d(data, shape, high, low, cmin, cmax, pal, mode):
    """toimage of a 2-D array."""
    image_module = _pil_image()
    if mode == "F":
        return image_module.frombytes(mode, shape, data.astype(np.float32).tobytes())
    if mode in (None, "L", "P"):
        bytedata = bytescale(data, high=high, low=low, cmin=cmin, cmax=cmax)
        image = image_module.frombytes("L", shape, bytedata.tobytes())
        if pal is not None:
            image.putpalette(np.asarray(pal, dtype=np.uint8).tobytes())
        elif mode == "P":  # a gray palette
            pal = (
                np.arange(0, 256, 1, dtype=np.uint8)[:, np.newaxis]
                * np.ones((3,), dtype=np.uint8)[np.newaxis, :]
            )
            image.putpalette(pal.tobytes())
        return image
    if mode == "1":  # high is the threshold
        return image_module.frombytes("1", shape, (data > high).tobytes())
    if cmin is None:
        cmin = np.amin(np.ravel(data))
    if cmax is None:
        cmax = np.amax(np.ravel(data))
    data = (data * 1.0 - cmin) * (high - low) / (cmax - cmin) + low
    if mode != "I":
        raise ValueError(_ERRSTR)
    return image_module.frombytes(mode, shape, data.astype(np.uint32).tobytes())


def _channel_axis(shape):
    if 3 in shape:
        return int(np.flatnonzero(np.asarray(shape) == 3)[0])
    found = np.flatnonzero(np.asarray(shape) == 4)
    if not len(found):
        raise ValueError("Could not find channel dimension.")
    return int(found[0])


def toimage(
    arr, high=255, low=0, cmin=None, cmax=None, pal=None, mode=None, channel_axis=None
):
    """A PIL image of an array.

    Args:
      arr: a 2-D array, or a 3-D one with a 3- or 4-long channel axis.
      high: the largest byte of a byte-scaled image ('1': the threshold; as
        in SciPy 1.1, PIL reads the bytes of `arr > high` as packed bits).
      low: the smallest byte.
      cmin: the value that becomes `low` (default: the array's minimum).
      cmax: the value that becomes `high` (default: the array's maximum).
      pal: a (256, 3) uint8 palette for a 2-D array (a 'P' image).
      mode: the PIL mode: 2-D 'L' (default), 'P', 'F', '1' or 'I'; 3-D 'RGB'
        (default with 3 channels), 'RGBA' (default with 4), 'YCbCr', 'CMYK'.
      channel_axis: the channel axis of a 3-D array (default: the first
        3-long axis, else the first 4-long one).

    Returns:
      The PIL image (every mode but 'F', 'I' and '1' byte-scaled).
    """
    data = np.asarray(arr)
    if np.iscomplexobj(data):
        raise ValueError("Cannot convert a complex-valued array.")
    shape = list(data.shape)
    valid = len(shape) == 2 or (len(shape) == 3 and (3 in shape or 4 in shape))
    if not valid:
        raise ValueError("'arr' does not have a suitable array shape for any mode.")
    if len(shape) == 2:
        return _two_d(data, (shape[1], shape[0]), high, low, cmin, cmax, pal, mode)
    return _three_d(data, shape, (high, low, cmin, cmax), mode, channel_axis)


def _three_d(data, shape, scaling, mode, channel_axis):
    """toimage of a 3-D array (`scaling`: high, low, cmin, cmax)."""
    high, low, cmin, cmax = scaling
    ca = _channel_axis(shape) if channel_axis is None else channel_axis
    numch = shape[ca]
    if numch not in (3, 4):
        raise ValueError("Channel axis dimension is not valid.")
    bytedata = bytescale(data, high=high, low=low, cmin=cmin, cmax=cmax)
    if ca == 2:
        strdata, size = bytedata.tobytes(), (shape[1], shape[0])
    elif ca == 1:
        strdata = np.transpose(bytedata, (0, 2, 1)).tobytes()
        size = (shape[2], shape[0])
    else:
        strdata = np.transpose(bytedata, (1, 2, 0)).tobytes()
        size = (shape[2], shape[1])
    if mode is None:
        mode = "RGB" if numch == 3 else "RGBA"
    if mode not in ("RGB", "RGBA", "YCbCr", "CMYK"):
        raise ValueError(_ERRSTR)
    if (mode in ("RGB", "YCbCr") and numch != 3) or (
        mode in ("RGBA", "CMYK") and numch != 4
    ):
        raise ValueError("Invalid array shape for mode.")
    return _pil_image().frombytes(mode, size, strdata)


def imresize(arr, size, interp="bilinear", mode=None):
    """Resizes an image array with PIL.

    Args:
      arr: the array (byte-scaled by `toimage` unless uint8).
      size: an int (percent of the size), a float (fraction of the size) or
        a `(height, width)` tuple.
      interp: 'nearest', 'lanczos', 'bilinear', 'bicubic' or 'cubic'.
      mode: the PIL mode of `toimage` (see there).

    Returns:
      The resized image's array (uint8 unless the mode says otherwise).
    """
    im = toimage(arr, mode=mode)
    if np.issubdtype(type(size), np.signedinteger):
        size = tuple((np.array(im.size) * (size / 100.0)).astype(int))
    elif np.issubdtype(type(size), np.floating):
        size = tuple((np.array(im.size) * size).astype(int))
    else:
        size = (size[1], size[0])
    size = tuple(int(s) for s in size)
    return fromimage(im.resize(size, resample=_RESAMPLE[interp]))
