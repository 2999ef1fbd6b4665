"""Fault injection and bad-input hardening, proven by `python -m alphazero.bench faults`.

    runs.py      start, watch, kill and resume training runs in subprocesses
    checks.py    what must hold in a run directory after any crash (files load, counters, no loss)
    trials.py    randomized kill/resume trials, worker kills, disk-full, lock refusal
    badinput.py  corrupt-input generators and the readers they are fed to
    suite.py     all of the above in one report (the benchmark's JSON line)

The hooks themselves, `fault_point(phase)` (env-controlled SIGKILL / ENOSPC at named phases, zero
cost unset), live at the bottom of the package in alphazero/fault_hooks.py, because the pipeline's
stages call them; this package is tooling for tests and the benchmark, and no stage imports it.
"""
