"""Per-game random streams for the search (root noise, move sampling), usable inside numba.

Each game owns one SplitMix64 state in a uint64[B] array, seeded with `seed + game index`. A game
draws only from its own stream, so its randomness does not depend on which other games share the
batch: game b of a batch seeded s replays exactly as game 0 of a batch seeded s + b.
"""

import math

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0


def seed_streams(seed: int, num_games: int) -> np.ndarray:
    """uint64[num_games]: stream b starts from (seed + b) mod 2**64."""
    mask = (1 << 64) - 1
    return np.array([(int(seed) + b) & mask for b in range(num_games)], dtype=np.uint64)


@njit(cache=True)
def next_u64(states, b):
    """SplitMix64 (Steele, Lea, Flood 2014): a Weyl sequence through a strong 64-bit mixer."""
    state = states[b] + _GOLDEN
    states[b] = state
    z = (state ^ (state >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def next_uniform(states, b):
    """Uniform float64 in [0, 1) from the top 53 bits."""
    return np.float64(next_u64(states, b) >> _S11) * _TWO_POW_MINUS_53


@njit(cache=True)
def next_normal(states, b):
    """Standard normal by Box-Muller (one of the pair; simplicity over speed: used per root only)."""
    u1 = 1.0 - next_uniform(states, b)  # (0, 1]: safe for log
    u2 = next_uniform(states, b)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@njit(cache=True)
def next_gamma(states, b, alpha):
    """Gamma(alpha, 1) by Marsaglia and Tsang (2000); alpha < 1 uses Gamma(alpha + 1) * U**(1/alpha)."""
    boost = 1.0
    shape = alpha
    if alpha < 1.0:
        boost = (1.0 - next_uniform(states, b)) ** (1.0 / alpha)
        shape = alpha + 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = next_normal(states, b)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = 1.0 - next_uniform(states, b)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * boost
