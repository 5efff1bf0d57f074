"""Runs real TF 1.x code bases through `emg-migrate --fix` and their own commands.

For each case of the manifest (`cases/`): export the repository at its commit
from a local git mirror into a scratch folder, scan it (findings), `--fix` it
(fixed), scan again (left), apply the case's hand edits (the goal: none),
write its data, then run its commands on 1 and 2 devices. Each case's result
goes to `<scratch>/<name>/result.json`; the table of all of them is printed
and, with --write, written as a markdown page.

A case's folder belongs to one run at a time: the run holds an exclusive lock
(`fcntl.flock`) on `<scratch>/<name>.lock` from the export to the
result.json, which is replaced in one step (a temporary file, then
`os.replace`). A second run of the same case fails at once naming the lock
file and its holder (pid, host, start time), or with --wait waits for it;
different cases run side by side. A holder that dies, even by SIGKILL, lets
go of the lock with its last file descriptor (the kernel drops it), so there
is no stale lock to clean up; the commands a run starts do not inherit it.

The mirrors are bare clones, one per repository, at
`<mirrors>/<owner>+<name>/repo/.git` (or `<mirrors>/<owner>+<name>` itself);
nothing is downloaded here.

Run: python -m benchmarks.real_code.run --mirrors /path/to/mirrors [--only a,b]
     python -m benchmarks.real_code.run --report --write benchmarks/real_code/RESULTS.md
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import json
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.real_code import cases as cases_lib

ROOT = pathlib.Path(__file__).resolve().parents[2]
MIGRATE = [sys.executable, "-m", "estimator_multigpu.migrate", "--format", "json"]


class CaseLocked(RuntimeError):
    """Another run holds the case's lock (and the run was told not to wait)."""


def lock_path(scratch: pathlib.Path, name: str) -> pathlib.Path:
    """The lock file that guards `<scratch>/<name>`: beside it, not in it."""
    return scratch / f"{name}.lock"


def _holder(path: pathlib.Path) -> str:
    """Who holds the lock at `path`, as its holder wrote it."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return (
            f"pid {info['pid']} on {info['host']}, started {info['started']}: "
            f"{info['command']}"
        )
    except (OSError, ValueError, KeyError, TypeError):
        # Taken a moment ago and not yet written, or written by something else.
        return "a holder that has not said who it is"


@contextlib.contextmanager
def case_lock(scratch: pathlib.Path, name: str, wait: bool = False):
    """Holds the exclusive lock on case `name`'s folder under `scratch`.

    Another run that holds it: CaseLocked naming the lock file and the holder,
    or, with `wait`, a message on stderr and a wait until it is let go. The
    lock file stays (removing it would let two runs lock two different files);
    it says who holds it, or held it last.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    path = lock_path(scratch, name)
    # os.open's descriptor is not inherited by the commands run below, so
    # a training command left running by a killed run holds no lock.
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(path)
            if not wait:
                raise CaseLocked(
                    f"{name}: {scratch / name} is in use by another run "
                    f"({holder}); its lock is {path}. Wait for it (--wait) or "
                    "use another --scratch."
                ) from None
            print(
                f"{name}: waiting for {path}, held by {holder}",
                file=sys.stderr,
                flush=True,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"
            ),
            "command": " ".join(sys.argv),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode() + b"\n", 0)
        yield path
    finally:
        os.close(fd)  # lets go of the lock


def write_json_atomic(path: pathlib.Path, value) -> None:
    """`value` as JSON at `path`, replacing what was there in one step.

    A run that fails or is killed while writing leaves the old file whole
    (and a `.tmp` file at most, never a half-written `path`).
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes it 0600; a result is read by others, as before.
        os.fchmod(fd, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(value, out, indent=2)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def git_dir(mirrors: pathlib.Path, repo: str) -> pathlib.Path:
    """The mirror of `repo` ("owner/name"), or a ValueError saying how to get it."""
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo" / ".git", base / "repo", base / ".git", base):
        if (candidate / "HEAD").is_file():
            return candidate
    raise ValueError(
        f"No git mirror of {repo} under {mirrors} (looked for {base}/repo/.git): "
        "clone or fetch it there first."
    )


def export(case, mirrors: pathlib.Path, tree: pathlib.Path) -> None:
    """The case's paths at its commit, as files under `tree` (made anew)."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.run(
        [
            "git",
            "--git-dir",
            str(git_dir(mirrors, case.repo)),
            "archive",
            case.commit,
            "--",
            *case.paths,
        ],
        capture_output=True,
        check=False,
    )
    if archive.returncode:
        raise ValueError(
            f"{case.name}: git archive failed: {archive.stderr.decode()[-500:]}"
        )
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)


def migrate(tree: pathlib.Path, paths, *flags) -> dict:
    """emg-migrate's JSON document over `paths` (relative to `tree`)."""
    targets = [str(tree / p) if p else str(tree) for p in paths]
    proc = subprocess.run(
        MIGRATE + list(flags) + targets,
        capture_output=True,
        text=True,
        cwd=tree,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        check=False,
    )
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(
            f"emg-migrate failed ({proc.returncode}): {proc.stderr[-2000:]}"
        ) from error


def _left(doc: dict, tree: pathlib.Path) -> list[str]:
    """`path:line: rule - text` of every finding in `doc`."""
    return [
        f"{os.path.relpath(f['path'], tree)}:{f['line']}: {f['rule']} `{f['text']}`"
        for file in doc["files"]
        for f in file["findings"]
    ]


def apply_hand_edits(case, tree: pathlib.Path) -> list[dict]:
    """Makes the case's hand edits; each with the line it is at."""
    done = []
    for edit in case.hand_edits:
        path = tree / edit.path
        text = path.read_text(encoding="utf-8")
        if text.count(edit.old) != 1:
            raise ValueError(
                f"{case.name}: hand edit of {edit.path}: {edit.old!r} occurs "
                f"{text.count(edit.old)} times after --fix (must be once)."
            )
        line = text[: text.index(edit.old)].count("\n") + 1
        path.write_text(text.replace(edit.old, edit.new), encoding="utf-8")
        done.append(
            {
                "path": edit.path,
                "line": line,
                "old": edit.old,
                "new": edit.new,
                "why": edit.why,
            }
        )
    return done


def _fill(word: str, values: dict) -> str:
    return word.format(**values)


def run_command(command, values: dict, env: dict, log: pathlib.Path) -> dict:
    """Runs one command; what it printed goes to `log`."""
    argv = [_fill(w, values) for w in command.argv]
    cwd = pathlib.Path(values["tree"]) / command.cwd
    start = time.monotonic()
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            timeout=command.timeout,
            check=False,
        )
        output, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as error:
        output = (error.stdout or b"").decode() + (error.stderr or b"").decode()
        rc = "timeout"
    seconds = round(time.monotonic() - start, 1)
    log.write_text(f"$ {' '.join(argv)}\n(cwd {cwd})\n{output}", encoding="utf-8")
    loss = re.search(command.loss, output) if command.loss else None
    ok = rc == 0 and re.search(command.expect, output) is not None
    errors = [
        line for line in output.splitlines() if re.search(r"Error\b|error:", line)
    ]
    return {
        "argv": argv,
        "rc": rc,
        "ok": ok,
        "seconds": seconds,
        "loss": loss.group(1) if loss else None,
        "error": None if ok else (errors[-1] if errors else output.strip()[-300:]),
        "log": str(log),
    }


def run_devices(
    case, tree: pathlib.Path, data: pathlib.Path, work: pathlib.Path
) -> dict:
    """Each device count's command results."""
    out = {}
    for n in case.devices:
        model_dir = work / f"model_{n}"
        shutil.rmtree(model_dir, ignore_errors=True)
        values = {
            "python": sys.executable,
            "tree": str(tree),
            "data": str(data),
            "model_dir": str(model_dir),
            "num_gpus": str(n),
        }
        env = {
            **os.environ,
            "TF_CPP_MIN_LOG_LEVEL": "2",
            "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT)]),
            **{k: _fill(v, values) for k, v in case.env.items()},
        }
        runs = []
        for i, command in enumerate(case.commands):
            runs.append(run_command(command, values, env, work / f"log_{n}dev_{i}.txt"))
            if not runs[-1]["ok"]:
                break
        out[str(n)] = runs
    return out


def run_case(
    case, mirrors: pathlib.Path, scratch: pathlib.Path, wait: bool = False
) -> dict:
    """The whole of one case, under its lock; its result (also in result.json).

    Another run of the same case under `scratch`: CaseLocked, or with `wait`
    a wait for it to finish (see case_lock).
    """
    with case_lock(scratch, case.name, wait=wait):
        return _run_case(case, mirrors, scratch / case.name)


def _run_case(case, mirrors: pathlib.Path, work: pathlib.Path) -> dict:
    tree, data = work / "tree", work / "data"
    export(case, mirrors, tree)
    before = migrate(tree, case.migrate_paths)
    fixed = migrate(tree, case.migrate_paths, "--fix", "--no-backup")
    after = migrate(tree, case.migrate_paths)
    edits = apply_hand_edits(case, tree)
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    case.make_data(data, tree)
    result = {
        "name": case.name,
        "repo": case.repo,
        "commit": case.commit,
        "what": case.what,
        "findings": before["summary"]["findings"],
        "fixed": fixed["summary"]["fixed"],
        "left": _left(after, tree),
        "errors": after["summary"]["errors"],
        "hand_edits": edits,
        "single_device_why": case.single_device_why,
        "runs": run_devices(case, tree, data, work),
    }
    write_json_atomic(work / "result.json", result)
    return result


def _device_cell(result: dict, n: int) -> str:
    runs = result["runs"].get(str(n))
    if runs is None:
        return f"n/a: {result['single_device_why']}"
    if all(r["ok"] for r in runs) and len(runs) == len(runs):
        losses = [r["loss"] for r in runs if r["loss"]]
        return "runs" + (f" (first loss {losses[0]})" if losses else "")
    bad = next(r for r in runs if not r["ok"])
    return f"fails ({bad['rc']}): {bad['error']}"


def table(results: list[dict]) -> str:
    """The markdown table of `results`, with the hand edits' median and max."""
    lines = [
        "| code base | commit | findings | fixed | left | hand edits | 1 device | 2 devices |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['name']} ({r['repo']}) | {r['commit'][:8]} | {r['findings']} | "
            f"{r['fixed']} | {len(r['left'])} | {len(r['hand_edits'])} | "
            f"{_device_cell(r, 1)} | {_device_cell(r, 2)} |"
        )
    edits = [len(r["hand_edits"]) for r in results] or [0]
    lines.append("")
    lines.append(
        f"{len(results)} code bases; hand edits: median {statistics.median(edits):g}, "
        f"max {max(edits)}, total {sum(edits)}."
    )
    return "\n".join(lines) + "\n"


def details(results: list[dict]) -> str:
    """Each code base's hand edits (line, exact text, why) and findings left."""
    out = []
    for r in results:
        out.append(f"\n### {r['name']}\n\n{r['what']}\n")
        for e in r["hand_edits"]:
            out.append(
                f"- hand edit `{e['path']}:{e['line']}`: `{e['old']}` -> "
                f"`{e['new']}`. Why: {e['why']}"
            )
        out.extend(f"- left: {line}" for line in r["left"])
        for n, runs in r["runs"].items():
            out.extend(
                f"- {n} device(s): `{' '.join(x['argv'][1:])[:200]}`: "
                f"{'ok' if x['ok'] else 'FAILED'} in {x['seconds']} s"
                for x in runs
            )
    return "\n".join(out) + "\n"


def load_results(scratch: pathlib.Path, names) -> list[dict]:
    results = []
    for name in names:
        path = scratch / name / "result.json"
        if path.is_file():
            results.append(json.loads(path.read_text(encoding="utf-8")))
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=(
            "Each case's folder <scratch>/<case> is locked (flock on "
            "<scratch>/<case>.lock) for the whole of its run, so two runs that "
            "share --scratch never work in the same folder: a case another run "
            "holds is refused at once, naming the lock file and the holder's "
            "pid, host and start time (--wait waits for it instead). The other "
            "cases still run; the exit status is then 3 and --write writes "
            "nothing. result.json is replaced in one step, never half-written."
        ),
    )
    parser.add_argument(
        "--mirrors",
        type=pathlib.Path,
        default=pathlib.Path("/work/.mirror"),
        help="folder of git mirrors, one per repository",
    )
    parser.add_argument(
        "--scratch",
        type=pathlib.Path,
        default=pathlib.Path(tempfile.gettempdir()) / "emg-real-code",
        help="where the code is exported and run",
    )
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument(
        "--report",
        action="store_true",
        help="run nothing; tabulate the results already in --scratch",
    )
    parser.add_argument(
        "--write", type=pathlib.Path, help="write the table (markdown) here"
    )
    parser.add_argument(
        "--list", action="store_true", help="print the manifest and exit"
    )
    parser.add_argument(
        "--wait",
        action=argparse.BooleanOptionalAction,
        default=False,
        help=(
            "when another run holds a case's lock, wait for it (--wait) or "
            "refuse that case at once naming the holder (--no-wait, the default)"
        ),
    )
    args = parser.parse_args(argv)
    cases = cases_lib.all_cases()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {c.name for c in cases}
        if unknown:
            parser.error(f"--only names unknown cases {sorted(unknown)}; see --list.")
        cases = [c for c in cases if c.name in wanted]
    if args.list:
        for c in cases:
            print(
                f"{c.name}: {c.repo}@{c.commit} {list(c.paths) or '(all)'} - {c.what}"
            )
        return 0
    locked, failed = [], []
    if not args.report:
        for case in cases:
            print(f"== {case.name}", flush=True)
            try:
                run_case(case, args.mirrors, args.scratch, wait=args.wait)
            except CaseLocked as error:
                print(f"error: {error}", file=sys.stderr, flush=True)
                locked.append(case.name)
            except Exception as error:  # noqa: BLE001 - one case's setup
                # (its export, its data generator's imports) must not stop
                # the cases after it; its old result.json, if any, is stale.
                print(
                    f"error: {case.name}: {type(error).__name__}: {error} "
                    "(the other cases still run)",
                    file=sys.stderr,
                    flush=True,
                )
                failed.append(case.name)
    results = load_results(args.scratch, [c.name for c in cases])
    page = table([r for r in results if r["name"] not in failed])
    print(page)
    not_written = f"; {args.write} not written" if args.write else ""
    if failed:
        print(
            f"error: did not finish (see above): {', '.join(failed)}{not_written}",
            file=sys.stderr,
        )
        return 4
    if locked:
        print(
            f"error: not run, another run holds them: {', '.join(locked)}"
            + not_written,
            file=sys.stderr,
        )
        return 3
    if args.write:
        args.write.write_text(
            "# Real code bases through `emg-migrate --fix`\n\n"
            "Made by `python -m benchmarks.real_code.run --report --write "
            f"{args.write}` after a run; see README.md.\n\n"
            + page
            + "\n## Per code base\n"
            + details(results),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
