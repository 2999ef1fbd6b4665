"""Whether numba's on-disk cache already holds a kernel's machine code, asked without compiling it.

A kernel with `cache=True` is compiled on its first call and saved next to its module (in
`__pycache__`, or under NUMBA_CACHE_DIR when that is set); later processes load it in
milliseconds. A fresh clone, a new numba, another CPU or an edited source finds nothing usable and
compiles again: minutes for the search on a 2-core laptop. A command that is about to wait for
that (the training run, whose self-play workers compile in their own processes) can say so before
the wait instead of sitting silent.

The answer reads numba's own cache index with numba's own rules (its version, the source file's
stamp, this machine's CPU and the function's bytecode: the key numba loads by), through its
`Dispatcher._cache` internals. Those are not a public API, so anything unexpected answers None
("cannot tell") rather than failing the command that asked.
"""

from __future__ import annotations

import hashlib


def compiled_here(kernel) -> bool | None:
    """True if numba's cache holds code of `kernel` (an `@njit(cache=True)` function) that this
    process could load, False if it would compile, None if this numba's cache cannot be read so."""
    try:
        cache_file = kernel._cache._cache_file
        index = cache_file._load_index()  # {} when missing, from another numba, or its source changed
        machine = kernel.targetctx.codegen().magic_tuple()
        code = hashlib.sha256(kernel.py_func.__code__.co_code).hexdigest()
        return any(key[1] == machine and key[2][0] == code for key in index)
    except Exception:  # noqa: BLE001 - numba internals changed: say "cannot tell", never fail
        return None


def all_compiled_here(kernels) -> bool | None:
    """True if every kernel is in the cache for this machine, False if one is not, None if the
    cache cannot be read."""
    answers = [compiled_here(kernel) for kernel in kernels]
    if None in answers:
        return None
    return all(answers)
