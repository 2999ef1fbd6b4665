"""PNG export of TensorBoard curves, alone and overlaid for an ablation's runs."""

from pathlib import Path

import pytest

from alphazero.train.plots import _label, labels, main, with_initial_best


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


@pytest.mark.parametrize("out", ["a-file", "a-file/png"])
def test_an_out_dir_that_is_a_file_or_under_one_is_one_line_and_changes_nothing(tmp_path, capsys, out):
    """Both were a FileExistsError/NotADirectoryError traceback from mkdir."""
    pytest.importorskip("matplotlib", reason="matplotlib is the plots extra")
    _write_run(tmp_path / "current", 0.0)
    (tmp_path / "a-file").write_text("notes")
    assert main([str(tmp_path / "current"), str(tmp_path / out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {tmp_path / 'a-file'} is a file, not a directory, so {tmp_path / out / 'losses.png'} cannot be written"]
    assert (tmp_path / "a-file").read_text() == "notes"


def _write_scalars(run_dir: Path, points: dict) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"))
    for tag, series in points.items():
        for step, value in series:
            writer.add_scalar(tag, value, step)
    writer.close()


def test_a_figure_without_data_yet_is_said_in_one_line_each(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="matplotlib is the plots extra")
    run = tmp_path / "young"
    _write_scalars(run, {"selfplay/positions_per_second": [(0, 50.0)]})
    out = tmp_path / "png"
    assert main([str(run), str(out)]) == 0
    assert [p.name for p in out.iterdir()] == ["selfplay.png"]
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"losses.png not written: no loss points yet (they come with the first training steps) in {run}",
        f"strength.png not written: no strength data yet (it comes with the first gate or baseline evaluation) in {run}",
    ]


def _sweep_job(sweep: Path, number: int, c_puct: str) -> Path:
    job = sweep / str(number)
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "overrides.yaml").write_text(
        f"- experiment=smoke\n- run.dir={sweep}\n- mcts.c_puct={c_puct}\n- mcts.simulations=50\n"
    )
    return job


def test_a_sweeps_legend_names_the_swept_values_not_the_job_numbers(tmp_path):
    jobs = [_sweep_job(tmp_path / "sweep", n, c) for n, c in enumerate(["1.0", "2.5"])]
    assert labels(jobs) == ["mcts.c_puct=1.0", "mcts.c_puct=2.5"]
    # Runs started apart (different run.dir, no differing override) keep their directory names,
    # and so do runs without Hydra's record.
    other = tmp_path / "other"
    (other / ".hydra").mkdir(parents=True)
    (other / ".hydra" / "overrides.yaml").write_text(f"- experiment=smoke\n- run.dir={other}\n- mcts.c_puct=1.0\n- mcts.simulations=50\n")
    assert labels([jobs[0], other]) == ["0", "other"]
    assert labels([jobs[0], tmp_path / "bare"]) == ["0", "bare"]


def test_the_legend_of_an_exported_sweep_shows_the_swept_values(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="matplotlib is the plots extra")
    import matplotlib.figure

    jobs = [_sweep_job(tmp_path / "sweep", n, c) for n, c in enumerate(["1.0", "2.5"])]
    for job, offset in zip(jobs, (0.0, 0.1)):
        _write_run(job, offset)
    legends = []
    save = matplotlib.figure.Figure.savefig

    def recording_savefig(figure, *args, **kwargs):
        legends.extend(text.get_text() for ax in figure.axes if ax.get_legend() for text in ax.get_legend().get_texts())
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", recording_savefig)
    assert main([str(jobs[0]), str(jobs[1]), str(tmp_path / "png")]) == 0
    assert set(legends) == {"mcts.c_puct=1.0", "mcts.c_puct=2.5"}


def test_a_run_that_never_promotes_has_an_elo_curve_from_its_first_network():
    gated = {"arena/score": [(100, 0.4), (200, 0.45)], "loss/policy": [(10, 2.0)]}
    assert with_initial_best(gated)["elo/best"] == [(0, 0.0), (200, 0.0)]
    promoted = {"arena/score": [(100, 0.6), (200, 0.5), (300, 0.5)], "elo/best": [(100, 35.0)]}
    assert with_initial_best(promoted)["elo/best"] == [(0, 0.0), (100, 35.0), (300, 35.0)]
    assert "elo/best" not in with_initial_best({"loss/policy": [(10, 2.0)]})  # nothing measured yet


def test_the_strength_figure_of_a_run_that_never_promoted_has_an_elo_panel(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="matplotlib is the plots extra")
    import matplotlib.figure

    run = tmp_path / "flat"
    _write_scalars(run, {"arena/score": [(50, 0.4), (100, 0.45)]})
    panels = {}
    save = matplotlib.figure.Figure.savefig

    def recording_savefig(figure, *args, **kwargs):
        for ax in figure.axes:
            panels[ax.get_title()] = [tuple(line.get_xydata()[:, 0]) for line in ax.get_lines()]
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", recording_savefig)
    assert main([str(run), str(tmp_path / "png")]) == 0
    assert (tmp_path / "png" / "strength.png").is_file()
    assert panels["elo/best"][0][0] == 0 and panels["elo/best"][0][-1] == 100
