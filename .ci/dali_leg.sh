#!/usr/bin/env bash
# The DALI tests, on the TF newest leg only: installs NVIDIA DALI and its
# TensorFlow plugin into the given virtual environment, then runs the tests
# marked `dali`.
#
# Usage: .ci/dali_leg.sh VENV_PYTHON
#
# Two steps, in this order: DALI itself (the [dali] extra), then the plugin,
# which picks (or builds) its library for the TensorFlow already installed,
# hence --no-build-isolation. Prebuilt plugin libraries exist only for recent
# TensorFlow releases (2.20, 2.21), so the TF 2.15 leg does not run this.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:?usage: .ci/dali_leg.sh VENV_PYTHON}

"$python" -m pip install -q -e ".[dali]"
dali_version=$("$python" -c \
  "import importlib.metadata as m; print(m.version('nvidia-dali-cuda120'))")
"$python" -m pip install -q --no-build-isolation \
  "nvidia-dali-tf-plugin-cuda120==${dali_version}"
# Fail here, not as skipped tests, if the plugin does not load.
"$python" -c "import nvidia.dali.plugin.tf as p; print('DALI plugin', p.__name__, 'loads')"
"$python" -m pytest -m dali -q -p no:cacheprovider
