"""Config value checks that fail with the key, the value and what was expected."""

import math


class ConfigValueError(ValueError):
    """A config value outside its allowed range; the message names the key."""


def require(ok: bool, key: str, value, expected: str) -> None:
    """Refuse `value` unless `ok`; a float must also be finite (inf passes `> 0` and `>= 1`, and no
    setting means anything by it: an unlimited budget is written 0)."""
    if not ok or (isinstance(value, float) and not math.isfinite(value)):
        raise ConfigValueError(f"{key} must be {expected}, got {value!r}")


def require_choice(key: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigValueError(f"{key} must be one of {', '.join(choices)}; got {value!r}")
