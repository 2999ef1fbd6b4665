"""The network and the search for the page: AI moves, analyses and the value-over-the-game chart.

One `Engines` object per server holds the loaded networks (one `SearchChooser` per checkpoint
file, built by the chooser factory that play and GTP use) and runs one search at a time: the
page's requests arrive on several threads, and a search tree is not shared safely between them.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK
from alphazero.othello.notation import action_name
from alphazero.play.choosers import NoAIError, SearchChooser, SearchSettings, network_chooser
from alphazero.web.positions import Game, InputError

MAX_SIMULATIONS = 100_000
MAX_SECONDS = 120.0
MAX_CACHED_NETWORKS = 4


@dataclass(frozen=True)
class Budget:
    """Simulations or seconds per search (both: whichever ends first), as the page asks."""

    simulations: int | None
    seconds: float | None

    @classmethod
    def from_request(cls, simulations, seconds, default_simulations: int) -> "Budget":
        def number(value, name, kind, low, high):
            if value in (None, ""):
                return None
            if kind is int and isinstance(value, float) and not value.is_integer():
                raise InputError(f"{name} must be a whole number, got {value!r}")  # int() would truncate it
            try:
                parsed = kind(value)
            except (TypeError, ValueError, OverflowError):
                raise InputError(f"{name} must be a {'whole ' if kind is int else ''}number, got {str(value)[:40]!r}") from None
            if isinstance(value, bool) or not (low <= parsed <= high) or (kind is float and not math.isfinite(parsed)):
                raise InputError(f"{name} must be between {low} and {high}, got {value!r}")
            return parsed

        sims = number(simulations, "simulations", int, 1, MAX_SIMULATIONS)
        secs = number(seconds, "seconds", float, 0.01, MAX_SECONDS)
        if sims is None and secs is None:
            sims = default_simulations
        return cls(sims, secs)


class Engines:
    """Loaded networks by checkpoint path, and the lock that keeps searches one at a time.

    default_checkpoint: the network the page plays when it names none (the server's --checkpoint,
    else play's default). settings: device, threads, endgame depth and seed for every network.
    """

    def __init__(self, default_checkpoint: str | os.PathLike, settings: SearchSettings | None = None):
        self.default_checkpoint = str(default_checkpoint)
        self.settings = settings or SearchSettings()
        self._choosers: dict[tuple[str, float], SearchChooser] = {}
        self._lock = threading.Lock()

    def chooser(self, checkpoint: str | None) -> SearchChooser:
        """The SearchChooser of `checkpoint` (the default when empty), loaded once per file
        version; InputError with the loader's one-line reason for a missing or bad file."""
        if checkpoint is not None and not isinstance(checkpoint, str):
            raise InputError(f"checkpoint must be a file path (a string), got a {type(checkpoint).__name__}")
        path = Path(checkpoint or self.default_checkpoint).expanduser()
        if not path.is_file():
            raise InputError(f"checkpoint {str(path)!r} {'is not a file' if path.exists() else 'does not exist'}")
        key = (str(path.resolve()), path.stat().st_mtime)
        chooser = self._choosers.get(key)
        if chooser is None:
            try:
                chooser = network_chooser(path, self.settings)
            except NoAIError as err:
                raise InputError(str(err)) from None
            if len(self._choosers) >= MAX_CACHED_NETWORKS:
                oldest = next(iter(self._choosers))
                self._choosers.pop(oldest).close()
            self._choosers[key] = chooser
        return chooser

    def ai_move(self, game: Game, checkpoint: str | None, budget: Budget) -> dict:
        """The AI's move in `game`'s position, with the search's view of it."""
        state = game.state
        if state.is_over():
            raise InputError("the game is over: no move to make")
        with self._lock:
            chooser = self.chooser(checkpoint)
            chooser.set_limits(budget.simulations, budget.seconds)
            thought = chooser.think(state)
        return {"move": "pa" if thought.action == PASS else action_name(thought.action),
                "search": search_summary(thought, state)}

    def analyse(self, game: Game, checkpoint: str | None, budget: Budget) -> dict:
        """The network's policy and value and the search's view of `game`'s position."""
        state = game.state
        with self._lock:
            chooser = self.chooser(checkpoint)
            priors, values = chooser.evaluator(state.as_array().reshape(1, 2))
            out = {"network": network_view(priors[0], float(values[0]), state), "checkpoint": checkpoint or self.default_checkpoint}
            if state.is_over():
                out["search"] = None
                return out
            chooser.set_limits(budget.simulations, budget.seconds)
            thought = chooser.think(state)
        out["search"] = search_summary(thought, state)
        return out

    def values(self, game: Game, checkpoint: str | None) -> dict:
        """The network's value of every position of the game, for black (one batched call)."""
        states = game.states()
        positions = np.stack([s.as_array() for s in states])
        with self._lock:
            _, values = self.chooser(checkpoint).evaluator(positions)
        black_values = []
        for state, value in zip(states, values, strict=True):
            if state.is_over():
                margin = state.black_margin()
                black_values.append(float((margin > 0) - (margin < 0)))
            else:
                black_values.append(float(value) if state.color_to_move == BLACK else -float(value))
        return {"black_values": black_values}

    def close(self) -> None:
        for chooser in self._choosers.values():
            chooser.close()
        self._choosers.clear()


def network_view(priors: np.ndarray, value: float, state) -> dict:
    """The raw network: prior per legal square (name -> probability), pass prior, value, win %."""
    policy = {action_name(a): float(priors[a]) for a in range(64) if priors[a] > 0}
    return {"policy": policy, "pass": float(priors[PASS]), "value": value, "win": (value + 1) / 2,
            "to_move": "black" if state.color_to_move == BLACK else "white"}


def search_summary(thought, state) -> dict:
    """The search's move, value, candidates (visits, Q, win %), principal variation and, near the
    end, the exact solver's result."""
    moves = []
    for info, line in zip(thought.moves, thought.variations or [[]] * len(thought.moves), strict=True):
        moves.append({
            "move": "pa" if info.action == PASS else action_name(info.action),
            "visits": info.visits, "share": info.share,
            "q": None if math.isnan(info.value) else info.value,
            "win": None if math.isnan(info.value) else info.win_probability,
            "line": ["pa" if a == PASS else action_name(a) for a in line],
        })
    solver = None
    if thought.exact_score is not None:
        solver = {"score": thought.exact_score, "best": "pa" if thought.action == PASS else action_name(thought.action),
                  "empties": state.empties()}
    value = None if math.isnan(thought.root_value) else thought.root_value
    return {
        "move": "pa" if thought.action == PASS else action_name(thought.action),
        "value": value, "win": None if value is None else (value + 1) / 2,
        "simulations": thought.simulations, "seconds": thought.seconds,
        "moves": moves, "pv": ["pa" if a == PASS else action_name(a) for a in thought.principal_variation],
        "solver": solver,
    }
