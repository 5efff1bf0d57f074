#!/usr/bin/env bash
# Mutation testing of the core modules with mutmut (pinned below), one module
# at a time, each against only the tests that cover it.
#
#   tools/mutation.sh                    every core module
#   tools/mutation.sh towers/_gradients  one module (path under estimator_multigpu/)
#   MUTATION_SAMPLE=4 tools/mutation.sh  every 4th mutant only (a quick estimate)
#   MUTATION_TESTS="tests/a.py tests/b.py" tools/mutation.sh towers/_split
#                                        other tests than the table's below
#   MUTATION_REV=<commit> tools/mutation.sh  that commit's code and tests (a "before")
#
# mutmut 2.x rewrites the file it mutates, so the run happens in a copy of the
# working tree (MUTATION_DIR, a new temporary directory by default): the
# checkout is never changed. For each module it prints killed / total, the
# mutants listed as equivalent in tools/mutation_equivalent.txt, and the diff
# of every other survivor. Exit status 1 when a module scores below
# MUTATION_TARGET percent (default 90) of its non-equivalent mutants.
# Leave the copy's .mutmut-cache alone while a module runs: mutmut's worker
# dies on a locked database, and the run then hangs.
set -euo pipefail

MUTMUT_VERSION=2.5.1
root=$(cd "$(dirname "$0")/.." && pwd)
work=${MUTATION_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/emg-mutation.XXXXXX")}
export MUTATION_SAMPLE=${MUTATION_SAMPLE:-1}
target=${MUTATION_TARGET:-90}

installed=$(python -c "import importlib.metadata as m; print(m.version('mutmut'))" 2>/dev/null || true)
if [[ "$installed" != "$MUTMUT_VERSION" ]]; then
    echo "tools/mutation.sh needs mutmut $MUTMUT_VERSION (found '${installed:-none}'):" \
        "pip install mutmut==$MUTMUT_VERSION" >&2
    exit 2
fi

# module -> the tests that cover it, fastest first (pytest stops at the first failure).
# Each list runs once per mutant, so it stays under half a minute: _sharding
# and the inputs modules leave out tests/test_inputs.py and
# tests/test_input_conformance.py (2 to 4 minutes on 2 busy cores);
# tests/test_sharding.py and tests/test_inputs_*_rules.py hold their rules one
# by one.
declare -A TESTS=(
    [_sharding]="tests/test_sharding.py tests/test_towers_split.py"
    [towers/_split]="tests/test_towers_split.py tests/test_towers_errors.py"
    [towers/_gradients]="tests/test_towers_aggregate.py tests/test_towers_gradients.py"
    [towers/_merge]="tests/test_towers_spec.py tests/test_towers_eval_predict.py"
    [inputs/_sharded]="tests/test_inputs_sharded_rules.py"
    [inputs/_multi_device]="tests/test_inputs_multi_device_rules.py"
)
ORDER=(_sharding towers/_split towers/_gradients towers/_merge inputs/_sharded inputs/_multi_device)
modules=("${@:-${ORDER[@]}}")

sources=(estimator_multigpu tests pyproject.toml setup.py)
mkdir -p "$work/tools"
if [[ -n "${MUTATION_REV:-}" ]]; then
    git -C "$root" archive "$MUTATION_REV" -- "${sources[@]}" | tar -x -C "$work"
else
    (cd "$root" && git ls-files -z --cached --others --exclude-standard -- "${sources[@]}") |
        while IFS= read -r -d '' path; do
            [[ -f "$root/$path" ]] && install -D -m 644 "$root/$path" "$work/$path"
        done
fi
cp "$root"/tools/mutation_report.py "$root"/tools/mutation_equivalent.txt "$work/tools/"
cp "$root/tools/mutmut_config.py" "$work/mutmut_config.py"
echo "mutation run in $work (mutmut $MUTMUT_VERSION, sample 1/$MUTATION_SAMPLE, ${MUTATION_REV:-working tree})"

status=0
for module in "${modules[@]}"; do
    tests=${MUTATION_TESTS:-${TESTS[$module]:?unknown module $module; one of: ${ORDER[*]}}}
    path=estimator_multigpu/$module.py
    rm -f "$work/.mutmut-cache"
    echo "== $path against: $tests"
    # mutmut counts only exit status 1 as failed tests; a mutant that breaks the
    # tests' collection (pytest's 2) or leaves none to run (5) is killed too.
    (cd "$work" && PYTHONPATH="$work" mutmut run --paths-to-mutate "$path" \
        --runner "bash -c 'python -m pytest -x -q -p no:cacheprovider $tests || exit 1'" \
        --tests-dir tests --no-progress --simple-output >"$work/${module//\//_}.log" 2>&1) || true
    (cd "$work" && python tools/mutation_report.py "$path" "$target") || status=1
done
exit $status
