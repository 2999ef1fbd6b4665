"""A resumed run's TensorBoard curves: what a crashed session wrote after its last save is dropped,
what the saved step itself logged (its gate, its evaluation) stays."""

from alphazero.train.metrics import Metrics, resume_purge_step

from .helpers import scalars


def test_a_resume_keeps_the_saved_steps_points_and_drops_later_ones(tmp_path):
    first = Metrics(tmp_path / "tb")
    for step in (1, 2, 3, 4, 5):
        first.scalar("arena/score", step / 10, step)  # steps 4 and 5: after the save at step 3
    first.close()

    resumed = Metrics(tmp_path / "tb", purge_step=resume_purge_step(3))
    resumed.scalar("arena/score", 0.9, 4)
    resumed.close()

    points = [(step, round(value, 6)) for step, value in scalars(tmp_path, "arena/score")]
    assert points == [(1, 0.1), (2, 0.2), (3, 0.3), (4, 0.9)]
