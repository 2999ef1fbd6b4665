"""Batched Monte Carlo tree search over B games at once: numba kernels on preallocated arrays.

`config.MCTSConfig` holds the settings, `evaluator` defines what the search asks of a network,
`tree.Tree` is the storage, `kernels` the numba steps (select_leaves, expand, backup),
`selection` the interior rule (PUCT), `root.RootRule` the root rule's interface with its two
implementations `puct_root.PuctRoot` and `gumbel.GumbelRoot`, and `search.BatchedSearch` the
driver that the self-play workers and players call.
"""
