"""The whole fault-injection suite: kill/resume trials, disk-full runs, the lock, bad inputs.

`run_suite` is what `python -m alphazero.bench faults` and the `faults` tests run; it returns a
`SuiteReport` whose `summary()` is the benchmark's JSON line and whose `details` list every trial,
disk-full run and failing bad-input case (also written to `<work_dir>/report.json`).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alphazero.faults import badinput
from alphazero.faults.trials import Campaign, TrialOutcome, disk_full_trial, plan_trials

DISK_FULL_MODES = ("tmpfs", "shard_write", "checkpoint_write")


@dataclass
class SuiteReport:
    trials: list = field(default_factory=list)  # TrialOutcome, the final clean resume last
    disk_full: list = field(default_factory=list)  # DiskFullOutcome
    lock_problems: list | None = None  # None: not checked
    bad_inputs: list = field(default_factory=list)  # CaseResult
    seconds: float = 0.0

    def _trial_outcomes(self) -> list[TrialOutcome]:
        return [t for t in self.trials if t.plan.kind != "none"]

    def problems(self) -> list[str]:
        out = []
        for trial in self.trials:
            out += [f"trial {trial.index} ({trial.plan.describe()}): {p}" for p in trial.problems]
        for run in self.disk_full:
            out += [f"disk full ({run.how}): {p}" for p in run.problems if not p.startswith("skipped:")]
        out += [f"second run on a locked directory: {p}" for p in self.lock_problems or []]
        out += [f"bad input {r.family} / {r.name}: {r.detail}" for r in self.bad_inputs if r.outcome == "unclear"]
        return out

    def crashes(self) -> list[str]:
        out = []
        for trial in self.trials:
            out += [f"trial {trial.index} ({trial.plan.describe()}): {c}" for c in trial.crashes]
        for run in self.disk_full:
            out += [f"disk full ({run.how}): {c}" for c in run.crashes]
        out += [f"bad input {r.family} / {r.name}: {r.detail}" for r in self.bad_inputs if r.outcome == "crash"]
        return out

    def summary(self) -> dict:
        trials = self._trial_outcomes()
        resumes = [t for t in self.trials if t.resumed]
        by_fault = {}
        for trial in trials:
            key = trial.plan.kind if trial.plan.kind != "hook" else f"hook:{trial.plan.fault.split(':')[0]}"
            by_fault[key] = by_fault.get(key, 0) + int(trial.fault_injected)
        problems, crashes = self.problems(), self.crashes()
        return {
            "trials": len(trials),
            "faults_injected": sum(t.fault_injected for t in trials),
            "resumes_succeeded": sum(t.resume_ok is True for t in resumes) + sum(run.resumed for run in self.disk_full),
            "resumes_attempted": len(resumes) + sum(not any(p.startswith("skipped:") for p in run.problems) for run in self.disk_full),
            "files_checked": sum(t.files_checked for t in self.trials) + sum(run.files_checked for run in self.disk_full),
            "games_lost": sum(t.games_lost for t in self.trials),
            "bad_inputs_tried": len(self.bad_inputs),
            "crashes": len(crashes),
            "problems": len(problems),
            "faults_by_kind": by_fault,
            "disk_full": {run.how: _disk_full_verdict(run) for run in self.disk_full},
            "lock_refusal": None if self.lock_problems is None else ("ok" if not self.lock_problems else "failed"),
            "bad_inputs": badinput.summarize(self.bad_inputs),
            "first_problems": (crashes + problems)[:5],
            "seconds": round(self.seconds, 1),
        }

    def details(self) -> dict:
        return {
            "summary": self.summary(),
            "trials": [t.summary() for t in self.trials],
            "disk_full": [dataclasses.asdict(run) for run in self.disk_full],
            "lock_problems": self.lock_problems,
            "bad_inputs_not_clean": [dataclasses.asdict(r) for r in self.bad_inputs if r.outcome in ("crash", "unclear")],
        }


def _disk_full_verdict(run) -> str:
    skipped = [p for p in run.problems if p.startswith("skipped:")]
    if skipped:
        return skipped[0]
    return "ok" if run.stopped_cleanly and run.resumed and not run.problems and not run.crashes else "failed"


def run_suite(
    work_dir,
    trials: int = 20,
    seed: int = 0,
    bad_inputs_per_family: int = 30,
    disk_full_modes=DISK_FULL_MODES,
    bad_input_families=badinput.FAMILIES,
    progress=None,
) -> SuiteReport:
    """Run everything under `work_dir`; `progress(text)` hears one line per finished step."""
    start = time.monotonic()
    work_dir = Path(work_dir)
    say = progress or (lambda text: None)
    report = SuiteReport()

    campaign = Campaign(work_dir / "kill-resume")
    plans = plan_trials(trials, seed)
    lock_trial = next((i for i, plan in enumerate(plans) if plan.kind == "timed_kill" and not plan.during_startup), None)
    for index, plan in enumerate(plans):
        outcome = campaign.run_trial(plan, check_lock=index == lock_trial)
        say(json.dumps(outcome.summary()))
    final = campaign.final_resume()
    say(json.dumps(final.summary()))
    report.trials = campaign.outcomes
    report.lock_problems = campaign.lock_problems if campaign.lock_checked else None

    for how in disk_full_modes:
        run = disk_full_trial(work_dir / f"disk-full-{how}", how)
        say(json.dumps(dataclasses.asdict(run)))
        report.disk_full.append(run)

    cases = badinput.all_cases(np.random.default_rng(seed), work_dir / "bad-inputs", bad_inputs_per_family, bad_input_families)
    report.bad_inputs = badinput.run_cases(cases)
    say(json.dumps({"bad_inputs": badinput.summarize(report.bad_inputs)}))

    report.seconds = time.monotonic() - start
    (work_dir / "report.json").write_text(json.dumps(report.details(), indent=1))
    return report
