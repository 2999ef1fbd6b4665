#!/bin/bash
# The new search against the old one head to head: both as GTP engines (same network, 100
# simulations, one torch thread, tree reuse as in play), 100 paired random openings, two games at
# a time. Resumable: the games log keeps every finished game.
# Usage: OLD=/path/to/worktree-at-c70abcc bash experiments/wipeout-fix/head_to_head.sh   (from the repo root)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
new="$(cd "$here/../.." && pwd)"
old="${OLD:?set OLD to a checkout of c70abcc}"
python="$(command -v python)"
engine() {  # engine CODE_DIR NAME
  echo "gtp:\"env PYTHONPATH=$1 $python -m alphazero.gtp --checkpoint $new/checkpoints/selfplay.pt --simulations 100 --threads 1\",processes=2,timeout=600,name=$2"
}
cd /tmp
python -m alphazero.arena "$(engine "$new" selfplay-100-new)" "$(engine "$old" selfplay-100-old)" \
    --pairs 100 --seed 11 --concurrency 2 --games-log "$here/head-to-head-games.jsonl" | tail -1 | tee "$here/head-to-head.json"
