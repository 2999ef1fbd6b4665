"""Config value checks that fail with the key, the value and what was expected."""


class ConfigValueError(ValueError):
    """A config value outside its allowed range; the message names the key."""


def require(ok: bool, key: str, value, expected: str) -> None:
    if not ok:
        raise ConfigValueError(f"{key} must be {expected}, got {value!r}")


def require_choice(key: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigValueError(f"{key} must be one of {', '.join(choices)}; got {value!r}")
