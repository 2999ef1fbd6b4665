"""`python -m alphazero.bench endgame`: switch sets side by side, and positions from WTHOR games."""

import pytest

from alphazero.bench import endgame as bench
from tests.conftest import FIXTURES


def test_two_switch_sets_side_by_side_are_exact_and_compared_to_the_first():
    result = bench.main(["--obf", str(FIXTURES / "fforum-1-19.obf"), "--max-positions", "3", "--options", "off,default",
                         "--table-bits", "16"])
    off, default = result["runs"]
    assert (off["options"], default["options"]) == ("off", "default")
    assert off["exact"] and default["exact"] and off["positions"] == default["positions"] == 3
    assert off["nodes"] == 73708 + 53389 + 116326  # the search before issue 36 (tests/solver/test_switches.py)
    assert default["vs_first"]["nodes"] == round(default["nodes"] / off["nodes"], 3) < 1
    assert len(result["load_average_1min"]) == 2


def test_one_switch_set_reports_at_the_top_level():
    result = bench.main(["--obf", str(FIXTURES / "fforum-1-19.obf"), "--max-positions", "2", "--table-bits", "16"])
    assert result["options"] == "default" and result["exact"] and result["positions"] == 2
    assert result["files"][0]["file"] == "fforum-1-19.obf"


def test_wthor_positions_have_the_asked_empties():
    positions = bench.wthor_positions(FIXTURES / "WTH_1977.wtb", 12, 5)
    assert len(positions) == 5
    assert all(p.state.empties() == 12 and not p.state.is_over() for p in positions)
    result = bench.main(["--wthor", str(FIXTURES / "WTH_1977.wtb"), "--empties", "8,10", "--count", "3", "--wld",
                         "--options", "off,default", "--table-bits", "12"])
    assert result["mode"] == "wld"
    assert [f["positions"] for f in result["runs"][0]["files"]] == [3, 3]
    assert [f["file"] for f in result["runs"][1]["files"]] == ["WTH_1977.wtb@8", "WTH_1977.wtb@10"]


@pytest.mark.parametrize("argv, message", [
    (["--options", "off,fast"], "--options"),
    (["--options", "off,off"], "distinct"),
    (["--wthor", "/nonexistent.wtb", "--empties", "10"], "--wthor"),
    (["--wthor", str(FIXTURES / "WTH_1977.wtb"), "--empties", "ten"], "--empties"),
])
def test_bad_arguments_are_one_clear_error(argv, message, capsys):
    with pytest.raises(SystemExit):
        bench.main(argv)
    assert message in capsys.readouterr().err
