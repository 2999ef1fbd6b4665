"""Raw-policy play for a network that reads the game's history (model=seed_cnn_rnn).

Such a network cannot sit inside MCTS (a search leaf has a position, not the game that led to
it), so `mcts:checkpoint=PATH,simulations=0` builds this player for it instead of an MCTSPlayer:
the arena hands it each game's actions (`select_moves_in_games`), and it plays the legal action
with the highest masked policy, as the MCTS player does at simulations=0.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from alphazero.arena.player_interface import GameInProgress, Player, _require_playable
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.inference import resolve_device
from alphazero.nn.model import masked_softmax
from alphazero.othello.history import history_window


class HistoryPolicyPlayer(Player):
    """The legal action with the highest policy of `net` given the position and the previous
    `net.cfg.history` actions of its game (lowest index among equal priors)."""

    def __init__(self, net: torch.nn.Module, device: str = "auto", name: str | None = None, threads: int | None = None):
        if threads is not None:
            torch.set_num_threads(threads)
        self.device = resolve_device(device)
        self.net = net.to(self.device).eval()
        self.name = name or f"policy({net.cfg.arch})"

    def select_moves(self, states):
        raise ValueError(f"{self.name} needs each game's move history: call select_moves_in_games (the arena does)")

    def select_moves_in_games(self, games: Sequence[GameInProgress]) -> list[int]:
        states = [game.state for game in games]
        _require_playable(self, states)
        if not games:
            return []
        positions = np.array([state.as_array() for state in states], dtype=np.uint64)
        history = np.stack([history_window(game.actions, self.net.cfg.history) for game in games]).astype(np.int64)
        planes, legal = encode_positions_and_mask(positions)
        with torch.inference_mode():
            logits, _ = self.net(torch.from_numpy(planes).to(self.device), torch.from_numpy(history).to(self.device))
            priors = masked_softmax(logits.float().cpu(), torch.from_numpy(legal))
        return [int(np.argmax(row)) for row in priors.numpy()]
