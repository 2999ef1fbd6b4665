#!/bin/bash
# The gpu preset's endgame thresholds on a GPU machine (issue 36): one process, the preset's search
# shape (256 games x 200 simulations x 4 leaves, whole games), the medium network on the GPU, each
# threshold setting in its own process, the settings taking turns (A B C A B C ...). Each line has
# the game batch's wall seconds, the tree + solver CPU share and the network's evaluations (calls x
# leaves per call): the 12-worker pipeline is GPU-bound (experiments/gpu-2026-11-26-h100/README.md),
# so a setting that cuts the network's evaluations pays there as long as its tree CPU per game stays
# within what the workers' cores give.
#
# The call (after a self-play call on the same warm machine, or alone):
#   run(command="bash experiments/endgame-solver-36/gpu_cost.sh", carry=[".whl"], timeout_s=...)
# Each result is appended to $OUT/gpu-cost.jsonl as it finishes, so a call cut short keeps what it
# measured. ROUNDS (default 2), GAMES (256), SIMS (200), SETTINGS ("label|bench mcts arguments" ...,
# separated by ';'). DRY=1 OUT=/tmp/x GAMES=4 SIMS=8 bash ... checks it on a CPU.
source "$(dirname "$0")/../gpu-next/common.sh"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-cost-log.txt") 2>&1
ROUNDS=${ROUNDS:-2}; GAMES=${GAMES:-256}; SIMS=${SIMS:-200}
SETTINGS=${SETTINGS:-"12|--endgame 12;14/12|--endgame 14 --endgame-wld 12;16/12|--endgame 16 --endgame-wld 12"}
DEVICE=cuda; [ "${DRY:-0}" = 1 ] && DEVICE=cpu
((command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name --format=csv,noheader); nproc; lscpu | grep 'Model name'; git log -1 --format='%H %s') 2>&1
IFS=';' read -ra specs <<< "$SETTINGS"
for round in $(seq 1 "$ROUNDS"); do
  for spec in "${specs[@]}"; do
    label=${spec%%|*}; args=${spec#*|}
    load=$(cut -d' ' -f1 /proc/loadavg)
    result=$(python3 -m alphazero.bench mcts --evaluator medium --device "$DEVICE" --games "$GAMES" --simulations "$SIMS" \
        --moves 64 --leaves-per-step 4 --repeats 1 $args 2>>"$OUT/gpu-cost-stderr.txt" | tail -1)
    line="{\"round\": $round, \"label\": \"$label\", \"load_before\": $load, \"result\": ${result:-null}}"
    echo "$line" | tee -a "$OUT/gpu-cost.jsonl"
  done
done
say done
