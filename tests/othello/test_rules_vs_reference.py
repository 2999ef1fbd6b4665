"""The bitboard engine against a deliberately simple pure-Python Othello.

The reference below uses an 8x8 list of lists and walks the 8 directions square by square: slow
and obvious, sharing no code or trick with the bitboard kernels. Hypothesis draws seeds; each seed
plays one random game with the reference and checks every position along it (legal moves, flips,
the next position, passes, game end, final score with empties to the winner, and the batch
kernels against the scalar ones).
"""

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphazero.othello import bitboard as bb

EMPTY, BLACK, WHITE = 0, 1, 2
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


class ReferenceBoard:
    """board[row][col] with row 0 = rank 1 (squares a1..h1), col 0 = file a."""

    def __init__(self):
        self.board = [[EMPTY] * 8 for _ in range(8)]
        self.board[3][3] = WHITE  # d4
        self.board[4][4] = WHITE  # e5
        self.board[3][4] = BLACK  # e4
        self.board[4][3] = BLACK  # d5
        self.to_move = BLACK

    def flips(self, row, col, color):
        if self.board[row][col] != EMPTY:
            return []
        other = WHITE if color == BLACK else BLACK
        flipped = []
        for d_row, d_col in DIRECTIONS:
            line = []
            r, c = row + d_row, col + d_col
            while 0 <= r < 8 and 0 <= c < 8 and self.board[r][c] == other:
                line.append((r, c))
                r, c = r + d_row, c + d_col
            if line and 0 <= r < 8 and 0 <= c < 8 and self.board[r][c] == color:
                flipped.extend(line)
        return flipped

    def legal_moves(self, color):
        return [(r, c) for r in range(8) for c in range(8) if self.flips(r, c, color)]

    def play(self, row, col):
        for r, c in self.flips(row, col, self.to_move):
            self.board[r][c] = self.to_move
        self.board[row][col] = self.to_move
        self.to_move = WHITE if self.to_move == BLACK else BLACK

    def pass_turn(self):
        self.to_move = WHITE if self.to_move == BLACK else BLACK

    def is_over(self):
        return not self.legal_moves(BLACK) and not self.legal_moves(WHITE)

    def count(self, color):
        return sum(row.count(color) for row in self.board)

    def black_final_margin(self):
        """Black discs minus white discs, the empty squares going to the winner."""
        black, white = self.count(BLACK), self.count(WHITE)
        empties = 64 - black - white
        if black > white:
            black += empties
        elif white > black:
            white += empties
        return black - white

    def bitboards(self):
        """(player, opponent) as Python ints, bit r*8+c for square (r, c)."""
        player = opponent = 0
        for r in range(8):
            for c in range(8):
                if self.board[r][c] == self.to_move:
                    player |= 1 << (r * 8 + c)
                elif self.board[r][c] != EMPTY:
                    opponent |= 1 << (r * 8 + c)
        return player, opponent


def _bits(squares):
    out = 0
    for r, c in squares:
        out |= 1 << (r * 8 + c)
    return out


def check_random_game(seed):
    """Play one random game with the reference, checking the engine at every position.

    Returns (positions checked, the final one included; forced passes among the moves played).
    """
    rng = random.Random(seed)
    ref = ReferenceBoard()
    positions = []
    chosen_actions = []
    while True:
        player, opponent = ref.bitboards()
        p, o = np.uint64(player), np.uint64(opponent)
        positions.append((player, opponent))
        moves = ref.legal_moves(ref.to_move)
        assert int(bb.legal_moves(p, o)) == _bits(moves), f"legal moves differ at {positions[-1]}"
        empty = ~(player | opponent)
        for square in range(64):
            if empty >> square & 1:  # flips() is defined on empty squares only
                expected = _bits(ref.flips(square // 8, square % 8, ref.to_move))
                assert int(bb.flips(p, o, square)) == expected, f"flips of square {square} differ at {positions[-1]}"
            else:
                expected = 0
            assert bool(bb.is_legal(p, o, square)) == bool(expected)
        over = ref.is_over()
        assert bool(bb.is_game_over(p, o)) == over
        assert bool(bb.is_legal(p, o, bb.PASS)) == (not moves)
        if over:
            margin = int(bb.final_margin(p, o))
            black_margin = margin if ref.to_move == BLACK else -margin
            assert black_margin == ref.black_final_margin()
            assert float(bb.game_result(p, o)) == float(np.sign(margin))
            break
        if moves:
            row, col = rng.choice(moves)
            action = row * 8 + col
            ref.play(row, col)
        else:
            action = bb.PASS
            ref.pass_turn()
        chosen_actions.append(action)
        assert tuple(int(b) for b in bb.make_move(p, o, action)) == ref.bitboards(), f"make_move({action}) differs"
    _check_batch_kernels_agree_with_scalar(positions, chosen_actions)
    return len(positions), chosen_actions.count(bb.PASS)


def _check_batch_kernels_agree_with_scalar(positions, actions):
    batch = np.array(positions, dtype=np.uint64)
    scalar_moves = [int(bb.legal_moves(np.uint64(p), np.uint64(o))) for p, o in positions]
    assert [int(m) for m in bb.legal_moves_batch(batch)] == scalar_moves
    mask = bb.legal_action_mask_batch(batch)
    for row, moves in zip(mask, scalar_moves):
        expected = np.zeros(65, dtype=bool)
        expected[bb.squares_of(moves)] = True
        expected[bb.PASS] = moves == 0
        assert (row == expected).all()
    over = bb.is_game_over_batch(batch)
    assert list(over) == [bool(bb.is_game_over(np.uint64(p), np.uint64(o))) for p, o in positions]
    moved = bb.make_move_batch(batch[:-1], np.array(actions, dtype=np.int64))
    assert (moved == batch[1:]).all()


def test_engine_agrees_with_simple_reference_over_10000_random_positions():
    checked = []

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
    @given(seed=st.integers(min_value=0, max_value=2**64 - 1))
    def check(seed):
        checked.append(check_random_game(seed))

    check()
    positions = sum(n for n, _ in checked)
    passes = sum(p for _, p in checked)
    assert positions >= 10_000, f"only {positions} positions checked"
    assert passes > 0, "no random game had a forced pass: the pass rules went untested"


def test_reference_itself_plays_the_standard_opening():
    # Guard the reference: black's four opening moves are d3, c4, f5, e6.
    assert sorted(ReferenceBoard().legal_moves(BLACK)) == [(2, 3), (3, 2), (4, 5), (5, 4)]
    assert _bits(ReferenceBoard().legal_moves(BLACK)) == int(bb.legal_moves(bb.START_BLACK, bb.START_WHITE))


def _reference_wipeout(ref):
    """The lowest square (r*8+c) whose move turns over every disc of the other colour, or -1."""
    other = WHITE if ref.to_move == BLACK else BLACK
    for row, col in ref.legal_moves(ref.to_move):  # row-major: ascending squares
        if len(ref.flips(row, col, ref.to_move)) == ref.count(other):
            return row * 8 + col
    return -1


def test_wipeout_move_agrees_with_the_reference_on_sparse_boards():
    """Boards with a few discs of the side not to move (1-6, in lines next to the mover's discs
    often enough) are where wipe-outs live; random games almost never reach one."""
    rng = random.Random(36)
    found = 0
    for _ in range(3000):
        ref = ReferenceBoard()
        ref.board = [[EMPTY] * 8 for _ in range(8)]
        squares = rng.sample(range(64), rng.randint(2, 20))
        cut = rng.randint(1, min(6, len(squares) - 1))
        for index, square in enumerate(squares):
            ref.board[square // 8][square % 8] = WHITE if index < cut else BLACK
        player, opponent = ref.bitboards()
        moves = bb.legal_moves(np.uint64(player), np.uint64(opponent))
        expected = _reference_wipeout(ref)
        assert bb.wipeout_move(np.uint64(player), np.uint64(opponent), np.uint64(moves)) == expected, ref.board
        found += expected >= 0
    assert found >= 100, f"only {found} boards had a wipe-out: the positive case went untested"


def test_no_wipeout_move_along_random_games():
    for seed in range(20):
        rng = random.Random(seed)
        ref = ReferenceBoard()
        while not ref.is_over():
            player, opponent = ref.bitboards()
            moves = bb.legal_moves(np.uint64(player), np.uint64(opponent))
            assert bb.wipeout_move(np.uint64(player), np.uint64(opponent), np.uint64(moves)) == _reference_wipeout(ref)
            legal = ref.legal_moves(ref.to_move)
            if legal:
                ref.play(*rng.choice(legal))
            else:
                ref.pass_turn()
