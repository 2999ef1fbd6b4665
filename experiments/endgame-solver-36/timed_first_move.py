import time, sys
import numpy as np
from alphazero.arena.players import MCTSPlayer
from alphazero.othello.game import GameState
seconds = float(sys.argv[1]); games = int(sys.argv[2])
t = time.perf_counter()
player = MCTSPlayer.from_checkpoint("checkpoints/warmstart.pt", simulations=None, seconds=seconds, threads=1)
print("built", round(time.perf_counter() - t, 2), flush=True)
rng = np.random.default_rng(1)
worst = []
for g in range(games):
    state = GameState.start()
    for _ in range(4):
        state = state.play(int(rng.choice(state.legal_actions())))
    while not state.is_over():
        if state.must_pass():
            state = state.play(64); continue
        t = time.perf_counter()
        move = player.select_move(state)
        dt = time.perf_counter() - t
        worst.append((dt, state.empties(), g))
        state = state.play(move)
worst.sort(reverse=True)
print("moves", len(worst), "over budget:", sum(d > seconds for d, _, _ in worst), "worst:", [(round(d, 3), e, g) for d, e, g in worst[:8]])
