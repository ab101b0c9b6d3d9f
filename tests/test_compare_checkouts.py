"""experiments.compare_checkouts: two checkouts' raw AEC speed, runs alternating."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_compares_a_checkout_with_itself_line_per_preset():
    out = subprocess.run(
        [sys.executable, "-m", "experiments.compare_checkouts", "--old", ".", "--new", "."]
        + ["--preset", "gin", "--seconds", "0.2", "--repeats", "1", "--cpu", "-1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    head, row = out.stdout.splitlines()
    assert head.split() == ["preset", "old", "new", "new/old"]
    name, old, new, ratio = row.split()
    assert name == "gin" and float(old) > 0 and float(new) > 0
    assert abs(float(ratio) - float(new) / float(old)) < 0.01


def test_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "experiments.compare_checkouts", "--old", str(tmp_path)]
        + ["--new", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "not a checkout of rummy-env" in out.stderr
