#!/bin/bash
# Issue 16's ablation of the learning-efficiency switches: for each NAME, a 60-minute self-play run
# from scratch with the `cpu` preset plus that switch, then its final network (the trainer's latest
# weights) plays 100 games (50 paired openings, seed 1) at 100 simulations against alphabeta depth 2,
# GRhino level 1 and GRhino level 2. What a finished run leaves here, in experiments/ablation/NAME/:
# the run's config and log, its TensorBoard events (for `python -m alphazero.train.plots`), the
# final network (final.pt, shipped with its provenance), and each evaluation's JSON and games.
#
#   experiments/ablation/run.sh current gumbel playoutcap qblend reusedrop forced best   # from the repo root
#   python experiments/ablation/table.py                                            # the markdown table
#
# Resumable: a killed run resumes (run.max_minutes is the run's total time across resumes) and an
# evaluation already written is not played again. Give each run the machine alone: the budget is
# wall-clock minutes, so anything else running on the cores makes that run weaker.
# ABLATION_RUNS (default /work/runs/ablation) holds the run directories, outside the repository;
# ABLATION_OUT (default experiments/ablation) what each run leaves in the repository.
#
# BASELINE pins the `cpu` preset as it was when the ablation ran (PUCT root, 64 simulations, no
# playout cap): the preset has since taken the Gumbel root, and a run resumed or rerun now
# must compare against what `current` measured. Each switch overrides it (the last value wins).
set -u
cd "$(dirname "$0")/../.."
RUNS=${ABLATION_RUNS:-/work/runs/ablation}
BASELINE="mcts.root_policy=puct mcts.simulations=64 selfplay.playout_cap_fraction=1.0 selfplay.playout_cap_small=25"
declare -A SWITCHES=(
  [current]=""
  [playoutcap]="mcts.simulations=128 selfplay.playout_cap_fraction=0.25 selfplay.playout_cap_small=32"
  [qblend]="train.value_target_q_weight=0.5"
  [reusedrop]="mcts.reuse_root_visit_discount=0"
  [gumbel]="mcts.root_policy=gumbel"
  [forced]="mcts.forced_playouts_k=2"
  [auto]="mcts.root_policy=gumbel precision=auto"
  # issue 35: the auto row plus KataGo's auxiliary score and ownership targets (weights: the
  # comment on TrainConfig.score_weight in alphazero/train/config.py)
  [aux]="mcts.root_policy=gumbel precision=auto model.score_head=true model.ownership_head=true train.score_weight=0.1 train.ownership_weight=0.5"
  # 2026-12-01: the auto row with the network calls forced to bf16 or to int8 (auto picks int8 on
  # the avx512 EPYC since int8 inference landed; experiments/int8-cpu/learn.sh)
  [bf16]="mcts.root_policy=gumbel precision=auto selfplay.precision=bf16 arena.precision=bf16"
  [int8]="mcts.root_policy=gumbel precision=auto selfplay.precision=int8 arena.precision=int8"
  [best]="${ABLATION_BEST:-mcts.root_policy=gumbel mcts.simulations=128 selfplay.playout_cap_fraction=0.25 selfplay.playout_cap_small=32}"
)
mkdir -p "$RUNS"
for name in "$@"; do
  if [ -z "${SWITCHES[$name]+set}" ]; then echo "unknown ablation run '$name' (known: ${!SWITCHES[*]})"; exit 2; fi
  run=$RUNS/$name
  out=${ABLATION_OUT:-experiments/ablation}/$name
  resume=false; [ -f "$run/config.yaml" ] && resume=true
  echo "== $name $(date -u +%FT%TZ) resume=$resume switches: ${SWITCHES[$name]}"
  python -m alphazero.train experiment=cpu $BASELINE ${SWITCHES[$name]} run.dir="$run" run.resume=$resume \
      run.max_minutes=60 run.progress=false run.seed=16 >> "$run.train.log" 2>&1 \
      || { echo "$name: training failed"; tail -5 "$run.train.log"; continue; }
  mkdir -p "$out"
  echo "${SWITCHES[$name]}" > "$out/switches.txt"
  python -m alphazero.train.ship "$run" "$out/final.pt" --network latest || continue
  cp "$run/config.yaml" "$run/log.txt" "$out/"
  rm -rf "$out/tb" && cp -r "$run/tb" "$out/tb"
  for opponent in alphabeta:depth=2 'gtp:"/usr/games/gtp-rhino -l 1 -r 0 -b 0",processes=2,name=grhino-1' \
                  'gtp:"/usr/games/gtp-rhino -l 2 -r 0 -b 0",processes=2,name=grhino-2' \
                  'gtp:"/usr/games/gtp-rhino -l 3 -r 0 -b 0",processes=2,name=grhino-3' \
                  'gtp:"/usr/games/gtp-rhino -l 4 -r 0 -b 0",processes=2,name=grhino-4'; do
    tag=$(echo "$opponent" | sed 's/.*name=//; s/alphabeta:depth=2/alphabeta-2/')
    [ -s "$out/eval-$tag.json" ] && continue
    python -m alphazero.arena "mcts:checkpoint=$out/final.pt,simulations=100,threads=1,name=$name" "$opponent" \
        --pairs 50 --seed 1 --games-log "$out/eval-$tag-games.jsonl" > "$out/eval-$tag.json.tmp" \
        && mv "$out/eval-$tag.json.tmp" "$out/eval-$tag.json" && echo "$name vs $tag: $(cat "$out/eval-$tag.json")"
  done
done
