"""Equal time per move: the default network's search by time evaluating 1 leaf per network call
(the arena's and `play`'s default) against L leaves per call (virtual loss: more simulations a
second from batched network calls, each less informed). Paired openings (both colours), one
game at a time per process, one torch thread; `--shard K/N` splits the match between processes
sharing the games log (a killed match resumes from it).

    python experiments/timed-leaves/match.py --seconds 0.5 --leaves 4 --pairs 50 --shard 0/2 \
        --games-log experiments/timed-leaves/games-0.5s-4.jsonl
"""

import argparse
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--leaves", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shard", default=None)
    parser.add_argument("--games-log", required=True)
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "selfplay-medium.pt"))
    args = parser.parse_args()

    from alphazero.arena.game_log import GameLog
    from alphazero.arena.match import play_match
    from alphazero.arena.players import MCTSPlayer

    net = Path(args.checkpoint).stem
    players = [
        MCTSPlayer.from_checkpoint(args.checkpoint, simulations=None, seconds=args.seconds, threads=1,
                                   leaves_per_step=leaves, name=f"{net}-{args.seconds:g}s-leaves{leaves}")
        for leaves in (1, args.leaves)
    ]
    shard = tuple(int(x) for x in args.shard.split("/")) if args.shard else None
    started = time.time()
    result = play_match(players[0], players[1], args.pairs, seed=args.seed, concurrency=1,
                        game_log=GameLog(args.games_log), shard=shard)
    print(json.dumps({"a": players[0].name, "b": players[1].name, "shard": args.shard,
                      "wins_draws_losses_of_a": [result.wins, result.draws, result.losses],
                      "score_a": result.score, "thinking_seconds": result.thinking_seconds, "minutes": round((time.time() - started) / 60, 1),
                      "load": os.getloadavg(), "end": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}))


if __name__ == "__main__":
    main()
