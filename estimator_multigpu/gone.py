"""Stand-ins for TF 1.x names with no TF 2 successor: they fail where used, not on import.

`emg-migrate --fix` writes `emg.migrate_gone("tf.contrib.rnn.NASCell", advice)`
in place of a use of a tf.contrib name that nothing in TF 2 replaces, so
that the module's `from tensorflow.contrib import rnn` can go and the module
imports: the code paths that never reach the name run, and the one that does
stops there with `GoneError`, which names the API and says what to do.
"""

from __future__ import annotations

__all__ = ["Gone", "GoneError", "migrate_gone"]


class GoneError(NotImplementedError):
    """A use of a TF 1.x API that has no TF 2 successor was reached.

    Attributes:
      api: the legacy name, e.g. `'tf.contrib.rnn.NASCell'`.
      advice: what to do instead.
    """

    def __init__(self, api: str, advice: str, how: str):
        self.api = api
        self.advice = advice
        super().__init__(
            f"{api} has no TF 2 successor (tf.contrib is gone since TF 2.0), and "
            f"this code path {how} it. What to do: {advice}"
        )


class Gone:
    """A TF 1.x name with no TF 2 successor: calling it, reading an attribute
    of it, subclassing it or testing an instance against it raises `GoneError`.

    A name with a leading underscore (Python's protocol lookups such as
    `__wrapped__`) raises `AttributeError` as on any object, so `hasattr`,
    `copy`, `pickle` and introspection keep working on a value that holds it.

    Args:
      api: the legacy name, e.g. `'tf.contrib.rnn.NASCell'`.
      advice: what to do instead (the finding's advice).
    """

    __slots__ = ("_api", "_advice")

    def __init__(self, api: str, advice: str):
        if not isinstance(api, str) or not api:
            raise ValueError(f"api must be the legacy name as a string, got {api!r}")
        object.__setattr__(self, "_api", api)
        object.__setattr__(self, "_advice", str(advice))

    def _fail(self, how: str) -> GoneError:
        return GoneError(self._api, self._advice, how)

    def __call__(self, *args, **kwargs):
        raise self._fail("calls")

    def __getattr__(self, name: str):
        if name.startswith("_"):  # Python's protocols, and a slot not set yet
            raise AttributeError(name)
        raise self._fail(f"reads .{name} of")

    def __setattr__(self, name: str, value) -> None:
        raise self._fail(f"sets .{name} of")

    def __mro_entries__(self, bases):
        raise self._fail("subclasses")

    def __instancecheck__(self, instance) -> bool:
        raise self._fail("tests an instance against")

    def __reduce__(self):
        return (migrate_gone, (self._api, self._advice))

    def __repr__(self) -> str:
        return f"emg.migrate_gone({self._api!r}, ...)"


def migrate_gone(api: str, advice: str) -> Gone:
    """The stand-in `emg-migrate --fix` writes for a use of `api`, a TF 1.x
    name with no TF 2 successor; it raises `GoneError` (a
    `NotImplementedError`) naming `api` and `advice` when the program calls
    it, reads an attribute of it or subclasses it.

    Args:
      api: the legacy name, e.g. `'tf.contrib.rnn.NASCell'`.
      advice: what to do instead.

    Returns:
      A `Gone`.
    """
    return Gone(api, advice)
