"""The trainer holds the replay ratio in samples, so a run resumed with another batch size (a GPU
run carried to a CPU preset) trains what the ratio allows and no burst of steps over old positions."""

from types import SimpleNamespace

import numpy as np

from alphazero.train.config import RunConfig, TrainConfig
from alphazero.train.loop import RunState, TrainingRun


class _Replay:
    def __init__(self, total_positions: int):
        self.total_positions = self.window_size = total_positions

    def refresh(self):
        pass

    def sample(self, batch_size, rng, augment):
        return SimpleNamespace(positions=None, policies=None, values=None, policy_mask=None, final_boards=None, aux_mask=None)


def _steps_due(state: RunState, batch_size: int, total_positions: int, ratio: float = 4.0) -> int:
    run = SimpleNamespace(
        cfg=SimpleNamespace(train=TrainConfig(batch_size=batch_size, replay_ratio=ratio, min_positions=1, window_positions=10**7,
                                              checkpoint_every_steps=10**9),
                            run=RunConfig(mode="sync", log_every_steps=10**9)),
        replay=_Replay(total_positions),
        state=state,
        rng=np.random.default_rng(0),
        trainer=SimpleNamespace(step=lambda *args, **kwargs: {}),
        metrics=SimpleNamespace(add_losses=lambda losses: None, flush_losses=lambda *args, **kwargs: None),
        _progress_bar=lambda *args: SimpleNamespace(update=lambda: None, close=lambda: None),
        maybe_gate_and_eval=lambda: None,
    )
    stop = SimpleNamespace(requested=False)
    return TrainingRun.train_steps(run, None, stop)


def test_a_fresh_run_trains_ratio_times_positions_over_the_batch():
    state = RunState()
    assert _steps_due(state, batch_size=256, total_positions=1000) == 15  # floor(4 * 1000 / 256)
    assert state.samples_trained == 15 * 256


def test_a_run_resumed_with_a_smaller_batch_owes_no_burst_of_steps():
    # 4,096 positions trained at ratio 4 with batches of 1,024: 16 steps, 16,384 samples. Resumed
    # with batches of 256 and 100 new positions, it owes 400 samples (1 step), not the 48 extra
    # steps that counting in steps of the new size would have owed.
    state = RunState(step=16, samples_trained=16 * 1024)
    assert _steps_due(state, batch_size=256, total_positions=4096 + 100) == 1
    assert state.step == 17 and state.samples_trained == 16 * 1024 + 256


def test_a_run_resumed_with_a_larger_batch_waits_for_the_positions_it_needs():
    state = RunState(step=64, samples_trained=64 * 256)  # 4,096 positions at ratio 4 in batches of 256
    assert _steps_due(state, batch_size=1024, total_positions=4096 + 200) == 0
    assert _steps_due(state, batch_size=1024, total_positions=4096 + 256) == 1
