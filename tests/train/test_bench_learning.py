"""`python -m alphazero.bench learning`: the learning benchmark's command line, its refusals before
anything starts, its resume (a finished evaluation or training is not run again), its paired
comparison of two runs' games, and (slow) two tiny runs side by side end to end."""

import argparse
import json
import math
import os
import re
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from alphazero.arena.game_log import GameLog
from alphazero.bench import learning
from alphazero.bench.__main__ import main as bench_main
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.othello.game import GameState
from alphazero.othello.notation import format_transcript
from alphazero.train.__main__ import CONF_DIR
from alphazero.train.startup import compose_typed


def settings(tmp_path, **changes) -> learning.Settings:
    values = dict(minutes=1.0, run_seed=16, simulations=100, pairs=2, seed=1, runs_dir=tmp_path / "runs", side_by_side=False)
    values.update(changes)
    return learning.Settings(**values)


# ------------------------------------------------------------------------------------------------
# The command line


def test_a_run_is_a_name_and_its_overrides_split_as_a_shell_splits_them():
    assert learning.parse_run("b=experiment=cpu mcts.simulations=128") == learning.RunSpec("b", ("experiment=cpu", "mcts.simulations=128"))
    assert learning.parse_run("current=") == learning.RunSpec("current", ())
    assert learning.parse_run("q=\"eval.baselines=['random', 'greedy']\"").overrides == ("eval.baselines=['random', 'greedy']",)


@pytest.mark.parametrize("text, reason", [
    ("experiment", "expected NAME=OVERRIDES"),
    ("../x=experiment=cpu", "must be letters, digits"),
    ("grhino-1=", "is an opponent's name"),
    ("reference=", "is an opponent's name"),
    ("a=run.max_minutes=5", "'run.max_minutes=5' is set by the benchmark"),
    ("a=+run.seed=3", "'+run.seed=3' is set by the benchmark"),
    ("a=run.dir=/tmp/x", "is set by the benchmark"),
    ("a=hydra.run.dir=/tmp/x", "is set by the benchmark"),
    ("a=\"unclosed", "cannot split its overrides"),
])
def test_a_bad_run_is_refused_naming_it(text, reason):
    with pytest.raises(argparse.ArgumentTypeError, match=re.escape(reason)):
        learning.parse_run(text)


def test_opponents_are_alphabeta_depths_and_grhino_levels_named_once():
    assert learning.parse_opponents("alphabeta-2, grhino-4") == ("alphabeta-2", "grhino-4")
    for bad in ("grhino-6", "alphabeta", "edax-1"):
        with pytest.raises(argparse.ArgumentTypeError, match="unknown opponent"):
            learning.parse_opponents(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="named twice"):
        learning.parse_opponents("grhino-1,grhino-1")


def test_grhino_absent_skips_its_evaluations_with_the_reason_and_keeps_the_others(monkeypatch):
    monkeypatch.setattr(learning, "baseline_spec", lambda name: None)
    found = learning.opponents(("alphabeta-2", "grhino-1", "grhino-3"), 50, "/nets/ref.pt", 100, 100)
    assert [(o.tag, o.pairs) for o in found] == [("alphabeta-2", 50), ("grhino-1", 50), ("grhino-3", 50), ("reference", 100)]
    assert found[0].spec == "alphabeta:depth=2,name=alphabeta-2"
    assert found[1].spec is None and found[2].spec is None
    assert "GRhino is not installed" in found[1].skipped and "apt-get install grhino" in found[1].skipped
    assert found[3].spec == "mcts:checkpoint=/nets/ref.pt,simulations=100,threads=1,name=reference"


def test_grhino_plays_at_the_in_run_evaluations_settings_with_two_engine_processes(monkeypatch):
    monkeypatch.setattr(learning, "baseline_spec", lambda name: f'gtp:"/usr/games/gtp-rhino -l {name[-1]} -r 0 -b 0"')
    (grhino,) = learning.opponents(("grhino-3",), 50, None, 100, 100)
    assert grhino.spec == 'gtp:"/usr/games/gtp-rhino -l 3 -r 0 -b 0",processes=2,name=grhino-3'


def test_the_training_command_ends_with_the_benchmarks_keys(tmp_path):
    run = learning.RunSpec("a", ("experiment=cpu", "train.lr_schedule_horizon=minutes"))
    files = learning.RunFiles(tmp_path / "runs" / "a")
    assert learning.train_arguments(run, settings(tmp_path, minutes=60), files, resume=True) == [
        "experiment=cpu", "train.lr_schedule_horizon=minutes", f"run.dir={files.run_dir}", "run.resume=true",
        "run.max_minutes=60", "run.progress=false", "run.seed=16"]
    assert "run.max_minutes=0.5" in learning.train_arguments(run, settings(tmp_path, minutes=0.5), files, resume=False)


# ------------------------------------------------------------------------------------------------
# Refusals before anything starts


def refused(capsys, argv) -> str:
    try:
        status = bench_main(["learning", *argv])
    except SystemExit as exit_:  # argparse's own refusals
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_an_unknown_override_key_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys):
    line = refused(capsys, ["--run", "a=experiment=smoke mcts.simulation=5", "--runs-dir", str(tmp_path / "runs")])
    assert line == ("python -m alphazero.bench learning: error: --run a: unknown config key 'mcts.simulation' in override "
                    "'mcts.simulation=5'; did you mean 'mcts.simulations'?")
    assert not (tmp_path / "runs").exists()


def test_a_value_out_of_range_is_refused_naming_the_run_and_the_key(tmp_path, capsys):
    line = refused(capsys, ["--run", "a=experiment=smoke", "--run", "b=experiment=smoke train.lr=-1", "--runs-dir", str(tmp_path / "runs")])
    assert line.startswith("python -m alphazero.bench learning: error: --run b: ") and "train.lr must be > 0" in line
    assert not (tmp_path / "runs").exists()


def test_a_missing_reference_is_refused_in_one_line(tmp_path, capsys):
    line = refused(capsys, ["--run", "a=experiment=smoke", "--reference", str(tmp_path / "ref.pt"), "--runs-dir", str(tmp_path / "runs")])
    assert line == f"python -m alphazero.bench learning: error: --reference: checkpoint {tmp_path / 'ref.pt'} does not exist"
    assert not (tmp_path / "runs").exists()


def test_more_runs_side_by_side_than_cores_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(learning, "available_cores", lambda: [3])
    line = refused(capsys, ["--run", "a=", "--run", "b=", "--side-by-side", "--runs-dir", str(tmp_path / "runs")])
    assert line == ("python -m alphazero.bench learning: error: --side-by-side: 2 runs but this process may use 1 cores (3); "
                    "run fewer at once, or one after another without --side-by-side")


def test_a_run_named_twice_is_refused(tmp_path, capsys):
    line = refused(capsys, ["--run", "a=", "--run", "a=experiment=smoke", "--runs-dir", str(tmp_path / "runs")])
    assert line == "python -m alphazero.bench learning: error: --run a: named twice"


def test_a_runs_dir_that_player_specs_cannot_carry_is_refused(tmp_path, capsys):
    line = refused(capsys, ["--run", "a=", "--runs-dir", str(tmp_path / "a,b")])
    assert "--runs-dir" in line and "holds a comma" in line


def test_a_run_directory_started_with_other_settings_is_refused_not_mixed(tmp_path, capsys):
    first = settings(tmp_path, minutes=60)
    run = learning.RunSpec("a", ("experiment=smoke",))
    files = learning.RunFiles(first.runs_dir / "a")
    (files.run_dir / "checkpoints").mkdir(parents=True)
    (files.run_dir / "checkpoints" / "best.json").write_text("{}")  # the run has started
    files.spec.write_text(json.dumps(learning.recorded_spec(run, first)))
    line = refused(capsys, ["--run", "a=experiment=smoke mcts.simulations=5", "--minutes", "60", "--runs-dir", str(first.runs_dir)])
    assert ("holds a run started with other settings ('experiment=smoke', 60 minutes, run seed 16; now "
            "'experiment=smoke mcts.simulations=5', 60 minutes, run seed 16)") in line


# ------------------------------------------------------------------------------------------------
# Resume: what is on disk is not done again


class FakeLaunch:
    """Records the commands a pipeline launches; an arena command prints a result line."""

    def __init__(self):
        self.commands = []

    def __call__(self, command, log, core, capture, waiting=None):
        self.commands.append(command)
        if waiting is not None:
            waiting()  # as a long training run's launch does every few minutes
        if "alphazero.arena" in command:
            return 0, json.dumps({"games": 4, "wins": 3, "draws": 0, "losses": 1, "score": 0.75, "elo_diff": 190.8, "elo_ci95": 300.0,
                                  "seconds": 1.0, "player_a": "a"})
        return 0, ""


def pipeline(tmp_path, opponent_list, launch, run=None, cfg=None, **changes) -> learning.Pipeline:
    run = run or learning.RunSpec("a", ("experiment=smoke",))
    return learning.Pipeline(run, cfg, settings(tmp_path, **changes), opponent_list, None, threading.Event(), lambda text: None, launch)


def test_a_finished_evaluation_is_not_played_again_and_a_changed_one_is(tmp_path, monkeypatch):
    monkeypatch.setattr(learning, "baseline_spec", lambda name: None)
    opponent_list = learning.opponents(("alphabeta-2", "alphabeta-3", "grhino-1"), 2, None, 100, 100)
    first = FakeLaunch()
    pipeline(tmp_path, opponent_list, first).evaluate()
    assert [command[3:5] for command in first.commands] == [
        [f"mcts:checkpoint={tmp_path / 'runs/a/final.pt'},simulations=100,threads=1,name=a", "alphabeta:depth=2,name=alphabeta-2"],
        [f"mcts:checkpoint={tmp_path / 'runs/a/final.pt'},simulations=100,threads=1,name=a", "alphabeta:depth=3,name=alphabeta-3"],
    ]  # GRhino is not installed here: skipped, never launched
    assert "--games-log" in first.commands[0] and str(tmp_path / "runs/a/evaluations-100sims/alphabeta-2-games.jsonl") in first.commands[0]
    again = FakeLaunch()
    pipeline(tmp_path, opponent_list, again).evaluate()
    assert again.commands == []
    more_pairs = FakeLaunch()
    pipeline(tmp_path, learning.opponents(("alphabeta-2", "alphabeta-3"), 3, None, 100, 100), more_pairs).evaluate()
    assert len(more_pairs.commands) == 2 and more_pairs.commands[0][6] == "3"
    other_simulations = FakeLaunch()
    pipeline(tmp_path, opponent_list, other_simulations, simulations=50).evaluate()
    assert len(other_simulations.commands) == 2
    assert (tmp_path / "runs/a/evaluations-50sims/alphabeta-2.json").is_file()  # a separate evaluation, its own games log


def test_a_damaged_result_is_played_again(tmp_path):
    opponent_list = learning.opponents(("alphabeta-2",), 2, None, 100, 100)
    pipeline(tmp_path, opponent_list, FakeLaunch()).evaluate()
    (tmp_path / "runs/a/evaluations-100sims/alphabeta-2.json").write_text('{"arguments": [')
    again = FakeLaunch()
    pipeline(tmp_path, opponent_list, again).evaluate()
    assert len(again.commands) == 1


def test_a_match_that_fails_is_an_error_naming_its_log_and_writes_no_result(tmp_path):
    def failing(command, log, core, capture, waiting=None):
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("error: GRhino answered ? illegal move\n")
        return 2, ""

    work = pipeline(tmp_path, learning.opponents(("alphabeta-2",), 2, None, 100, 100), failing)
    with pytest.raises(learning.LearningBenchError) as error:
        work.evaluate()
    assert str(error.value).startswith("the match against alphabeta-2 exited 2: error: GRhino answered ? illegal move (whole log: ")
    assert not (tmp_path / "runs/a/evaluations-100sims/alphabeta-2.json").exists()


def save_latest(run_dir: Path, **counters) -> None:
    net = build_network(model_preset("tiny"))
    save_checkpoint(run_dir / "checkpoints" / "latest.pt", net, extra={"iteration": 0, "step": 0, "seconds": 0.0, **counters})


def test_a_run_that_has_spent_its_budget_is_not_trained_again_and_one_that_has_not_resumes(tmp_path):
    cfg = compose_typed(["experiment=smoke", "run.max_minutes=1"], CONF_DIR)
    run_dir = tmp_path / "runs" / "a" / "run"
    save_latest(run_dir, iteration=1, step=40, seconds=61.0)
    done = FakeLaunch()
    pipeline(tmp_path, [], done, cfg=cfg).train()
    assert done.commands == []
    save_latest(run_dir, iteration=1, step=40, seconds=30.0)  # stopped half way (Ctrl-C, a kill)
    resumed = FakeLaunch()
    with pytest.raises(learning.LearningBenchError, match="training exited 0 before its budget was spent"):
        pipeline(tmp_path, [], resumed, cfg=cfg).train()  # the fake training changed nothing on disk
    assert len(resumed.commands) == 1 and "run.resume=true" in resumed.commands[0] and "run.max_minutes=1" in resumed.commands[0]
    save_latest(run_dir, iteration=3, step=40, seconds=30.0)  # the smoke preset's own budget: 3 iterations
    assert learning.training_done(cfg, learning.training_state(learning.RunFiles(tmp_path / "runs" / "a")))


def test_a_stopped_benchmark_starts_no_further_step(tmp_path):
    launched = FakeLaunch()
    work = pipeline(tmp_path, learning.opponents(("alphabeta-2",), 2, None, 100, 100), launched)
    work.stop.set()
    work()
    assert launched.commands == [] and work.error is None


def test_a_failed_run_is_one_line_naming_it_after_the_others_finished_and_a_bug_keeps_its_traceback(tmp_path):
    def failing_training(command, log, core, capture, waiting=None):
        if "alphazero.train" in command:
            raise learning.LearningBenchError("training exited 3 before its budget was spent: ProcessKeepsDying")
        return FakeLaunch()(command, log, core, capture)

    cfg = compose_typed(["experiment=smoke", "run.max_minutes=1"], CONF_DIR)
    broken = pipeline(tmp_path, [], failing_training, cfg=cfg)
    fine = pipeline(tmp_path, learning.opponents(("alphabeta-2",), 2, None, 100, 100), FakeLaunch(), run=learning.RunSpec("b", ()))
    fine.evaluate()
    learning.run_all([broken], side_by_side=True, stop=threading.Event())
    with pytest.raises(learning.LearningBenchError) as error:
        learning.report_failures([broken, fine])
    assert str(error.value) == ("run a: training exited 3 before its budget was spent: ProcessKeepsDying (what was done is kept: "
                                "the same command resumes)")
    broken.error = TypeError("unsupported operand")
    with pytest.raises(TypeError, match="unsupported operand"):
        learning.report_failures([broken, fine])


def test_a_long_command_says_where_it_is_every_few_minutes(tmp_path, monkeypatch):
    monkeypatch.setattr(learning, "PROGRESS_SECONDS", 0.2)
    calls = []
    status, _ = learning.launch([sys.executable, "-c", "import time; time.sleep(1.5)"], tmp_path / "log", None, False, lambda: calls.append(1))
    assert status == 0 and len(calls) >= 3  # 1.5 s of sleep (and a start) in windows of 0.2 s


def test_a_training_runs_status_is_its_logs_latest_iteration_line(tmp_path):
    files = learning.RunFiles(tmp_path / "a")
    assert learning.training_status(files) == "starting (no iteration finished yet)"
    files.run_dir.mkdir(parents=True)
    (files.run_dir / "log.txt").write_text(
        "2026-12-02 05:10:02 INFO starting 2 self-play worker(s)\n"
        "2026-12-02 05:12:09 INFO iter 1 | games 128 (+128) | positions 7680 | 14m03s, about 45m57s left\n"
        "2026-12-02 05:12:10 INFO arena: candidate vs best\n")
    assert learning.training_status(files) == "iter 1 | games 128 (+128) | positions 7680 | 14m03s, about 45m57s left"


def test_a_side_by_side_command_and_what_it_starts_run_on_their_core_only(tmp_path):
    core = max(os.sched_getaffinity(0))
    child = "import os, subprocess, sys; print(sorted(os.sched_getaffinity(0)), subprocess.run([sys.executable, '-c', " \
            "'import os; print(sorted(os.sched_getaffinity(0)))'], capture_output=True, text=True).stdout.strip())"
    status, line = learning.launch([sys.executable, "-c", child], tmp_path / "log", core, True)
    assert status == 0 and line == f"[{core}] [{core}]"
    assert f"[{core}] [{core}]" in (tmp_path / "log").read_text()  # the output is logged too
    status, line = learning.launch([sys.executable, "-c", "print(len(__import__('os').sched_getaffinity(0)))"], tmp_path / "log", None, True)
    assert int(line) == len(os.sched_getaffinity(0))  # one after another: the whole machine


# ------------------------------------------------------------------------------------------------
# The paired comparison


def test_paired_figures_are_the_mean_difference_per_twin_game_and_its_standard_error():
    first = {("a", True): 1.0, ("a", False): 0.0, ("b", True): 0.5, ("b", False): 1.0, ("c", True): 1.0}
    second = {("a", True): 1.0, ("a", False): 1.0, ("b", True): 0.0, ("b", False): 1.0, ("d", True): 0.0}
    figures = learning.paired(first, second)
    diffs = [0.0, 1.0, -0.5, 0.0]  # the four twins: (a, black) (a, white) (b, black) (b, white)
    mean = sum(diffs) / 4
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 3 / 4)
    assert figures == {"games": 4, "first_score": 0.625, "second_score": 0.75, "difference": round(mean, 4),
                       "standard_error": round(se, 4), "second_better": 1, "first_better": 1}
    assert learning.paired(first, {("z", True): 1.0}) is None


def random_game(opening: list[int], seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    state, actions = GameState.start(), list(opening)
    for action in opening:
        state = state.play(action)
    while not state.is_over():
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        actions.append(action)
        state = state.play(action)
    return actions


def log_games(path: Path, player: str, opponent: str, seeds) -> dict:
    """Finished random games of `player` against `opponent` on two openings, both colours; returns
    `player`'s score in each."""
    log, scores = GameLog(path), {}
    for opening, (seed_black, seed_white) in zip(([37, 29], [37, 43]), seeds):
        for a_is_black, seed in ((True, seed_black), (False, seed_white)):
            actions = random_game(opening, seed)
            state = GameState.start()
            for action in actions:
                state = state.play(action)
            log.append(player, opponent, opening, a_is_black, actions, state.black_margin())
            margin = state.black_margin() if a_is_black else -state.black_margin()
            scores[(format_transcript(opening, explicit_passes=True), a_is_black)] = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    return scores


def test_two_runs_games_are_paired_by_opening_and_colour_per_opponent_and_over_all(tmp_path):
    s = settings(tmp_path)
    first, second = learning.RunSpec("base", ()), learning.RunSpec("new", ())
    opponent_list = learning.opponents(("alphabeta-2",), 2, None, 100, 100) + [learning.Opponent("grhino-1", None, 2, "not installed")]
    a = log_games(learning.RunFiles(s.runs_dir / "base").games(100, "alphabeta-2"), "base", "alphabeta-2", [(1, 2), (3, 4)])
    b = log_games(learning.RunFiles(s.runs_dir / "new").games(100, "alphabeta-2"), "new", "alphabeta-2", [(5, 6), (7, 8)])
    result = learning.comparison(first, second, s, opponent_list)
    assert result["first"] == "base" and result["second"] == "new"
    assert set(result["opponents"]) == {"alphabeta-2"}  # the skipped opponent has no games
    assert result["opponents"]["alphabeta-2"] == learning.paired(a, b) == result["all"]
    assert result["all"]["games"] == 4


def test_game_scores_read_the_players_score_from_either_side_of_the_log(tmp_path):
    path = tmp_path / "games.jsonl"
    scores = log_games(path, "net", "alphabeta-2", [(11, 12), (13, 14)])
    assert learning.game_scores(path, "net", "alphabeta-2") == scores
    assert learning.game_scores(path, "other", "alphabeta-2") == {}


# ------------------------------------------------------------------------------------------------
# End to end


@pytest.mark.slow  # two smoke runs of 30 s side by side, then their evaluations: about 2 minutes on 2 cores
def test_two_tiny_runs_side_by_side_train_evaluate_compare_and_a_rerun_replays_nothing(tmp_path, capsys):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores to run side by side")
    argv = ["learning", "--run", "base=experiment=smoke", "--run", "fewer=experiment=smoke mcts.simulations=6", "--minutes", "0.5",
            "--pairs", "1", "--opponents", "alphabeta-2", "--side-by-side", "--runs-dir", str(tmp_path / "runs")]
    assert bench_main(argv) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out.strip().splitlines()[-1])
    assert [run["name"] for run in result["runs"]] == ["base", "fewer"]
    for run in result["runs"]:
        assert run["steps"] > 0 and run["games"] > 0 and run["positions"] > 0 and run["minutes"] > 0
        evaluation = run["evaluations"]["alphabeta-2"]
        assert evaluation["games"] == 2 and evaluation["wins"] + evaluation["draws"] + evaluation["losses"] == 2
        assert Path(run["network"]).is_file()
    (comparison,) = result["paired"]
    assert comparison["first"] == "base" and comparison["second"] == "fewer" and comparison["opponents"]["alphabeta-2"]["games"] == 2
    assert "training 0.5 minutes of run time on core 0" in captured.err and "on core 1" in captured.err
    logs = {path: path.stat().st_size for path in (tmp_path / "runs").glob("*/*.log")}
    assert bench_main(argv) == 0
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert again["runs"] == result["runs"] and again["paired"] == result["paired"]
    assert {path: path.stat().st_size for path in logs} == logs  # nothing trained or played again
