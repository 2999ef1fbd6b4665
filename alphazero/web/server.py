"""The web board's HTTP side: a Flask app serving the page and a small JSON API.

Flask (on Werkzeug, whose threaded server `python -m alphazero.web` runs) because every handler
here is a blocking call into the network or the search, which is what a WSGI framework's threads
are for; an ASGI stack would push each call to a thread pool anyway. Werkzeug is already installed
as TensorBoard's dependency.

The API (JSON in and out; the page holds the game, see alphazero.web.positions):

  GET  /api/config              the default network, the checkpoints on offer, the run, defaults
  POST /api/position            {start, moves} -> the position described (board, legal, record texts)
  POST /api/move                {start, moves, move} -> the position after the move
  POST /api/load                {text, game} -> a pasted transcript / board / GGF as a position
  POST /api/ai_move             {start, moves, checkpoint, simulations, seconds} -> {move, search}
  POST /api/analyse             {... the same} -> {network (policy, value), search (moves, PV, solver)}
  POST /api/values              {start, moves, checkpoint} -> the network's value of every position
  POST /api/review              {source: text|board|run, text+game | start+moves | run+id, checkpoint,
                                simulations, seconds} -> a game review (alphazero.review) as JSON
                                lines: the game, one line a ply as each is ready, the summary
  GET  /api/run/games?run=DIR   the run's newest self-play games
  GET  /api/run/game?run=DIR&id=SHARD:INDEX   one game with the search's policy and value per ply
  GET  /api/run/curves?run=DIR  Elo, score and loss curves from the run's TensorBoard events

Who may ask (alphazero.web.access): every request's `Host` must be the server's own address and
every /api/ request must carry the page's token in `X-Board-Token` (the page served at / holds it
in <meta name="board-token">); `checkpoint` and `run` name only what the board offers. A refusal
is a 403 answer `{"error": "..."}`; bad input (a malformed transcript, an illegal move, a budget
out of range) a 400; one search more than the board runs at once a 503. Each is one line in the
server's log.

Files: the server writes none of its own. Loading a network may write the precision verdict
cache (alphazero.nn.precision: $ALPHAZERO_PRECISION_CACHE, else ~/.cache/alphazero/precision.json,
and its .lock beside it), as every command that plays a network does, and a first start writes
numba's compiled kernels into __pycache__; nothing under a run directory or a checkpoint changes.
"""

from __future__ import annotations

import hmac
import json
import logging
import select
import socket
from collections.abc import Callable, Collection
from pathlib import Path

from flask import Flask, Response, jsonify, request

from alphazero.web.access import TOKEN_HEADER, Offered, Refused, listen_hosts, new_token
from alphazero.web.analysis import Budget, Busy, Engines
from alphazero.othello.record import GameRecord
from alphazero.web.positions import InputError, describe, game_from_request, game_from_text, play_move, record_from_text
from alphazero.web.runs import RunReader

log = logging.getLogger("alphazero.web")
STATIC = Path(__file__).resolve().parent / "static"
MAX_REQUEST_BYTES = 1_000_000
# A connection that sends or takes nothing for this long is closed: a slow or idle client cannot
# hold one of the server's threads (the threaded server starts one per connection) for longer.
SOCKET_TIMEOUT_SECONDS = 30
TOKEN_PLACEHOLDER = "{{BOARD_TOKEN}}"
# Scripts and styles from this server only and no inline script: markup that reached the page
# through some future slip would still run nothing. No framing (clickjacking), no forms elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def client_gone(environ) -> Callable[[], bool]:
    """A check that the request's client has closed its connection (the page gave up on a
    search: a new position, a new analysis, a closed tab): its socket reads as closed. Always
    False where the server gives no socket (a test client)."""
    connection = environ.get("werkzeug.socket")
    if connection is None:
        return lambda: False

    def gone() -> bool:
        try:
            readable, _, _ = select.select([connection], [], [], 0)
            return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):  # reset by the peer, or already closed here
            return True

    return gone


def make_board_server(engines: Engines, host: str, port: int, offered: Offered, **app_options):
    """The board's threaded HTTP server (Werkzeug's), bound to `host`:`port` (0: any free port;
    `server_port` says which) and answering to that address only; `app_options` go to create_app.
    OSError when the address cannot be bound. `serve_forever()` serves."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class RequestHandler(WSGIRequestHandler):
        timeout = SOCKET_TIMEOUT_SECONDS

    # Bound before the app is built: the port (with port 0) is part of the address it answers to.
    server = make_server(host, port, None, threaded=True, request_handler=RequestHandler)
    server.app = create_app(engines, listen_hosts(host, server.server_port), offered, **app_options)
    return server


def create_app(engines: Engines, hosts: Collection[str], offered: Offered | None = None, default_simulations: int = 200,
               default_seconds: float | None = None, token: str | None = None) -> Flask:
    """The app. hosts: the `Host` values served (access.listen_hosts); offered: what requests may
    name (default: the engines' default checkpoint and no run); token: the page's API token (a
    fresh one when None; app.config["BOARD_TOKEN"] holds it)."""
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    app.config["BOARD_TOKEN"] = token = token or new_token()
    app.json.sort_keys = False
    offered = offered or Offered(engines.default_checkpoint)
    hosts = frozenset(host.lower() for host in hosts)
    page = (STATIC / "index.html").read_text(encoding="utf-8").replace(TOKEN_PLACEHOLDER, token)
    runs = RunReader()

    def body() -> dict:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise InputError("the request body is not a JSON object")
        return data

    def budget(data: dict) -> Budget:
        return Budget.from_request(data.get("simulations"), data.get("seconds"), default_simulations)

    def game(data: dict):
        return game_from_request(data.get("start"), data.get("moves"))

    def game_number(requested) -> int:
        """A GGF game's number from the page (1 when none)."""
        requested = requested or 1
        try:
            if isinstance(requested, bool) or (isinstance(requested, float) and not requested.is_integer()):
                raise ValueError  # int() would take True as game 1 and truncate 1.9 to game 1
            return int(requested)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"game number must be an integer, got {str(requested)[:20]!r}") from None

    @app.before_request
    def only_this_page():
        host = request.headers.get("Host", "").lower()
        if host not in hosts:
            raise Refused(f"Host {host[:100]!r} is not this server's address: open it as http://{sorted(hosts)[0]}/")
        # Compared as bytes: a header with a non-ASCII byte (latin-1 in WSGI) is a wrong token, not
        # a TypeError from compare_digest's str form (an internal error before).
        given = request.headers.get(TOKEN_HEADER, "").encode("utf-8", "surrogateescape")
        if request.path.startswith("/api/") and not hmac.compare_digest(given, token.encode()):
            raise Refused(f"the request lacks this board's token ({TOKEN_HEADER}): reload the page "
                          "(a page from before the server restarted holds an old one)")

    @app.after_request
    def security_headers(response):
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.errorhandler(InputError)
    def bad_input(err):
        log.warning("%s %s: %s", request.method, request.path, err)
        return jsonify(error=str(err)), 400

    @app.errorhandler(Refused)
    def refused(err):
        log.warning("%s %s refused: %s", request.method, request.path, err)
        return jsonify(error=str(err)), 403

    @app.errorhandler(Busy)
    def busy(err):
        log.warning("%s %s: %s", request.method, request.path, err)
        return jsonify(error=str(err)), 503

    @app.errorhandler(413)
    def too_large(err):
        log.warning("%s %s: request larger than %d bytes", request.method, request.path, MAX_REQUEST_BYTES)
        return jsonify(error=f"request larger than {MAX_REQUEST_BYTES:,} bytes"), 413

    @app.errorhandler(Exception)
    def internal(err):
        if hasattr(err, "code") and hasattr(err, "description"):  # an HTTP error (404, 405): as it is
            return jsonify(error=f"{err.code}: {err.description}"), err.code
        log.exception("%s %s failed", request.method, request.path)
        return jsonify(error=f"internal error: {type(err).__name__}: {err}"), 500

    @app.get("/")
    def index():
        # Never cached: the token changes with each start of the server.
        return Response(page, mimetype="text/html", headers={"Cache-Control": "no-store"})

    @app.get("/favicon.ico")
    def favicon():
        return "", 204

    @app.get("/api/config")
    def config():
        return jsonify(
            checkpoint=engines.default_checkpoint, checkpoints=offered.checkpoints(), run=offered.run,
            allow_any_path=offered.allow_any, simulations=default_simulations, seconds=default_seconds,
        )

    @app.post("/api/position")
    def position():
        return jsonify(describe(game(body())))

    @app.post("/api/move")
    def move():
        data = body()
        return jsonify(describe(play_move(game(data), data.get("move", ""))))

    @app.post("/api/load")
    def load():
        data = body()
        return jsonify(describe(game_from_text(data.get("text", ""), game_number(data.get("game")))))

    @app.post("/api/ai_move")
    def ai_move():
        data = body()
        current = game(data)
        answer = engines.ai_move(current, offered.checkpoint(data.get("checkpoint")), budget(data), client_gone(request.environ))
        after = play_move(current, answer["move"])
        return jsonify(position=describe(after), **answer)

    @app.post("/api/analyse")
    def analyse():
        data = body()
        return jsonify(engines.analyse(game(data), offered.checkpoint(data.get("checkpoint")), budget(data),
                                       client_gone(request.environ)))

    @app.post("/api/review")
    def review():
        data = body()
        record, label = review_source(data)
        stream = engines.review(record, label, offered.checkpoint(data.get("checkpoint")), budget(data),
                                client_gone=client_gone(request.environ))
        lines = (json.dumps(event) + "\n" for event in stream)
        response = Response(lines, mimetype="application/x-ndjson", headers={"Cache-Control": "no-store"})
        response.call_on_close(stream.close)  # the chooser goes back however the answer ends
        return response

    def review_source(data: dict) -> tuple[GameRecord, str]:
        """The game a review request names: `source` "text" (a pasted or uploaded transcript or GGF,
        `game` its number), "board" (`start` and `moves`, the page's game) or "run" (`run` and
        `id`, a game of the run viewer's list)."""
        source = data.get("source")
        if source == "text":
            number = game_number(data.get("game"))
            return record_from_text(data.get("text", ""), number), "the game given" + (f" (GGF game {number})" if number != 1 else "")
        if source == "board":
            return game(data).record(), "the game on the board"
        if source == "run":
            run_dir, game_id = offered.run_dir(data.get("run")), str(data.get("id", ""))[:200]
            return runs.record(run_dir, game_id), f"{run_dir.name} game {game_id}"
        raise InputError(f"source must be text, board or run, got {str(source)[:20]!r}")

    @app.post("/api/values")
    def values():
        data = body()
        return jsonify(engines.values(game(data), offered.checkpoint(data.get("checkpoint"))))

    @app.get("/api/run/games")
    def run_games():
        return jsonify(runs.games(offered.run_dir(request.args.get("run"))))

    @app.get("/api/run/game")
    def run_game():
        return jsonify(runs.game(offered.run_dir(request.args.get("run")), request.args.get("id", "")))

    @app.get("/api/run/curves")
    def run_curves():
        return jsonify(runs.curves(offered.run_dir(request.args.get("run"))))

    return app
