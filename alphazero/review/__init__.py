"""Game review: a finished game read move by move by the search and, near the end, the exact solver.

`reviewer.review_game(record, chooser)` yields one `MoveReview` per ply (the mover's win
probability before and after, the move the search preferred, the win probability and exact discs
lost, a `?`/`??` mark) as each is ready, so a caller shows progress and can stop;
`summary.summarize` says where each side went wrong and where the game was lost; `text` prints
both; `sources.load_game` reads the game from a file, a run's replay or the moves themselves;
`python -m alphazero.review GAME` is the command. Both result types are plain dataclasses whose
`as_json()` is what the command's `--json` prints, one object a line.

The package stands above play (it searches with play's `SearchChooser`, built on the engine
factory) and the games command (a run's replay is numbered as `alphazero.games` numbers it);
the web board's review page stands above it.
"""
