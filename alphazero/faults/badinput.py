"""Corrupt inputs for every reader that takes outside data, and the verdict on how each reacted.

A reader passes a case when it either accepts the input (a flipped byte can still spell a valid
file) or raises a documented error: a ValueError subclass (DataFormatError, GgfError,
NotationError, CheckpointError, ...) whose message names the problem (the file, the key, the
parameter). For the GTP engine the documented failure is a `? message` response that leaves the
game as it was; for the training command line it is a nonzero exit with the key named and no
traceback. Anything else is a crash: another exception type, a traceback, a hang, a signal, an
`internal error` answer from the engine, or code run while loading a checkpoint.

Families (each a generator of `Case`s from a seeded numpy Generator):
    wthor        truncations, wrong header counts, flipped bytes, bad board size, garbage files
    ggf          unbalanced brackets, unknown properties, illegal and malformed moves, mutations
    transcript   bad tokens, illegal moves, moves after the end, garbage characters
    checkpoint   truncations, flipped bytes, another architecture, pickled code, wrong payloads
    gtp          random command lines, very long lines, binary garbage, commands out of order
    hydra        wrong types, out-of-range values, unknown keys (subprocesses of alphazero.train)
The base files are synthesized from random legal games, so no outside data is needed.
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import square_name
from alphazero.othello.record import GameRecord

FAMILIES = ("wthor", "ggf", "transcript", "checkpoint", "gtp", "hydra")
CLEAN_ERRORS = (ValueError,)


@dataclass
class Case:
    family: str
    name: str
    run: Callable[[], object]  # returns normally (accepted) or raises
    expect_error: bool | None = None  # True: must be refused; False: must be accepted; None: either
    mention: str | None = None  # what a refusal's message must name


@dataclass
class CaseResult:
    family: str
    name: str
    outcome: str  # clean_error, accepted, crash, unclear
    detail: str = ""


def run_case(case: Case) -> CaseResult:
    """Run one case and judge it: crash (undocumented exception), unclear (a refusal that names
    nothing, or an expectation missed), clean_error or accepted."""
    try:
        case.run()
    except CLEAN_ERRORS as error:
        message = str(error)
        if not message.strip():
            return CaseResult(case.family, case.name, "unclear", f"{type(error).__name__} with an empty message")
        if case.mention is not None and case.mention not in message:
            return CaseResult(case.family, case.name, "unclear", f"message does not name {case.mention!r}: {message[:200]}")
        if case.expect_error is False:
            return CaseResult(case.family, case.name, "unclear", f"refused a valid input: {message[:200]}")
        return CaseResult(case.family, case.name, "clean_error", message[:300])
    except Exception as error:  # noqa: BLE001 - judging exactly this
        frames = traceback.format_exception(type(error), error, error.__traceback__)
        return CaseResult(case.family, case.name, "crash", f"{type(error).__name__}: {error} | {frames[-2].strip()[:200] if len(frames) > 1 else ''}")
    if case.expect_error:
        return CaseResult(case.family, case.name, "unclear", "accepted an input that must be refused")
    return CaseResult(case.family, case.name, "accepted")


# ------------------------------------------------------------------------------------------------
# Base material: random legal games


def random_records(rng: np.random.Generator, count: int) -> list[GameRecord]:
    """`count` uniformly random complete games from the start, passes explicit."""
    records = []
    for _ in range(count):
        state = GameState.start()
        actions = []
        while not state.is_over():
            legal = state.legal_actions()
            action = int(legal[rng.integers(len(legal))])
            actions.append(action)
            state = state.play(action)
        records.append(GameRecord(GameState.start(), np.array(actions, dtype=np.int16), None, None, state.black_margin(), {}))
    return records


def wtb_bytes(records: list[GameRecord], year: int = 2000) -> bytes:
    """A valid WTHOR `.wtb` file holding `records` (passes dropped, as WTHOR does)."""
    from alphazero.data.wthor import GAME_DTYPE, HEADER_DTYPE, SQUARE_TO_BYTE

    header = np.zeros(1, dtype=HEADER_DTYPE)
    header["century"], header["year"], header["month"], header["day"] = 20, 24, 1, 1
    header["num_games"], header["games_year"], header["board_size"] = len(records), year, 8
    games = np.zeros(len(records), dtype=GAME_DTYPE)
    for index, record in enumerate(records):
        squares = [int(a) for a in record.actions if a != PASS]
        games[index]["moves"][: len(squares)] = SQUARE_TO_BYTE[squares]
        games[index]["black_discs"] = record.final_state().black_final_discs()
        games[index]["tournament"], games[index]["black_player"], games[index]["white_player"] = 1, 2, 3
    return header.tobytes() + games.tobytes()


def ggf_text(records: list[GameRecord]) -> str:
    from alphazero.data.ggf import format_ggf

    return "\n".join(format_ggf(record) for record in records) + "\n"


def _flip_bytes(rng, data: bytes, flips: int, start: int = 0) -> bytes:
    raw = bytearray(data)
    for _ in range(flips):
        position = int(rng.integers(start, len(raw)))
        raw[position] ^= int(rng.integers(1, 256))
    return bytes(raw)


# ------------------------------------------------------------------------------------------------
# WTHOR


def wthor_cases(rng: np.random.Generator, work_dir: Path, count: int) -> list[Case]:
    from alphazero.data.wthor import GAME_SIZE, HEADER_SIZE, load_wthor_records, read_wtb

    records = random_records(rng, 6)
    good = wtb_bytes(records)
    cases = []

    def case(name: str, data: bytes, expect_error=None, mention_file=True) -> None:
        directory = work_dir / f"wthor-{len(cases):03d}"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "WTH_2000.wtb"
        path.write_bytes(data)

        def run():
            read_wtb(path)
            games, replay = load_wthor_records(directory)
            for problem in replay.problems():
                str(problem)  # every problem must render
            return games

        cases.append(Case("wthor", name, run, expect_error, path.name if mention_file else None))

    case("valid synthesized file", good, expect_error=False)
    case("empty file", b"", expect_error=True)
    case("header only, count says 6", good[:HEADER_SIZE], expect_error=True)
    for _ in range(count):
        kind = rng.integers(5)
        if kind == 0:
            cut = int(rng.integers(1, len(good)))
            if (cut - HEADER_SIZE) % GAME_SIZE == 0:
                cut -= 1
            case(f"truncated to {cut} bytes", good[:cut], expect_error=True)
        elif kind == 1:
            wrong = int(rng.choice([0, 1, 5, 7, 1000, 2**32 - 1]))
            data = bytearray(good)
            data[4:8] = wrong.to_bytes(4, "little")
            case(f"header game count {wrong} (file holds 6)", bytes(data), expect_error=wrong != 6)
        elif kind == 2:
            flips = int(rng.integers(1, 20))
            case(f"{flips} random bytes flipped", _flip_bytes(rng, good, flips, start=HEADER_SIZE))
        elif kind == 3:
            data = bytearray(good)
            data[12] = int(rng.choice([1, 6, 10, 255]))
            case(f"board size byte {data[12]}", bytes(data), expect_error=True)
        else:
            size = int(rng.integers(0, 2000))
            case(f"{size} bytes of random garbage", rng.integers(0, 256, size, dtype=np.uint8).tobytes())
    return cases


# ------------------------------------------------------------------------------------------------
# GGF


def ggf_cases(rng: np.random.Generator, count: int) -> list[Case]:
    from alphazero.data.ggf import parse_ggf

    records = random_records(rng, 2)
    good = ggf_text(records[:1])
    cases = []

    def case(name: str, text: str, expect_error=None) -> None:
        cases.append(Case("ggf", name, lambda: parse_ggf(text, source="fuzz.ggf"), expect_error, "fuzz.ggf"))

    case("valid synthesized game", good, expect_error=False)
    case("two valid games", ggf_text(records), expect_error=False)
    case("unknown property kept", good.replace("GM[Othello]", "GM[Othello]ZZ[who knows]"), expect_error=False)
    case("missing game end", good.replace(";)", ""), expect_error=True)
    case("game end twice", good.replace(";)", ";);)"), expect_error=True)
    case("not Othello", good.replace("GM[Othello]", "GM[Go]"), expect_error=True)
    brackets = [i for i, ch in enumerate(good) if ch in "[]"]
    moves = [i for i in range(len(good) - 2) if good[i : i + 2] in ("B[", "W[") and good[i - 1] in "]"]
    for _ in range(count):
        kind = rng.integers(6)
        if kind == 0:
            at = int(rng.choice(brackets))
            case(f"bracket {good[at]!r} at {at} removed", good[:at] + good[at + 1 :], expect_error=True)
        elif kind == 1:
            at = int(rng.integers(len(good)))
            extra = str(rng.choice(["[", "]", "[[", "]]", "(;", ";)"]))
            case(f"{extra!r} inserted at {at}", good[:at] + extra + good[at:])
        elif kind == 2:
            at = int(rng.choice(moves))
            end = good.index("]", at)
            bad = str(rng.choice([square_name(int(rng.integers(64))), "pass", "z9", "a0", "", "d3d4", "PA/x/y"]))
            case(f"move at {at} replaced by {bad!r}", good[: at + 2] + bad + good[end:])
        elif kind == 3:
            key = "".join(rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), int(rng.integers(1, 4))))
            case(f"property {key}[...] added", good.replace(";)", f"{key}[{rng.integers(1000)}];)"))
        elif kind == 4:
            cut = int(rng.integers(0, len(good)))
            case(f"truncated to {cut} characters", good[:cut])
        else:
            flips = int(rng.integers(1, 10))
            text = _flip_bytes(rng, good.encode("latin-1"), flips).decode("latin-1")
            case(f"{flips} characters flipped", text)
    return cases


# ------------------------------------------------------------------------------------------------
# Transcripts


def transcript_cases(rng: np.random.Generator, count: int) -> list[Case]:
    from alphazero.othello.notation import format_transcript, parse_transcript

    record = random_records(rng, 1)[0]
    good = format_transcript(record.actions)
    cases = [
        Case("transcript", "valid transcript", lambda: parse_transcript(good), False),
        Case("transcript", "explicit passes", lambda: parse_transcript(format_transcript(record.actions, explicit_passes=True)), False),
        Case("transcript", "empty", lambda: parse_transcript(""), False),
    ]
    tokens = ["i1", "a9", "a0", "zz", "5f", "f", "pa", "--", "ps", "\x00\x01", "é5", "f5" * 40, "  ", "\n", "💥"]
    for _ in range(count):
        at = 2 * int(rng.integers(0, len(good) // 2 + 1))
        token = str(rng.choice(tokens))
        text = good[:at] + token + good[at:]
        if rng.random() < 0.3:
            text = "".join(rng.choice(list("abcdefghij0123456789pas- "), int(rng.integers(1, 80))))
        cases.append(Case("transcript", f"{text[:30]!r}...", (lambda t=text: parse_transcript(t))))
    return cases


# ------------------------------------------------------------------------------------------------
# Checkpoints


class _RunsCode:
    """Unpickling this calls open(marker, 'w'): the proof a loader executed pickled code."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def checkpoint_cases(rng: np.random.Generator, work_dir: Path, count: int) -> list[Case]:
    import torch

    from alphazero.nn.checkpoint import build_network, load_checkpoint, load_network, load_weights, save_checkpoint
    from alphazero.nn.config import model_preset

    work_dir.mkdir(parents=True, exist_ok=True)
    tiny = build_network(model_preset("tiny"))
    good_path = save_checkpoint(work_dir / "good.pt", tiny, extra={"step": 1})
    good = good_path.read_bytes()
    other_path = save_checkpoint(work_dir / "small.pt", build_network(model_preset("small")))
    cases = []

    def file_case(name: str, data: bytes | None = None, expect_error=True, loader=load_network, mention=True) -> Path:
        path = work_dir / f"case-{len(cases):03d}.pt"
        if data is not None:
            path.write_bytes(data)
        cases.append(Case("checkpoint", name, lambda: loader(path), expect_error, path.name if mention else None))
        return path

    cases.append(Case("checkpoint", "valid checkpoint", lambda: load_network(good_path), False))
    wider_path = save_checkpoint(work_dir / "wider.pt", build_network(dataclasses.replace(model_preset("tiny"), channels=24)))
    for name, path, mention in (
        ("another architecture (small weights into a tiny net): parameters named", other_path, "unexpected parameters"),
        ("another architecture (24 channels into 16): shape mismatch named", wider_path, "shape"),
    ):
        cases.append(
            Case("checkpoint", name, (lambda p=path: load_weights(build_network(model_preset("tiny")), load_checkpoint(p).state_dict, source=str(p))), True, mention)
        )
    file_case("missing file", None)
    file_case("empty file", b"")
    for marker_kind in ("zip", "plain pickle"):
        marker = work_dir / f"pwned-{marker_kind.replace(' ', '-')}"
        path = work_dir / f"case-{len(cases):03d}.pt"
        payload = {"format_version": 1, "model_config": {}, "state_dict": {}, "extra": {"x": _RunsCode(str(marker))}}
        if marker_kind == "zip":
            torch.save(payload, path)
        else:
            path.write_bytes(pickle.dumps(payload, protocol=2))

        def run(path=path, marker=marker):
            try:
                load_checkpoint(path)
            finally:
                if marker.exists():
                    raise AssertionError(f"loading {path.name} executed pickled code (created {marker.name})")

        cases.append(Case("checkpoint", f"pickled code ({marker_kind})", run, True, path.name))
    for name, payload in (
        ("a bare tensor", torch.zeros(3)),
        ("a dict without model_config", {"format_version": 1, "state_dict": {}}),
        ("format version 99", {"format_version": 99, "model_config": {}, "state_dict": {}}),
        ("a model_config of the wrong type", {"format_version": 1, "model_config": [1, 2], "state_dict": {}}),
        ("unknown model_config keys", {"format_version": 1, "model_config": {"blocks": 2, "wings": 4}, "state_dict": {}}),
        ("a model_config stored as a string", {"format_version": 1, "model_config": "tiny", "state_dict": {}}),
        ("a state_dict that is a list", {"format_version": 1, "model_config": tiny.cfg.to_dict(), "state_dict": [1, 2]}),
        ("a state_dict entry that is not a tensor", {**torch.load(good_path, weights_only=True), "state_dict": {**tiny.state_dict(), "policy_fc.bias": 5}}),
        ("NaN weights", {**torch.load(good_path, weights_only=True), "state_dict": {k: torch.full_like(v, float("nan")) if v.is_floating_point() else v for k, v in tiny.state_dict().items()}}),
    ):
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        file_case(name, buffer.getvalue(), loader=load_checkpoint)
    for _ in range(count):
        if rng.random() < 0.5:
            cut = int(rng.integers(0, len(good)))
            file_case(f"truncated to {cut} of {len(good)} bytes", good[:cut])
        else:
            flips = int(rng.integers(1, 30))
            file_case(f"{flips} random bytes flipped", _flip_bytes(rng, good, flips), expect_error=None)
    return cases


# ------------------------------------------------------------------------------------------------
# GTP


def _random_gtp_line(rng: np.random.Generator) -> str:
    commands = ["play", "genmove", "undo", "final_score", "boardsize", "clear_board", "komi", "time_settings", "time_left",
                "showboard", "known_command", "reg_genmove", "set_game", "name", "quit", "list_commands", "PLAY", "xyzzy"]  # fmt: skip
    args = ["b", "w", "black", "WHITE", "f5", "F5", "pass", "i9", "a0", "8", "19", "-1", "1e309", "nan", "0", "Othello", "Go", "", "\t", "é", "\x07"]
    kind = rng.integers(4)
    if kind == 0:
        return "".join(chr(int(c)) for c in rng.integers(0, 0x250, int(rng.integers(0, 60))))
    words = [str(rng.choice(commands))] + [str(rng.choice(args)) for _ in range(int(rng.integers(0, 4)))]
    if kind == 1:
        words.insert(0, str(rng.integers(0, 10**12)))
    if kind == 2:
        words.insert(0, "#")
    return " ".join(words)


def _check_response(response: str | None, line: str) -> None:
    if response is None:
        return
    if not (response.startswith("=") or response.startswith("?")) or not response.endswith("\n\n"):
        raise AssertionError(f"malformed GTP response {response[:80]!r} to {line[:60]!r}")
    if "internal error" in response:
        raise AssertionError(f"engine reported an internal error to {line[:60]!r}: {response.strip()[:200]}")


def gtp_cases(rng: np.random.Generator, count: int) -> list[Case]:
    from alphazero.gtp.engine import MAX_LINE_CHARS, GTPEngine, serve
    from alphazero.play.choosers import FunctionChooser

    def engine():
        choice = np.random.default_rng(int(rng.integers(2**31)))
        return GTPEngine(FunctionChooser(lambda state: state.legal_actions()[int(choice.integers(len(state.legal_actions())))], name="random"))

    def session(lines: list[str]):
        gtp = engine()
        for line in lines:
            before = (gtp.state, len(gtp.history))
            response = gtp.handle(line)
            _check_response(response, line)
            if response is not None and response.startswith("?") and (gtp.state, len(gtp.history)) != before:
                raise AssertionError(f"a refused command changed the game: {line[:60]!r}")
            if gtp.finished:
                gtp = engine()

    def served(data: bytes):
        out = io.StringIO()
        gtp = engine()
        serve(gtp, stdin=io.BytesIO(data), stdout=out)
        for response in out.getvalue().split("\n\n")[:-1]:
            _check_response(response + "\n\n", "<stream>")

    cases = [
        Case("gtp", "commands out of order", lambda: session([
            "undo", "final_score", "genmove x", "play b", "play w f5", "time_left b 10 0", "boardsize 10", "set_game Go",
            "play b f5", "play b d6", "undo", "undo", "undo", "genmove b", "genmove b", "play w pass", "final_score", "quit",
        ]), False),  # fmt: skip
        Case("gtp", f"a line of {MAX_LINE_CHARS * 40} characters", lambda: served(b"1 play b " + b"f5" * (MAX_LINE_CHARS * 20) + b"\nname\n"), False),
        Case("gtp", "binary garbage on stdin", lambda: served(rng.integers(0, 256, 20000, dtype=np.uint8).tobytes()), False),
        Case("gtp", "NUL bytes and CR line ends", lambda: served(b"name\x00\r\nplay b f5\r\n\x00\x00\n10 genmove w\r\n"), False),
    ]
    for index in range(count):
        lines = [_random_gtp_line(rng) for _ in range(int(rng.integers(5, 40)))]
        cases.append(Case("gtp", f"random session {index} ({len(lines)} lines)", (lambda ls=lines: session(ls)), False))
    return cases


# ------------------------------------------------------------------------------------------------
# Hydra overrides (subprocesses: the real command line)


HYDRA_OVERRIDES = [
    ("mcts.simulations=many", "mcts.simulations"),
    ("train.lr=-1", "train.lr"),
    ("selfplay.workers=0", "selfplay.workers"),
    ("train.batch_size=1.5", "train.batch_size"),
    ("run.mode=fast", "run.mode"),
    ("selfplay.wokers=3", "wokers"),
    ("model=huge", "huge"),
    ("arena.sprt_alpha=2", "arena.sprt_alpha"),
]


def _train_refuses(run_dir: Path, override: str, key: str, timeout: float = 120.0) -> None:
    env = dict(os.environ)
    env.pop("ALPHAZERO_FAULT", None)
    command = [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}", override]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"python -m alphazero.train {override} did not exit within {timeout:.0f}s") from None
    output = proc.stdout + proc.stderr
    if proc.returncode == 0:
        raise AssertionError(f"python -m alphazero.train {override} was accepted (exit 0)")
    if "Traceback" in output:
        raise AssertionError(f"python -m alphazero.train {override} crashed: {output.strip().splitlines()[-1][:200]}")
    if (run_dir / "checkpoints").exists():
        raise AssertionError(f"python -m alphazero.train {override} started a run before refusing")
    raise ValueError(f"exit {proc.returncode}: {' '.join(proc.stderr.split())[:300]}")


def hydra_cases(work_dir: Path) -> list[Case]:
    return [
        Case("hydra", override, (lambda o=override, k=key, i=index: _train_refuses(work_dir / f"hydra-{i}", o, k)), True, key)
        for index, (override, key) in enumerate(HYDRA_OVERRIDES)
    ]


# ------------------------------------------------------------------------------------------------


def all_cases(rng: np.random.Generator, work_dir: Path, per_family: int, families=FAMILIES) -> list[Case]:
    work_dir = Path(work_dir)
    builders = {
        "wthor": lambda: wthor_cases(rng, work_dir / "wthor", per_family),
        "ggf": lambda: ggf_cases(rng, per_family),
        "transcript": lambda: transcript_cases(rng, per_family),
        "checkpoint": lambda: checkpoint_cases(rng, work_dir / "checkpoint", per_family),
        "gtp": lambda: gtp_cases(rng, per_family),
        "hydra": lambda: hydra_cases(work_dir / "hydra"),
    }
    cases = []
    for family in families:
        cases += builders[family]()
    return cases


def run_cases(cases: list[Case]) -> list[CaseResult]:
    return [run_case(case) for case in cases]


def summarize(results: list[CaseResult]) -> dict:
    by_outcome = {}
    for result in results:
        by_outcome[result.outcome] = by_outcome.get(result.outcome, 0) + 1
    return {"tried": len(results), **by_outcome}

