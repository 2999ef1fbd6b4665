"""The arena's MCTS players and the play/GTP choosers solve endgames by default: at 1 simulation
they play an exact best move once the position is within `MCTSConfig.endgame_solve_empties`."""


from alphazero.arena.players import make_player
from alphazero.mcts.config import MCTSConfig
from alphazero.othello.game import GameState
from alphazero.play.choosers import SearchSettings, build_chooser
from tests.solver.reference import child, minimax, random_position


def _endgames(count, empties):
    states = []
    seed = 0
    while len(states) < count:
        player, opponent = random_position(seed, empties)
        seed += 1
        state = GameState.from_player_opponent(player, opponent, True)
        if not state.is_over() and not state.must_pass() and len(state.legal_actions()) >= 2:
            states.append(state)
    return states


def _is_exact_best(state, action):
    best = minimax(state.player, state.opponent)
    return -minimax(*child(state.player, state.opponent, action)) == best


def test_default_reach_is_on():
    assert MCTSConfig().endgame_solve_empties >= 8


def test_mcts_player_plays_an_exact_best_move_at_one_simulation():
    states = _endgames(12, 8)
    player = make_player("mcts:evaluator=uniform,simulations=1")
    moves = player.select_moves(states)
    assert all(_is_exact_best(state, move) for state, move in zip(states, moves))


def test_mcts_player_with_endgame_off_is_not_perfect_at_one_simulation():
    states = _endgames(12, 8)
    player = make_player("mcts:evaluator=uniform,simulations=1,endgame=0")
    assert player.name == "mcts(uniform,simulations=1,endgame=0)"
    moves = player.select_moves(states)
    assert not all(_is_exact_best(state, move) for state, move in zip(states, moves))


def test_play_and_gtp_chooser_plays_an_exact_best_move_at_one_simulation():
    chooser = build_chooser(player="mcts:evaluator=uniform", settings=SearchSettings(simulations=1))
    for state in _endgames(6, 9):
        assert _is_exact_best(state, chooser.choose(state))


def test_chooser_spec_accepts_endgame_option():
    chooser = build_chooser(player="mcts:evaluator=uniform,endgame=0", settings=SearchSettings(simulations=1))
    assert chooser.endgame_solve_empties == 0
