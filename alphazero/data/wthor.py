"""WTHOR: the French Othello Federation's database of tournament games (`WTH_YYYY.wtb`), with its
player (`WTHOR.JOU`) and tournament (`WTHOR.TRN`) name files.

Layout, checked against the real files (all integers little-endian):

- 16-byte header: creation century, year, month, day (4 bytes); uint32 number of games (the
  `.wtb` count); uint16 number of records (the `.JOU`/`.TRN` count, 0 in `.wtb` files); uint16
  year of the games; byte board size (0 or 8 = 8x8); byte game type; byte depth of the
  theoretical score; byte reserved.
- `.wtb`: 68-byte game records: uint16 tournament, uint16 black player, uint16 white player,
  byte black's final disc count, byte black's theoretical score, 60 move bytes `10*row + col`
  (rows and columns from 1, so 56 = f5), 0 after the last move. Passes are not recorded.
- `.JOU` / `.TRN`: 20- / 26-byte latin-1 names, NUL padded.

Reading is numpy structured dtypes (all 124,082 games in well under a second); validation is one
numba kernel, `replay_games`, that replays every game at once, inferring passes.

What counts as a usable game (`WthorReplay.problems` lists every game that is not, with its file,
index, move number and reason; such games are counted and skipped, never silently used):
- every recorded move is legal (passes inferred where the side to move has none);
- no move is recorded after the game is over;
- the recorded black disc count equals the replayed final count with the empties given to the
  winner (WTHOR's rule; a draw counts 32).

Unfinished games (the record stops before neither side can move: resignations, time losses,
incomplete transcriptions) are kept when their recorded score agrees with the position where the
record stops, counted the same way (empties to the side with more discs). Their moves are real
expert moves, and the recorded score is the official result, so the outcome used for them is the
recorded score; `GameRecord.metadata["finished"]` is False so a consumer can drop them. Unfinished
games whose recorded score disagrees with that count are skipped like any other score mismatch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from alphazero.othello.bits import ZERO
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, final_margin, legal_moves, make_move
from alphazero.othello.game import GameState
from alphazero.othello.notation import square_name
from alphazero.othello.record import GameRecord


class DataFormatError(ValueError):
    """A data file that does not follow its format; the message names the file and byte offset."""


HEADER_SIZE = 16
GAME_SIZE = 68
MOVES_PER_GAME = 60
MOVES_OFFSET = 8  # offset of the first move byte inside a game record
PLAYER_NAME_SIZE = 20
TOURNAMENT_NAME_SIZE = 26

HEADER_DTYPE = np.dtype(
    [
        ("century", "u1"),
        ("year", "u1"),
        ("month", "u1"),
        ("day", "u1"),
        ("num_games", "<u4"),
        ("num_records", "<u2"),
        ("games_year", "<u2"),
        ("board_size", "u1"),
        ("game_type", "u1"),
        ("depth", "u1"),
        ("reserved", "u1"),
    ]
)
GAME_DTYPE = np.dtype(
    [
        ("tournament", "<u2"),
        ("black_player", "<u2"),
        ("white_player", "<u2"),
        ("black_discs", "u1"),
        ("theoretical_score", "u1"),
        ("moves", "u1", (MOVES_PER_GAME,)),
    ]
)
assert HEADER_DTYPE.itemsize == HEADER_SIZE and GAME_DTYPE.itemsize == GAME_SIZE

NO_MOVE = -1  # decoded square of a 0 byte (end of the game's moves)
_BAD_BYTE = -2


def _build_byte_to_square() -> np.ndarray:
    """int8[256]: WTHOR move byte -> our square (a1 = 0 .. h8 = 63), NO_MOVE for 0, _BAD_BYTE else."""
    table = np.full(256, _BAD_BYTE, dtype=np.int8)
    table[0] = NO_MOVE
    for row in range(1, 9):
        for col in range(1, 9):
            table[10 * row + col] = (row - 1) * 8 + (col - 1)
    return table


BYTE_TO_SQUARE = _build_byte_to_square()
SQUARE_TO_BYTE = np.array([10 * (s // 8 + 1) + s % 8 + 1 for s in range(64)], dtype=np.uint8)


# ------------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class WthorHeader:
    created: tuple[int, int, int]  # (year, month, day) the file was written
    num_games: int
    num_records: int
    games_year: int
    board_size: int
    game_type: int
    depth: int

    @classmethod
    def from_bytes(cls, raw: np.ndarray) -> "WthorHeader":
        h = raw.view(HEADER_DTYPE)[0]
        return cls(
            created=(int(h["century"]) * 100 + int(h["year"]), int(h["month"]), int(h["day"])),
            num_games=int(h["num_games"]),
            num_records=int(h["num_records"]),
            games_year=int(h["games_year"]),
            board_size=int(h["board_size"]),
            game_type=int(h["game_type"]),
            depth=int(h["depth"]),
        )


@dataclass(frozen=True)
class WthorFile:
    """One `.wtb` file: its header, the raw game records and their moves decoded to squares.

    games:   GAME_DTYPE[G] structured records as stored.
    squares: int8[G, 60] our square index per recorded move, NO_MOVE (-1) after the last.
    """

    path: Path
    header: WthorHeader
    games: np.ndarray
    squares: np.ndarray

    def __len__(self) -> int:
        return len(self.games)


@dataclass(frozen=True)
class WthorGame:
    """One game as recorded (no replay, passes not recorded)."""

    file: str
    index: int
    year: int
    tournament: int
    black_player: int
    white_player: int
    black_discs: int
    theoretical_score: int
    squares: tuple[int, ...]


def _read_bytes(path: Path) -> np.ndarray:
    raw = np.fromfile(path, dtype=np.uint8)
    if len(raw) < HEADER_SIZE:
        raise DataFormatError(f"{path}: {len(raw)} bytes is shorter than the {HEADER_SIZE}-byte header")
    return raw


def _record_count(path: Path, size: int, record_size: int, header_count: int, count_offset: int, what: str) -> int:
    body = size - HEADER_SIZE
    count, partial = divmod(body, record_size)
    if partial:
        raise DataFormatError(
            f"{path}: size {size} bytes is not {HEADER_SIZE} + {record_size}*n: truncated or corrupt, "
            f"a {partial}-byte partial record starts at byte offset {HEADER_SIZE + count * record_size}"
        )
    if header_count != count:
        raise DataFormatError(
            f"{path}: header count at byte offset {count_offset} says {header_count} {what} "
            f"but the file holds {count} {record_size}-byte records"
        )
    return count


def decode_moves(path: Path, moves: np.ndarray) -> np.ndarray:
    """uint8[G, 60] move bytes -> int8[G, 60] squares; DataFormatError naming the first bad byte."""
    squares = BYTE_TO_SQUARE[moves]
    bad = squares == _BAD_BYTE
    ended = np.cumsum(squares == NO_MOVE, axis=1) > 0
    after_end = ended & (squares != NO_MOVE)
    for problem, expected in ((bad, "a square byte 11..88 (10*row + column, each 1..8) or 0"), (after_end, "0 (the game's moves ended earlier)")):
        if problem.any():
            game, move = np.argwhere(problem)[0]
            offset = HEADER_SIZE + game * GAME_SIZE + MOVES_OFFSET + move
            raise DataFormatError(
                f"{path}: game {game} move {move + 1}: byte {moves[game, move]} at byte offset {offset}; expected {expected}"
            )
    return squares


def read_wtb_file(path: str | os.PathLike) -> WthorFile:
    """Read and check one `.wtb` file (sizes, header count, board size, move bytes)."""
    path = Path(path)
    raw = _read_bytes(path)
    header = WthorHeader.from_bytes(raw[:HEADER_SIZE])
    count = _record_count(path, len(raw), GAME_SIZE, header.num_games, 4, "games")
    if header.board_size not in (0, 8):
        raise DataFormatError(f"{path}: board size {header.board_size} at byte offset 12; expected 0 or 8 (8x8)")
    games = raw[HEADER_SIZE:].view(GAME_DTYPE) if count else np.empty(0, dtype=GAME_DTYPE)
    squares = decode_moves(path, games["moves"].reshape(count, MOVES_PER_GAME))
    return WthorFile(path, header, games, squares)


def read_wtb(path: str | os.PathLike) -> list[WthorGame]:
    """The games of one `.wtb` file as `WthorGame`s (convenient; for bulk work use `read_wtb_file`)."""
    wtb = read_wtb_file(path)
    out = []
    for index, (game, squares) in enumerate(zip(wtb.games, wtb.squares)):
        out.append(
            WthorGame(
                file=wtb.path.name,
                index=index,
                year=wtb.header.games_year,
                tournament=int(game["tournament"]),
                black_player=int(game["black_player"]),
                white_player=int(game["white_player"]),
                black_discs=int(game["black_discs"]),
                theoretical_score=int(game["theoretical_score"]),
                squares=tuple(int(s) for s in squares[squares != NO_MOVE]),
            )
        )
    return out


def read_names(path: str | os.PathLike, record_size: int) -> list[str]:
    """Names from `WTHOR.JOU` (record_size 20) or `WTHOR.TRN` (26): latin-1, NUL padded."""
    path = Path(path)
    raw = _read_bytes(path)
    header = WthorHeader.from_bytes(raw[:HEADER_SIZE])
    count = _record_count(path, len(raw), record_size, header.num_records, 8, "names")
    data = raw[HEADER_SIZE:].tobytes()
    return [data[i * record_size : (i + 1) * record_size].split(b"\0", 1)[0].decode("latin-1").strip() for i in range(count)]


def read_players(path: str | os.PathLike) -> list[str]:
    return read_names(path, PLAYER_NAME_SIZE)


def read_tournaments(path: str | os.PathLike) -> list[str]:
    return read_names(path, TOURNAMENT_NAME_SIZE)


@dataclass
class WthorDatabase:
    """Every game of a WTHOR directory, concatenated in file order.

    files:      file names; `file_id` indexes this list.
    file_id:    int16[G] which file each game came from.
    index:      int32[G] the game's index inside its file.
    year:       uint16[G] year of the games (from the file header).
    games:      GAME_DTYPE[G] raw records.
    squares:    int8[G, 60] decoded moves, NO_MOVE after the last.
    players / tournaments: names (empty lists when WTHOR.JOU / WTHOR.TRN are absent).
    """

    files: list[str]
    file_id: np.ndarray
    index: np.ndarray
    year: np.ndarray
    games: np.ndarray
    squares: np.ndarray
    players: list[str] = field(default_factory=list)
    tournaments: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.games)

    def player_name(self, number: int) -> str:
        return self.players[number] if number < len(self.players) else f"player #{number}"

    def tournament_name(self, number: int) -> str:
        return self.tournaments[number] if number < len(self.tournaments) else f"tournament #{number}"


def wtb_paths(directory: str | os.PathLike, years=None) -> list[Path]:
    """`WTH_*.wtb` files of `directory` in name (= year) order, optionally only those `years`."""
    paths = sorted(Path(directory).glob("WTH_*.wtb"))
    if years is not None:
        wanted = {int(y) for y in years}
        paths = [p for p in paths if p.stem[4:].isdigit() and int(p.stem[4:]) in wanted]
    return paths


def read_wthor_directory(directory: str | os.PathLike, years=None, progress: bool = False) -> WthorDatabase:
    """All `.wtb` files of `directory` (optionally only `years`), plus the name files if present."""
    directory = Path(directory)
    paths = wtb_paths(directory, years)
    if not paths:
        raise FileNotFoundError(f"no WTHOR files (WTH_*.wtb) in {directory}" + (f" for years {sorted(years)}" if years else ""))
    files = []
    if progress:
        from tqdm import tqdm

        paths = tqdm(paths, desc="reading WTHOR", unit="file")
    for path in paths:
        files.append(read_wtb_file(path))
    sizes = [len(f) for f in files]
    players_path, tournaments_path = directory / "WTHOR.JOU", directory / "WTHOR.TRN"
    return WthorDatabase(
        files=[f.path.name for f in files],
        file_id=np.repeat(np.arange(len(files), dtype=np.int16), sizes),
        index=np.concatenate([np.arange(n, dtype=np.int32) for n in sizes]),
        year=np.repeat(np.array([f.header.games_year for f in files], dtype=np.uint16), sizes),
        games=np.concatenate([f.games for f in files]),
        squares=np.concatenate([f.squares for f in files]).reshape(-1, MOVES_PER_GAME),
        players=read_players(players_path) if players_path.exists() else [],
        tournaments=read_tournaments(tournaments_path) if tournaments_path.exists() else [],
    )


# ------------------------------------------------------------------------------------------------
# Replay

REPLAY_OK = 0
REPLAY_ILLEGAL_MOVE = 1
REPLAY_MOVE_AFTER_END = 2
MAX_PLIES = 2 * MOVES_PER_GAME  # a pass is always followed by a move, so passes <= moves


@njit(cache=True)
def replay_games(squares):
    """Replay G recorded games at once from the standard start, inferring passes.

    Args:
      squares: int8[G, 60] recorded moves (our square indices), NO_MOVE (-1) after the last.
    Returns:
      status:       int8[G] REPLAY_OK, REPLAY_ILLEGAL_MOVE or REPLAY_MOVE_AFTER_END.
      bad_move:     int16[G] 0-based index into the recorded moves of the offending move (-1 if OK).
      actions:      int16[G, MAX_PLIES] the game with explicit passes (valid up to num_plies).
      num_plies:    int16[G] plies replayed (moves + inferred passes) before the end or the error.
      black_margin: int8[G] black's disc difference where the replay stopped, empties to the side
                    with more discs (the WTHOR count; exact final result when the game is over).
      game_over:    bool[G] neither side can move where the replay stopped.
    """
    count = squares.shape[0]
    status = np.zeros(count, dtype=np.int8)
    bad_move = np.full(count, -1, dtype=np.int16)
    actions = np.full((count, MAX_PLIES), -1, dtype=np.int16)
    num_plies = np.zeros(count, dtype=np.int16)
    black_margin = np.zeros(count, dtype=np.int8)
    game_over = np.zeros(count, dtype=np.bool_)
    for g in range(count):
        player, opponent = START_BLACK, START_WHITE
        black_to_move = True
        ply = 0
        for m in range(squares.shape[1]):
            square = squares[g, m]
            if square < 0:
                break
            moves = legal_moves(player, opponent)
            if moves == ZERO:
                if legal_moves(opponent, player) == ZERO:
                    status[g] = REPLAY_MOVE_AFTER_END
                    bad_move[g] = m
                    break
                actions[g, ply] = PASS
                ply += 1
                player, opponent = opponent, player
                black_to_move = not black_to_move
                moves = legal_moves(player, opponent)
            if (moves >> np.uint64(square)) & np.uint64(1) == ZERO:
                status[g] = REPLAY_ILLEGAL_MOVE
                bad_move[g] = m
                break
            actions[g, ply] = square
            ply += 1
            player, opponent = make_move(player, opponent, square)
            black_to_move = not black_to_move
        num_plies[g] = ply
        margin = final_margin(player, opponent)
        black_margin[g] = margin if black_to_move else -margin
        game_over[g] = legal_moves(player, opponent) == ZERO and legal_moves(opponent, player) == ZERO
    return status, bad_move, actions, num_plies, black_margin, game_over


@dataclass(frozen=True)
class GameProblem:
    """Why one recorded game is not used."""

    file: str
    index: int
    move: int | None  # 1-based move number in the record (passes not counted), None if not a move
    ply: int | None  # 1-based ply of that move in the replay (inferred passes counted)
    reason: str

    def __str__(self) -> str:
        where = f" move {self.move} (ply {self.ply})" if self.move is not None else ""
        return f"{self.file} game {self.index}{where}: {self.reason}"


@dataclass
class WthorReplay:
    """The replay of a whole `WthorDatabase` (arrays as returned by `replay_games`).

    usable:        bool[G] legal, nothing after the end, recorded score = replayed score.
    score_matches: bool[G] recorded black discs == (64 + replayed black margin) / 2.
    """

    database: WthorDatabase
    status: np.ndarray
    bad_move: np.ndarray
    actions: np.ndarray
    num_plies: np.ndarray
    black_margin: np.ndarray
    game_over: np.ndarray
    score_matches: np.ndarray
    usable: np.ndarray

    def problems(self) -> list[GameProblem]:
        """Every game not usable, with the reason, in database order."""
        db = self.database
        out = []
        for g in np.flatnonzero(~self.usable):
            file, index = db.files[db.file_id[g]], int(db.index[g])
            move = int(self.bad_move[g])
            ply = int(self.num_plies[g]) + 1  # the replay stopped just before the offending move
            if self.status[g] == REPLAY_ILLEGAL_MOVE:
                square = int(db.squares[g, move])
                reason = f"illegal move {square_name(square)} (byte {SQUARE_TO_BYTE[square]})"
                out.append(GameProblem(file, index, move + 1, ply, reason))
            elif self.status[g] == REPLAY_MOVE_AFTER_END:
                square = int(db.squares[g, move])
                out.append(GameProblem(file, index, move + 1, ply, f"move {square_name(square)} after the end of the game"))
            else:
                recorded = int(db.games["black_discs"][g])
                replayed = (64 + int(self.black_margin[g])) // 2
                state = "final position" if self.game_over[g] else "position where the record stops (game unfinished)"
                out.append(
                    GameProblem(file, index, None, None, f"recorded black discs {recorded} != {replayed} replayed from the {state}")
                )
        return out

    def counts(self) -> dict:
        return {
            "games": len(self.usable),
            "usable": int(self.usable.sum()),
            "illegal_move": int((self.status == REPLAY_ILLEGAL_MOVE).sum()),
            "move_after_end": int((self.status == REPLAY_MOVE_AFTER_END).sum()),
            "score_mismatch": int(((self.status == REPLAY_OK) & ~self.score_matches).sum()),
            "unfinished": int(((self.status == REPLAY_OK) & ~self.game_over).sum()),
            "unfinished_usable": int((self.usable & ~self.game_over).sum()),
        }

    def game_record(self, g: int) -> GameRecord:
        """GameRecord of game `g` (usable or not; the metadata says which)."""
        db = self.database
        game = db.games[g]
        return GameRecord(
            start=GameState.start(),
            actions=self.actions[g, : self.num_plies[g]].copy(),
            black_margin=int(self.black_margin[g]),
            metadata={
                "source": "wthor",
                "file": db.files[db.file_id[g]],
                "index": int(db.index[g]),
                "year": int(db.year[g]),
                "tournament": db.tournament_name(int(game["tournament"])),
                "black_player": db.player_name(int(game["black_player"])),
                "white_player": db.player_name(int(game["white_player"])),
                "recorded_black_discs": int(game["black_discs"]),
                "theoretical_black_discs": int(game["theoretical_score"]),
                "finished": bool(self.game_over[g]),
                "usable": bool(self.usable[g]),
            },
        )

    def game_records(self) -> list[GameRecord]:
        """GameRecords of the usable games only (see the module docstring for the rules)."""
        return [self.game_record(int(g)) for g in np.flatnonzero(self.usable)]


def replay_database(db: WthorDatabase) -> WthorReplay:
    status, bad_move, actions, num_plies, black_margin, game_over = replay_games(db.squares)
    replayed_discs = (64 + black_margin.astype(np.int16)) // 2
    score_matches = db.games["black_discs"].astype(np.int16) == replayed_discs
    usable = (status == REPLAY_OK) & score_matches
    return WthorReplay(db, status, bad_move, actions, num_plies, black_margin, game_over, score_matches, usable)


def load_wthor_records(directory: str | os.PathLike, years=None) -> tuple[list[GameRecord], WthorReplay]:
    """Usable games of a WTHOR directory as GameRecords, with the replay that reports the rest."""
    replay = replay_database(read_wthor_directory(directory, years))
    return replay.game_records(), replay
