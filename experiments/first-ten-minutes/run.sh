#!/bin/bash
# A new user's first minutes: a fresh clone, the README's train command on a terminal (pty_stamp.py
# gives it one of 150 columns, so the bars show), every frame the terminal shows stamped with the
# seconds since the command began and the time; Ctrl-C (SIGINT) after $1 seconds, then the resume
# command the run printed, for $2 seconds.
#
# numba's cache starts empty (NUMBA_CACHE_DIR, a new directory) and so does the cache of precision
# verdicts (ALPHAZERO_PRECISION_CACHE): nothing measured or compiled before is reused.
#
# A fresh virtual environment by default (the README's command verbatim, install included). With
# VENV=DIR an existing one is used instead: the install is left out, and PYTHONPATH points at the
# clone so that its code is what runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
limit=${1:-660}
resume_limit=${2:-100}
rm -rf /tmp/ften /tmp/ften-venv /tmp/ften-numba /tmp/ften-precision.json
git clone -q "$repo" /tmp/ften && cd /tmp/ften
cmd=$(awk '/^Train \(/ {f=1} f && /^```bash/ {i=1; next} i && /^```/ {exit} i {print}' README.md)
if [ -n "${VENV:-}" ]; then
    source "$VENV/bin/activate"
    export PYTHONPATH=/tmp/ften
    cmd=${cmd##*&& }
    venv_note="existing venv $VENV (install left out), PYTHONPATH=/tmp/ften"
else
    python3 -m venv /tmp/ften-venv && source /tmp/ften-venv/bin/activate
    venv_note="fresh venv /tmp/ften-venv"
fi
mkdir /tmp/ften-numba
export NUMBA_CACHE_DIR=/tmp/ften-numba ALPHAZERO_PRECISION_CACHE=/tmp/ften-precision.json
header() {
    echo "commit: $(git rev-parse --short HEAD) (a fresh clone)  $venv_note  numba cache: empty ($NUMBA_CACHE_DIR)"
    echo "cpu: $(lscpu | grep 'Model name' | sed 's/.*: *//') x $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)  date: $(date -u +%FT%TZ)"
}
{ echo "command: $cmd"; header; } > "$here/train.log"
python3 "$here/pty_stamp.py" "$limit" bash -c "$cmd" >> "$here/train.log"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/train.log"
resume=$(grep -o 'resume with run.dir=[^ ]* run.resume=true' "$here/train.log" | tail -1 | sed 's/^resume with //')
resume_cmd="python -m alphazero.train $resume"
{ echo "command: $resume_cmd"; header; } > "$here/resume.log"
python3 "$here/pty_stamp.py" "$resume_limit" bash -c "$resume_cmd" >> "$here/resume.log"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/resume.log"
