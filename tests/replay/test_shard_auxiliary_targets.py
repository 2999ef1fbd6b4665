"""The auxiliary (score, ownership) targets the replay buffer derives from a shard's games: each
position's final board from its side to move's view, under the position's symmetry, masked where
the game's last position is not its true end."""

import numpy as np
import pytest

from alphazero.nn.auxiliary import auxiliary_targets, final_margins, ownership_targets
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_transcript
from alphazero.othello.record import GameRecord
from alphazero.othello.symmetry import ACTION_MAP, NUM_SYMMETRIES, transform_positions
from alphazero.replay.buffer import ReplayBuffer
from alphazero.replay.shard import encode_shard, read_shard, write_shard

from replay_games import random_record

# The shortest game: black wipes white out after 9 plies, with 51 empties (tests/othello's
# KNOWN_GAMES). Final board: black on b3 c3 d3 e3 f3 d2 e1 d4 d5 e4 f4 d6 d7 (13 discs).
WIPEOUT = "d3c3b3d2e1d6d7e3f4"
WIPEOUT_BLACK = 0x80818381E0810
# A full game with a forced pass at ply 57 (tests/othello's KNOWN_GAMES).
WITH_PASS = (
    "d3c3e6d2c2f6e2e7f7g7g6h5b2a1g8f4b4f8a2d6f5d1h8f2e1c4h7a4c1a3g2g5b3e8f3e3a5c6d7h1b5a6d8g1f1c5"
    "h4g3h2g4b6b1h6a7b7h3b8a8c7c8"
)


def _record(actions, start: GameState | None = None, black_margin=None) -> GameRecord:
    """A finished game's record with uniform policies over 65 actions (policies do not matter here)."""
    start = GameState.start() if start is None else start
    state = start
    for action in actions:
        state = state.play(int(action))
    policies = np.full((len(actions), 65), 1 / 65, dtype=np.float16)
    margin = state.black_margin() if black_margin is None else black_margin
    return GameRecord(start=start, actions=np.array(actions, dtype=np.int16), policies=policies, black_margin=margin)


def _movers(record: GameRecord) -> list[bool]:
    """black_to_move of each non-pass ply's position."""
    return [state.black_to_move for state, action in zip(record.states(), record.actions) if action != PASS]


def test_wipeout_targets_are_hand_checked_for_both_colours():
    record = _record(parse_transcript(WIPEOUT))
    final, complete = encode_shard([record]).position_final_boards()
    assert complete.all() and len(final) == 9
    movers = _movers(record)
    assert movers == [True, False] * 4 + [True]
    bins, ownership = auxiliary_targets(final)
    for row, black_to_move in enumerate(movers):
        if black_to_move:  # black's view: its 13 discs, nothing of white's
            assert tuple(final[row]) == (WIPEOUT_BLACK, 0)
            assert bins[row] == 64  # +64: 13 discs and the 51 empties go to black
        else:
            assert tuple(final[row]) == (0, WIPEOUT_BLACK)
            assert bins[row] == 0  # -64
        sign = 1 if black_to_move else -1
        expected = np.zeros(64, np.int8)
        expected[[i for i in range(64) if WIPEOUT_BLACK >> i & 1]] = sign
        np.testing.assert_array_equal(ownership[row], expected)  # empties stay 0


def test_targets_of_a_game_with_a_forced_pass_follow_the_mover_across_the_pass():
    record = _record(parse_transcript(WITH_PASS))
    actions = list(record.actions)
    assert PASS in actions
    final_state = record.states()[-1]
    assert final_state.is_over()
    data = encode_shard([record])
    final, complete = data.position_final_boards()
    assert complete.all() and len(final) == len(actions) - actions.count(PASS)
    margins = final_margins(final[:, 0], final[:, 1])
    movers = _movers(record)
    black_view = (final_state.black, final_state.white)
    for row, black_to_move in enumerate(movers):
        assert tuple(final[row]) == (black_view if black_to_move else black_view[::-1])
        assert margins[row] == (record.black_margin if black_to_move else -record.black_margin)
    # The positions either side of the pass have the same side to move, hence the same target.
    pass_ply = actions.index(PASS)
    before = pass_ply - 1 - actions[:pass_ply].count(PASS)
    assert movers[before] == movers[before + 1]
    assert margins[before] == margins[before + 1]


@pytest.mark.parametrize("seed", range(6))
def test_random_finished_games_agree_with_their_outcome_and_margin(seed):
    """Both colours win among these; the sign of the side to move's margin is its value target."""
    rng = np.random.default_rng(seed)
    records = [random_record(rng) for _ in range(4)]
    data = encode_shard(records)
    final, complete = data.position_final_boards()
    assert complete.all()
    margins = final_margins(final[:, 0], final[:, 1])
    np.testing.assert_array_equal(np.sign(margins), data.outcomes)
    for game, record in enumerate(records):
        rows = slice(data.position_offsets[game], data.position_offsets[game + 1])
        movers = np.array(_movers(record))
        np.testing.assert_array_equal(margins[rows], np.where(movers, record.black_margin, -record.black_margin))


def test_a_game_that_did_not_end_or_disagrees_with_its_margin_has_no_target():
    rng = np.random.default_rng(7)
    finished = random_record(rng)
    wrong_margin = random_record(rng)
    wrong_margin.black_margin = 62 if wrong_margin.black_margin != 62 else 60
    cut = random_record(rng)  # a game stopped early (as a resignation would) with the margin so far
    cut = _record(cut.actions[:30], black_margin=0)
    data = encode_shard([finished, wrong_margin, cut])
    _, complete = data.position_final_boards()
    offsets = data.position_offsets
    assert complete[offsets[0] : offsets[1]].all()
    assert not complete[offsets[1] :].any()


def test_targets_survive_a_write_and_read_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    records = [random_record(rng) for _ in range(3)] + [_record(parse_transcript(WIPEOUT))]
    written = write_shard(tmp_path / "shard.npz", records)
    read = read_shard(tmp_path / "shard.npz")
    for got, expected in zip(read.position_final_boards(), written.position_final_boards()):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("symmetry", range(NUM_SYMMETRIES))
def test_target_of_the_transformed_game_is_the_transformed_target(symmetry):
    """Replaying the game transformed by a symmetry gives the transformed final boards, and the
    ownership target moves with the board like the policy does."""
    rng = np.random.default_rng(11)
    record = random_record(rng)
    start = record.start
    start_pair = transform_positions(np.array([[start.black, start.white]], np.uint64), np.array([symmetry]))[0]
    mapped = ACTION_MAP[symmetry][record.actions.astype(np.int64)]
    transformed = _record(mapped, start=GameState(int(start_pair[0]), int(start_pair[1]), start.black_to_move))
    final, complete = encode_shard([record]).position_final_boards()
    final_t, complete_t = encode_shard([transformed]).position_final_boards()
    assert complete.all() and complete_t.all()
    expected = transform_positions(final, np.full(len(final), symmetry))
    np.testing.assert_array_equal(final_t, expected)
    ownership = ownership_targets(final[:, 0], final[:, 1])
    moved = np.empty_like(ownership)
    moved[:, ACTION_MAP[symmetry][:64]] = ownership  # out[s(a)] = in[a], as for the policy
    np.testing.assert_array_equal(ownership_targets(final_t[:, 0], final_t[:, 1]), moved)
    np.testing.assert_array_equal(auxiliary_targets(final_t)[0], auxiliary_targets(final)[0])  # the score does not move


def test_buffer_batches_carry_the_final_board_under_the_positions_symmetry(tmp_path):
    rng = np.random.default_rng(5)
    records = [random_record(rng) for _ in range(3)]
    records[2].black_margin = 62 if records[2].black_margin != 62 else 60  # no target for this game's rows
    buffer = ReplayBuffer(tmp_path / "replay", window_positions=10_000)
    buffer.add_games(records, writer_id="w0")
    data = encode_shard(records)
    final, complete = data.position_final_boards()
    rows = {(*p, *f, c) for p, f, c in zip(data.positions.tolist(), final.tolist(), complete.tolist())}
    plain = buffer.sample(400, np.random.default_rng(0), augment=False)
    augmented = buffer.sample(400, np.random.default_rng(0), augment=True)  # the same rows, then symmetries
    assert plain.final_boards.shape == (400, 2) and plain.final_boards.dtype == np.uint64
    assert {(*p, *f, c) for p, f, c in zip(plain.positions.tolist(), plain.final_boards.tolist(), plain.aux_mask.tolist())} <= rows
    assert plain.aux_mask.any() and not plain.aux_mask.all()
    assert len(set(augmented.symmetries.tolist())) == NUM_SYMMETRIES
    np.testing.assert_array_equal(augmented.positions, transform_positions(plain.positions, augmented.symmetries))
    np.testing.assert_array_equal(augmented.final_boards, transform_positions(plain.final_boards, augmented.symmetries))
    np.testing.assert_array_equal(augmented.aux_mask, plain.aux_mask)
