"""A code base's manifest entry: where the code is, how it runs, what it needs.

A `Case` is data; `run.py` does the work. Every field is checked when the
case is made, so a misspelt placeholder or a hand edit without a reason fails
at import, not halfway through a run.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import string
from collections.abc import Callable, Sequence

# What a command's words may name; `run.py` fills them in.
PLACEHOLDERS = frozenset({"python", "tree", "data", "model_dir", "num_gpus"})
_HEX40 = re.compile(r"[0-9a-f]{40}")
_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def _placeholders(word: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(word) if name}


@dataclasses.dataclass(frozen=True)
class Command:
    """One command of a code base's own, run from the exported tree.

    Attributes:
      argv: the words; `{python}`, `{tree}`, `{data}`, `{model_dir}` and
        `{num_gpus}` are filled in (a per-device-count model_dir).
      cwd: the folder under the tree to run in ("" for its root).
      expect: a regex the output (stdout and stderr) must match for the run
        to count as done, e.g. a line the program prints after training.
      loss: a regex with one group, the first loss the program prints;
        reported for 1 and 2 devices side by side.
      timeout: seconds.
    """

    argv: Sequence[str]
    expect: str
    cwd: str = ""
    loss: str | None = None
    timeout: int = 900

    @classmethod
    def script(
        cls,
        script: str,
        expect: str,
        loss: str | None = None,
        cwd: str = "",
        timeout: int = 900,
    ) -> Command:
        """`python <script>` in `cwd`, as a code base of example scripts runs
        each of them."""
        return cls(["{python}", script], expect, cwd=cwd, loss=loss, timeout=timeout)

    def __post_init__(self):
        if not self.argv or isinstance(self.argv, str):
            raise ValueError(
                f"Command.argv must be a list of words; got {self.argv!r}."
            )
        unknown = set().union(*map(_placeholders, self.argv)) - PLACEHOLDERS
        if unknown:
            raise ValueError(
                f"Command.argv names {sorted(unknown)}; the placeholders are "
                f"{sorted(PLACEHOLDERS)}."
            )
        re.compile(self.expect)
        if self.loss is not None and re.compile(self.loss).groups != 1:
            raise ValueError(f"Command.loss needs one group; got {self.loss!r}.")


@dataclasses.dataclass(frozen=True)
class HandEdit:
    """An edit made by hand after `--fix`: `old` (once in `path`) becomes `new`.

    `why` says why `--fix` cannot make it; the report prints it at the edit's
    own line with the exact text.
    """

    path: str
    old: str
    new: str
    why: str

    def __post_init__(self):
        if not self.old or self.old == self.new:
            raise ValueError(
                f"HandEdit of {self.path}: `old` must be non-empty and differ from `new`."
            )
        if len(self.why.split()) < 4:
            raise ValueError(
                f"HandEdit of {self.path}: say why it cannot be automated; got {self.why!r}."
            )


@dataclasses.dataclass(frozen=True)
class Case:
    """One real code base.

    Attributes:
      name: a short id (the case module's name).
      repo: "owner/name" on GitHub.
      commit: the 40-hex commit the results are for.
      what: one line on what the code base is and why it was picked.
      paths: the folders (or files) of the repository to export; () for all.
      commands: run in order for each device count.
      make_data: writes the data the commands read, in the code base's own
        on-disk format, into the folder it is given (args: data_dir, tree).
      devices: the device counts to run on, normally (1, 2).
      single_device_why: set when `devices` is (1,): why the program has no
        multi-device form to run.
      env: extra environment for the commands (`{num_gpus}` is filled in).
      hand_edits: edits still needed after `--fix` (the goal: none).
      migrate_paths: what to hand `emg-migrate` ("" = the exported tree).
    """

    name: str
    repo: str
    commit: str
    what: str
    commands: Sequence[Command]
    make_data: Callable[[pathlib.Path, pathlib.Path], None]
    paths: Sequence[str] = ()
    devices: Sequence[int] = (1, 2)
    single_device_why: str = ""
    env: dict = dataclasses.field(default_factory=dict)
    hand_edits: Sequence[HandEdit] = ()
    migrate_paths: Sequence[str] = ("",)

    def __post_init__(self):
        if not _REPO.fullmatch(self.repo):
            raise ValueError(
                f"Case {self.name}: repo must be 'owner/name'; got {self.repo!r}."
            )
        if not _HEX40.fullmatch(self.commit):
            raise ValueError(
                f"Case {self.name}: commit must be 40 hex digits; got {self.commit!r}."
            )
        if not self.commands:
            raise ValueError(f"Case {self.name}: no commands.")
        if tuple(self.devices) not in ((1, 2), (1,)):
            raise ValueError(
                f"Case {self.name}: devices must be (1, 2) or (1,); got {self.devices!r}."
            )
        if tuple(self.devices) == (1,) and not self.single_device_why:
            raise ValueError(f"Case {self.name}: devices=(1,) needs single_device_why.")
