"""A wipe-out that the priors all but ignore: the search must neither walk into one nor miss one.

Self-play games rarely end in a wipe-out, so a trained network can put almost no prior on the
reply that wipes its side out, and a search that never tries that reply plays into it (the
shipped `selfplay.pt` at 100 simulations lost 7 of 40 games to the greedy player this way). The
evaluator here is built to be blind the same way: a 0.99 prior on the losing move at the root and
1e-6 on every wipe-out move anywhere.
"""

import numpy as np
import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.search import BatchedSearch
from alphazero.othello.bitboard import NUM_ACTIONS, legal_action_mask_batch, legal_moves, make_move, wipeout_move
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_transcript

# From a game the shipped network lost to greedy: black (to move) plays g5?, white's h5 takes
# every black disc.
BEFORE_BLUNDER = "f5d6c5f6e6f4c6b6"
BLUNDER = parse_transcript("f5d6c5f6e6f4c6b6g5")[-1]
WIPEOUT = parse_transcript("f5d6c5f6e6f4c6b6g5h5")[-1]


def _position(transcript):
    state = GameState.start()
    for action in parse_transcript(transcript):
        state = state.play(action)
    return state


class WipeoutBlindEvaluator:
    """Uniform priors over the legal moves, except `favourite` in `root` (0.99) and every wipe-out
    move (1e-6); value 0 everywhere."""

    def __init__(self, root: GameState, favourite: int):
        self.root = tuple(int(x) for x in root.as_array())
        self.favourite = favourite

    def __call__(self, positions):
        positions = np.asarray(positions, dtype=np.uint64).reshape(-1, 2)
        priors = legal_action_mask_batch(positions).astype(np.float32)
        for row, (player, opponent) in enumerate(positions):
            square = wipeout_move(player, opponent, np.uint64(legal_moves(player, opponent)))
            while square >= 0:
                priors[row, square] = 1e-6
                moves = np.uint64(legal_moves(player, opponent)) & ~((np.uint64(2) << np.uint64(square)) - np.uint64(1))
                square = wipeout_move(player, opponent, moves)
            if (int(player), int(opponent)) == self.root:
                priors[row] *= 0.01 / max(priors[row].sum() - priors[row, self.favourite], 1e-9)
                priors[row, self.favourite] = 0.99
            priors[row] /= priors[row].sum()
        return priors, np.zeros(len(positions), dtype=np.float32)


def _search(state, evaluator, root_policy, solver, simulations=64):
    config = MCTSConfig(simulations=simulations, root_policy=root_policy, solver=solver, temperature=0.0,
                        temperature_plies=0, endgame_solve_empties=0, tree_reuse=False)
    search = BatchedSearch(config, evaluator, 1, seed=0)
    result = search.search(np.array([state.as_array()], dtype=np.uint64), np.array([60 - state.empties()]),
                           active=np.ones(1, dtype=np.bool_), add_noise=False)
    return int(result.action[0]), float(result.root_value[0]), result


def test_the_fixture_is_what_it_claims():
    after = _position(BEFORE_BLUNDER).play(BLUNDER)
    player, opponent = (np.uint64(x) for x in after.as_array())
    assert wipeout_move(player, opponent, np.uint64(legal_moves(player, opponent))) == WIPEOUT
    assert int(make_move(player, opponent, WIPEOUT)[0]) == 0  # black has no disc left


@pytest.mark.parametrize("root_policy", ["puct", "gumbel"])
def test_the_search_does_not_play_into_a_wipeout_the_priors_ignore(root_policy):
    state = _position(BEFORE_BLUNDER)
    evaluator = WipeoutBlindEvaluator(state, favourite=BLUNDER)
    action, _, result = _search(state, evaluator, root_policy, solver=True)
    assert action != BLUNDER
    assert result.visits[0, BLUNDER] >= 1, "the losing move was tried and proven lost, not just never tried"
    # Without the proof (the solver off) the blind priors walk straight into it.
    assert _search(state, evaluator, root_policy, solver=False)[0] == BLUNDER


@pytest.mark.parametrize("root_policy", ["puct", "gumbel"])
def test_the_search_plays_a_wipeout_the_priors_ignore(root_policy):
    state = _position(BEFORE_BLUNDER).play(BLUNDER)
    other = next(a for a in range(NUM_ACTIONS) if state.is_legal(a) and a != WIPEOUT)
    action, root_value, _ = _search(state, WipeoutBlindEvaluator(state, favourite=other), root_policy, solver=True)
    assert action == WIPEOUT and root_value == 1.0
