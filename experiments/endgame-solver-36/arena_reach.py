"""The arena between two endgame settings of one network, each written as `bench endgame_search`
writes a reach (`18/17`, `18/17~18v3`, `16:off:searched`, ...): the arena's own `endgame=E`
option names one reach only.

    python experiments/endgame-solver-36/arena_reach.py checkpoints/warmstart.pt 100 18/17~18v3 18/17 \
        --pairs 100 --games-log experiments/endgame-solver-36/arena-revisit-games.jsonl > result.json
"""
import argparse
import dataclasses
import json

from alphazero.arena.game_log import GameLog
from alphazero.arena.match import play_match
from alphazero.arena.players import MCTSPlayer
from alphazero.bench.endgame_search import parse_reach


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("simulations", type=int)
    parser.add_argument("reach_a")
    parser.add_argument("reach_b")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games-log", default=None)
    args = parser.parse_args()
    players = []
    for reach in (args.reach_a, args.reach_b):
        config = dataclasses.replace(parse_reach(reach), simulations=args.simulations)
        players.append(MCTSPlayer.from_checkpoint(args.checkpoint, args.simulations, device="cpu", threads=1,
                                                  config=config, name=f"{args.simulations}-{reach}"))
    log = GameLog(args.games_log) if args.games_log else None
    result = play_match(players[0], players[1], args.pairs, seed=args.seed, game_log=log, progress=True)
    summary = {k: v for k, v in dataclasses.asdict(result).items() if k != "games"}
    print(json.dumps(summary, default=str))


if __name__ == "__main__":
    main()
