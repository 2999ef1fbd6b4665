"""The network and the search for the page: AI moves, analyses and the value-over-the-game chart.

One `Engines` object per server holds the loaded networks and runs the searches the page's
requests ask for. Requests arrive on several threads; the processor is taken in turns (`Turns`,
first come first served): every network call and every chunk of a search (TIME_CHUNK = 32
simulations, tens of milliseconds with a shipped network on one core) runs holding the turn, and
a search hands the turn on between chunks to whoever waits. So a cheap request waits for one chunk
of each search running, not for whole searches (one lock held for a whole search made a
1-simulation request wait 137 s behind a 100,000-simulation analysis). Each running search has a
chooser of its own (`SearchChooser.sibling`: its own trees on the network's one evaluator), taken
from the network's idle ones, the most recently used first, so the page's next search of the same
game finds the tree it kept.

Every search ends at its simulations, its seconds, MAX_SECONDS of wall time whatever it asked for
(the time ceiling), or when its client goes away (the server's `client_gone`), whichever comes
first; at most MAX_SEARCHES run at once and one more is refused (`Busy`), so that memory (a tree
of about 37 MB each) and waiting stay bounded.

A game review (`Engines.review`, the review command's `alphazero.review.review_game`) is one more
such search, run a ply at a time: each ply holding the turn, its searches handing it on between
chunks, the turn let go between plies while the ply's line is sent (`ReviewStream`). It ends at
REVIEW_MAX_SECONDS of wall time for the whole game, or when its client goes away.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, GameState
from alphazero.othello.notation import action_name, format_board_text
from alphazero.othello.record import GameRecord
from alphazero.play.choosers import NoAIError, SearchChooser, SearchSettings, describe_limit, network_chooser
from alphazero.review.reviewer import Marks, MoveReview, review_game
from alphazero.review.summary import summarize
from alphazero.review.text import summary_lines
from alphazero.web.positions import Game, InputError

log = logging.getLogger("alphazero.web")

MAX_SIMULATIONS = 100_000
MAX_SECONDS = 120.0  # the most seconds a request may ask for, and every search's ceiling of wall time
MAX_SEARCHES = 4  # searches running at once, each on its own tree (about 37 MB); one more is refused
MAX_CACHED_NETWORKS = 4
# A review's ceiling of wall time, whatever its budget per move: a 60-move review at the default 200
# simulations takes about 36 s of one core (experiments/review-time), so this leaves room for a
# larger budget or a busy machine and bounds what a page can ask for.
REVIEW_MAX_SECONDS = 900.0


class Busy(Exception):
    """A search refused because MAX_SEARCHES are running (the server answers 503)."""


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


class Turns:
    """The processor, taken in turns, first come first served (a ticket lock: Python's Lock lets a
    thread that lets go take it straight back, ahead of one that has waited)."""

    def __init__(self):
        self._changed = threading.Condition()
        self._issued = 0  # tickets handed out
        self._serving = 0  # the ticket whose turn it is

    def take(self) -> None:
        with self._changed:
            ticket = self._issued
            self._issued += 1
            self._changed.wait_for(lambda: self._serving == ticket)

    def give_back(self) -> None:
        with self._changed:
            self._serving += 1
            self._changed.notify_all()

    @contextlib.contextmanager
    def held(self):
        self.take()
        try:
            yield
        finally:
            self.give_back()

    def pass_on(self) -> None:
        """Held, between two chunks of work: let whoever waits go first, then queue behind them."""
        with self._changed:
            waiting = self._issued - self._serving > 1
        if waiting:
            self.give_back()
            self.take()


@dataclass
class Stop:
    """Ends a search (or a review) early: at its time ceiling (`ceiling` seconds from `started`,
    time.monotonic) or when its client has gone (`client_gone`, asked between chunks). `reason`
    says which, once it has."""

    ceiling: float
    client_gone: Callable[[], bool] = lambda: False
    reason: str | None = None
    started: float = field(default_factory=time.monotonic)

    def __call__(self) -> bool:
        if time.monotonic() >= self.started + self.ceiling:
            self.reason = f"stopped at the {self.ceiling:g} s ceiling"
        elif self.client_gone():
            self.reason = "cancelled: the client went away"
        return self.reason is not None


@dataclass
class _Network:
    """One loaded network: the chooser it was loaded with (whose settings its siblings copy), the
    idle choosers (the most recently used last) and how many of its choosers are searching."""

    first: SearchChooser
    idle: list[SearchChooser]
    running: int = 0

    def check_out(self) -> SearchChooser:
        return self.idle.pop() if self.idle else self.first.sibling()

    def close(self) -> None:
        for chooser in self.idle:
            chooser.close()
        self.idle.clear()


class Engines:
    """Loaded networks by checkpoint path, and the turns that share the processor between requests.

    default_checkpoint: the network the page plays when it names none (the server's --checkpoint,
    else play's default). settings: device, threads, precision, endgame depth and seed for every
    network. Everything here that touches a network or a chooser runs holding the turn.
    """

    def __init__(self, default_checkpoint: str | os.PathLike, settings: SearchSettings | None = None,
                 max_searches: int = MAX_SEARCHES):
        self.default_checkpoint = str(default_checkpoint)
        self.settings = settings or SearchSettings()
        self.max_searches = max_searches
        self._networks: OrderedDict[tuple[str, float], _Network] = OrderedDict()
        self._turns = Turns()
        self.searching = 0  # searches running (a chooser checked out), for the Busy limit and tests

    def load(self, checkpoint: str | os.PathLike | None = None) -> None:
        """Load `checkpoint` (the default when None) now: a bad file is refused before serving."""
        with self._turns.held():
            self._network(checkpoint)

    def _network(self, checkpoint: str | os.PathLike | None) -> _Network:
        """The loaded network of `checkpoint` (the default when empty), loaded once per file
        version, under the turn: loading may time the network's precisions (nn.precision), which
        wants a processor no search of ours shares. InputError with the loader's one-line reason
        for a missing or bad file."""
        if checkpoint is not None and not isinstance(checkpoint, (str, os.PathLike)):
            raise InputError(f"checkpoint must be a file path (a string), got a {type(checkpoint).__name__}")
        path = Path(checkpoint or self.default_checkpoint).expanduser()
        if not path.is_file():
            raise InputError(f"checkpoint {str(path)!r} {'is not a file' if path.exists() else 'does not exist'}")
        key = (str(path.resolve()), path.stat().st_mtime)
        network = self._networks.get(key)
        if network is not None:
            self._networks.move_to_end(key)
            return network
        try:
            chooser = network_chooser(path, self.settings)
        except NoAIError as err:
            raise InputError(str(err)) from None
        network = self._networks[key] = _Network(chooser, [chooser])
        while len(self._networks) > MAX_CACHED_NETWORKS:  # the least recently used idle one goes
            unused = next((k for k, n in self._networks.items() if n.running == 0 and k != key), None)
            if unused is None:
                break
            self._networks.pop(unused).close()
        return network

    @contextlib.contextmanager
    def _search(self, checkpoint, client_gone: Callable[[], bool] | None):
        """Holding the turn: a chooser of `checkpoint`'s network for this search alone, and the
        `should_stop` for its think (hands the turn on between chunks; the ceiling, counted from
        when the network is loaded; the client)."""
        with self._turns.held():
            network = self._network(checkpoint)
            stop, should_stop = self._stopper(MAX_SECONDS, client_gone)
            chooser = self._check_out(network)
            try:
                yield chooser, should_stop, stop
            finally:
                self._check_in(network, chooser)

    def _stopper(self, ceiling: float, client_gone: Callable[[], bool] | None):
        """A `Stop` at `ceiling` seconds from now, and the `should_stop` a search asks between
        chunks: it hands the turn on to whoever waits, then says whether to stop."""
        stop = Stop(ceiling, client_gone or (lambda: False))

        def should_stop() -> bool:
            self._turns.pass_on()
            return stop()

        return stop, should_stop

    def _check_out(self, network: _Network) -> SearchChooser:
        """Holding the turn: a chooser of `network` for one search (or review) alone; Busy when
        MAX_SEARCHES are running. `_check_in` gives it back."""
        if self.searching >= self.max_searches:
            raise Busy(f"{self.searching} searches are running, the most this board runs at once: "
                       "try again when one ends")
        chooser = network.check_out()
        self.searching += 1
        network.running += 1
        return chooser

    def _check_in(self, network: _Network, chooser: SearchChooser) -> None:
        network.running -= 1
        self.searching -= 1
        network.idle.append(chooser)

    def ai_move(self, game: Game, checkpoint: str | None, budget: Budget,
                client_gone: Callable[[], bool] | None = None) -> dict:
        """The AI's move in `game`'s position, with the search's view of it."""
        state = game.state
        if state.is_over():
            raise InputError("the game is over: no move to make")
        with self._search(checkpoint, client_gone) as (chooser, should_stop, stop):
            chooser.set_limits(budget.simulations, budget.seconds)
            thought = chooser.think(state, should_stop=should_stop)
        log_stop(stop, "ai_move", thought)
        return {"move": "pa" if thought.action == PASS else action_name(thought.action),
                "search": search_summary(thought, state, stop.reason)}

    def analyse(self, game: Game, checkpoint: str | None, budget: Budget,
                client_gone: Callable[[], bool] | None = None) -> dict:
        """The network's policy and value and the search's view of `game`'s position."""
        state = game.state
        with self._search(checkpoint, client_gone) as (chooser, should_stop, stop):
            priors, values = chooser.evaluator(state.as_array().reshape(1, 2))
            out = {"network": network_view(priors[0], float(values[0]), state), "checkpoint": str(checkpoint or self.default_checkpoint)}
            if state.is_over():
                out["search"] = None
                return out
            chooser.set_limits(budget.simulations, budget.seconds)
            thought = chooser.think(state, should_stop=should_stop)
        log_stop(stop, "analyse", thought)
        out["search"] = search_summary(thought, state, stop.reason)
        return out

    def review(self, record: GameRecord, label: str, checkpoint: str | None, budget: Budget, marks: Marks = Marks(),
               client_gone: Callable[[], bool] | None = None) -> "ReviewStream":
        """A review of `record` (alphazero.review, the command's code) on `checkpoint`'s network at
        `budget` per position, as a `ReviewStream` of events. The network is loaded and a chooser
        checked out now (InputError, Busy before any answer is sent); the searches run as the
        stream is read."""
        if len(record.actions) == 0:
            raise InputError(f"{label}: holds no moves to review")
        with self._turns.held():
            network = self._network(checkpoint)
            chooser = self._check_out(network)
        search = f"{Path(checkpoint or self.default_checkpoint).name}, {describe_limit(budget.simulations, budget.seconds)} a position"
        return ReviewStream(self, network, chooser, record, label, search, budget, marks, client_gone)

    def values(self, game: Game, checkpoint: str | None) -> dict:
        """The network's value of every position of the game, for black (one batched call)."""
        states = game.states()
        positions = np.stack([s.as_array() for s in states])
        with self._turns.held():
            _, values = self._network(checkpoint).first.evaluator(positions)
        black_values = []
        for state, value in zip(states, values, strict=True):
            if state.is_over():
                margin = state.black_margin()
                black_values.append(float((margin > 0) - (margin < 0)))
            else:
                black_values.append(float(value) if state.color_to_move == BLACK else -float(value))
        return {"black_values": black_values}

    def close(self) -> None:
        with self._turns.held():
            for network in self._networks.values():
                network.close()
            self._networks.clear()


def network_view(priors: np.ndarray, value: float, state) -> dict:
    """The raw network: prior per legal square (name -> probability), pass prior, value, win %."""
    policy = {action_name(a): float(priors[a]) for a in range(64) if priors[a] > 0}
    return {"policy": policy, "pass": float(priors[PASS]), "value": value, "win": (value + 1) / 2,
            "to_move": "black" if state.color_to_move == BLACK else "white"}


def search_summary(thought, state, stopped: str | None = None) -> dict:
    """The search's move, value, candidates (visits, Q, win %), principal variation, how many of
    the visits it found in the tree kept from the last search, why it stopped early if it did and,
    near the end, the exact solver's result."""
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
        "simulations": thought.simulations, "reused": thought.reused_visits, "seconds": thought.seconds,
        "stopped": stopped,
        "moves": moves, "pv": ["pa" if a == PASS else action_name(a) for a in thought.principal_variation],
        "solver": solver,
    }


def log_stop(stop: Stop, what: str, thought) -> None:
    if stop.reason is not None:
        log.info("%s: %s after %d simulations (%.1f s)", what, stop.reason, thought.simulations, thought.seconds)


class ReviewStream:
    """A review under way, read as events (dicts, one JSON line each on the wire):

      {"type": "game", label, plies, search, black_margin, start, moves}   first, before any search
                                                                           (search: the network and the budget)
      {"type": "move", ...MoveReview.as_json()}                            one a ply, as each is ready
      {"type": "summary", ...Summary.as_json(), lines}                     at the end (lines: the command's text)
      {"type": "stopped", reason, reviewed}                                instead, when stopped early
      {"type": "error", error, reviewed}                                   instead, when the review failed

    Each ply is reviewed holding the turn, and its searches hand the turn on between chunks, so a
    cheap request waits for one chunk (or one solver call), never for the review; the turn is let go
    while an event is sent. The review ends at REVIEW_MAX_SECONDS of wall time whatever its budget,
    or when its client goes away (a ply whose search was cut short is not sent). `close()` (the
    WSGI server calls it when the answer ends, is cut, or never started) gives the chooser back;
    an answer cut before its last line (the client left while a ply was being sent, so no search
    saw it go) is logged there as the same cancellation.
    """

    def __init__(self, engines: Engines, network: _Network, chooser: SearchChooser, record: GameRecord, label: str,
                 search: str, budget: Budget, marks: Marks, client_gone: Callable[[], bool] | None):
        self._engines, self._network, self._chooser = engines, network, chooser
        self.record, self.label, self.search, self.budget, self.marks = record, label, search, budget, marks
        self._client_gone = client_gone
        self._events: Iterator[dict] | None = None
        self._reviewed = 0  # plies sent so far
        self._ended = False  # the last line (summary, stopped or error) has been handed out
        self._closed = False

    def __iter__(self) -> Iterator[dict]:
        self._events = self._run()
        return self._events

    def _run(self) -> Iterator[dict]:
        record, turns = self.record, self._engines._turns
        stop, should_stop = self._engines._stopper(REVIEW_MAX_SECONDS, self._client_gone)
        yield {"type": "game", "label": self.label, "plies": len(record.actions), "search": self.search,
               "black_margin": record.black_margin,
               "start": None if record.start == GameState.start() else format_board_text(record.start),
               "moves": ["pa" if a == PASS else action_name(int(a)) for a in record.actions]}
        reviews = review_game(record, self._chooser, self.marks, should_stop)
        done: list[MoveReview] = []
        failed = None
        try:
            with turns.held():
                self._chooser.set_limits(self.budget.simulations, self.budget.seconds)
            while True:
                with turns.held():
                    review = None if stop() else next(reviews, None)
                if stop.reason is not None or review is None:
                    break
                done.append(review)
                yield {"type": "move", **review.as_json()}
                self._reviewed = len(done)
        except Exception as err:  # a fault of ours (the game was checked when read): the answer has begun, so a line says it
            log.exception("review of %s failed after %d plies", self.label, len(done))
            failed = f"internal error: {type(err).__name__}: {err}"
        finally:
            reviews.close()  # no search runs: the generator stops where it waits
        self._ended = True
        if failed is not None:
            yield {"type": "error", "error": failed, "reviewed": len(done)}
            return
        if stop.reason is not None:
            log.info("review of %s: %s after %d of %d plies", self.label, stop.reason, len(done), len(record.actions))
            yield {"type": "stopped", "reason": stop.reason, "reviewed": len(done)}
            return
        summary = summarize(record, done)
        log.info("review of %s: %d plies, %d simulations in %.1f s", self.label, summary.plies, summary.simulations,
                 summary.seconds)
        yield {"type": "summary", **summary.as_json(), "lines": summary_lines(summary, done)}

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._events is not None:
                self._events.close()
                if not self._ended:
                    log.info("review of %s: cancelled: the client went away after %d of %d plies "
                             "(a line could not be sent)", self.label, self._reviewed, len(self.record.actions))
            with self._engines._turns.held():
                self._engines._check_in(self._network, self._chooser)
