"""A training run's self-play games, for people: list them, export them as GGF, replay one as text.

    python -m alphazero.games RUN_DIR                      # how many games, the newest ones listed
    python -m alphazero.games RUN_DIR --ggf out.ggf        # every game on disk as GGF
    python -m alphazero.games RUN_DIR --ggf out.ggf --last 100
    python -m alphazero.games RUN_DIR --show -1            # the newest game, move by move

The games are the ones in the run's replay shards (`RUN_DIR/replay/`, see alphazero.replay), in
the order the shards were written, numbered from 1 (the oldest on disk) to N (the newest); a
negative number counts from the end (-1 is the newest). A run that prunes its replay
(`train.keep_old_shards=false`, the default) deletes shards that left the training window, so the
oldest games are gone: the numbers cover what is still on disk.

A reader only reads: a shard that cannot be read is skipped with a warning naming it, as the
GGF exporter (`alphazero.replay.export`) does. This package stands above the pipeline: it imports
the replay shards, the GGF writer and the play board renderer, and nothing imports it.
"""
