"""Players, matches, Elo and external GTP engines: how strong is a network, against what."""
