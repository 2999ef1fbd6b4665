"""Writers of small synthetic WTHOR files for the reader and dataset tests (not a test module)."""

import json
from pathlib import Path

import numpy as np

from alphazero.data.dataset import MANIFEST, build_dataset
from alphazero.data.wthor import GAME_DTYPE, HEADER_DTYPE, SQUARE_TO_BYTE
from alphazero.othello.notation import parse_square

SHORTEST_GAME = "d3 c3 b3 d2 e1 d6 d7 e3 f4"  # 9 plies, black wipes white out: 13-0 -> 64 discs
# A complete random game with one forced pass (black, after h3): white wins 36-28 (black margin -8).
GAME_WITH_PASS = (
    "d3c3e6d2c2f6e2e7f7g7g6h5b2a1g8f4b4f8a2d6f5d1h8f2e1c4h7a4c1a3g2g5b3e8f3e3a5c6d7h1b5a6d8g1f1c5h4g3h2"
    "g4b6b1h6a7b7h3b8a8c7c8"
)


def squares(transcript: str) -> list[int]:
    text = "".join(transcript.split())
    return [parse_square(text[i : i + 2]) for i in range(0, len(text), 2)]


def header_bytes(num_games=0, num_records=0, games_year=0, board_size=8) -> bytes:
    header = np.zeros(1, dtype=HEADER_DTYPE)
    header[0] = (20, 24, 1, 2, num_games, num_records, games_year, board_size, 0, 22, 0)
    return header.tobytes()


def wtb_bytes(games, year=2017) -> bytes:
    """games: (transcript or square list, black_discs[, tournament, black, white]) tuples."""
    records = np.zeros(len(games), dtype=GAME_DTYPE)
    for i, game in enumerate(games):
        moves, discs, *ids = game
        moves = squares(moves) if isinstance(moves, str) else list(moves)
        tournament, black, white = ids or (0, 1, 2)
        encoded = np.zeros(60, dtype=np.uint8)
        encoded[: len(moves)] = SQUARE_TO_BYTE[moves]
        records[i] = (tournament, black, white, discs, discs, encoded)
    return header_bytes(num_games=len(games), games_year=year) + records.tobytes()


def write_wtb(directory: Path, year: int, games) -> Path:
    path = Path(directory) / f"WTH_{year}.wtb"
    path.write_bytes(wtb_bytes(games, year))
    return path


def names_bytes(names, record_size) -> bytes:
    body = b"".join(name.encode("latin-1").ljust(record_size, b"\0") for name in names)
    return header_bytes(num_records=len(names), games_year=0, board_size=0) + body


def build_dataset_of_version(wthor_directory: Path, out: Path, version: int) -> None:
    """A dataset built from `wthor_directory` into `out` whose manifest says it was written by
    format `version`: how the loader's handling of older datasets is tested."""
    build_dataset(wthor_directory, out, progress=False)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["version"] = version
    (out / MANIFEST).write_text(json.dumps(manifest))
