"""mutmut hooks for tools/mutation.sh: with MUTATION_SAMPLE=N, test every Nth mutant."""

import itertools
import os

_SAMPLE = max(1, int(os.environ.get("MUTATION_SAMPLE", "1")))
_COUNTER = itertools.count()


def pre_mutation(context):
    """Skips all but every `MUTATION_SAMPLE`-th mutant, in mutmut's order."""
    if next(_COUNTER) % _SAMPLE:
        context.skip = True
