# Sourced by the prepared device commands: `say` (timestamped lines) and the Python path. On the
# device (DRY unset) it installs the carried .whl wheels (hydra-core, omegaconf, antlr4: the GPU
# machine lacks them, ../shared/GPU.md); with DRY=1 the local environment is used as it is.
set -u
START=$(date +%s)
say() { echo "[$(basename "$0") +$(( $(date +%s) - START ))s] $*"; }
if [ "${DRY:-0}" != 1 ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
