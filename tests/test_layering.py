"""The house: data flows one way, and no two modules import each other.

Stages sit on floors (LAYERS, bottom first). A module may import its own package, any package on
a lower floor, and the shared modules at the bottom of the package (alphazero/*.py: the atomic
writer, the best-network pointer, the fault hooks, validation). Two packages on the same floor do
not import each other, the shared bottom modules import nothing above them, and the import graph
of modules has no cycle. Every import statement counts, including those inside functions and
relative ones: a function-local import is still an arrow.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "alphazero"

# Bottom first. The pipeline othello -> mcts -> nn -> selfplay -> replay -> train -> arena is the
# flow of data; this is the flow of imports (the search talks to an Evaluator protocol and never
# imports the network; training imports the arena to gate).
LAYERS = [
    ["othello"],
    ["solver", "nn", "data"],
    ["mcts", "replay"],
    ["engine"],
    ["selfplay", "arena"],
    ["train", "play"],
    ["pretrain", "gtp", "nboard", "export", "games"],
    # The game review searches with play's chooser and numbers a run's games as `games` does; the
    # web board's review page is built on it, so the web board stands a floor higher.
    ["review"],
    ["web"],
    ["faults"],
    ["bench"],
]
FLOOR = {package: floor for floor, packages in enumerate(LAYERS) for package in packages}
# The stages that make games and networks never import the ones that consume them.
LOWER = ["othello", "solver", "nn", "mcts", "engine", "selfplay", "replay", "data"]
HIGHER = ["train", "arena", "play", "gtp", "pretrain", "bench", "faults", "web", "nboard", "export", "games", "review"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, relative ones resolved; `from a import b`
    names `a.b` where b is a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names if f"{module}.{alias.name}" in MODULES]
    return [(line, module) for line, module in found if module == "alphazero" or module.startswith("alphazero.")]


def is_entry_point(module: str) -> bool:
    """A root module that only starts a command (`python -m alphazero.solve`): it stands above
    every floor, like a command's `__main__`."""
    path = MODULES.get(module)
    return module.count(".") == 1 and path is not None and path.parent == PACKAGE and 'if __name__ == "__main__"' in path.read_text()


def place(module: str) -> str:
    """The package a module belongs to ('' for the package root and its shared bottom modules,
    'entry point' for a root module that starts a command)."""
    parts = module.split(".")
    if is_entry_point(module):
        return "entry point"
    if len(parts) == 1 or (len(parts) == 2 and not (PACKAGE / parts[1]).is_dir()):
        return ""
    return parts[1]


def test_every_package_has_a_floor():
    packages = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert [p for p in packages if p not in FLOOR] == [], "add new packages to LAYERS"


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


def test_imports_only_go_down_the_floors():
    offences = []
    for name, path in MODULES.items():
        source = place(name)
        if source == "entry point":
            continue
        for line, module in imported_modules(path):
            target = place(module)
            if target == "" or target == source:
                if source == "" and target == "" and module != "alphazero" and module.split(".")[1] in FLOOR:
                    offences.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
                continue
            if source == "":
                offences.append(f"{path.relative_to(PACKAGE.parent)}:{line}: a shared bottom module imports {module}")
            elif FLOOR[target] >= FLOOR[source]:
                offences.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({source}, floor {FLOOR[source]}) imports {module} "
                                f"({target}, floor {FLOOR[target]})")
    assert not offences, "\n".join(offences)


def test_no_two_modules_import_each_other_even_through_others():
    graph = {name: {m for _, m in imported_modules(path) if m in MODULES and m != name} for name, path in MODULES.items()}
    # A package's __init__ that its own modules import for a name is not a cycle worth a refactor
    # only if it imports nothing back; so package roots stay in the graph like any module.
    cycles, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
