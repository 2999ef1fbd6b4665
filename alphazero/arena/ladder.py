"""A round-robin ladder: every pair of players plays a match; one Elo scale is fitted to all results.

All pairings use the same openings (same seed), so every player meets the same positions. The
report is a markdown table of fitted ratings and a score matrix (row player's score against the
column player, with wins-draws-losses).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from alphazero.arena.elo import fit_ratings
from alphazero.arena.match import MatchResult, play_match
from alphazero.arena.openings import random_openings
from alphazero.arena.players import Player


@dataclass
class LadderResult:
    """names: player labels (made distinct); matches[(i, j)] for i < j: player i as A vs j as B;
    ratings: fitted Elo per player (mean 0)."""

    names: list
    matches: dict
    ratings: np.ndarray

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(points[i, j], games[i, j], wins-draws-losses[i, j, 3]) from the row player's view."""
        count = len(self.names)
        points = np.zeros((count, count))
        games = np.zeros((count, count))
        record = np.zeros((count, count, 3), dtype=np.int64)
        for (i, j), result in self.matches.items():
            points[i, j] = result.wins + 0.5 * result.draws
            points[j, i] = result.losses + 0.5 * result.draws
            games[i, j] = games[j, i] = result.num_games
            record[i, j] = (result.wins, result.draws, result.losses)
            record[j, i] = (result.losses, result.draws, result.wins)
        return points, games, record

    def to_markdown(self) -> str:
        points, games, record = self.tables()
        order = sorted(range(len(self.names)), key=lambda i: (-self.ratings[i], i))
        lines = ["| rank | player | Elo | score | games | wipeouts |", "|---:|---|---:|---:|---:|---:|"]
        wipeouts = np.zeros(len(self.names), dtype=np.int64)
        for (i, j), result in self.matches.items():
            wipeouts[i] += result.wipeouts
            wipeouts[j] += result.wipeouts
        for rank, i in enumerate(order, start=1):
            played = games[i].sum()
            score = points[i].sum() / played if played else float("nan")
            lines.append(
                f"| {rank} | {_cell(self.names[i])} | {self.ratings[i]:+.0f} | {score:.3f} | {played:.0f} | {wipeouts[i]} |"
            )
        lines += ["", "Score of the row player against the column player (wins-draws-losses):", ""]
        lines.append("| | " + " | ".join(_cell(self.names[i]) for i in order) + " |")
        lines.append("|---|" + "---|" * len(order))
        for i in order:
            cells = []
            for j in order:
                if i == j or games[i, j] == 0:
                    cells.append("-")
                else:
                    wins, draws, losses = record[i, j]
                    cells.append(f"{points[i, j] / games[i, j]:.3f} ({wins}-{draws}-{losses})")
            lines.append(f"| {_cell(self.names[i])} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def summary(self) -> dict:
        return {name: round(float(rating), 1) for name, rating in zip(self.names, self.ratings)}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def play_ladder(
    players: list[Player],
    num_pairs: int,
    opening_plies: int = 4,
    seed: int = 0,
    openings: list | None = None,
    progress: bool = False,
    prior_games: float = 1.0,
) -> LadderResult:
    """Round-robin of `play_match` over all pairs of `players` on shared openings; fit ratings."""
    if len(players) < 2:
        raise ValueError(f"a ladder needs at least 2 players, got {len(players)}")
    names = _distinct_names([player.name for player in players])
    if openings is None:
        openings = random_openings(num_pairs, opening_plies, seed)
    matches: dict[tuple[int, int], MatchResult] = {}
    for i, j in itertools.combinations(range(len(players)), 2):
        matches[(i, j)] = play_match(players[i], players[j], num_pairs, seed=seed, openings=openings, progress=progress)
    ladder = LadderResult(names, matches, np.zeros(len(players)))
    points, games, _ = ladder.tables()
    ladder.ratings = fit_ratings(points, games, prior_games=prior_games)
    return ladder


def _distinct_names(names: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    out = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        out.append(name if names.count(name) == 1 else f"{name} #{counts[name]}")
    return out
