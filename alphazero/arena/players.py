"""Players: anything that picks moves in Othello positions, behind one batched interface.

`Player.select_moves(states)` takes many positions at once (one per concurrent game) and returns a
legal action for each, PASS when the side to move is forced to pass. Batching is the point: the
arena asks every player for all the games where it is on move in one call, so an MCTS player
evaluates the leaves of all its games in one network batch.

A player that needs the game's history rather than just the position (an external GTP engine is
told moves, not positions) overrides `select_moves_in_games`, which the arena calls with the
history of each game; its default simply forwards the positions to `select_moves`.

`make_player(spec)` builds a player from a short text spec (command lines, ladder files):
see `SPEC_FORMS`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from alphazero.arena.alphabeta import DEFAULT_ENDGAME_EMPTIES, best_moves_batch
from alphazero.arena.gtp_client import DEFAULT_TIMEOUT, GTPEngine, GTPError, draw_board, verify_board_convention
from alphazero.nn.config import INFERENCE_PRECISIONS
from alphazero.engine.timed import MAX_TIMED_NODES, TIME_CHUNK, check_limits, chunked_config, leaves_for, search_within
from alphazero.mcts.config import DEFAULT_ENDGAME_SOLVE_EMPTIES, DEFAULT_ENDGAME_WLD_EMPTIES
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import action_name, format_board_text
from alphazero.arena.player_interface import GameInProgress, Player, _require_playable  # noqa: F401 - re-exported: every player's base

if TYPE_CHECKING:
    from alphazero.mcts.config import MCTSConfig


class RandomPlayer(Player):
    """Uniformly random legal moves from its own seeded generator (reproducible per seed)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.name = f"random(seed={seed})"
        self._rng = np.random.default_rng(seed)

    def select_moves(self, states):
        _require_playable(self, states)
        moves = []
        for state in states:
            legal = state.legal_actions()
            moves.append(legal[int(self._rng.integers(len(legal)))])
        return moves


class GreedyPlayer(Player):
    """Flips the most discs; among equal flips the lowest square index (a1 first, row by row)."""

    name = "greedy"

    def select_moves(self, states):
        _require_playable(self, states)
        moves = []
        for state in states:
            legal = state.legal_actions()
            # max() keeps the first of equal keys and legal_actions() is ascending.
            moves.append(max(legal, key=lambda action: state.flipped_by(action).bit_count()))
        return moves


class AlphaBetaPlayer(Player):
    """Deterministic fixed-depth alpha-beta (`alphazero.arena.alphabeta`), exact near the end."""

    def __init__(self, depth: int = 2, endgame_empties: int = DEFAULT_ENDGAME_EMPTIES):
        if not isinstance(depth, (int, np.integer)) or depth < 1:
            raise ValueError(f"alpha-beta depth must be an integer >= 1, got {depth!r}")
        if not isinstance(endgame_empties, (int, np.integer)) or not 0 <= endgame_empties <= 20:
            raise ValueError(f"alpha-beta endgame_empties must be an integer in 0..20, got {endgame_empties!r}")
        self.depth = int(depth)
        self.endgame_empties = int(endgame_empties)
        suffix = "" if endgame_empties == DEFAULT_ENDGAME_EMPTIES else f",endgame={endgame_empties}"
        self.name = f"alphabeta(depth={depth}{suffix})"

    def select_moves(self, states):
        _require_playable(self, states)
        if not states:
            return []
        positions = np.array([state.as_array() for state in states], dtype=np.uint64)
        actions, _ = best_moves_batch(positions, self.depth, self.endgame_empties)
        return [int(action) for action in actions]


def describe_budget(simulations: int | None, seconds: float | None) -> str:
    """'simulations=100', 'seconds=0.5' or both: a player name's search budget."""
    parts = [] if simulations is None else [f"simulations={simulations}"]
    return ",".join(parts + ([] if seconds is None else [f"seconds={seconds:g}"]))


def _with_endgame(config, endgame: int | None):
    """`config` (default MCTSConfig()) solving roots and opened nodes from `endgame` empties
    (`MCTSConfig.with_endgame_reach`: one reach, no probes beyond it), unless endgame is None."""
    if endgame is None:
        return config
    from alphazero.mcts.config import MCTSConfig

    return (config or MCTSConfig()).with_endgame_reach(endgame)


def checkpoint_identity(path) -> str:
    """A network player's `identity`: the first 16 hex digits of its checkpoint file's sha256
    (the name shows only the file's base name; 20 ms for the medium network's 10 MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


class MCTSPlayer(Player):
    """Batched MCTS over all the positions of one call: no root noise, most-visited move.

    Each call searches every given position from a fresh tree (the positions may come from any
    games, so no tree is reused between calls). `simulations=0` plays the evaluator's raw policy:
    the legal action with the highest prior (lowest index among equal priors). Positions with at
    most `config.endgame_solve_empties` empties (MCTSConfig's default unless given) are played
    perfectly by the exact endgame solver, at any number of simulations >= 1.

    `seconds` (optional) searches by time instead: each position alone, one after another, on a
    fresh tree grown in chunks until `seconds` of wall time are spent (alphazero.engine.timed, the
    loop `play` and GTP think with), capped at `simulations` when that is given too (None: no
    cap). Games are then not batched, so each move gets the whole time on the player's cores:
    equal time per move against another engine means equal thinking time, not a shared batch.
    `leaves_per_step`: leaves a tree sends per network call; None: TIMED_LEAVES_PER_STEP (4) by
    time, `config`'s (1 by default, the exact search) by simulations.
    """

    def __init__(self, evaluator, simulations: int | None = 100, config=None, name: str | None = None, seed: int = 0,
                 seconds: float | None = None, leaves_per_step: int | None = None):
        if seconds is not None:
            check_limits(simulations, seconds)
        elif simulations is None or isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 0:
            raise ValueError(f"MCTS simulations must be an integer >= 0, got {simulations!r}")
        self.evaluator = evaluator
        self.simulations = None if simulations is None else int(simulations)
        self.seconds = None if seconds is None else float(seconds)
        self.seed = seed
        self.name = name or f"mcts({describe_budget(simulations, seconds)})"
        self._config = None
        if seconds is not None:
            from alphazero.mcts.config import MCTSConfig
            from alphazero.mcts.search import warm_up_search

            chunk = min(TIME_CHUNK, self.simulations or TIME_CHUNK)
            timed = dataclasses.replace(config or MCTSConfig(), leaves_per_step=leaves_for(leaves_per_step, True))
            self._config = chunked_config(timed, chunk, MAX_TIMED_NODES)
            warm_up_search(self._config)  # kernels compiled (or loaded) now, not in the first move's time
        elif self.simulations > 0:
            from alphazero.mcts.config import MCTSConfig

            config = config or MCTSConfig()
            self._config = dataclasses.replace(
                config,
                leaves_per_step=config.leaves_per_step if leaves_per_step is None else leaves_per_step,
                simulations=self.simulations,
                temperature=0.0,
                temperature_plies=0,
                tree_reuse=False,
            )
        self._search = None
        self._capacity = 0

    @classmethod
    def from_checkpoint(
        cls, path, simulations: int | None = 100, device: str = "auto", config=None, name=None, threads: int | None = None,
        endgame: int | None = None, precision: str = "auto", seconds: float | None = None,
        leaves_per_step: int | None = None,
    ) -> "MCTSPlayer":
        """A player on the network stored at `path` (loaded with weights_only, on `device`; CPU
        `threads` for its network calls, torch's default when None; `precision` auto, fp32,
        bf16 or int8 (a CPU), see alphazero.nn.precision). `endgame` E solves roots and opened nodes from E
        empties (`MCTSConfig.endgame_solve_empties` = E, `endgame_wld_empties` = 0; None: the
        defaults, 0: off)."""
        from alphazero.engine.factory import build_evaluator
        from alphazero.nn.checkpoint import load_network

        if not os.path.exists(path):
            raise FileNotFoundError(f"checkpoint {path} does not exist")
        network = load_network(path)
        if network.cfg.needs_history:  # a warm-start zoo network that reads the game's moves
            from alphazero.arena.history_player import HistoryPolicyPlayer
            from alphazero.nn.config import require_board_only

            if seconds is not None or simulations > 0:
                require_board_only(network.cfg, f"MCTS (simulations={simulations}; only simulations=0 plays its raw policy)")
            if precision not in ("auto", "fp32"):
                raise ValueError(f"precision={precision}: a history-reading network's raw-policy player runs in float32 only")
            player = HistoryPolicyPlayer(network, device=device, name=name or f"policy({os.path.basename(str(path))})", threads=threads)
            player.identity = checkpoint_identity(path)
            return player
        # A player by time sends its tree's leaves alone (4 a call by default), so `auto` measures at
        # that batch, as `play` and GTP do; by simulations the arena batches its games' leaves
        # together, so the probe's cap stands for the batch.
        probe_batch = leaves_for(leaves_per_step, True) if seconds is not None else None
        evaluator = build_evaluator(network, device=device, threads=threads, precision=precision, probe_batch=probe_batch)
        extra = "" if endgame is None else f",endgame={endgame}"
        extra += "" if precision == "auto" else f",precision={precision}"
        extra += "" if leaves_per_step is None else f",leaves={leaves_per_step}"
        label = name or f"mcts({os.path.basename(str(path))},{describe_budget(simulations, seconds)}{extra})"
        player = cls(evaluator, simulations=simulations, config=_with_endgame(config, endgame), name=label, seconds=seconds,
                     leaves_per_step=leaves_per_step)
        player.identity = checkpoint_identity(path)
        return player

    def _searcher(self, count: int):
        """A BatchedSearch with room for `count` games, rebuilt only when a call needs more."""
        if self._search is None or count > self._capacity:
            from alphazero.mcts.search import BatchedSearch

            self._capacity = max(count, 2 * self._capacity)
            self._search = BatchedSearch(self._config, self.evaluator, self._capacity, seed=self.seed)
        return self._search

    def _timed_moves(self, states):
        """One search by time per position, each on a fresh tree (see the class doc)."""
        if self._search is None:
            from alphazero.mcts.search import BatchedSearch

            self._search = BatchedSearch(self._config, self.evaluator, 1, seed=self.seed)
        moves = []
        for state in states:
            if state.must_pass():
                moves.append(PASS)
                continue
            self._search.reset()
            result, _ = search_within(self._search, state.as_array(), 60 - state.empties(), self.simulations, self.seconds)
            moves.append(int(result.action[0]))
        return moves

    def select_moves(self, states):
        _require_playable(self, states)
        if not states:
            return []
        if self.seconds is not None:
            return self._timed_moves(states)
        positions = np.array([state.as_array() for state in states], dtype=np.uint64)
        if self.simulations == 0:
            priors, _ = self.evaluator(positions)
            return [int(np.argmax(row)) for row in np.asarray(priors)]
        search = self._searcher(len(states))
        padded = np.empty((self._capacity, 2), dtype=np.uint64)
        padded[:] = GameState.start().as_array()
        padded[: len(states)] = positions
        active = np.zeros(self._capacity, dtype=np.bool_)
        active[: len(states)] = True
        ply = np.zeros(self._capacity, dtype=np.int64)
        ply[: len(states)] = [60 - state.empties() for state in states]
        search.reset()
        result = search.search(padded, ply, active=active, add_noise=False)
        return [int(action) for action in np.asarray(result.action)[: len(states)]]


def build_player(network, mcts: "MCTSConfig | None" = None, simulations: int | None = None, device="auto",
                 threads: int | None = None, name: str | None = None, seed: int = 0, precision: str = "auto",
                 precision_cache=None):
    """An MCTSPlayer on `network` (module or checkpoint path) with `play_config(mcts,
    simulations)` on `device`, in `precision` (verdicts cached in `precision_cache`, None: the
    user's cache): the one way gating and evaluation build a network player. simulations=0 plays
    the raw policy."""
    from alphazero.engine.factory import build_evaluator, play_config

    evaluator = build_evaluator(network, device=device, threads=threads, precision=precision, precision_cache=precision_cache)
    if simulations == 0:  # the raw policy: no search, so no search settings
        return MCTSPlayer(evaluator, simulations=0, name=name, seed=seed)
    config = play_config(mcts, simulations)
    return MCTSPlayer(evaluator, simulations=config.simulations, config=config, name=name, seed=seed)


# ----------------------------------------------------------------------------------------------
# External engines


@dataclass
class _EngineSession:
    """One engine process and the game it has been told: `start` plus `actions` (passes included,
    though passes are never sent), leading to `state`. `start` is None before the first game."""

    engine: GTPEngine
    start: GameState | None = None
    actions: list = dataclasses.field(default_factory=list)
    state: GameState | None = None
    last_used: int = 0
    can_setup: bool | None = None


SETUP_COMMAND = "grhino-setup_board"  # GRhino's extension: `grhino-setup_board <64 squares> <side>`


class GTPPlayer(Player):
    """An external GTP engine (see `gtp_client`), with up to `processes` engine processes so that
    several games think in parallel.

    Engines are told moves, so each process keeps the game it was told. For a requested game the
    player picks a process whose game is a prefix of it and sends only the missing moves; otherwise
    it clears a process's board and replays the whole game (cheap next to one `genmove`). Called
    with bare positions (`select_moves`) it infers the missing moves from the processes' games
    (the opponent's reply, possibly around a pass); a position unreachable that way is set up with
    GRhino's `grhino-setup_board` when the engine has it, else a GTPError explains why.

    Every engine move is checked against our rules; a disagreement raises GTPError with the move,
    our position and the engine's `showboard`.
    """

    def __init__(
        self,
        command: str,
        processes: int = 1,
        timeout: float = DEFAULT_TIMEOUT,
        name: str | None = None,
        verify_convention: bool = True,
    ):
        if not isinstance(processes, (int, np.integer)) or processes < 1:
            raise ValueError(f"GTP processes must be an integer >= 1, got {processes!r}")
        self.command = command
        self.processes = int(processes)
        self.timeout = timeout
        self.verify_convention = verify_convention
        self.name = name or f"gtp({command})"
        self._sessions: list[_EngineSession] = []
        self._clock = 0
        self._start_session()  # fail early (bad command, wrong convention), not mid-match

    def _start_session(self) -> _EngineSession:
        engine = GTPEngine(self.command, timeout=self.timeout)
        try:
            engine.setup()
            if self.verify_convention:
                verify_board_convention(engine)
        except GTPError:
            engine.kill()
            raise
        session = _EngineSession(engine)
        self._sessions.append(session)
        return session

    def close(self):
        for session in self._sessions:
            session.engine.quit()
        self._sessions.clear()

    def new_game(self):
        for session in self._sessions:
            session.start = None

    # ------------------------------------------------------------------------------------------

    def select_moves(self, states):
        _require_playable(self, states)
        return self.select_moves_in_games([self._infer_game(state) for state in states])

    def select_moves_in_games(self, games):
        _require_playable(self, [game.state for game in games])
        moves: list[int | None] = [None] * len(games)
        waiting = []
        for index, game in enumerate(games):
            if game.state.must_pass():
                moves[index] = PASS  # never asked of the engine, which skips the side by itself
            else:
                waiting.append(index)
        while waiting:
            assigned, waiting = self._assign(games, waiting)
            for index, session in assigned:
                self._sync(session, games[index])
            for index, session in assigned:
                session.engine.send_genmove(games[index].state.color_to_move)
            for index, session in assigned:
                moves[index] = self._receive_checked(session, games[index].state)
        return moves

    def _assign(self, games, waiting):
        """Pair waiting games with distinct sessions, best-matching first; return (pairs, rest)."""
        free = list(self._sessions)
        pairs, rest = [], []
        for index in waiting:
            game = games[index]
            matching = [s for s in free if s.start is not None and _is_prefix(s, game)]
            if matching:
                session = max(matching, key=lambda s: len(s.actions))
            elif free:
                session = min(free, key=lambda s: s.last_used)
            elif len(self._sessions) < self.processes:
                session = self._start_session()
            else:
                rest.append(index)
                continue
            if session in free:
                free.remove(session)
            self._clock += 1
            session.last_used = self._clock
            pairs.append((index, session))
        return pairs, rest

    def _sync(self, session: _EngineSession, game: GameInProgress) -> None:
        """Bring the session's engine to `game`: send the missing moves, or reset and replay."""
        if session.start is not None and _is_prefix(session, game):
            missing = game.actions[len(session.actions):]
        else:
            self._reset(session, game.start)
            missing = game.actions
        for action in missing:
            if action != PASS:
                session.engine.play(session.state.color_to_move, int(action))
            session.state = session.state.play(int(action))
            session.actions.append(int(action))
        if session.state != game.state:
            raise GTPError(
                f"game history does not lead to the position to play: history ends in "
                f"{format_board_text(session.state)}, position is {format_board_text(game.state)}"
            )

    def _reset(self, session: _EngineSession, start: GameState) -> None:
        engine = session.engine
        engine.clear_board()
        if start != GameState.start():
            if session.can_setup is None:
                session.can_setup = engine.known_command(SETUP_COMMAND)
            if not session.can_setup:
                raise GTPError(
                    f"engine {engine.name!r} cannot be brought to position {format_board_text(start)}: it is not "
                    f"reachable from the engine's game and the engine has no {SETUP_COMMAND} command; play it "
                    "through the arena (which passes game histories) or from the standard start"
                )
            side = "X" if start.black_to_move else "O"
            engine.command(f"{SETUP_COMMAND} {format_board_text(start).split()[0]} {side}")
        session.start = start
        session.actions = []
        session.state = start

    def _receive_checked(self, session: _EngineSession, state: GameState) -> int:
        engine = session.engine
        move = engine.receive_genmove()
        if not state.is_legal(move):
            try:
                board = engine.showboard()
            except GTPError as err:
                board = f"(showboard failed: {err})"
            color = "black" if state.black_to_move else "white"
            legal = " ".join(action_name(a) for a in state.legal_actions())
            raise GTPError(
                f"engine {engine.name!r} answered genmove {color} with {action_name(move)}, which our rules "
                f"reject (legal: {legal}).\nour position ({format_board_text(state)}):\n{draw_board(state)}\n"
                f"engine's showboard:\n{board}"
            )
        session.state = state.play(move)
        session.actions.append(move)
        return move

    def _infer_game(self, state: GameState) -> GameInProgress:
        """The game leading to `state`, from the session whose game it continues (by most recent use)."""
        for session in sorted(self._sessions, key=lambda s: -s.last_used):
            if session.start is None:
                continue
            extension = _moves_between(session.state, state, max_moves=2)
            if extension is not None:
                return GameInProgress(session.start, tuple(session.actions) + extension, state)
        return GameInProgress(state, (), state)


def _is_prefix(session: _EngineSession, game: GameInProgress) -> bool:
    count = len(session.actions)
    return session.start == game.start and count <= len(game.actions) and tuple(session.actions) == game.actions[:count]


def _moves_between(source: GameState, target: GameState, max_moves: int) -> tuple[int, ...] | None:
    """Actions leading from `source` to `target` with at most `max_moves` disc moves (and any
    forced passes), or None. Occupied squares only grow, which prunes the search to the few moves
    onto squares that `target` occupies."""
    if source == target:
        return ()
    occupied = source.black | source.white
    target_occupied = target.black | target.white
    if occupied & ~target_occupied or source.is_over():
        return None
    needed = (target_occupied & ~occupied).bit_count()
    if needed > max_moves:
        return None
    if source.must_pass():
        rest = _moves_between(source.play(PASS), target, max_moves)
        return None if rest is None else (PASS,) + rest
    if needed == 0:
        return None
    for action in source.legal_actions():
        if target_occupied >> action & 1:
            rest = _moves_between(source.play(action), target, max_moves - 1)
            if rest is not None:
                return (action,) + rest
    return None


# ----------------------------------------------------------------------------------------------
# Specs

SPEC_FORMS = (
    "random[:seed=N]",
    "greedy",
    "alphabeta[:depth=D][,endgame=E]   (depth 2, endgame 10 by default)",
    f"mcts:checkpoint=PATH[,simulations=N][,seconds=S][,device=auto|cpu|cuda][,threads=T][,precision=P][,endgame=E][,leaves=L]   (simulations 100 by default; 0 = raw policy; S: think S seconds a move, each position alone (simulations=N then caps it); T torch CPU threads, 1 by default; P auto (measured), fp32, bf16 or int8 (a CPU); E: solve roots and opened nodes from E empties, 0 = off, default MCTSConfig's: roots {DEFAULT_ENDGAME_SOLVE_EMPTIES}, opened nodes {DEFAULT_ENDGAME_WLD_EMPTIES}; L leaves per network call, default 4 by time, 1 by simulations)",
    "mcts:evaluator=uniform[,simulations=N][,seconds=S][,endgame=E][,leaves=L]   (uniform priors, value 0: a network-free baseline)",
    'gtp:"COMMAND"[,processes=N][,timeout=SECONDS]   e.g. gtp:"/usr/games/gtp-rhino -l 3"   (SECONDS per answer, 60 by default; the first answer, which waits for the engine to start, gets at least 300)',
    "any form may add ,name=LABEL",
)

# torch CPU threads of a checkpoint player unless its spec says threads=T.
DEFAULT_PLAYER_THREADS = 1

# kind -> {option: type}; the first entry of a kind whose name is `command` may be given bare.
_SPEC_OPTIONS = {
    "random": {"seed": int},
    "greedy": {},
    "alphabeta": {"depth": int, "endgame": int},
    "mcts": {"checkpoint": str, "evaluator": str, "simulations": int, "seconds": float, "device": str, "threads": int, "precision": str, "endgame": int,
             "leaves": int},
    "gtp": {"command": str, "processes": int, "timeout": float},
}


class PlayerSpecError(ValueError):
    """A player spec that `make_player` cannot read; the message lists the valid forms."""


def _spec_error(spec: str, problem: str) -> PlayerSpecError:
    forms = "\n  ".join(SPEC_FORMS)
    return PlayerSpecError(f"bad player spec {spec!r}: {problem}.\nValid forms:\n  {forms}")


def _split_outside_quotes(text: str, spec: str) -> list[str]:
    items, current, quote = [], [], None
    for char in text:
        if quote:
            if char == quote:
                quote = None
            current.append(char)
        elif char in "\"'":
            quote = char
            current.append(char)
        elif char == ",":
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if quote:
        raise _spec_error(spec, f"unterminated {quote} quote")
    items.append("".join(current))
    return items


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_player_spec(spec: str) -> tuple[str, dict]:
    """`alphabeta:depth=3` -> ("alphabeta", {"depth": 3}); raises PlayerSpecError naming the bad part."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in _SPEC_OPTIONS:
        raise _spec_error(spec, f"unknown player kind {kind!r}")
    allowed = dict(_SPEC_OPTIONS[kind], name=str)
    options: dict = {}
    if not rest.strip():
        return kind, options
    for position, item in enumerate(_split_outside_quotes(rest, spec)):
        key, equals, value = item.partition("=")
        key = key.strip()
        bare = not equals or not key.isidentifier()
        if bare:
            if kind == "gtp" and position == 0:
                key, value = "command", item
            else:
                raise _spec_error(spec, f"{item.strip()!r} is not of the form option=value")
        if key not in allowed:
            raise _spec_error(spec, f"{kind!r} has no option {key!r} (options: {', '.join(allowed) or 'none'})")
        if key in options:
            raise _spec_error(spec, f"option {key!r} is given twice")
        value = _unquote(value)
        try:
            options[key] = allowed[key](value)
        except ValueError:
            expected = {int: "an integer", float: "a number"}.get(allowed[key], "text")
            raise _spec_error(spec, f"option {key}={value!r} is not {expected}") from None
    return kind, options


def make_player(spec: str) -> Player:
    """Build a player from a spec (see `SPEC_FORMS`); raises PlayerSpecError (a ValueError)."""
    kind, options = parse_player_spec(spec)
    name = options.pop("name", None)
    try:
        player = _build_player(kind, options, spec)
    except PlayerSpecError:
        raise
    except (ValueError, FileNotFoundError) as err:
        raise _spec_error(spec, str(err)) from None
    if name:
        player.name = name
    return player


def _build_player(kind: str, options: dict, spec: str) -> Player:
    if kind == "random":
        return RandomPlayer(seed=options.get("seed", 0))
    if kind == "greedy":
        return GreedyPlayer()
    if kind == "alphabeta":
        return AlphaBetaPlayer(depth=options.get("depth", 2), endgame_empties=options.get("endgame", DEFAULT_ENDGAME_EMPTIES))
    if kind == "mcts":
        seconds = options.get("seconds")
        # By time alone when seconds= is given without simulations=; a fixed 100 otherwise.
        simulations = options.get("simulations", None if seconds is not None else 100)
        if seconds is not None:
            try:
                check_limits(simulations, seconds)
            except ValueError as err:
                raise _spec_error(spec, str(err)) from None
        has_checkpoint, has_evaluator = "checkpoint" in options, "evaluator" in options
        if has_checkpoint == has_evaluator:
            raise _spec_error(spec, "mcts needs exactly one of checkpoint=PATH or evaluator=uniform")
        if has_evaluator:
            if options["evaluator"] != "uniform":
                raise _spec_error(spec, f"unknown evaluator {options['evaluator']!r} (only 'uniform')")
            for option in ("device", "threads", "precision"):
                if option in options:
                    raise _spec_error(spec, f"{option}= applies only to checkpoint players")
            from alphazero.mcts.evaluator import UniformEvaluator

            endgame, leaves = options.get("endgame"), options.get("leaves")
            extra = "" if endgame is None else f",endgame={endgame}"
            extra += "" if leaves is None else f",leaves={leaves}"
            return MCTSPlayer(UniformEvaluator(), simulations=simulations, config=_with_endgame(None, endgame),
                              name=f"mcts(uniform,{describe_budget(simulations, seconds)}{extra})", seconds=seconds,
                              leaves_per_step=leaves)
        # One torch thread unless asked: an arena process holds several players, often beside
        # other processes (ladder shards, a training run), and torch's threads spin-wait on busy
        # cores (a 2-game match: 63.6 s with torch's 2 threads, 4.0 s with 1; docs/threads.md).
        threads = options.get("threads", DEFAULT_PLAYER_THREADS)
        if threads < 1:
            raise _spec_error(spec, f"threads must be >= 1, got {threads}")
        precision = options.get("precision", "auto")
        if precision not in INFERENCE_PRECISIONS:
            raise _spec_error(spec, f"precision must be auto, fp32, bf16, fp16 (CUDA) or int8 (CPU), got {precision!r}")
        return MCTSPlayer.from_checkpoint(
            options["checkpoint"], simulations=simulations, device=options.get("device", "auto"), threads=threads,
            endgame=options.get("endgame"), precision=precision, seconds=seconds, leaves_per_step=options.get("leaves"),
        )
    if kind == "gtp":
        if not options.get("command", "").strip():
            raise _spec_error(spec, 'gtp needs the engine command, e.g. gtp:"/usr/games/gtp-rhino -l 3"')
        return GTPPlayer(
            options["command"], processes=options.get("processes", 1), timeout=options.get("timeout", DEFAULT_TIMEOUT)
        )
    raise _spec_error(spec, f"unknown player kind {kind!r}")
