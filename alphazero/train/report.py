"""A run's strength over time, in two tables: `python -m alphazero.train.report RUN_DIR [--json]`.

    python -m alphazero.train.report runs/2026-11-26_10-00-00           # markdown
    python -m alphazero.train.report runs/2026-11-26_10-00-00 --json    # one JSON line

Two tables. *Networks*: every network that became the best, from the numbered checkpoints
(`checkpoints/net-*.pt`, whose metadata hold the id, the step and the Elo of the ladder) with the
run time of its promotion. *Gates and evaluations*: one row per step where the run measured
strength, from its TensorBoard events (read as `alphazero.train.plots` reads them): the gate's
score, games and LLR (`arena/`), whether it promoted, the best network and its Elo after it
(`elo/`), and the score of the best network against each baseline (`eval/score_vs_*`).

Elo is the in-run ladder's (`elo/best`): network #0, the one the run started from (random
weights, or `train.init_from`), is 0, and each promoted network adds its step over the network it
replaced, measured in the run's own arena (`arena.elo_pairs` games). It shows progress within the
run; it is not a rating against anything outside it (a run 1,100 Elo above its random start can
still lose to alpha-beta depth 2): the `vs <baseline>` scores are the outside measure. The report
says so beside the figures (ELO_MEANING).

Run time is the training's own time: the wall-clock time of the events, less the time the run
was stopped between sessions (each start or resume is a line of `sessions.jsonl`, see
`alphazero.train.provenance`); without that file, the time since the first event.

Reads only: nothing in the run directory changes, and a running training may be reported on.
"""

from __future__ import annotations

import argparse
import bisect
import calendar
import itertools
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from alphazero.train.plots import read_scalar_events
from alphazero.train.provenance import read_sessions

EVAL_PREFIX = "eval/score_vs_"
# What the Elo figures are relative to, said wherever they are printed.
ELO_ANCHOR = "over the run's first network #0 (in-run ladder)"
ELO_MEANING = (
    "Elo: over this run's first network #0 (Elo 0: random weights, or train.init_from's network), each promotion adding "
    "its step over the network it replaced, measured in the run's own arena. It shows progress within the run, not "
    "strength against outside players: the vs columns are scores (0-1) of the best network against fixed opponents."
)


class ReportError(ValueError):
    """A directory that holds no training run to report on; one line."""


@dataclass
class Network:
    id: int
    step: int
    elo: float
    run_seconds: float | None  # run time of the promotion (0 for the first network)


@dataclass
class Measurement:
    step: int
    run_seconds: float | None
    gate_score: float | None = None
    gate_games: int | None = None
    gate_llr: float | None = None  # the sequential test's LLR at the gate's decision (gating only)
    promoted: bool = False
    best_id: int | None = None
    best_elo: float | None = None
    baselines: dict = field(default_factory=dict)  # {baseline: score of the best network}


@dataclass
class Report:
    run_dir: str
    step: int  # the last step with an event
    run_seconds: float | None
    networks: list
    measurements: list

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "elo_relative_to": "network #0 of this run (in-run ladder)"})

    def to_markdown(self) -> str:
        best = self.networks[-1] if self.networks else None
        lines = [f"# {self.run_dir}: strength over time", ""]
        summary = f"Step {self.step}, {_duration(self.run_seconds)} of run time"
        if best is not None:
            summary += f"; best network #{best.id} (Elo {best.elo:+.0f} {ELO_ANCHOR}, since step {best.step})"
        lines += [summary + ".", "", ELO_MEANING, "", "## Networks", "", "| network | became best at step | run time | Elo vs #0 |",
                  "|---:|---:|---:|---:|"]
        lines += [f"| #{n.id} | {n.step} | {_duration(n.run_seconds)} | {n.elo:+.0f} |" for n in self.networks]
        lines += ["", "## Gates and evaluations", ""]
        if not self.measurements:
            lines.append("No gate or baseline evaluation yet (the first gate comes after arena.every_steps, the first evaluation after eval.every_steps).")
            return "\n".join(lines) + "\n"
        baselines = sorted({name for m in self.measurements for name in m.baselines})
        lines.append("| step | run time | gate score | gate games | gate LLR | promoted | best | Elo vs #0 | " + " | ".join(f"vs {b}" for b in baselines)
                     + (" |" if baselines else "|"))
        lines.append("|---:|---:|---:|---:|---:|:---:|---:|---:|" + "---:|" * len(baselines))
        for m in self.measurements:
            cells = [
                str(m.step), _duration(m.run_seconds), _number(m.gate_score, ".3f"), _number(m.gate_games, "d"),
                _number(m.gate_llr, "+.2f"), "yes" if m.promoted else "", f"#{m.best_id}" if m.best_id is not None else "", _number(m.best_elo, "+.0f"),
            ] + [_number(m.baselines.get(b), ".3f") for b in baselines]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def _number(value, spec: str) -> str:
    return "" if value is None else format(value, spec)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = round(seconds)
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def session_starts(run_dir: Path) -> list[float]:
    """Each session's start (seconds since the epoch), oldest first, from sessions.jsonl."""
    starts = []
    for session in read_sessions(run_dir):
        try:
            starts.append(float(calendar.timegm(time.strptime(session["started"], "%Y-%m-%dT%H:%M:%SZ"))))
        except (KeyError, TypeError, ValueError):
            continue
    return sorted(starts)


def run_clock(event_times: list[float], starts: list[float]):
    """A function: wall time (an event's) -> run time, the seconds the run was running before it.

    Between consecutive events the run was running, unless a session started in between: then
    it ran only from that start (the earlier session ended at its last event, as far as anyone
    can tell). Before the first event it ran from the first session's start."""
    times = sorted(set(event_times))
    if not times:
        return lambda wall: None
    first_start = starts[0] if starts and starts[0] <= times[0] else times[0]
    running = [times[0] - first_start]
    for before, now in itertools.pairwise(times):
        later_starts = [s for s in starts if before < s <= now]
        running.append(running[-1] + (now - max(later_starts) if later_starts else now - before))

    def clock(wall: float) -> float:
        index = bisect.bisect_left(times, wall)
        return round(running[min(index, len(times) - 1)], 1)

    return clock


def promoted_networks(run_dir: Path, warn=None) -> list[Network]:
    """The networks that became best, from checkpoints/net-*.pt (id, step, Elo), by id."""
    from alphazero.nn.checkpoint import CheckpointError, load_checkpoint

    networks = []
    for path in sorted((run_dir / "checkpoints").glob("net-*.pt")):
        try:
            extra = load_checkpoint(path).extra
            networks.append(Network(int(extra["network_id"]), int(extra["step"]), float(extra["elo"]), None))
        except (CheckpointError, KeyError, TypeError, ValueError) as error:
            if warn:
                warn(f"{path} left out: {error}")
    return sorted(networks, key=lambda n: n.id)


def build_report(run_dir, warn=None) -> Report:
    run_dir = Path(run_dir)
    tb_dir = run_dir / "tb"
    if not tb_dir.is_dir():
        raise ReportError(f"{tb_dir} does not exist: is {run_dir} a training run directory?")
    events = read_scalar_events(tb_dir)
    clock = run_clock([wall for series in events.values() for _, _, wall in series], session_starts(run_dir))
    last_wall = max((wall for series in events.values() for _, _, wall in series), default=None)
    step = max((s for series in events.values() for s, _, _ in series), default=0)

    networks = promoted_networks(run_dir, warn)
    promotion_time = {int(value): clock(wall) for _, value, wall in events.get("elo/best_id", [])}
    for network in networks:
        network.run_seconds = 0.0 if network.id == 0 else promotion_time.get(network.id)
    if not networks or networks[0].id != 0:
        networks.insert(0, Network(0, 0, 0.0, 0.0))  # every run starts from network #0 at Elo 0

    rows: dict[int, Measurement] = {}

    def row(at_step: int, wall: float) -> Measurement:
        if at_step not in rows:
            rows[at_step] = Measurement(at_step, clock(wall))
        return rows[at_step]

    for at_step, value, wall in events.get("arena/score", []):
        row(at_step, wall).gate_score = round(value, 4)  # float32 in the events
    for at_step, value, wall in events.get("arena/games", []):
        row(at_step, wall).gate_games = int(value)
    for at_step, value, wall in events.get("arena/llr", []):
        row(at_step, wall).gate_llr = round(value, 2)
    for at_step, _, wall in events.get("elo/best_id", []):
        row(at_step, wall).promoted = True
    for tag, series in events.items():
        if tag.startswith(EVAL_PREFIX):
            for at_step, value, wall in series:
                row(at_step, wall).baselines[tag[len(EVAL_PREFIX):]] = round(value, 4)
    measurements = [rows[s] for s in sorted(rows)]
    for m in measurements:
        best = _best_at(networks, m.step, m.promoted)
        m.best_id, m.best_elo = best.id, best.elo
    return Report(str(run_dir), step, clock(last_wall) if last_wall is not None else None, networks, measurements)


def _best_at(networks: list[Network], step: int, promoted_here: bool) -> Network:
    """The best network after the gate at `step`: the newest promoted at or before it (a
    promotion at `step` itself counts only if that gate promoted)."""
    best = networks[0]
    for network in networks:
        if network.step < step or (network.step == step and (promoted_here or network.id == 0)):
            best = network
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.train.report",
        description="A training run's strength over time: the networks that became best (step, Elo, run time), and "
        "each gate and baseline evaluation. Markdown, or one JSON line with --json.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a training run directory")
    parser.add_argument("--json", action="store_true", help="one JSON line instead of markdown")
    args = parser.parse_args(argv)
    try:
        report = build_report(args.run_dir, warn=lambda text: print(f"warning: {text}", file=sys.stderr))
    except ReportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(report.to_json() if args.json else report.to_markdown(), end="\n" if args.json else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
