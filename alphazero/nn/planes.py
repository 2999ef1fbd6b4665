"""The network's input planes: their order and count (alphazero.nn.encoding says what each holds).

Kept apart from the encoding kernels, which need torch, so that configuration code (the model
config's plane count, a command line's checks before it starts) reads them without importing it.
"""

PLANE_PLAYER = 0
PLANE_OPPONENT = 1
PLANE_LEGAL = 2
PLANE_ONES = 3
NUM_PLANES = 4
PLANE_NAMES = ("player", "opponent", "legal", "ones")
