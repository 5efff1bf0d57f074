"""Scores one mutmut run (`.mutmut-cache` in the working directory) for tools/mutation.sh.

Usage: python tools/mutation_report.py <mutated file> <target percent>

A mutant is identified by its file, its source line and its mutated line
(both stripped), so that tools/mutation_equivalent.txt, which lists the
equivalent ones as `file || line || mutated line || why`, survives edits
elsewhere in the file. Exit status 1 when the file's killed share of its
non-equivalent tested mutants is below the target.

mutmut's statuses: `ok_killed` and `ok_suspicious` (the tests failed, but
took over twice the baseline's time, as they do on busy cores) are killed;
`bad_survived` and `bad_timeout` (the tests ran ten times the baseline's
time) are not; `skipped` (left out of the sample) and `untested` (a run cut
short) are not counted.
"""

import pathlib
import sqlite3
import sys

from mutmut import Context, RelativeMutationID, mutate

_EQUIVALENT = pathlib.Path(__file__).with_name("mutation_equivalent.txt")
_KILLED = ("ok_killed", "ok_suspicious")
_SURVIVED = ("bad_survived", "bad_timeout")


def _equivalents(path):
    """The `(line, mutated line)` pairs listed as equivalent for `path`."""
    pairs = set()
    for row in _EQUIVALENT.read_text().splitlines():
        if row.strip() and not row.startswith("#"):
            file, line, mutated, _why = (part.strip() for part in row.split(" || "))
            if file == path:
                pairs.add((line, mutated))
    return pairs


def _mutants(path):
    """`(status, line, mutated line)` for each mutant of `path` in the cache."""
    rows = sqlite3.connect(".mutmut-cache").execute(
        "SELECT m.status, l.line, l.line_number, m.`index` FROM Mutant m "
        "JOIN Line l ON m.line = l.id JOIN SourceFile s ON l.sourcefile = s.id "
        "WHERE s.filename = ?",
        (path,),
    )
    source = pathlib.Path(path).read_text()
    for status, line, number, index in rows:
        mutation = RelativeMutationID(line=line, index=index, line_number=number)
        mutated, _ = mutate(Context(source=source, filename=path, mutation_id=mutation))
        yield status, line.strip(), mutated.splitlines()[number].strip()


def main(path, target):
    """Prints the score of `path` and its survivors; returns the exit status."""
    equivalent = _equivalents(path)
    counts, survivors, listed = {}, [], []
    for status, line, mutated in _mutants(path):
        counts[status] = counts.get(status, 0) + 1
        if status in _SURVIVED:
            is_listed = (line, mutated) in equivalent
            (listed if is_listed else survivors).append((status, line, mutated))
    killed = sum(counts.get(status, 0) for status in _KILLED)
    tested = killed + sum(counts.get(status, 0) for status in _SURVIVED)
    real = tested - len(listed)
    score = 100.0 * killed / real if real else 100.0
    print(
        f"{path}: killed {killed} of {tested} tested ({counts.get('skipped', 0)} "
        f"skipped); {len(listed)} equivalent; {score:.0f}% of the non-equivalent"
    )
    if counts.get("untested"):
        print(f"  {counts['untested']} mutants not yet tested (the run was cut short)")
    for status, line, mutated in survivors:
        print(f"  {status}: {line!r} -> {mutated!r}")
    if not tested:
        print("  no mutant was tested; see the run's log (do the tests pass?)")
        return 1
    return 0 if score >= target else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2])))
