"""A round-robin ladder: every pair of players plays a match; one Elo scale is fitted to all results.

All pairings use the same openings (same seed), so every player meets the same positions. The
report is a markdown table of fitted ratings and a score matrix (row player's score against the
column player, with wins-draws-losses).

A gauntlet (`gauntlet=K`) plays only the pairings that involve one of the first K players: the way
to measure a few networks against a fixed field of opponents without paying for the field's own
round robin. With a results file, every finished match is appended to it (one JSON line) and a
restarted ladder reuses the matches already there; with a game log as well (`--games-log`), the
match a kill interrupted resumes at its first unfinished game.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alphazero.arena.elo import fit_ratings
from alphazero.arena.game_log import GameLog, line_problem, numbered_lines, same_identity
from alphazero.arena.match import MatchResult, check_shard, play_match
from alphazero.arena.openings import random_openings
from alphazero.arena.players import Player
from alphazero.atomic import append_json_line


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

    def wipeouts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per player: (wipeouts given: opponents it left with no disc, wipeouts suffered, wipeouts in
        its matches that a results file recorded before they were attributed to a side)."""
        count = len(self.names)
        given, suffered, unsplit = (np.zeros(count, dtype=np.int64) for _ in range(3))
        for (i, j), result in self.matches.items():
            if result.a_wiped_out is None or result.b_wiped_out is None:
                unsplit[i] += result.wipeouts
                unsplit[j] += result.wipeouts
                continue
            given[i] += result.b_wiped_out
            suffered[i] += result.a_wiped_out
            given[j] += result.a_wiped_out
            suffered[j] += result.b_wiped_out
        return given, suffered, unsplit

    def to_markdown(self) -> str:
        points, games, record = self.tables()
        order = sorted(range(len(self.names)), key=lambda i: (-self.ratings[i], i))
        lines = [
            "| rank | player | Elo | score | games | wipeouts given-suffered |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        given, suffered, unsplit = self.wipeouts()
        for rank, i in enumerate(order, start=1):
            played = games[i].sum()
            score = points[i].sum() / played if played else float("nan")
            wipeouts = f"{given[i]}-{suffered[i]}" + (f" (+{unsplit[i]} unattributed)" if unsplit[i] else "")
            lines.append(
                f"| {rank} | {_cell(self.names[i])} | {self.ratings[i]:+.0f} | {score:.3f} | {played:.0f} | {wipeouts} |"
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


def ladder_pairings(num_players: int, gauntlet: int = 0) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, to play: all of them, or with `gauntlet` K > 0 those with i < K."""
    if gauntlet < 0:
        raise ValueError(f"gauntlet must be >= 0 (0 = full round robin), got {gauntlet}")
    if gauntlet >= num_players:
        raise ValueError(f"gauntlet {gauntlet} leaves no field to play: only {num_players} players")
    pairs = itertools.combinations(range(num_players), 2)
    return [(i, j) for i, j in pairs if gauntlet == 0 or i < gauntlet]


def play_ladder(
    players: list[Player],
    num_pairs: int,
    opening_plies: int = 4,
    seed: int = 0,
    openings: list | None = None,
    progress: bool = False,
    prior_games: float = 1.0,
    gauntlet: int = 0,
    results_path: str | os.PathLike | None = None,
    game_log: GameLog | None = None,
    concurrency: int | None = None,
    shard: tuple[int, int] | None = None,
) -> LadderResult:
    """`play_match` over the ladder's pairings (`ladder_pairings`) on shared openings; fit ratings.

    `results_path`: a JSON-lines file of finished matches, appended to as they finish and read back
    on a restart (a match is reused when both player names and the openings are the same).
    `game_log`, `concurrency`: passed to every match (`play_match`), so the match a kill
    interrupted resumes game by game.
    `shard` (k, n): passed to every match, so n processes sharing `game_log` split the ladder's games
    between them. A shard's table covers only its part, so it records no `results_path`: once every
    shard is done, the same ladder without `shard` takes all games from the log and writes them."""
    if len(players) < 2:
        raise ValueError(f"a ladder needs at least 2 players, got {len(players)}")
    if shard is not None:
        check_shard(shard)
        if results_path:
            raise ValueError(
                f"shard {shard[0]}/{shard[1]} plays only part of each match, so it cannot record whole matches in "
                f"{results_path}: leave the results file out of the shards, then run the ladder once more without "
                "a shard to write it from the games log"
            )
    names = _distinct_names([player.name for player in players])
    pairings = ladder_pairings(len(players), gauntlet)
    if openings is None:
        openings = random_openings(num_pairs, opening_plies, seed)
    openings_key = _openings_key(openings)
    done = _read_results(results_path, openings_key) if results_path else {}
    matches: dict[tuple[int, int], MatchResult] = {}
    for i, j in pairings:
        cached, logged_identities = done.get((names[i], names[j]), (None, ("", "")))
        if cached is not None and all(map(same_identity, logged_identities, (players[i].identity, players[j].identity))):
            matches[(i, j)] = cached
            continue
        if cached is not None:
            print(
                f"warning: {results_path}: the match {names[i]} vs {names[j]} there was played by another network under "
                "the same name (its checkpoint differs): it is played again", file=sys.stderr,
            )
        result = play_match(
            players[i], players[j], num_pairs, seed=seed, openings=openings, progress=progress, game_log=game_log,
            concurrency=concurrency, shard=shard,
        )
        matches[(i, j)] = result
        if results_path:
            _append_result(results_path, names[i], names[j], openings_key, result, players[i].identity, players[j].identity)
        if progress:
            print(
                f"ladder {len(matches)}/{len(pairings)}: {names[i]} vs {names[j]}: {result.score:.3f} "
                f"(+{result.wins} ={result.draws} -{result.losses}) in {result.seconds:.0f}s",
                file=sys.stderr, flush=True,
            )
    ladder = LadderResult(names, matches, np.zeros(len(players)))
    points, games, _ = ladder.tables()
    ladder.ratings = fit_ratings(points, games, prior_games=prior_games)
    return ladder


def _openings_key(openings: list) -> str:
    """A short fingerprint of the opening list, so results from other openings are never reused."""
    text = "\n".join(" ".join(str(int(action)) for action in opening) for opening in openings)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _append_result(path, name_a: str, name_b: str, openings_key: str, result: MatchResult, identity_a: str = "",
                   identity_b: str = "") -> None:
    line = {
        "player_a": name_a, "player_b": name_b, "openings": openings_key,
        "wins": result.wins, "draws": result.draws, "losses": result.losses,
        "wipeouts": result.wipeouts, "a_wiped_out": result.a_wiped_out, "b_wiped_out": result.b_wiped_out,
        "seconds": round(result.seconds, 2),
    }
    line.update({key: value for key, value in (("identity_a", identity_a), ("identity_b", identity_b)) if value})
    append_json_line(path, line)


def _read_results(path, openings_key: str) -> dict[tuple[str, str], tuple[MatchResult, tuple[str, str]]]:
    """Finished matches of an earlier run of the same ladder, each with the players' identities
    as logged ('' where the line has none); a torn last line is ignored."""
    path = Path(path)
    if not path.exists():
        return {}
    out = {}
    for number, line in numbered_lines(path):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (row["player_a"], row["player_b"])
            result = MatchResult(
                row["player_a"], row["player_b"], int(row["wins"]), int(row["draws"]), int(row["losses"]),
                games=[], seconds=float(row["seconds"]), wipeouts=int(row["wipeouts"]),
                a_wiped_out=_optional_int(row.get("a_wiped_out")), b_wiped_out=_optional_int(row.get("b_wiped_out")),
            )
            matches_openings = row["openings"] == openings_key
            identities = tuple(row.get(field) or "" for field in ("identity_a", "identity_b"))
            if not all(isinstance(identity, str) for identity in identities):
                raise TypeError(f"identities must be text, got {identities!r}")
        except (ValueError, KeyError, TypeError) as err:
            print(f"warning: {path}:{number}: unreadable ladder result ignored ({line_problem(err)})", file=sys.stderr)
            continue
        if matches_openings:
            out[key] = (result, identities)
    return out


def _optional_int(value) -> int | None:
    """A count a results line may lack (written before it was recorded): None, else an int."""
    return None if value is None else int(value)


def _distinct_names(names: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    out = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        out.append(name if names.count(name) == 1 else f"{name} #{counts[name]}")
    return out
