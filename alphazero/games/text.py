"""Self-play games as text: one line per game for a listing, and a move-by-move replay.

The replay shows, at each ply, who moved where, what the search thought before the move (the
root value from the mover's view, the visit shares of its top moves, the exact result where the
endgame solver had one) and the board after it, drawn by `alphazero.play.render` (the move in
brackets, the discs it flipped in lower case).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np

from alphazero.games.catalog import NumberedGame
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import action_name, format_margin
from alphazero.play.render import render_board, render_result

TOP_MOVES = 4
LEGEND = "X black  O white  . empty  [ ] the move  x o the discs it flipped"




def network_text(metadata: dict) -> str:
    network = metadata.get("network_id", metadata.get("network"))
    if network is None:
        return "?"
    return f"#{network}" if isinstance(network, int) else str(network)


def written_text(created: float | None) -> str:
    if created is None:
        return "?"
    return datetime.fromtimestamp(created, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def listing(games: list[NumberedGame]) -> str:
    """A table: number, network, moves, result, opening, when its shard was written."""
    lines = [f"{'game':>7}  {'network':<9} {'moves':>5}  {'result':<9}  {'opening':<10}  written"]
    for game in games:
        record = game.record
        moves = int(np.count_nonzero(record.actions != PASS))
        opening = "".join(action_name(int(a)) for a in record.actions[:4] if a != PASS)
        lines.append(
            f"{game.number:>7}  {network_text(record.metadata):<9} {moves:>5}  {format_margin(record.black_margin):<9}  "
            f"{opening:<10}  {written_text(game.created)}"
        )
    return "\n".join(lines)


def _side(state: GameState) -> str:
    return "Black" if state.black_to_move else "White"


def _search_text(state: GameState, policy, value, exact, small) -> str:
    """What the search said about the position before the move."""
    parts = []
    if value is not None and not math.isnan(value):
        parts.append(f"value {value:+.2f} for {_side(state)}")
    if exact is not None and not math.isnan(exact):
        parts.append(f"solved: {_side(state)} {'wins' if exact > 0 else 'loses' if exact < 0 else 'draws'}")
    if policy is not None:
        shares = np.asarray(policy, dtype=np.float64)
        order = [int(a) for a in np.argsort(-shares, kind="stable")[:TOP_MOVES] if shares[a] > 0.005]
        if order:
            parts.append("search: " + " ".join(f"{action_name(a)} {100 * shares[a]:.0f}%" for a in order))
    if small:
        parts.append("(small search: no policy target)")
    return "  ".join(parts)


def replay(game: NumberedGame, total: int, color: bool = False) -> str:
    """The whole game, ply by ply, with the search's figures and the board after each move."""
    record = game.record
    meta = record.metadata
    about = [f"network {network_text(meta)}"]
    for key, label in (("simulations", "simulations"), ("worker", "worker"), ("seed", "seed")):
        if key in meta:
            about.append(f"{label} {meta[key]}" if key != "simulations" else f"{meta[key]} simulations")
    lines = [
        (
            f"game {game.number} of {total}: {game.shard.name}, its game {game.index_in_shard + 1}; {', '.join(about)}; "
            f"written {written_text(game.created)}"
        ),
        f"result: {format_margin(record.black_margin)}",
        f"board: {LEGEND}",
        "",
    ]
    state = record.start
    for ply, action in enumerate(int(a) for a in record.actions):
        policy = record.policies[ply] if record.policies is not None else None
        value = float(record.root_values[ply]) if record.root_values is not None else None
        exact = float(record.exact_values[ply]) if record.exact_values is not None else None
        small = record.policy_mask is not None and not record.policy_mask[ply]
        who = _side(state)
        if action == PASS:
            lines.append(f"ply {ply + 1}: {who} passes (no legal move)")
            state = state.play(PASS)
            lines.append("")
            continue
        flipped = state.flipped_by(action)
        search = _search_text(state, policy, value, exact, small)
        flips = " ".join(action_name(square) for square in range(64) if flipped >> square & 1)
        lines.append(f"ply {ply + 1}: {who} plays {action_name(action)} (flips {flips})" + (f"  {search}" if search else ""))
        state = state.play(action)
        black, white = state.disc_counts()
        lines.append(render_board(state, last_action=action, flipped=flipped, show_legal=False, color=color))
        lines.append(f"    Black {black}  White {white}")
        lines.append("")
    if state.is_over():
        lines.append(render_result(state))
    else:
        lines.append(f"The record stops after {len(record.actions)} plies, before the end of the game.")
    return "\n".join(lines) + "\n"
