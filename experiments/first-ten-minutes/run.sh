#!/bin/bash
# A new user's first minutes: fresh clone, fresh venv, the README's train command verbatim on a
# terminal (script(1) gives it a tty), every line stamped with seconds since the command began;
# SIGINT after $1 seconds, as a user pressing Ctrl-C. (A pty from script(1) has 0 columns, where
# tqdm draws no bars: the bars were captured separately with `stty cols 150` first.)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
limit=${1:-660}
rm -rf /tmp/ften /tmp/ften-venv
git clone -q "$repo" /tmp/ften && cd /tmp/ften
python3 -m venv /tmp/ften-venv && source /tmp/ften-venv/bin/activate
cmd=$(awk '/^Train \(/ {f=1} f && /^```bash/ {i=1; next} i && /^```/ {exit} i {print}' README.md)
echo "command: $cmd" > "$here/train.log"
echo "commit: $(git rev-parse --short HEAD)  cpu: $(lscpu | grep 'Model name' | sed 's/.*: *//') x $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)  date: $(date -u +%FT%TZ)" >> "$here/train.log"
start=$(date +%s.%N)
script -qfec "timeout -s INT -k 60 $limit bash -c '$cmd'" /dev/null | python3 "$here/stamp.py" "$start" >> "$here/train.log"
echo "exit: ${PIPESTATUS[0]}  load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/train.log"
