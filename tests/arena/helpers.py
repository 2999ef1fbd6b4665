"""Helpers for the arena tests: positions sampled from random games, a brute-force solver,
scripted players and fake GTP engines."""

from __future__ import annotations

import shlex
import sys
import textwrap

import numpy as np

from alphazero.arena.players import Player
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState


def random_game_states(games: int, seed: int) -> list[GameState]:
    """Every position (unfinished) of `games` uniformly random games."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(games):
        state = GameState.start()
        while not state.is_over():
            states.append(state)
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
    return states


def game_with_a_pass(seed: int) -> tuple[list[int], GameState]:
    """(actions from the start up to just after a forced pass, the position they reach) from the
    uniformly random games of `seed`: the first such game whose pass does not end it."""
    rng = np.random.default_rng(seed)
    while True:
        state, actions = GameState.start(), []
        while not state.is_over():
            action = state.legal_actions()[int(rng.integers(len(state.legal_actions())))]
            actions.append(action)
            state = state.play(action)
            if action == PASS and not state.is_over():
                return actions, state


def tell_opening(engine, opening) -> GameState:
    """Set a GTP engine up and tell it the moves of `opening`; returns the position they reach."""
    engine.setup()
    state = GameState.start()
    for action in opening:
        engine.play(state.color_to_move, action)
        state = state.play(action)
    return state


def engine_plays_itself_to_the_end(engine, opening) -> GameState:
    """The engine told `opening`, then asked for both sides' moves to the end of the game: every
    move legal by our rules, `pass` answered for a side with no move (a pass it is never told: it
    skips the side by itself). Returns the final position."""
    state = tell_opening(engine, opening)
    while not state.is_over():
        if state.must_pass():
            assert engine.genmove(state.color_to_move) == PASS  # no legal move: the engine says pass
            state = state.play(PASS)
            continue
        move = engine.genmove(state.color_to_move)
        assert state.is_legal(move), (move, state)
        state = state.play(move)
    return state


def check_engine_plays_around_a_forced_pass(command: str) -> None:
    """A GTP engine is never told a pass (see `alphazero.arena.gtp_client`): after a forced pass in a
    random game, an engine playing the side that moves twice is told its last move and asked again,
    and one playing the other side is told two moves of the same colour in a row. Both must answer
    legal moves, and a forced pass is answered by the player without asking the engine."""
    from alphazero.arena.players import GameInProgress, GTPPlayer

    actions, state = game_with_a_pass(seed=21)  # ... C plays, D passes; C to move again
    follow_up = state.legal_actions()[0]
    after = state.play(follow_up)
    assert not after.is_over() and not after.must_pass(), "seed 21: a pass at ply 9, the game goes on"
    player = GTPPlayer(command)
    try:
        move = player.select_moves_in_games([GameInProgress(GameState.start(), tuple(actions), state)])[0]
        assert state.is_legal(move) and move != PASS
        history = GameInProgress(GameState.start(), tuple(actions) + (follow_up,), after)
        assert after.is_legal(player.select_moves_in_games([history])[0])
        forced = next(s for s in random_game_states(30, seed=9) if s.must_pass())
        assert player.select_move(forced) == PASS
    finally:
        player.close()


def check_short_arena_match(spec: str, opponent: Player):
    """Two paired openings of `opponent` against the arena player `spec` (an external engine): four
    finished games. Returns the match result."""
    from alphazero.arena.match import play_match
    from alphazero.arena.players import make_player

    engine = make_player(spec)
    try:
        result = play_match(opponent, engine, num_pairs=2, seed=6)
    finally:
        engine.close()
    assert result.num_games == 4 and result.wins + result.draws + result.losses == 4
    for record in result.games:
        assert record.final_state().is_over()
    return result


def sample_positions(count: int, seed: int, games: int = 120) -> list[GameState]:
    """`count` unfinished positions from random games, every forced-pass position found included."""
    states = random_game_states(games, seed)
    forced = [s for s in states if s.must_pass()]
    others = [s for s in states if not s.must_pass()]
    rng = np.random.default_rng(seed + 1)
    picked = [others[i] for i in rng.choice(len(others), size=max(count - len(forced), 0), replace=False)]
    return forced + picked


def solve(state: GameState) -> int:
    """Exact final disc margin for the side to move under perfect play (plain minimax)."""
    if state.is_over():
        margin = state.black_margin()
        return margin if state.black_to_move else -margin
    return max(-solve(state.play(action)) for action in state.legal_actions())


class ScriptedPlayer(Player):
    """Plays the first legal action and records every batch it is asked about."""

    def __init__(self, name="scripted", move=None):
        self.name = name
        self.batches: list[list[GameState]] = []
        self.new_games = 0
        self._move = move

    def select_moves(self, states):
        self.batches.append(list(states))
        if self._move is not None:
            return [self._move(state) for state in states]
        return [state.legal_actions()[0] for state in states]

    def new_game(self):
        self.new_games += 1


def fake_engine(script_body: str) -> str:
    """A GTP engine command: Python reading commands from stdin and running `script_body`, where
    `command` is the command line and `reply(text)` answers `= text`."""
    program = textwrap.dedent(
        """
        import sys
        def reply(text=""):
            sys.stdout.write("= " + text + "\\n\\n")
            sys.stdout.flush()
        for line in sys.stdin:
            command = line.strip()
            if not command:
                continue
            name = command.split()[0]
            if name == "quit":
                reply()
                break
        """
    ) + textwrap.indent(textwrap.dedent(script_body), " " * 4)
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(program)}"
