"""Self-play: worker processes that play batches of games with the batched MCTS and emit GameRecords."""
