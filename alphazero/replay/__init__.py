"""Replay buffer: self-play games as atomic on-disk shards, a window of recent positions, sampling."""

from alphazero.replay.buffer import Batch, ReplayBuffer, ShardWriter, list_shards, shard_name
from alphazero.replay.shard import ShardData, ShardError, read_records, read_shard, write_shard

__all__ = [
    "Batch",
    "ReplayBuffer",
    "ShardData",
    "ShardError",
    "ShardWriter",
    "list_shards",
    "read_records",
    "read_shard",
    "shard_name",
    "write_shard",
]
