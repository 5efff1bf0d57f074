"""mutmut hooks for tools/mutation.sh: with MUTATION_SAMPLE=N, test every Nth mutant."""

import os

_SAMPLE = max(1, int(os.environ.get("MUTATION_SAMPLE", "1")))


def pre_mutation(context):
    """Skips all but every `MUTATION_SAMPLE`-th mutant, in mutmut's order.

    `context.index` is the mutant's place in the file's list (tools/mutation.sh
    starts each module with an empty cache), so the sample is the same in
    every run; a counter here would restart in each of mutmut's worker
    processes, which it replaces after every 100 mutants.
    """
    if context.index % _SAMPLE:
        context.skip = True
