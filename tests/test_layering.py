"""Data flows one way: the stages that make games and networks (engine, search, self-play, replay,
data) never import the stages that consume them (training, arena, play, GTP, pretraining, benches).
What both sides need (the best-network pointer, the fault hooks) lives at the bottom of the package
(alphazero/best_pointer.py, alphazero/fault_hooks.py).
Checked on the source (every import statement, including those inside functions)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "alphazero"
LOWER = ["othello", "solver", "nn", "mcts", "engine", "selfplay", "replay", "data"]
HIGHER = ["train", "arena", "play", "gtp", "pretrain", "bench", "faults", "web", "nboard", "export"]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("stage", LOWER)
def test_a_lower_stage_never_imports_a_higher_one(stage):
    offences = []
    for path in sorted((PACKAGE / stage).rglob("*.py")):
        for line, module in imported_modules(path):
            for higher in HIGHER:
                name = f"alphazero.{higher}"
                if module == name or module.startswith(name + "."):
                    offences.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert not offences, "\n".join(offences)
