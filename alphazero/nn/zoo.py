"""The warm-start zoo: the three supervised move predictors the project grew from, rebuilt in
PyTorch on this project's input and output, each with a value head added.

Every network maps planes [N, NUM_PLANES, 8, 8] (alphazero.nn.encoding) to (policy_logits [N, 65],
value [N] in [-1, 1]) like AlphaZeroNet, so training, the accuracy bench, checkpoints and
raw-policy play treat them alike. `SeedCNNRNN` also takes the game's previous actions,
`history` int64[N, K] (alphazero.othello.history: oldest first, HISTORY_PAD before the first
move), and refuses a call without them.

Common choices, where the texts (/work/shared/seeds/) say nothing or cannot apply here:
- Input: the project's 4 planes (side to move, opponent, legal moves, ones), not the originals'
  encodings (the MLP's 0/1/2 per square with absolute colours, the CNN's own/enemy planes). The
  task is to compare architectures on one input; the extra planes only add information.
- Output: 65 logits. The Keras CNN has 64 (the WTHOR move lists it learned from never pass), so a
  learned pass logit is appended; pass is legal only when no square is, so after masking it never
  competes with a square and the choice does not change the policy.
- Value head (absent from all three): a small head on the last hidden features, tanh output, the
  same shape of head the ResNet has (features -> value_hidden -> 1).
- Loss and optimiser: the project's (masked cross-entropy + value MSE, AdamW), not the originals'
  (plain SGD), so the zoo differs by architecture only.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from alphazero.nn.config import ModelConfig, require_board_only
from alphazero.othello.bitboard import NUM_ACTIONS
from alphazero.othello.history import HISTORY_TOKENS


class SeedMLP(nn.Module):
    """The Chainer MLP (002): Linear 64-100, ReLU, Linear 100-100, ReLU, Linear 100-65.

    Here the input is the 4 planes flattened (256 numbers instead of 64), `cfg.blocks` hidden layers
    of `cfg.channels` units (the preset: 2 x 100, as in the text), pass as class 64 as in the text.
    The value head reads the last hidden layer: Linear(width, value_hidden), ReLU, Linear(., 1), tanh.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        widths = [cfg.input_planes * 64] + [cfg.channels] * cfg.blocks
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.policy_fc = nn.Linear(cfg.channels, NUM_ACTIONS)
        self.value_fc1 = nn.Linear(cfg.channels, cfg.value_hidden)
        self.value_fc2 = nn.Linear(cfg.value_hidden, 1)

    def forward(self, planes, history=None):
        x = planes.flatten(1)
        for layer in self.hidden:
            x = F.relu(layer(x))
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(x)))).squeeze(-1)
        return self.policy_fc(x), value


def _glorot(module: nn.Module) -> None:
    """Keras' default initialisation (glorot_uniform weights, zero biases), as the original had."""
    for layer in module.modules():
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.xavier_uniform_(layer.weight)
            if layer.bias is not None:
                nn.init.zeros_(layer.bias)


class SeedCNN(nn.Module):
    """The Keras CNN (000): 12 Conv2D(128, 3x3, same, ReLU), Conv2D(1, 1x1, no bias), Flatten,
    a learned per-square Bias (64, zero-initialised), softmax.

    As written: no batch norm, no residual connections, biased 3x3 convolutions, Keras' glorot
    initialisation. `cfg.blocks` convolutions of `cfg.channels` filters (the preset: 12 x 128).
    The 64 square logits get a learned pass logit appended (module doc). The value head reads the
    last 3x3 layer's features: 1x1 conv to `value_channels`, ReLU, Linear(64 * value_channels,
    value_hidden), ReLU, Linear(., 1), tanh.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        c = cfg.channels
        self.convs = nn.ModuleList(nn.Conv2d(cfg.input_planes if i == 0 else c, c, 3, padding=1) for i in range(cfg.blocks))
        self.policy_conv = nn.Conv2d(c, 1, 1, bias=False)
        self.square_bias = nn.Parameter(torch.zeros(64))
        self.pass_logit = nn.Parameter(torch.zeros(1))
        self.value_conv = nn.Conv2d(c, cfg.value_channels, 1)
        self.value_fc1 = nn.Linear(cfg.value_channels * 64, cfg.value_hidden)
        self.value_fc2 = nn.Linear(cfg.value_hidden, 1)
        _glorot(self)

    def features(self, planes):
        x = planes
        for conv in self.convs:
            x = F.relu(conv(x))
        return x

    def forward(self, planes, history=None):
        x = self.features(planes)
        squares = self.policy_conv(x).flatten(1) + self.square_bias
        logits = torch.cat((squares, self.pass_logit.expand(squares.shape[0], 1)), dim=1)
        value = F.relu(self.value_conv(x)).flatten(1)
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(value)))).squeeze(-1)
        return logits, value


STAR_RADIUS = 3


def star_mask(radius: int) -> torch.Tensor:
    """float[2r+1, 2r+1]: 1 on the row, the column and the two diagonals through the centre.

    These are the lines along which an Othello move flips discs; with r = 3 the kernel has 25 taps.
    """
    offsets = torch.arange(-radius, radius + 1)
    dy, dx = offsets[:, None], offsets[None, :]
    return ((dy == 0) | (dx == 0) | (dy.abs() == dx.abs())).float()


class StarConv2d(nn.Conv2d):
    """A (2r+1)x(2r+1) convolution whose weights are zero off the star (`star_mask`): the mask is
    applied in every forward, so masked weights never receive gradient and stay irrelevant."""

    def __init__(self, in_channels: int, out_channels: int, radius: int = STAR_RADIUS):
        super().__init__(in_channels, out_channels, 2 * radius + 1, padding=radius)
        self.register_buffer("mask", star_mask(radius), persistent=False)

    def forward(self, x):
        return self._conv_forward(x, self.weight * self.mask, self.bias)


class SeedCNNRNN(nn.Module):
    """The CNN + RNN notebook (004): a CNN on the board with star-shaped kernels, and an RNN over
    the game's move history, combined to predict the next move.

    The notebook stops before its model (it names the parts, gives no sizes), so everything below
    is our reading, kept small enough to train beside the others:
    - CNN: `cfg.blocks` star convolutions (radius 3: the row, column and diagonals within 3
      squares, 25 taps) of `cfg.channels` filters, each followed by batch norm and ReLU (the
      notebook is PyTorch; batch norm keeps a 6-layer plain stack trainable at our LR).
      Preset: 6 x 64.
    - RNN: the previous `cfg.history` actions (preset 16; pass and "before the game" are tokens of
      their own) embedded in 32 dimensions and read by a one-layer GRU of `cfg.rnn_hidden` units
      (preset 128); its last state summarises the history.
    - Combination: the square logits come from a 1x1 convolution of the CNN features plus a
      history-dependent bias over the 65 actions (a linear map of the GRU state), so the history
      can raise or lower moves (e.g. replies to the last move) without being mixed into the
      board's spatial features. The value head reads the CNN's 1x1 value features and the GRU
      state together.
    """

    EMBEDDING = 32

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        c = cfg.channels
        layers = []
        for i in range(cfg.blocks):
            layers += [StarConv2d(cfg.input_planes if i == 0 else c, c), nn.BatchNorm2d(c), nn.ReLU()]
        self.cnn = nn.Sequential(*layers)
        self.embedding = nn.Embedding(HISTORY_TOKENS, self.EMBEDDING)
        self.rnn = nn.GRU(self.EMBEDDING, cfg.rnn_hidden, batch_first=True)
        self.policy_conv = nn.Conv2d(c, 1, 1)
        self.history_bias = nn.Linear(cfg.rnn_hidden, NUM_ACTIONS)
        self.value_conv = nn.Conv2d(c, cfg.value_channels, 1)
        self.value_fc1 = nn.Linear(cfg.value_channels * 64 + cfg.rnn_hidden, cfg.value_hidden)
        self.value_fc2 = nn.Linear(cfg.value_hidden, 1)

    def forward(self, planes, history=None):
        if history is None:
            require_board_only(self.cfg, "a call with positions only (MCTS, self-play, play, GTP)")
        if history.ndim != 2 or history.shape != (len(planes), self.cfg.history):
            raise ValueError(f"history must be int[{len(planes)}, {self.cfg.history}] (the previous actions); got {list(history.shape)}")
        x = self.cnn(planes)
        _, state = self.rnn(self.embedding(history.long()))
        state = state[-1]  # [N, rnn_hidden]
        squares = self.policy_conv(x).flatten(1)
        logits = F.pad(squares, (0, 1)) + self.history_bias(state)
        value = torch.cat((F.relu(self.value_conv(x)).flatten(1), state), dim=1)
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(value)))).squeeze(-1)
        return logits, value


ZOO_CLASSES = {"seed_mlp": SeedMLP, "seed_cnn": SeedCNN, "seed_cnn_rnn": SeedCNNRNN}


def build_zoo_network(cfg: ModelConfig) -> nn.Module:
    """A fresh network of zoo architecture `cfg.arch`."""
    return ZOO_CLASSES[cfg.arch](cfg)
