"""The AI behind GTP and terminal play: MCTS choosers (simulation and time limits, tree reuse,
evaluations), arena players as choosers, and building the AI from command-line options."""

import math
import random
import time

import pytest
from search_doubles import DiscCountEvaluator, FlakyEvaluator

from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_board_text, parse_square, parse_transcript
from alphazero.play.choosers import (
    DEFAULT_CHECKPOINT,
    DEFAULT_CHECKPOINTS,
    DEFAULT_SIMULATIONS,
    FALLBACK_CHECKPOINT,
    MoveInfo,
    NoAIError,
    PlayerChooser,
    SearchChooser,
    SearchSettings,
    build_chooser,
    chooser_from_spec,
    default_checkpoint,
    describe_limit,
)

NEAR_END = "OOXXOOO-XOXXOOO-XXOOOXOOXOOOOXXOXOXOOOOOXOOXOOOOXOXOOOOOXXOOOOOO X"  # black: h1 or h2


def exact_margin(state):
    """Black's final margin under perfect play (tiny endgames only)."""
    if state.is_over():
        return state.black_margin()
    results = [exact_margin(state.play(a)) for a in state.legal_actions()]
    return max(results) if state.black_to_move else min(results)


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    save_checkpoint(path, build_network(model_preset("tiny")))
    return path


def test_search_chooser_plays_legal_moves_through_a_whole_game():
    chooser = SearchChooser(UniformEvaluator(), simulations=16)
    state = GameState.start()
    while not state.is_over():
        action = chooser.choose(state)
        assert state.is_legal(action)
        state = state.play(action)


def test_search_chooser_passes_when_forced_without_searching():
    state = GameState.start()
    for action in parse_transcript("e6f6g6g7g8f4e3h6c4c3b2f8g3h8"):
        state = state.play(action)
    chooser = SearchChooser(UniformEvaluator(), simulations=16)
    assert chooser.choose(state) == PASS and chooser.last_simulations == 0


def test_search_chooser_finds_the_exact_best_move_in_an_endgame():
    state = parse_board_text(NEAR_END)
    chooser = SearchChooser(UniformEvaluator(), simulations=200)
    best = exact_margin(state)
    action = chooser.choose(state)
    assert exact_margin(state.play(action)) == best


def test_analysis_lists_visited_moves_by_share_with_values_from_the_movers_view():
    state = parse_board_text(NEAR_END)
    infos = SearchChooser(UniformEvaluator(), simulations=200).analyse(state)
    assert {info.action for info in infos} == set(state.legal_actions())
    assert sum(info.share for info in infos) == pytest.approx(1.0)
    assert infos == sorted(infos, key=lambda info: -info.share)
    for info in infos:  # with 2 empties the uniform search sees exact results
        margin = exact_margin(state.play(info.action))
        assert -1 <= info.value <= 1
        if margin > 0:
            assert info.value > 0
        elif margin < 0:
            assert info.value < 0


def test_simulation_limit_sets_the_visit_count():
    chooser = SearchChooser(UniformEvaluator(), simulations=50)
    infos = chooser.analyse(GameState.start())
    assert chooser.last_simulations == 50
    assert sum(info.share for info in infos) == pytest.approx(1.0)


def test_time_limit_stops_the_search_close_to_the_budget():
    chooser = SearchChooser(UniformEvaluator(), simulations=None, seconds=0.3)
    chooser.choose(GameState.start())  # compile and warm up
    started = time.perf_counter()
    chooser.choose(GameState.start().play(37))
    elapsed = time.perf_counter() - started
    assert 0.1 < elapsed < 1.2  # generous: other processes share the 2 cores
    assert chooser.last_simulations > SearchChooser.TIME_CHUNK


def test_a_time_budget_given_per_call_caps_a_simulation_limit():
    chooser = SearchChooser(UniformEvaluator(), simulations=10**6)
    chooser.choose(GameState.start(), seconds=0.05)
    started = time.perf_counter()
    chooser.choose(GameState.start().play(37), seconds=0.2)
    assert time.perf_counter() - started < 1.0
    assert chooser.last_simulations < 10**6


def test_with_both_limits_the_simulation_count_ends_a_long_time_limit_early():
    chooser = SearchChooser(UniformEvaluator(), simulations=64, seconds=30)
    started = time.perf_counter()
    chooser.choose(GameState.start())
    assert time.perf_counter() - started < 5 and chooser.last_simulations == 64


def test_tree_is_reused_after_our_move_and_the_reply():
    chooser = SearchChooser(UniformEvaluator(), simulations=200)
    state = GameState.start()
    action = chooser.choose(state)
    state = state.play(action)
    reply = state.legal_actions()[0]
    state = state.play(reply)
    assert chooser.last_reused_visits == 0
    chooser.choose(state)
    assert chooser.last_reused_visits > 0  # the reply's subtree from the first search was kept
    chooser.choose(GameState.start())  # an unrelated position starts afresh
    assert chooser.last_reused_visits == 0


def test_a_chunked_search_counts_as_reused_only_the_visits_from_before_it():
    # In chunks (a stoppable search, as the web board's and NBoard's), the last chunk finds the
    # earlier chunks' visits in the tree: they are this search's, not reused (it said 32 of 64).
    chooser = SearchChooser(UniformEvaluator(), simulations=64)
    state = GameState.start()
    first = chooser.think(state, should_stop=lambda: False)
    assert first.simulations == 64 and first.reused_visits == 0 and sum(m.visits for m in first.moves) == 64
    again = chooser.think(state, should_stop=lambda: False)
    assert again.simulations == 64 and again.reused_visits == 64 and sum(m.visits for m in again.moves) == 128


def test_new_game_forgets_the_tree():
    chooser = SearchChooser(UniformEvaluator(), simulations=32)
    chooser.choose(GameState.start())
    chooser.new_game()
    assert all(entry[1] is None for entry in chooser._searches.values())


def test_invalid_limits_are_rejected():
    with pytest.raises(ValueError, match="simulations or seconds"):
        SearchChooser(UniformEvaluator(), simulations=None)
    with pytest.raises(ValueError, match="integer >= 1"):
        SearchChooser(UniformEvaluator(), simulations=0)
    with pytest.raises(ValueError, match="> 0"):
        SearchChooser(UniformEvaluator(), simulations=None, seconds=-1)


def test_move_info_win_probability():
    assert MoveInfo(19, 0.5, 0.5).win_probability == 0.75
    assert math.isnan(MoveInfo(19, 0.0, math.nan).win_probability)


def test_describe_limit():
    assert describe_limit(200, None) == "200 sims"
    assert describe_limit(None, 2.5) == "2.5s"
    assert describe_limit(100, 1) == "100 sims/1s"


# -- building from options ------------------------------------------------------------------------


def test_network_chooser_from_a_checkpoint_plays_and_explains(tiny_checkpoint):
    chooser = build_chooser(checkpoint=str(tiny_checkpoint), settings=SearchSettings(simulations=8, device="cpu"))
    assert isinstance(chooser, SearchChooser) and "tiny" in chooser.name
    state = GameState.start()
    assert state.is_legal(chooser.choose(state))
    infos = chooser.analyse(state)
    assert infos and all(state.is_legal(info.action) for info in infos)


def test_default_checkpoint_is_used_when_present(tmp_path, monkeypatch, tiny_checkpoint):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / DEFAULT_CHECKPOINT).write_bytes(tiny_checkpoint.read_bytes())
    assert default_checkpoint() == DEFAULT_CHECKPOINT
    chooser = build_chooser(settings=SearchSettings(simulations=4, device="cpu"))
    assert "selfplay-medium" in chooser.name


def test_the_defaults_are_the_shipped_networks_strongest_first():
    """The order checkpoints/README.md's head-to-heads measured: selfplay-medium > warmstart-medium >
    selfplay > warmstart."""
    assert [path.name for path in DEFAULT_CHECKPOINTS] == ["selfplay-medium.pt", "warmstart-medium.pt", "selfplay.pt", "warmstart.pt"]
    assert DEFAULT_CHECKPOINT == DEFAULT_CHECKPOINTS[0] and FALLBACK_CHECKPOINT == DEFAULT_CHECKPOINTS[-1]


def test_the_warm_start_is_the_fallback_default(tmp_path, monkeypatch, tiny_checkpoint):
    """A checkout without the stronger networks still plays, with the warm start; the working
    directory's network wins over the repository's, and with neither there is None."""
    repository = tmp_path / "repo"
    (repository / "alphazero" / "play").mkdir(parents=True)
    monkeypatch.setattr("alphazero.play.choosers.__file__", str(repository / "alphazero" / "play" / "choosers.py"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    assert default_checkpoint() is None
    (repository / "checkpoints").mkdir()
    (repository / FALLBACK_CHECKPOINT).write_bytes(tiny_checkpoint.read_bytes())
    assert default_checkpoint() == repository / FALLBACK_CHECKPOINT
    (repository / DEFAULT_CHECKPOINT).write_bytes(tiny_checkpoint.read_bytes())
    assert default_checkpoint() == repository / DEFAULT_CHECKPOINT
    (workdir / "checkpoints").mkdir()
    (workdir / FALLBACK_CHECKPOINT).write_bytes(tiny_checkpoint.read_bytes())
    assert default_checkpoint() == repository / DEFAULT_CHECKPOINT  # the stronger network first
    (workdir / DEFAULT_CHECKPOINT).write_bytes(tiny_checkpoint.read_bytes())
    assert default_checkpoint() == DEFAULT_CHECKPOINT


def test_missing_checkpoint_tells_what_to_pass(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("alphazero.play.choosers.default_checkpoint", lambda: None)
    with pytest.raises(NoAIError, match="--checkpoint PATH.*--player SPEC"):
        build_chooser()
    with pytest.raises(NoAIError, match="does not exist"):
        build_chooser(checkpoint=str(tmp_path / "nope.pt"))
    with pytest.raises(NoAIError, match="not both"):
        build_chooser(checkpoint="a.pt", player="greedy")


def test_player_specs_become_choosers():
    greedy = chooser_from_spec("greedy")
    assert isinstance(greedy, PlayerChooser) and greedy.analyse(GameState.start()) is None
    assert greedy.choose(GameState.start()) in GameState.start().legal_actions()
    uniform = chooser_from_spec("mcts:evaluator=uniform,simulations=20", SearchSettings(simulations=5))
    assert isinstance(uniform, SearchChooser) and uniform.simulations == 20  # the spec wins
    assert chooser_from_spec("mcts:evaluator=uniform", SearchSettings(simulations=7)).simulations == 7
    assert chooser_from_spec("mcts:evaluator=uniform").simulations == DEFAULT_SIMULATIONS
    timed = chooser_from_spec("mcts:evaluator=uniform", SearchSettings(seconds=0.5))
    assert timed.simulations is None and timed.seconds == 0.5
    with pytest.raises(NoAIError, match="MCTS players only"):
        chooser_from_spec("random", SearchSettings(simulations=5))
    with pytest.raises(NoAIError):
        chooser_from_spec("chess-master")
    with pytest.raises(NoAIError, match="exactly one"):
        chooser_from_spec("mcts:simulations=5")


def test_random_player_chooser_is_reproducible():
    first = chooser_from_spec("random:seed=3")
    second = chooser_from_spec("random:seed=3")
    rng = random.Random(0)
    state = GameState.start()
    for _ in range(10):
        assert first.choose(state) == second.choose(state)
        state = state.play(rng.choice(state.legal_actions()))
    assert parse_square("f5") in GameState.start().legal_actions()


def test_think_reports_the_move_its_candidates_and_a_legal_principal_variation():
    chooser = SearchChooser(UniformEvaluator(), simulations=200, endgame_solve_empties=0)
    state = parse_transcript_state("f5d6c3d3c4")
    thought = chooser.think(state)
    assert thought.action == thought.moves[0].action == thought.principal_variation[0]
    assert thought.simulations == 200 and thought.exact_score is None and -1 <= thought.root_value <= 1
    assert math.isclose(sum(m.share for m in thought.moves), 1.0)
    line = state
    for action in thought.principal_variation:
        assert line.is_legal(action)
        line = line.play(action)
    assert len(thought.principal_variation) >= 3
    solved = SearchChooser(UniformEvaluator(), simulations=16).think(parse_board_text(NEAR_END))
    assert solved.exact_score is not None and solved.root_value == math.copysign(1.0, solved.exact_score)


def test_think_stops_between_chunks_when_asked():
    chooser = SearchChooser(UniformEvaluator(), simulations=10_000)
    asked = []
    thought = chooser.think(GameState.start(), should_stop=lambda: asked.append(1) or len(asked) >= 2)
    assert thought.simulations == 2 * SearchChooser.TIME_CHUNK


def test_think_at_a_forced_pass_and_at_the_end():
    state = GameState.start()
    for action in parse_transcript("e6f6g6g7g8f4e3h6c4c3b2f8g3h8"):
        state = state.play(action)
    chooser = SearchChooser(UniformEvaluator(), simulations=16)
    if state.must_pass():
        assert chooser.think(state).action == PASS
    with pytest.raises(ValueError, match="game is over"):
        chooser.think(parse_board_text("X" * 64 + " O"))


def parse_transcript_state(transcript):
    state = GameState.start()
    for action in parse_transcript(transcript):
        state = state.play(action)
    return state


def test_a_search_in_chunks_spends_a_budget_that_is_not_a_multiple_of_the_chunk_exactly():
    chooser = SearchChooser(UniformEvaluator(), simulations=100, seconds=60)
    chooser.choose(GameState.start())
    assert chooser.last_simulations == 100
    assert SearchChooser(UniformEvaluator(), simulations=70).think(GameState.start(), should_stop=lambda: False).simulations == 70


def test_after_a_search_error_the_chooser_plays_what_a_chooser_that_never_failed_plays():
    state = GameState.start()
    for action in parse_transcript("f5d6c3d3c4f4"):
        state = state.play(action)
    flaky = SearchChooser(FlakyEvaluator(fail_on=4), simulations=64)
    with pytest.raises(RuntimeError, match="evaluator failed"):
        flaky.choose(state)
    healthy = SearchChooser(DiscCountEvaluator(), simulations=64)
    for ply in range(10):  # both sides, so each chooser reuses its tree across its own move and the reply
        action = healthy.choose(state)
        assert flaky.choose(state) == action, f"ply {ply}"
        assert flaky.last_reused_visits == healthy.last_reused_visits
        state = state.play(action)


@pytest.mark.parametrize("module", ["gtp", "nboard"])
def test_a_front_end_without_an_ai_says_why_in_one_line_and_exits_2(module, capsys):
    import importlib

    main = importlib.import_module(f"alphazero.{module}.__main__").main
    assert main(["--checkpoint", "x.pt", "--player", "greedy"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: give either --checkpoint or --player, not both"]


def test_chooser_from_args_announces_the_ai_it_built():
    import io

    from alphazero.play.choosers import chooser_from_args, front_end_parser

    parser = front_end_parser("prog", "a front-end", "title\n\n    prog --player greedy\n")
    assert "prog --player greedy" in parser.format_help()
    log = io.StringIO()
    chooser = chooser_from_args(parser.parse_args(["--player", "greedy"]), "prog", log)
    assert chooser is not None and log.getvalue() == f"prog: playing as {chooser.name}\n"


def test_a_slow_start_says_why_once_the_ai_is_ready(monkeypatch):
    import io

    from alphazero.play import choosers
    from alphazero.play.choosers import chooser_from_args, front_end_parser

    monkeypatch.setattr(choosers, "SLOW_START_SECONDS", 0.0)  # every start counts as slow
    parser = front_end_parser("prog", "a front-end", "title\n\n    prog --player greedy\n")
    log = io.StringIO()
    chooser = chooser_from_args(parser.parse_args(["--player", "mcts:evaluator=uniform,simulations=8"]), "prog", log)
    lines = log.getvalue().splitlines()
    assert lines[0] == f"prog: playing as {chooser.name}"
    assert lines[1].startswith("prog: the AI took ") and "compiles the search's kernels" in lines[1]
    assert len(lines) == 2
