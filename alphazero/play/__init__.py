"""Playing against people: terminal games (`python -m alphazero.play`) and the AI behind them."""
