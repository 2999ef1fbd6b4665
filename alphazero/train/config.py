"""Settings of the training loop: trainer (`train`), gating arena (`arena`), baseline evaluation
(`eval`) and the run itself (`run`). Each is one Hydra group backed by one dataclass."""

from dataclasses import dataclass, field

from alphazero.nn.config import INFERENCE_PRECISIONS, MEMORY_FORMATS, require_training_precision
from alphazero.validation import require, require_choice

# Distinct positions after k plies from the start (transpositions merged): the most distinct
# openings the arena can pair for a given opening length.
_DISTINCT_OPENINGS = {0: 1, 1: 4, 2: 12, 3: 54, 4: 236}


def _require_enough_openings(group: str, pairs: int, plies: int, what: str = "") -> None:
    available = _DISTINCT_OPENINGS.get(plies)
    what = what or f"{group}.pairs"
    if available is not None and pairs > available:
        raise ValueError(
            f"{what}={pairs} needs {pairs} distinct openings but only {available} exist after "
            f"{plies} plies; raise {group}.opening_plies or lower {what}"
        )


LR_SCHEDULE_HORIZONS = ("steps", "minutes", "auto")


@dataclass
class TrainConfig:
    device: str = "auto"  # auto = CUDA when available, else CPU
    # torch CPU threads of the trainer. 1: it shares the cores with the self-play workers, and
    # torch's threads spin-wait on busy cores (docs/threads.md: 113 samples/s with 2 threads beside
    # two workers on 2 cores; bench network trained 145 samples/s with 2 threads, 721 with 1).
    threads: int = 1
    optimizer: str = "sgd"  # sgd (with momentum) or adamw
    lr: float = 0.02
    momentum: float = 0.9
    weight_decay: float = 1e-4
    lr_schedule: str = "cosine"  # constant, cosine or step
    lr_warmup_steps: int = 100
    lr_total_steps: int = 20000  # horizon of the cosine schedule / step boundaries
    # What the cosine's horizon counts: `steps` (lr_total_steps) or `minutes`, the run's time
    # budget run.max_minutes (its progress: the run time spent over every session, as the budget
    # counts it, over max_minutes), so the floor comes at the end of the run whatever the
    # machine's speed: a step horizon is tuned to one machine (the `cpu` preset's 3,000 steps were
    # reached in 12 of 60 minutes on an AMX CPU, which trained the other 48 at the floor). The
    # warm-up still counts steps. A run without run.max_minutes falls back to lr_total_steps and
    # its log says so. `auto`: minutes when the run has run.max_minutes, else steps (the `cpu`
    # preset's choice: a run until Ctrl-C has no length to follow).
    lr_schedule_horizon: str = "steps"
    lr_min_factor: float = 0.05  # cosine floor as a fraction of lr
    lr_step_every: int = 5000  # step schedule: multiply by lr_step_gamma every this many steps
    lr_step_gamma: float = 0.3
    batch_size: int = 256
    # Samples trained per position generated: steps per iteration = ratio * new positions / batch.
    replay_ratio: float = 4.0
    window_positions: int = 200_000  # replay window: most recent positions sampled from
    # Shards entirely older than the window are deleted after each iteration (the counters keep
    # them; see ReplayBuffer.prune), so the run directory stays bounded. true keeps every game.
    keep_old_shards: bool = False
    min_positions: int = 2000  # no training before the buffer holds this many positions
    value_loss_weight: float = 1.0
    # KataGo's auxiliary targets (alphazero.nn.auxiliary): weights of the score cross-entropy and
    # the ownership cross-entropy in the loss. 0 = off, and must be 0 without the head (and > 0
    # with it: model.score_head / model.ownership_head). With the heads we use score 0.1,
    # ownership 0.5 (RECOMMENDED_*; the `aux` ablation row). Why: the terms should shape the tower
    # without outweighing the policy CE (~1.5-2) and value MSE (~0.6) they are there to help.
    # The score CE starts at ~4.2 (log 65) and falls slowly (a final margin is hard to call
    # early), so 0.1 makes it ~0.4 at most, a fifth of the policy term; KataGo's score-belief weight
    # (0.02 on pdf and cdf each over ~800 bins) is smaller still, but there the score also
    # enters a mean/stdev loss and the utility. KataGo's ownership weight is 1.5 / (board area)
    # on a per-square sum, i.e. 1.5 on our per-square mean, equal to its value weight; Othello's
    # squares change hands far more than Go's stones, so ownership is mostly noise until late in
    # the game: half of our value weight, 0.5 (~0.35 at the start's 0.69).
    score_weight: float = 0.0
    ownership_weight: float = 0.0
    # Value target = (1 - w) * z + w * q: z the game's result, q the root search value of the
    # position, both from the side to move's view (exact endgame results win over both). 0 = z only.
    value_target_q_weight: float = 0.0
    grad_clip: float = 5.0  # 0 disables clipping
    mixed_precision: bool = True  # bf16 autocast on CUDA (there `precision` is not consulted)
    # On CPU: auto (bf16 autocast, float32 master weights and optimizer, where a short probe of a
    # training step measures it faster; cached in the run directory), fp32 or bf16
    # (alphazero.nn.precision). conf/config.yaml sets it from the top-level `precision`.
    precision: str = "auto"
    # Layout of the trained network and its input: auto (channels-last on CPU, NCHW on CUDA),
    # channels_last or contiguous (NCHW); speed only (alphazero.nn.model.training_memory_format).
    memory_format: str = "auto"
    augment: bool = True  # random board symmetry per sample
    init_from: str = ""  # checkpoint to start the network from (e.g. checkpoints/warmstart.pt)
    checkpoint_every_steps: int = 500  # numbered checkpoints (latest.pt is written every iteration)

    def __post_init__(self):
        require_choice("train.optimizer", self.optimizer, ("sgd", "adamw"))
        require_choice("train.lr_schedule", self.lr_schedule, ("constant", "cosine", "step"))
        require_choice("train.lr_schedule_horizon", self.lr_schedule_horizon, LR_SCHEDULE_HORIZONS)
        # Only the cosine has a horizon: the step schedule's boundaries and the constant do not
        # depend on the run's length, so `minutes` with them would be silently ignored.
        require(self.lr_schedule_horizon == "steps" or self.lr_schedule == "cosine", "train.lr_schedule_horizon",
                self.lr_schedule_horizon, f"steps with train.lr_schedule={self.lr_schedule} (only the cosine has a horizon)")
        require_choice("train.memory_format", self.memory_format, MEMORY_FORMATS)
        require_training_precision("train.precision", self.precision)
        require(self.lr > 0, "train.lr", self.lr, "> 0")
        require(0 <= self.momentum < 1, "train.momentum", self.momentum, "in [0, 1)")
        require(self.weight_decay >= 0, "train.weight_decay", self.weight_decay, ">= 0")
        require(self.batch_size >= 1, "train.batch_size", self.batch_size, ">= 1")
        require(self.replay_ratio > 0, "train.replay_ratio", self.replay_ratio, "> 0")
        require(self.window_positions >= self.batch_size, "train.window_positions", self.window_positions, f">= train.batch_size ({self.batch_size})")
        require(self.min_positions >= 1, "train.min_positions", self.min_positions, ">= 1")
        # Training waits until the window holds min_positions, which it never can above its size.
        require(self.min_positions <= self.window_positions, "train.min_positions", self.min_positions,
                f"<= train.window_positions ({self.window_positions})")
        require(self.threads >= 1, "train.threads", self.threads, ">= 1")
        require(self.lr_warmup_steps >= 0, "train.lr_warmup_steps", self.lr_warmup_steps, ">= 0")
        require(self.lr_total_steps >= 1, "train.lr_total_steps", self.lr_total_steps, ">= 1")
        require(0 <= self.lr_min_factor <= 1, "train.lr_min_factor", self.lr_min_factor, "in [0, 1]")
        require(self.lr_step_every >= 1, "train.lr_step_every", self.lr_step_every, ">= 1")
        require(0 < self.lr_step_gamma <= 1, "train.lr_step_gamma", self.lr_step_gamma, "in (0, 1]")
        require(self.grad_clip >= 0, "train.grad_clip", self.grad_clip, ">= 0")
        require(0 <= self.value_target_q_weight <= 1, "train.value_target_q_weight", self.value_target_q_weight, "in [0, 1]")
        require(self.value_loss_weight >= 0, "train.value_loss_weight", self.value_loss_weight, ">= 0")
        require(self.score_weight >= 0, "train.score_weight", self.score_weight, ">= 0")
        require(self.ownership_weight >= 0, "train.ownership_weight", self.ownership_weight, ">= 0")
        require(self.checkpoint_every_steps >= 1, "train.checkpoint_every_steps", self.checkpoint_every_steps, ">= 1")


@dataclass
class ArenaConfig:
    """Gating: the candidate (the network being trained) plays the current best.

    With gating, rounds of `pairs` paired games are played until a sequential test (SPRT on
    pairs, see alphazero.arena.sprt) decides between "not better than the best by more than
    sprt_elo0" and "better by sprt_elo1 or more", with error rates sprt_alpha (promoting a network
    that is not better) and sprt_beta (keeping one that is), or until max_pairs pairs were played
    (then the best is kept). The cap lowers the power below 1 - sprt_beta; the defaults keep the
    promise with it (a +50 Elo candidate promoted with probability 0.85, an equal one 0.03, in
    simulation: tests/arena/test_gate_power.py, experiments/gate-power/). A promoted network's Elo
    step is measured on `elo_pairs` fresh pairs played after the decision, so the `elo/best`
    curve is not inflated by the selection. Without gating, one round of `pairs` pairs measures
    the step of the network that becomes the best anyway."""

    gating: bool = True  # false = the latest network always becomes the self-play network (as in AlphaZero); the match still measures its Elo
    every_steps: int = 1000  # gate after this many training steps
    first_step: int = 0  # the first gate at this step instead (an early Elo point); 0 = every_steps
    pairs: int = 20  # games per round = 2 * pairs (each opening with colours swapped)
    # 5: a gate may play max_pairs + elo_pairs = 320 distinct openings, and only 236 positions
    # exist after 4 plies (1,288 after 5).
    opening_plies: int = 5
    simulations: int = 50
    sprt_elo0: float = 0.0
    sprt_elo1: float = 50.0
    sprt_alpha: float = 0.05
    # The promise the gate keeps at its cap: a +50 Elo candidate promoted with probability >= 0.80.
    # (0.1 with a cap of 100 pairs promised 0.90 and kept 0.43: experiments/gate-power/README.md.)
    sprt_beta: float = 0.2
    # The sequential test's cap (whole rounds: the last may pass it). 300 pairs (600 games) keeps
    # sprt_beta's promise in rounds of 20 pairs; a gate plays 170 games on average for an equal
    # candidate, 230 for a +50 one, 70 for a -50 one (experiments/gate-power/README.md).
    max_pairs: int = 300
    elo_pairs: int = 20  # fresh pairs measuring a promoted network's Elo step (gating only)
    # torch threads of the arena's (and eval's) network calls. Its batches are small (one per game
    # in progress), and a second OpenMP thread on a busy CPU can make them 10x slower, so 1.
    threads: int = 1
    # Arithmetic of the gating and evaluation players' network calls (as selfplay.precision; the
    # verdict is cached in the run directory).
    precision: str = "auto"

    def __post_init__(self):
        require_choice("arena.precision", self.precision, INFERENCE_PRECISIONS)
        require(self.every_steps >= 1, "arena.every_steps", self.every_steps, ">= 1")
        require(self.first_step >= 0, "arena.first_step", self.first_step, ">= 0 (0 = arena.every_steps)")
        require(self.pairs >= 1, "arena.pairs", self.pairs, ">= 1")
        require(0 <= self.opening_plies <= 20, "arena.opening_plies", self.opening_plies, "in 0..20")
        require(self.simulations >= 0, "arena.simulations", self.simulations, ">= 0")
        _require_enough_openings("arena", self.pairs, self.opening_plies)
        require(self.sprt_elo1 > self.sprt_elo0, "arena.sprt_elo1", self.sprt_elo1, f"> arena.sprt_elo0 ({self.sprt_elo0})")
        require(0 < self.sprt_alpha < 0.5, "arena.sprt_alpha", self.sprt_alpha, "in (0, 0.5)")
        require(0 < self.sprt_beta < 0.5, "arena.sprt_beta", self.sprt_beta, "in (0, 0.5)")
        require(self.max_pairs >= self.pairs, "arena.max_pairs", self.max_pairs, f">= arena.pairs ({self.pairs})")
        require(self.elo_pairs >= 1, "arena.elo_pairs", self.elo_pairs, ">= 1")
        require(self.threads >= 1, "arena.threads", self.threads, ">= 1")
        if self.gating:  # without gating a gate plays one round, of `pairs` openings
            _require_enough_openings("arena", self.rounds() * self.pairs + self.elo_pairs, self.opening_plies,
                                     "arena.max_pairs (rounded up to whole rounds) + arena.elo_pairs")

    def rounds(self) -> int:
        """Most rounds of `pairs` pairs a gate plays before it keeps the best."""
        return -(-self.max_pairs // self.pairs)


@dataclass
class EvalConfig:
    """Score of the best network against fixed baselines, for the learning curves."""

    every_steps: int = 2000  # 0 disables
    first_step: int = 0  # the first evaluation at this step instead (an early score); 0 = every_steps
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy", "alphabeta:depth=2", "grhino:1"])
    pairs: int = 10
    opening_plies: int = 4
    simulations: int = 100

    def __post_init__(self):
        require(self.every_steps >= 0, "eval.every_steps", self.every_steps, ">= 0")
        require(self.first_step >= 0, "eval.first_step", self.first_step, ">= 0 (0 = eval.every_steps)")
        require(self.pairs >= 1, "eval.pairs", self.pairs, ">= 1")
        require(self.simulations >= 0, "eval.simulations", self.simulations, ">= 0")
        require(0 <= self.opening_plies <= 20, "eval.opening_plies", self.opening_plies, "in 0..20")
        _require_enough_openings("eval", self.pairs, self.opening_plies)


@dataclass
class RunConfig:
    dir: str = "runs/${now:%Y-%m-%d_%H-%M-%S}"
    resume: bool = False
    seed: int = 0
    mode: str = "sync"  # sync: generate, train, gate, repeat; async: workers and trainer concurrently
    max_iterations: int = 0  # 0 = until stopped
    max_minutes: float = 0.0  # wall-clock budget, checked before each iteration (sync) or batch of 50 steps (async), so a sync run ends up to one iteration late; 0 = until stopped
    max_steps: int = 0  # training steps budget; 0 = until stopped
    log_every_steps: int = 50
    progress: bool = True  # progress bars on a terminal (stderr) while self-play and training run

    def __post_init__(self):
        require_choice("run.mode", self.mode, ("sync", "async"))
        require(self.max_iterations >= 0, "run.max_iterations", self.max_iterations, ">= 0")
        require(self.max_minutes >= 0, "run.max_minutes", self.max_minutes, ">= 0")
        require(self.max_steps >= 0, "run.max_steps", self.max_steps, ">= 0")
        require(self.log_every_steps >= 1, "run.log_every_steps", self.log_every_steps, ">= 1")
