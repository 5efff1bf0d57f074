"""Real TF 1.x code bases through `emg-migrate --fix`, then their own commands.

`cases/` holds one module per code base (its manifest entry: repository,
commit, commands, data generator, and any hand edit with why); `run.py`
drives them. The public code itself is never committed: `run.py` exports it
from a local git mirror into a scratch folder. See README.md.
"""
