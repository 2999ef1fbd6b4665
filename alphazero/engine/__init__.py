"""Building what plays with a network: evaluator, search and player (see `factory`)."""
