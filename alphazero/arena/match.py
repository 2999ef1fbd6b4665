"""Matches between two players: paired openings, all games played concurrently, batched moves.

Each opening is played twice, once with each player as black, so an opening that favours one colour
favours both players equally. All games advance together: at each step every unfinished game where
player A is to move goes to A in one `select_moves_in_games` call, then the same for B, so an
MCTS player evaluates the leaves of all its games in one network batch. Forced passes are played by
the arena itself (no player is asked). Every move a player returns is checked against our rules.

Scores are from player A's view: wins, draws, losses, score = (wins + draws / 2) / games, and the Elo
difference of A over B with its 95% interval (`elo.estimate_elo`). A *wipeout* is a game the
loser ends with no disc at all, worth flagging because an engine's book line or a bug is the usual
cause, not play; `wipeouts` counts them and `wiped_out` says whose discs they were (by player).

Progress (`progress=True`) is one status line on stderr: games over, the share of the moves
played (games advance together, so most of them end together near the end: moves are what
moves), the time so far and an estimate of the time left (`alphazero.console.StatusLine`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from alphazero.arena.elo import EloEstimate, estimate_elo
from alphazero.arena.game_log import GameLog
from alphazero.arena.openings import opening_name, play_opening, random_openings
from alphazero.arena.players import GameInProgress, Player
from alphazero.atomic import write_text_atomic
from alphazero.console import StatusLine, format_seconds
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState, IllegalMoveError
from alphazero.othello.notation import action_name, format_board_text, format_transcript
from alphazero.othello.record import GameRecord


@dataclass
class MatchResult:
    """Outcome of `play_match`, counted from player A's view.

    games: one GameRecord per game (actions include the opening; metadata: black_player,
    white_player, player_a, opening (transcript), opening_plies, pair, game, seed). seconds: wall time of the whole match;
    thinking_seconds: time spent inside each player's move calls, keyed by player name.
    wipeouts: games a side ended with no disc; a_wiped_out / b_wiped_out: how many of them were
    A's discs / B's (None where unknown: a ladder result recorded before the split was kept).
    """

    player_a: str
    player_b: str
    wins: int
    draws: int
    losses: int
    games: list[GameRecord]
    seconds: float
    wipeouts: int
    thinking_seconds: dict = field(default_factory=dict)
    a_wiped_out: int | None = None
    b_wiped_out: int | None = None

    @property
    def num_games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.num_games if self.num_games else 0.5

    @property
    def elo(self) -> EloEstimate:
        return estimate_elo(self.wins, self.draws, self.losses)

    @property
    def elo_diff(self) -> float:
        return self.elo.diff

    @property
    def elo_ci95(self) -> float:
        return self.elo.ci95

    @property
    def games_per_second(self) -> float:
        return self.num_games / self.seconds if self.seconds > 0 else float("inf")

    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """Pairs (one opening, played once with each colour) by player A's points over the two
        games: 0, 1/2, 1, 3/2, 2 (LL, LD, WL or DD, WD, WW): the unit of the gate's test
        (`alphazero.arena.sprt`). A pair with one game here (the other in another shard) is left out."""
        points: dict[int, list[float]] = {}
        for record in self.games:
            margin = record.black_margin if record.metadata["black_player"] == record.metadata["player_a"] else -record.black_margin
            points.setdefault(record.metadata["pair"], []).append(1.0 if margin > 0 else 0.5 if margin == 0 else 0.0)
        counts = [0] * 5
        for scores in points.values():
            if len(scores) == 2:
                counts[int(2 * sum(scores))] += 1
        return tuple(counts)

    def wiped_out(self) -> dict | None:
        """{player name: games that player ended with no disc}, or None where the split is unknown."""
        if self.a_wiped_out is None or self.b_wiped_out is None:
            return None
        return {self.player_a: self.a_wiped_out, self.player_b: self.b_wiped_out}

    def summary(self) -> dict:
        """The JSON-friendly figures `python -m alphazero.arena` prints."""
        elo = self.elo
        return {
            "player_a": self.player_a,
            "player_b": self.player_b,
            "games": self.num_games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "elo_diff": round(elo.diff, 1),
            "elo_ci95": round(elo.ci95, 1),
            "games_per_second": round(self.games_per_second, 3),
            "wipeouts": self.wipeouts,
            "wiped_out": self.wiped_out(),
            "seconds": round(self.seconds, 2),
            "thinking_seconds": {name: round(value, 2) for name, value in self.thinking_seconds.items()},
        }


@dataclass
class _LiveGame:
    index: int
    pair: int
    opening: list
    a_is_black: bool
    actions: list
    state: GameState

    def player_to_move_is_a(self) -> bool:
        return self.state.black_to_move == self.a_is_black

    def history(self) -> GameInProgress:
        return GameInProgress(GameState.start(), tuple(self.actions), self.state)


def play_match(
    player_a: Player,
    player_b: Player,
    num_pairs: int | None,
    opening_plies: int = 4,
    seed: int = 0,
    openings: list | None = None,
    progress: bool = False,
    game_log: GameLog | None = None,
    concurrency: int | None = None,
    shard: tuple[int, int] | None = None,
) -> MatchResult:
    """Play `num_pairs` openings twice each (colours swapped); see the module doc.

    openings: action lists from the standard start (e.g. `openings.read_openings`); the first
    `num_pairs` are used (all when `num_pairs` is None). Without them, `num_pairs` distinct random
    `opening_plies`-ply openings are drawn with `seed`.
    game_log: every game is appended to it as it ends, and games it already holds for these two
    players (same opening, same colours) count as played: a killed match resumes game by game.
    `seconds` and `thinking_seconds` then cover only the games played by this call.
    concurrency: at most this many games in play at once (None = all): games then finish one by
    one instead of all together at the end, which is what a game log needs against a slow engine
    that can only think about one game at a time anyway.
    shard: (k, n) plays (and counts) only the games whose index is k modulo n, so n processes
    sharing one game log can split a match against a slow engine between them: games advance in
    lockstep within a process, so one process idles while its slowest game thinks.
    """
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"concurrency must be >= 1 (or None for all games at once), got {concurrency}")
    if shard is not None:
        check_shard(shard)
    openings = _select_openings(num_pairs, opening_plies, seed, openings)
    names = _distinct_names(player_a, player_b)
    identities = (player_a.identity, player_b.identity)
    logged = game_log.finished_games(*names, *identities) if game_log is not None else {}
    games = []
    for pair, opening in enumerate(openings):
        state = play_opening(opening)
        for a_is_black in (True, False):
            game = _LiveGame(len(games), pair, list(opening), a_is_black, list(opening), state)
            earlier = logged.get((format_transcript(opening, explicit_passes=True), a_is_black))
            if earlier is not None:
                game.actions = list(earlier)
                game.state = play_opening(earlier)
            games.append(game)
    if shard is not None:
        games = [game for game in games if game.index % shard[1] == shard[0]]
    thinking = {names[0]: 0.0, names[1]: 0.0}
    player_a.new_game()
    player_b.new_game()
    started = time.perf_counter()
    pending = [g for g in games if not g.state.is_over()]
    finished = len(games) - len(pending)
    live, pending = pending[:concurrency], pending[concurrency:] if concurrency else []
    label = f"{player_a.name} vs {player_b.name}" + (f" (shard {shard[0]}/{shard[1]})" if shard else "")
    if progress and finished:
        print(f"[arena] {label}: {finished} of {len(games)} games taken from {game_log.path}", file=sys.stderr)
    status = StatusLine(progress)
    moves_at_start = _moves_played(games)
    status.update(_progress_text(label, games, finished, moves_at_start, 0.0), force=True)
    while live:
        for is_a, player, name in ((True, player_a, names[0]), (False, player_b, names[1])):
            for game in live:
                if game.state.must_pass():  # the other side then has a move: one pass at most
                    game.actions.append(PASS)
                    game.state = game.state.play(PASS)
            waiting = [g for g in live if not g.state.is_over() and g.player_to_move_is_a() == is_a]
            if not waiting:
                continue
            tic = time.perf_counter()
            moves = player.select_moves_in_games([g.history() for g in waiting])
            thinking[name] += time.perf_counter() - tic
            if len(moves) != len(waiting):
                raise ValueError(f"{player.name} returned {len(moves)} moves for {len(waiting)} positions")
            for game, move in zip(waiting, moves):
                _play_checked(player, game, move)
        still_live = [g for g in live if not g.state.is_over()]
        if game_log is not None:
            for game in live:
                if game.state.is_over():
                    game_log.append(names[0], names[1], game.opening, game.a_is_black, game.actions, game.state.black_margin(),
                                    *identities)
        newly_finished = len(live) - len(still_live)
        finished += newly_finished
        if concurrency:
            free = concurrency - len(still_live)
            still_live, pending = still_live + pending[:free], pending[free:]
        live = still_live
        # The status line limits how often it is drawn itself (a log gets one line a minute).
        status.update(_progress_text(label, games, finished, moves_at_start, time.perf_counter() - started))
    seconds = time.perf_counter() - started
    status.close(_progress_text(label, games, finished, moves_at_start, seconds))
    return _tally(games, names, seconds, thinking, seed)


def _moves_played(games) -> int:
    """Moves played so far over all games, a finished game counting as all its 60 (a game that
    ends early, by a wipeout or with no move for either side, is done all the same)."""
    return sum(60 if game.state.is_over() else sum(game.state.disc_counts()) - 4 for game in games)


def _progress_text(label: str, games, finished: int, moves_at_start: int, elapsed: float) -> str:
    """`[arena] A vs B: 12/40 games over, 63% of the moves, 1 min 10 s, about 41 s left`: the
    time left is extrapolated from the moves this call has played so far."""
    total = 60 * len(games)
    played = _moves_played(games)
    text = f"[arena] {label}: {finished}/{len(games)} games over, {100 * played / max(total, 1):.0f}% of the moves"
    if elapsed > 0:
        text += f", {format_seconds(elapsed)}"
        done_here = played - moves_at_start
        if 0 < done_here and played < total:
            text += f", about {format_seconds(elapsed * (total - played) / done_here)} left"
    return text


def check_shard(shard: tuple[int, int]) -> None:
    """Reject a shard (k, n) that is not one of n parts: n >= 1 and 0 <= k < n."""
    index, count = shard
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"shard {index}/{count} is not one of {count} parts: need 0 <= k < n")


def _select_openings(num_pairs, opening_plies, seed, openings) -> list:
    if openings is None:
        if num_pairs is None or num_pairs < 1:
            raise ValueError(f"num_pairs must be >= 1 when no openings are given, got {num_pairs}")
        return random_openings(num_pairs, opening_plies, seed)
    openings = [list(o) for o in openings]
    if num_pairs is None:
        num_pairs = len(openings)
    if num_pairs < 1 or len(openings) < num_pairs:
        raise ValueError(f"{num_pairs} pairs requested but {len(openings)} openings given")
    for number, opening in enumerate(openings[:num_pairs]):
        try:
            if play_opening(opening).is_over():
                raise ValueError(f"opening {number} ({opening_name(opening)}) ends the game")
        except IllegalMoveError as err:
            raise ValueError(f"opening {number} ({opening}) is not legal: {err}") from None
    return openings[:num_pairs]


def _distinct_names(player_a: Player, player_b: Player) -> tuple[str, str]:
    if player_a.name != player_b.name:
        return player_a.name, player_b.name
    return f"{player_a.name} (A)", f"{player_b.name} (B)"


def _play_checked(player: Player, game: _LiveGame, move) -> None:
    state = game.state
    try:
        action = int(move)
    except (TypeError, ValueError):
        action = None
    if action is None or action != move or not state.is_legal(action):
        shown = action_name(action) if action is not None and 0 <= action <= PASS else repr(move)
        legal = " ".join(action_name(a) for a in state.legal_actions())
        colour = "black" if state.black_to_move else "white"
        raise IllegalMoveError(
            f"{player.name} played {shown} as {colour} in game {game.index} (opening {opening_name(game.opening)}, "
            f"ply {len(game.actions) + 1}), which is illegal; legal: {legal}; position {format_board_text(state)}; "
            f"moves so far {format_transcript(game.actions, explicit_passes=True)}"
        )
    game.actions.append(action)
    game.state = state.play(action)


def _tally(games, names, seconds, thinking, seed) -> MatchResult:
    wins = draws = losses = wipeouts = a_wiped_out = b_wiped_out = 0
    records = []
    for game in games:
        margin = game.state.black_margin()
        margin_a = margin if game.a_is_black else -margin
        wins += margin_a > 0
        draws += margin_a == 0
        losses += margin_a < 0
        black_discs, white_discs = game.state.disc_counts()
        wipeouts += min(black_discs, white_discs) == 0
        a_discs, b_discs = (black_discs, white_discs) if game.a_is_black else (white_discs, black_discs)
        a_wiped_out += a_discs == 0
        b_wiped_out += b_discs == 0
        black, white = names if game.a_is_black else names[::-1]
        records.append(
            GameRecord(
                start=GameState.start(),
                actions=game.actions,
                black_margin=margin,
                metadata={
                    "black_player": black,
                    "white_player": white,
                    "player_a": names[0],
                    "opening": opening_name(game.opening),
                    "opening_plies": len(game.opening),
                    "pair": game.pair,
                    "game": game.index,
                    "seed": seed,
                },
            )
        )
    return MatchResult(names[0], names[1], wins, draws, losses, records, seconds, wipeouts, thinking, a_wiped_out, b_wiped_out)


def save_games_ggf(result: MatchResult, path) -> None:
    """Write the match's games as GGF (one game per line, atomically) via `alphazero.data.ggf`;
    players become PB/PW, the result RE."""
    from alphazero.data.ggf import write_ggf

    write_ggf(path, result.games, place="alphazero-arena")


def save_games_transcripts(result: MatchResult, path) -> None:
    """One line per game: `black<TAB>white<TAB>black margin<TAB>transcript` (passes as `pa`),
    written atomically."""
    lines = ["# black\twhite\tblack_margin\ttranscript"]
    for record in result.games:
        lines.append(
            f"{record.metadata['black_player']}\t{record.metadata['white_player']}\t{record.black_margin:+d}\t"
            f"{format_transcript(record.actions, explicit_passes=True)}"
        )
    write_text_atomic(path, "\n".join(lines) + "\n")


