"""The web board's review API (POST /api/review): the review command's figures as JSON lines, the
command's messages for bad input, the page's checks, and a review that shares the processor as an
analysis does (a cheap request waits for one chunk of it, not for it), stops at its ceiling and
when its client goes away, and counts against the searches the board runs at once."""

import json
import logging
import re
import time

import pytest

pytest.importorskip("flask", reason='Flask not installed (pip install -e ".[web]")')

from alphazero.othello.notation import format_board_text, format_transcript  # noqa: E402
from alphazero.review.reviewer import review_game  # noqa: E402
from alphazero.review.summary import summarize  # noqa: E402
from alphazero.review.text import summary_lines  # noqa: E402
from tests.review.test_reviewer import game_with_a_blunder, uniform_chooser  # noqa: E402
from tests.web.helpers import board, board_client  # noqa: E402
from tests.web.test_web_access import send, served, start_request, wait_for  # noqa: E402

OPENING = "f5d6c3d3c4f4f6f3e6e7"
LONG_REVIEW = {"source": "text", "text": OPENING, "simulations": 100_000}  # the most a position may ask for


@pytest.fixture(scope="module")
def blunder_game():
    record, ply, best, played = game_with_a_blunder()
    return record, ply, best, played, format_board_text(record.start) + "\n" + format_transcript(record.actions) + "\n"


@pytest.fixture()
def client(engines, tiny_run):
    return board_client(board(engines, tiny_run, default_simulations=8))


def events(response) -> list[dict]:
    try:
        assert response.status_code == 200 and response.mimetype == "application/x-ndjson", response.data[:300]
        return [json.loads(line) for line in response.data.decode().splitlines()]
    finally:
        response.close()  # what the server does when the answer has been sent: the chooser goes back


def test_a_review_streams_the_review_commands_figures_game_first_then_each_ply_then_the_summary(client, engines, blunder_game):
    record, blunder_ply, best, played, text = blunder_game
    lines = events(client.post("/api/review", json={"source": "text", "text": text, "simulations": 8}))
    assert engines.searching == 0
    game, moves, summary = lines[0], lines[1:-1], lines[-1]
    assert game["type"] == "game" and game["plies"] == len(record.actions) and game["black_margin"] == record.black_margin
    assert game["start"] == format_board_text(record.start) and game["search"].endswith(", 8 sims a position")
    assert [m["type"] for m in moves] == ["move"] * len(record.actions) and summary["type"] == "summary"
    # The same figures as the command's code: every position of this game is solved, so they are
    # exact whatever the network (the command's test reviews it with a uniform evaluator).
    command = list(review_game(record, uniform_chooser()))
    exact = ("ply", "move", "color", "preferred", "exact_before", "exact_after", "discs_lost", "mark", "loss")
    assert [{k: m[k] for k in exact} for m in moves] == [{k: r.as_json()[k] for k in exact} for r in command]
    blunder = moves[blunder_ply - 1]
    assert (blunder["exact_before"], blunder["exact_after"], blunder["discs_lost"]) == (best, played, best - played)
    # ... and the command's summary text, bar the time the searches took
    assert summary["lines"][:-1] == summary_lines(summarize(record, command), command)[:-1]
    assert summary["turning_ply"] == summarize(record, command).turning_ply


def test_the_game_on_the_board_and_a_run_game_are_reviewed(client, tiny_run):
    lines = events(client.post("/api/review", json={"source": "board", "moves": ["f5", "d6", "c3"], "simulations": 2}))
    assert lines[0]["label"] == "the game on the board" and [m["move"] for m in lines[1:-1]] == ["f5", "d6", "c3"]
    game_id = client.get("/api/run/games").get_json()["games"][0]["id"]
    run_game = client.get(f"/api/run/game?id={game_id}").get_json()
    lines = events(client.post("/api/review", json={"source": "run", "id": game_id, "simulations": 2}))
    assert game_id in lines[0]["label"] and lines[0]["moves"] == run_game["moves"]
    assert len(lines) == len(run_game["moves"]) + 2 and lines[-1]["type"] == "summary"


@pytest.mark.parametrize("payload, status, message", [
    ({"source": "text", "text": "f5f5"}, 400, "the game given: illegal move 'f5' at character 2 (ply 2): f5 is not legal for white"),
    ({"source": "text", "text": "(;GM[Othello]PC[x;)"}, 400, "the game given: game 1 at character 15: the '[' of property PC is never closed"),
    ({"source": "text", "text": "f5d6\nc3c3"}, 400, "illegal move 'c3' at line 2, character 2 (ply 4)"),
    ({"source": "text", "text": "f5d6", "game": 2}, 400, "holds one game (a transcript, not GGF); there is no game 2"),
    ({"source": "text", "text": "f5" * 100_001}, 400, "the game's text is 200,002 characters; the limit is 200,000"),
    ({"source": "board", "moves": []}, 400, "the game on the board: holds no moves to review"),
    ({"source": "board", "moves": ["f5", "f5"]}, 400, "moves: illegal move 'f5'"),
    ({"source": "run", "id": "shard-nothing.npz:0"}, 400, "no shard 'shard-nothing.npz'"),
    ({"source": "run", "run": "/tmp", "id": "x:0"}, 403, "run directory not offered"),
    ({"source": "text", "text": OPENING, "checkpoint": "/etc/passwd"}, 403, "checkpoint not offered"),
    ({"source": "text", "text": OPENING, "simulations": 0}, 400, "simulations must be between 1 and 100000"),
    ({"source": "file", "text": OPENING}, 400, "source must be text, board or run, got 'file'"),
])
def test_bad_input_gets_one_line_naming_the_move_or_place_and_no_search(client, engines, payload, status, message, caplog):
    with caplog.at_level(logging.WARNING, logger="alphazero.web"):
        response = client.post("/api/review", json=payload)
    assert response.status_code == status and message in response.get_json()["error"], response.get_json()
    assert "\n" not in response.get_json()["error"] and message in caplog.text
    assert engines.searching == 0


def test_a_review_needs_the_pages_token(client):
    response = client.post("/api/review", json={"source": "text", "text": OPENING}, headers={"X-Board-Token": "guess"})
    assert response.status_code == 403 and "token" in response.get_json()["error"]


def test_a_review_stops_at_its_ceiling_and_says_so(client, engines, monkeypatch):
    import alphazero.web.analysis as analysis

    assert events(client.post("/api/review", json={"source": "text", "text": "f5", "simulations": 1}))[-1]["type"] == "summary"  # loaded
    monkeypatch.setattr(analysis, "REVIEW_MAX_SECONDS", 1.0)
    started = time.monotonic()
    lines = events(client.post("/api/review", json=LONG_REVIEW))
    took = time.monotonic() - started
    stopped = lines[-1]
    assert stopped == {"type": "stopped", "reason": "stopped at the 1 s ceiling", "reviewed": len(lines) - 2}
    assert stopped["reviewed"] < len(OPENING) // 2 and took < 30  # one chunk past the ceiling at most
    assert engines.searching == 0


def read_until(connection, pattern: bytes, seconds: float) -> bytes:
    """What the server sent on `connection` until `pattern` appears in it."""
    received, deadline = b"", time.monotonic() + seconds
    connection.settimeout(1)
    while pattern not in received:
        assert time.monotonic() < deadline, received[-500:]
        try:
            received += connection.recv(65536)
        except TimeoutError:
            pass
    return received


def test_a_review_whose_client_goes_away_stops(engines, caplog):
    with served(engines) as (port, token), caplog.at_level(logging.INFO, logger="alphazero.web"):
        connection = start_request(port, token, "/api/review", LONG_REVIEW)
        received = read_until(connection, b'"type": "game"', 120)
        assert b"200 OK" in received and b"application/x-ndjson" in received
        assert engines.searching == 1
        connection.close()
        wait_for(lambda: engines.searching == 0, 15, "the review went on after its client left")
    assert re.search(r"review of the game given: cancelled: the client went away after 0 of 10 plies", caplog.text)


def test_an_answer_cut_while_a_line_is_sent_is_logged_as_the_clients_cancellation(client, engines, caplog):
    """The client may leave while a ply is being sent, after the last search checked for it: the
    WSGI server's write fails and it closes the answer there, with no search left to notice. The
    log still says the review was cancelled and how far it got (the browser's Stop lands here
    when it comes between two chunks' checks)."""
    with caplog.at_level(logging.INFO, logger="alphazero.web"):
        response = client.post("/api/review", json={"source": "text", "text": OPENING, "simulations": 2}, buffered=False)
        lines = iter(response.response)
        assert [json.loads(next(lines))["type"] for _ in range(3)] == ["game", "move", "move"]
        response.close()  # what Werkzeug does when a write fails: the third line was never sent
    assert engines.searching == 0
    assert re.search(r"review of the game given: cancelled: the client went away after 1 of 10 plies", caplog.text)


def test_a_cheap_request_does_not_wait_for_a_review(engines):
    with served(engines) as (port, token):
        headers = {"X-Board-Token": token}
        send(port, "POST", "/api/analyse", {"moves": [], "simulations": 1}, headers=headers)  # loaded
        connection = start_request(port, token, "/api/review", LONG_REVIEW)
        try:
            read_until(connection, b'"type": "game"', 120)
            time.sleep(0.5)
            latencies = []
            for _ in range(3):
                started = time.monotonic()
                status, body = send(port, "POST", "/api/analyse", {"moves": ["f5"], "simulations": 1}, headers=headers)
                latencies.append(time.monotonic() - started)
                assert status == 200 and json.loads(body)["search"]["simulations"] == 1
            assert engines.searching == 1  # the review still runs
            # One chunk of 32 simulations of the review's search at most (tests/web/test_web_access.py's
            # analysis case says what a loaded machine makes of that).
            assert min(latencies) < 15, latencies
        finally:
            connection.close()
        wait_for(lambda: engines.searching == 0, 15, "the review went on after its client left")


def test_a_review_counts_as_one_of_the_searches_the_board_runs_at_once(engines, monkeypatch):
    monkeypatch.setattr(engines, "max_searches", 1)
    with served(engines) as (port, token):
        connection = start_request(port, token, "/api/review", LONG_REVIEW)
        try:
            read_until(connection, b'"type": "game"', 120)
            status, body = send(port, "POST", "/api/review", {"source": "text", "text": "f5"}, headers={"X-Board-Token": token})
            assert status == 503 and "1 searches are running, the most this board runs at once" in body
        finally:
            connection.close()
        wait_for(lambda: engines.searching == 0, 15, "the review went on after its client left")


def test_a_review_that_fails_midway_says_so_in_its_last_line_and_gives_its_search_back(client, engines, monkeypatch, caplog):
    import alphazero.web.analysis as analysis

    real = analysis.review_game

    def failing(*args, **kwargs):
        reviews = real(*args, **kwargs)
        yield next(reviews)
        raise RuntimeError("a fault in the search")

    monkeypatch.setattr(analysis, "review_game", failing)
    with caplog.at_level(logging.ERROR, logger="alphazero.web"):
        lines = events(client.post("/api/review", json={"source": "text", "text": OPENING, "simulations": 2}))
    assert [line["type"] for line in lines] == ["game", "move", "error"]
    assert lines[-1] == {"type": "error", "error": "internal error: RuntimeError: a fault in the search", "reviewed": 1}
    assert "review of the game given failed after 1 plies" in caplog.text and engines.searching == 0
