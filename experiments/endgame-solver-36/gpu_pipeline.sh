#!/bin/bash
# The gpu preset's endgame thresholds in its whole self-play pipeline on a GPU machine (issue 36,
# prepared 2026-11-27 for the next session with a lent GPU): `bench selfplay --preset gpu` (12
# workers, the inference server, the medium network) with the preset's 12 against exact roots
# from 14 (opened nodes still 12), the settings taking turns (A B A B ...). A solved root is no
# longer searched (mcts.search_solved_roots=false), so the question is only whether the 12
# workers absorb the roots' extra solves (measured with a free network on a CPU: +8-43% tree CPU,
# no evaluations saved) while the GPU is the limit. The preset moves to 14 only if positions/s do
# not fall in every round. The third setting probes opened nodes to 14 empties (a solve limited
# to 5,000 nodes; free network on a CPU: 2x the tree CPU for 3.7% fewer evaluations), adopted on
# the same rule.
#
# The call (about 6.5 minutes with the defaults, a start included):
#   run(command="bash experiments/endgame-solver-36/gpu_pipeline.sh", carry=[".whl"], timeout_s=480)
# Each result is appended to $OUT/gpu-pipeline.jsonl as it finishes, so a call cut short keeps what
# it measured. ROUNDS (default 2), SECONDS_EACH (30), SETTINGS ("label|overrides" ..., separated by
# ';'), BENCH_TIMEOUT (170 s a bench). DRY=1 OUT=/tmp/x bash ... checks it on a CPU with the smoke
# preset (a check, not a measure; give it BENCH_TIMEOUT=900 on a busy machine).
source "$(dirname "$0")/../gpu-next/common.sh"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-pipeline-log.txt") 2>&1
ROUNDS=${ROUNDS:-2}; SECONDS_EACH=${SECONDS_EACH:-30}; BENCH_TIMEOUT=${BENCH_TIMEOUT:-170}
SETTINGS=${SETTINGS:-"12|;14/12|mcts.endgame_solve_empties=14 mcts.endgame_wld_empties=12;12+14@5000|mcts.endgame_probe_empties=14 mcts.endgame_probe_nodes=5000"}
if [ "${DRY:-0}" = 1 ]; then
  ARGS="--preset smoke --seconds 4 --warmup 0"
else
  ARGS="--preset gpu --device cuda --seconds $SECONDS_EACH --warmup 10"
fi
((command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name --format=csv,noheader); nproc; lscpu | grep 'Model name'; git log -1 --format='%H %s') 2>&1
IFS=';' read -ra specs <<< "$SETTINGS"
for round in $(seq 1 "$ROUNDS"); do
  for spec in "${specs[@]}"; do
    label=${spec%%|*}; overrides=${spec#*|}
    load=$(cut -d' ' -f1 /proc/loadavg)
    say "round $round: $label ($overrides)"
    result=$(timeout -s TERM "$BENCH_TIMEOUT" python3 -m alphazero.bench selfplay $ARGS $overrides 2>>"$OUT/gpu-pipeline-stderr.txt" | tail -1)
    line="{\"round\": $round, \"label\": \"$label\", \"load_before\": $load, \"result\": ${result:-null}}"
    echo "$line" | tee -a "$OUT/gpu-pipeline.jsonl"
  done
done
say done
