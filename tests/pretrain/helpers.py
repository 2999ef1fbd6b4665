"""A two-year WTHOR directory from the 1977 fixture, and pretraining configs sized for tests."""

from pathlib import Path

import numpy as np

from alphazero.data.wthor import HEADER_DTYPE
from alphazero.nn.config import model_preset
from alphazero.pretrain.config import PretrainConfig, PretrainRootConfig, PretrainRunConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TRAIN_YEAR, VALIDATION_YEAR = 1977, 1978
GAMES_YEAR_OFFSET = HEADER_DTYPE.fields["games_year"][1]


def write_two_years(directory: Path) -> Path:
    """WTH_1977.wtb (the fixture: 12 games) and the same games relabelled 1978 (header year), so
    the year split has a training and a validation year."""
    directory.mkdir(parents=True, exist_ok=True)
    data = (FIXTURES / "WTH_1977.wtb").read_bytes()
    (directory / f"WTH_{TRAIN_YEAR}.wtb").write_bytes(data)
    relabelled = bytearray(data)
    relabelled[GAMES_YEAR_OFFSET : GAMES_YEAR_OFFSET + 2] = np.uint16(VALIDATION_YEAR).tobytes()
    (directory / f"WTH_{VALIDATION_YEAR}.wtb").write_bytes(bytes(relabelled))
    return directory


def workspace_with_two_years(tmp_path_factory, name: str) -> Path:
    """A fresh temporary directory holding the two-year WTHOR directory under wthor/."""
    tmp = tmp_path_factory.mktemp(name)
    write_two_years(tmp / "wthor")
    return tmp


def tiny_config(tmp: Path, run_dir: Path, model=None, **pretrain) -> PretrainRootConfig:
    """The tiny network (or `model`) on the two-year directory, `pretrain` overriding the settings."""
    settings = dict(
        wthor_dir=str(tmp / "wthor"),
        dataset_dir=str(tmp / "dataset"),
        validation_years=[VALIDATION_YEAR],
        epochs=4,
        batch_size=64,
        lr=0.01,
        lr_warmup_steps=5,
        log_every_steps=4,
        eval_every_steps=0,
        checkpoint_every_steps=5,
        progress=False,
        # float32 unless a test asks otherwise: these tests pin the training itself, and auto's
        # probe (tests of its own in tests/train/test_precision.py) may pick either on a tiny net.
        precision="fp32",
    )
    settings.update(pretrain)
    return PretrainRootConfig(model=model or model_preset("tiny"), pretrain=PretrainConfig(**settings), run=PretrainRunConfig(dir=str(run_dir), seed=3))
