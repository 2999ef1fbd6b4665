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

# The WTHOR games a script trains on: .device/wthor (a copy of ../shared/data/wthor, 8.3 MB), or
# the same folder packed as .device/wthor.txz (4.7 MB: `tar cJf .device/wthor.txz -C
# ../shared/data wthor`), unpacked to /tmp here. The packed copy leaves 3.6 MB more of the 64 MiB
# a device call carries for the repository, which is most of it (56.5 MB on 2026-11-28).
wthor_dir() {
  if [ -d "$PWD/.device/wthor" ]; then
    echo "$PWD/.device/wthor"
  elif [ -f "$PWD/.device/wthor.txz" ]; then
    mkdir -p /tmp/device-wthor && tar xJf "$PWD/.device/wthor.txz" -C /tmp/device-wthor || return 1
    echo /tmp/device-wthor/wthor
  else
    echo "no WTHOR games: carry .device/wthor or .device/wthor.txz (experiments/gpu-next/README.md)" >&2
    return 1
  fi
}
