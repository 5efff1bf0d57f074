"""A bounded wait for the next input element, with a periodic notice while it lasts."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import tensorflow as tf

NOTICE_SECONDS = 30.0


class InputTimeoutError(TimeoutError):
    """The input gave no element within `input_timeout` seconds."""


def _timeout_error(what: str, timeout: float) -> InputTimeoutError:
    return InputTimeoutError(
        f"the input gave no element in {timeout:g} s ({what}): a pipeline that "
        "never yields (a filter that drops everything, a source or py_function "
        "that blocks, a data service with no worker?). Iterate it alone to "
        "check, or pass a larger `input_timeout` (--input-timeout on the "
        "command line)."
    )


def bounded(fn: Callable[[], Any], what: str, timeout: float | None) -> Any:
    """`fn()`, waiting at most `timeout` seconds (None: no bound).

    `fn` runs in a daemon thread; every `NOTICE_SECONDS` of waiting a
    warning names `what` is awaited. On timeout the thread is left blocked
    (TensorFlow cannot cancel an eager `next`).

    Raises:
      InputTimeoutError: no result within `timeout` seconds.
      Whatever `fn` raises.
    """
    result: dict[str, Any] = {}
    done = threading.Event()

    def call() -> None:
        try:
            result["value"] = fn()
        except BaseException as error:  # Re-raised in the caller's thread.
            result["error"] = error
        done.set()

    threading.Thread(target=call, daemon=True, name="input_bound-next").start()
    waited = 0.0
    while not done.is_set():
        left = NOTICE_SECONDS
        if timeout is not None:
            left = min(left, timeout - waited)
        if not done.wait(left):
            waited += left
            if timeout is not None and waited >= timeout:
                raise _timeout_error(what, timeout)
            tf.get_logger().warning(
                "input_bound: still waiting for %s after %g s.", what, waited
            )
    if "error" in result:
        raise result["error"]
    return result["value"]
