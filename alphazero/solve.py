"""`python -m alphazero.solve`: the exact endgame solver on .obf files or one board (see alphazero.solver.cli)."""

import sys

from alphazero.solver.cli import main

if __name__ == "__main__":
    sys.exit(main())
