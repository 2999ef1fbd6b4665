"""TensorBoard curves of a run, all against one global step (the training step).

Tags are grouped by prefix: `loss/` (policy, value, total, entropy; score, score_error_discs and
ownership with the auxiliary heads), `train/` (lr, grad_norm),
`selfplay/`, `replay/`, `speed/`, `arena/`, `elo/`, `eval/`. README.md documents each curve.
"""

from __future__ import annotations

from collections import defaultdict

from torch.utils.tensorboard import SummaryWriter

_LOSS_TAGS = {"policy": "loss/policy", "value": "loss/value", "total": "loss/total", "entropy": "loss/policy_entropy", "policy_kl": "loss/policy_kl",
              # KataGo's auxiliary targets, present only when the network has those heads.
              "score": "loss/score", "score_error": "loss/score_error_discs", "ownership": "loss/ownership"}
_TRAIN_TAGS = {"lr": "train/lr", "grad_norm": "train/grad_norm"}


def resume_purge_step(saved_step: int) -> int:
    """The first step whose events a resumed run drops: those a crashed session wrote after the
    `latest.pt` it resumes from. Events at the saved step itself stay: the gate, evaluation and
    loss points of that step were written by the iteration that the save completed (dropping them
    lost every gate that fell on a resume point from the arena/score and elo/best curves)."""
    return saved_step + 1


class Metrics:
    def __init__(self, directory, purge_step: int | None = None):
        # purge_step drops events a crashed session wrote past the resumed step, so curves never
        # fold back (see resume_purge_step).
        self.writer = SummaryWriter(str(directory), purge_step=purge_step)
        self._sums = defaultdict(float)
        self._count = 0
        self.last_losses: dict | None = None
        # Sums since the last status line, apart from the TensorBoard ones: an iteration of fewer
        # steps than run.log_every_steps still reports its losses.
        self._report_sums = defaultdict(float)
        self._report_count = 0

    def add_losses(self, losses: dict) -> None:
        for key, value in losses.items():
            self._sums[key] += value
            self._report_sums[key] += value
        self._count += 1
        self._report_count += 1

    def take_report_losses(self) -> dict | None:
        """Mean losses of the steps trained since the previous call (None if none), for the status line."""
        if not self._report_count:
            return None
        means = {key: total / self._report_count for key, total in self._report_sums.items()}
        self._report_sums.clear()
        self._report_count = 0
        return means

    def flush_losses(self, step: int, samples_per_second: float | None = None) -> None:
        if not self._count:
            return
        means = {key: total / self._count for key, total in self._sums.items()}
        for key, tag in {**_LOSS_TAGS, **_TRAIN_TAGS}.items():
            if key in means:
                self.writer.add_scalar(tag, means[key], step)
        if samples_per_second is not None:
            self.writer.add_scalar("speed/train_samples_per_second", samples_per_second, step)
        self.last_losses = means
        self._sums.clear()
        self._count = 0

    def scalar(self, tag: str, value: float, step: int) -> None:
        self.writer.add_scalar(tag, value, step)

    def text(self, tag: str, text: str, step: int) -> None:
        """A note in TensorBoard's text tab (markdown)."""
        self.writer.add_text(tag, text, step)

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
