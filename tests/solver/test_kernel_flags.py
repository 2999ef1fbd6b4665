"""The solver's kernels are compiled with numba's reference counting off (`_nrt=False`).

With it on, every call of a kernel that takes arrays paid an atomic increment and decrement per
array, 37% of the solver's time (alphazero/solver/endgame.py's docstring). A kernel added without
the flag would bring that back silently, with every score still right: only this check sees it.
"""

import numpy as np
from numba.core.registry import CPUDispatcher

from alphazero.solver import endgame, patterns, stability, table

# Kernels that allocate arrays and so need numba's reference counting; none is on the search's path.
ALLOCATING = {"pattern_eval_by_squares"}  # the pattern evaluation's slow reference, for tests


def _kernels():
    for module in (endgame, patterns, stability, table):
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", name, value


def test_every_solver_kernel_is_compiled_without_reference_counting():
    kernels = list(_kernels())
    assert len(kernels) >= 40  # the modules' kernels were found at all
    with_counting = [full for full, name, kernel in kernels
                     if kernel.targetoptions.get("_nrt", True) and name not in ALLOCATING]
    assert with_counting == [], f"kernels compiled with numba's reference counting: {with_counting}"


def test_an_allocating_kernel_stays_callable_with_reference_counting_on():
    weights = patterns.shipped_weights()
    player, opponent = np.uint64(0x0000000810000000), np.uint64(0x0000001008000000)
    assert patterns.pattern_eval_by_squares(player, opponent, weights) == patterns.pattern_eval(player, opponent, weights)
