"""The web board's JSON API through Flask's test client (no browser, no socket): positions, moves
and pasted games, AI moves and analyses on the shipped default network, the run viewer on a tiny
run, and bad input answered with one clear message, logged, with nothing changed on disk."""

import logging
import subprocess
import sys

import pytest

pytest.importorskip("flask", reason='Flask not installed (pip install -e ".[web]")')

from alphazero.othello.game import GameState  # noqa: E402
from alphazero.othello.notation import format_board_text, parse_square, parse_transcript  # noqa: E402
from alphazero.play.choosers import default_checkpoint  # noqa: E402
from tests.conftest import REPO_ROOT  # noqa: E402
from tests.web.helpers import board, board_client, snapshot, write_run_shard  # noqa: E402

NEAR_END = "OOXXOOO-XOXXOOO-XXOOOXOOXOOOOXXOXOXOOOOOXOOXOOOOXOXOOOOOXXOOOOOO X"  # black: h1 or h2


@pytest.fixture()
def client(engines, tiny_run):
    return board_client(board(engines, tiny_run, default_simulations=8))


def post(client, path, **payload):
    response = client.post(path, json=payload)
    return response.status_code, response.get_json()


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and b"app.js" in page.data
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    config = client.get("/api/config").get_json()
    assert config["checkpoint"] == str(default_checkpoint()) and config["simulations"] == 8


def test_moves_positions_and_the_record_texts(client):
    status, start = post(client, "/api/position", start=None, moves=[])
    assert status == 200 and start["to_move"] == "black" and sorted(start["legal"]) == ["c4", "d3", "e6", "f5"]
    status, after = post(client, "/api/move", start=None, moves=["f5", "d6"], move="c3")
    assert status == 200 and after["moves"] == ["f5", "d6", "c3"] and after["plies"][2]["flipped"] == ["d4"]
    status, loaded = post(client, "/api/load", text=after["ggf"])
    assert status == 200 and loaded["moves"] == after["moves"]
    status, loaded = post(client, "/api/load", text=after["transcript"])
    assert status == 200 and loaded["moves"] == after["moves"]
    board = format_board_text(GameState.start().play(parse_square("f5")))  # white to move
    status, from_board = post(client, "/api/load", text=board + "\nd6c3")
    assert status == 200 and from_board["start"] == board and from_board["moves"] == ["d6", "c3"]


def test_a_forced_pass_is_played_and_shown(client):
    moves = ["e6", "f6", "g6", "g7", "g8", "f4", "e3", "h6", "c4", "c3", "b2", "f8", "g3", "h8"]
    state = GameState.start()
    for action in parse_transcript("".join(moves)):
        state = state.play(action)
    status, position = post(client, "/api/position", moves=moves)
    assert status == 200
    if state.must_pass():
        assert position["moves"][-1] == "pa" and position["plies"][-1]["move"] == "pa"


def test_the_ai_moves_and_the_analysis_says_what_the_network_and_the_search_think(client):
    status, answer = post(client, "/api/ai_move", moves=["f5"], simulations=8)
    assert status == 200 and answer["move"] in ("d6", "f4", "f6") and answer["position"]["moves"] == ["f5", answer["move"]]
    status, result = post(client, "/api/analyse", moves=["f5", "d6"], simulations=16)
    assert status == 200
    policy = result["network"]["policy"]
    legal = post(client, "/api/position", moves=["f5", "d6"])[1]["legal"]
    assert sorted(policy) == sorted(legal) and abs(sum(policy.values()) - 1) < 1e-4
    assert -1 <= result["network"]["value"] <= 1 and 0 <= result["network"]["win"] <= 1
    search = result["search"]
    assert search["simulations"] == 16 and search["moves"][0]["move"] == search["pv"][0] and search["solver"] is None
    assert all(m["visits"] >= 1 and (m["q"] is None or -1 <= m["q"] <= 1) for m in search["moves"])
    status, solved = post(client, "/api/analyse", start=NEAR_END, moves=[], simulations=8)
    assert status == 200 and solved["search"]["solver"]["best"] in ("h1", "h2") and solved["search"]["solver"]["empties"] == 2
    status, values = post(client, "/api/values", moves=["f5", "d6", "c3"])
    assert status == 200 and len(values["black_values"]) == 4


def test_bad_input_gets_one_clear_message_a_log_line_and_changes_nothing(client, tiny_run, caplog, tmp_path_factory):
    before = snapshot(tiny_run)
    cases = [
        ("/api/load", {"text": "f5f5"}, "illegal move 'f5' at character 2"),
        ("/api/load", {"text": "f5d6c"}, "dangling character"),
        ("/api/load", {"text": "(;GM[Othello]B[f5]"}, "never closed"),
        ("/api/load", {"text": "X" * 64}, "side to move"),
        ("/api/load", {"text": ""}, "no game in it"),  # the review's reader, as the Review tab says it
        ("/api/move", {"moves": ["f5"], "move": "a1"}, "illegal move a1: legal moves are"),
        ("/api/move", {"moves": ["f5"], "move": "z9"}, "bad square"),
        ("/api/position", {"moves": ["f5", "xx"]}, "bad square"),
        ("/api/position", {"moves": 42}, "moves must be"),
        ("/api/ai_move", {"moves": [], "checkpoint": ["a.pt"]}, "checkpoint must be a file path (a string), got a list"),
        ("/api/analyse", {"moves": [], "simulations": "lots"}, "simulations must be a whole number"),
        ("/api/analyse", {"moves": [], "simulations": 1.7}, "simulations must be a whole number, got 1.7"),
        ("/api/load", {"text": "f5d6", "game": 1.9}, "game number must be an integer, got '1.9'"),
        ("/api/analyse", {"moves": [], "simulations": 10**9}, "simulations must be between"),
    ]
    with caplog.at_level(logging.WARNING, logger="alphazero.web"):
        for path, payload, message in cases:
            status, body = post(client, path, **payload)
            assert status == 400 and message in body["error"], (path, payload, body)
        assert client.post("/api/move", data="not json", content_type="application/json").status_code == 400
        response = client.get(f"/api/run/game?run={tiny_run}&id=shard-9999999999-w0.npz:0")
        assert response.status_code == 400 and "no shard" in response.get_json()["error"]
    logged = caplog.text
    assert "illegal move a1" in logged and "dangling character" in logged and "no shard" in logged
    assert snapshot(tiny_run) == before


def test_with_allow_any_path_a_missing_or_bad_path_is_named_as_such(engines, tiny_run, tmp_path_factory, caplog):
    client = board_client(board(engines, tiny_run, allow_any=True, default_simulations=8))
    cases = [
        ("/api/ai_move", {"moves": [], "checkpoint": "/no/such/net.pt"}, "checkpoint '/no/such/net.pt' does not exist"),
        ("/api/ai_move", {"moves": [], "checkpoint": str(tiny_run)}, "is not a file"),
    ]
    with caplog.at_level(logging.WARNING, logger="alphazero.web"):
        for path, payload, message in cases:
            status, body = post(client, path, **payload)
            assert status == 400 and message in body["error"], (path, payload, body)
        response = client.get("/api/run/games?run=/no/such/run")
        assert response.status_code == 400 and "does not exist" in response.get_json()["error"]
        # A shard that cannot be read is named as such, not blamed on the game id.
        damaged = tmp_path_factory.mktemp("damaged-run")
        (damaged / "replay").mkdir()
        (damaged / "replay" / "shard-0000000004-w0.npz").write_bytes(b"not a zip file")
        response = client.get(f"/api/run/game?run={damaged}&id=shard-0000000004-w0.npz:0")
        assert response.status_code == 400 and "shard-0000000004-w0.npz" in response.get_json()["error"]
        assert "bad game id" not in response.get_json()["error"]
        (damaged / "tb").mkdir()
        (damaged / "tb" / "events.out.tfevents.1.host").write_bytes(bytes(range(256)) * 4)
        curves = client.get(f"/api/run/curves?run={damaged}").get_json()
        assert curves["losses"] == {} and "no curves could be read from 1 event file(s)" in curves["message"]
    assert "does not exist" in caplog.text


def test_the_run_viewer_lists_the_newest_games_first_replays_one_and_follows_new_shards(client, tiny_run):
    games = client.get("/api/run/games").get_json()
    assert games["shards"] == 2 and len(games["games"]) == 5 and games["problems"] == []
    assert games["games"][0]["shard"].startswith("shard-0000000002") and games["games"][0]["index"] == 1
    first = games["games"][0]
    game = client.get(f"/api/run/game?id={first['id']}").get_json()
    assert len(game["moves"]) == first["plies"] == len(game["policies"]) == len(game["root_values"])
    assert game["meta"]["network"] == 2 and abs(sum(game["policies"][0].values()) - 1) < 1e-2
    curves = client.get("/api/run/curves").get_json()
    # Elo apart from the scores (0..1): on one axis the scores were a flat line.
    assert sorted(curves["elo"]) == ["elo/best"] and sorted(curves["scores"]) == ["arena/score", "eval/score_vs_greedy"]
    assert sorted(curves["losses"]) == ["loss/policy", "loss/value"] and len(curves["losses"]["loss/policy"]) == 5
    newer = write_run_shard(tiny_run, 3, games=1, seed=3)
    try:
        games = client.get("/api/run/games").get_json()
        assert games["shards"] == 3 and games["games"][0]["shard"] == newer.name
    finally:
        newer.unlink()


@pytest.mark.parametrize("argument", [["--run", "/no/such/run"], ["--checkpoint", "/no/such/net.pt"]])
def test_the_command_refuses_a_missing_run_or_checkpoint_in_one_line(argument):
    result = subprocess.run([sys.executable, "-m", "alphazero.web", "--port", "0", *argument],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert result.returncode == 2 and "does not exist" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("port", ["65536", "99999", "-1"])
def test_the_command_refuses_a_port_out_of_range_not_another_port(port):
    # 99999 used to serve on 34463 (99999 - 65536): the socket layer takes the port modulo 65536.
    result = subprocess.run([sys.executable, "-m", "alphazero.web", "--port", port],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=60)
    assert result.returncode == 2 and f"--port must be in 0..65535 (0 = any free port), got {port}" in result.stderr
    assert "serving" not in result.stdout


def test_a_whole_game_through_the_api_against_the_default_network(client):
    """What the page does each turn: the person's move by /api/move, the network's by /api/ai_move."""
    position = post(client, "/api/position", moves=[])[1]
    while not position["over"]:
        if position["to_move"] == "black":
            status, position = post(client, "/api/move", moves=position["moves"], move=position["legal"][-1])
        else:
            status, answer = post(client, "/api/ai_move", moves=position["moves"], simulations=2)
            position = answer["position"]
        assert status == 200
    state = GameState.start()
    for action in parse_transcript("".join(position["moves"])):
        state = state.play(action)
    assert state.is_over() and position["result"] and len(position["moves"]) >= 58


def test_the_board_plays_in_the_precision_asked_for():
    # --precision was parsed and ignored: the board built its settings field by field without it.
    from alphazero.web.__main__ import board_settings, command_parser

    settings = board_settings(command_parser().parse_args(["--precision", "fp32", "--threads", "2", "--endgame", "12",
                                                            "--simulations", "50"]))
    assert (settings.precision, settings.threads, settings.endgame_solve_empties) == ("fp32", 2, 12)
    assert (settings.simulations, settings.seconds) == (None, None)  # each request sets its budget
