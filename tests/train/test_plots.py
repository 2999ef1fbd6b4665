"""PNG export of TensorBoard curves, alone and overlaid for an ablation's runs."""

from pathlib import Path

import pytest

from alphazero.train.plots import _label, main


def _write_run(run_dir: Path, offset: float) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"))
    for step in range(0, 50, 10):
        writer.add_scalar("loss/policy", 2.0 - step / 100 + offset, step)
        writer.add_scalar("arena/score", 0.5 + offset, step)
    writer.close()


def test_labels_are_directory_names_and_disambiguated_where_two_runs_share_one():
    dirs = [Path("/r/ablation/current"), Path("/r/other/current"), Path("/r/ablation/gumbel")]
    assert [_label(d, dirs) for d in dirs] == ["ablation/current", "other/current", "gumbel"]


def test_overlay_of_two_runs_writes_one_png_per_figure_with_data(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="matplotlib is the plots extra")
    _write_run(tmp_path / "current", 0.0)
    _write_run(tmp_path / "gumbel", 0.1)
    out = tmp_path / "png"
    assert main([str(tmp_path / "current"), str(tmp_path / "gumbel"), str(out), "--prefix", "ab-"]) == 0
    # Only the figures with a scalar present are drawn: losses (loss/policy) and strength (arena/score).
    assert sorted(p.name for p in out.iterdir()) == ["ab-losses.png", "ab-strength.png"]
    for png in out.iterdir():
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().out.split() == [str(out / "ab-losses.png"), str(out / "ab-strength.png")]


def test_a_directory_without_tensorboard_logs_is_one_line_and_no_file(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is the plots extra")
    _write_run(tmp_path / "current", 0.0)
    (tmp_path / "typo").mkdir()
    out = tmp_path / "png"
    with pytest.raises(SystemExit, match="typo/tb does not exist"):
        main([str(tmp_path / "current"), str(tmp_path / "typo"), str(out)])
    assert not out.exists()
