#!/bin/bash
# Issue 16: the warm-started headline run with the cpu preset's chosen switch (Gumbel root): the
# headline command of checkpoints/README.md without mcts.root_policy=puct. Resumable.
cd /work/main
RUN=/work/runs/warm-gumbel
resume=false; [ -f "$RUN/config.yaml" ] && resume=true
exec python -m alphazero.train train.init_from=checkpoints/warmstart.pt mcts.simulations=128 \
    train.optimizer=adamw train.lr=0.0003 train.lr_warmup_steps=200 train.lr_total_steps=10000 \
    train.lr_min_factor=0.1 train.min_positions=6000 \
    arena.gating=true arena.every_steps=800 arena.pairs=20 arena.simulations=100 arena.threshold=0.55 \
    "eval.baselines=['mcts:checkpoint=checkpoints/warmstart.pt,simulations=100,endgame=14']" eval.every_steps=1600 \
    eval.pairs=20 eval.simulations=100 run.dir=$RUN run.resume=$resume run.max_minutes=240 run.progress=false run.seed=16
