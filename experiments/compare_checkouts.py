"""Raw AEC speed of two checkouts of rummy-env, measured interleaved.

Each run is a fresh process with ``PYTHONPATH`` set to one checkout, playing seeded random
masked games through ``raw_env`` for ``--seconds``; runs of the two checkouts alternate,
pinned to one core where ``taskset`` exists, and the medians are compared. This is how a
change of the engine is held to the speed of the code before it::

    git worktree add /tmp/base <commit>     # (build its C extension: pip install -e /tmp/base
                                            #  or copy rummy_env/_cover_c*.so into it)
    python -m experiments.compare_checkouts --old /tmp/base --new . --preset rummy500
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

#: the measuring child: decisions a second of random play, printed
_CHILD = """
import random, sys, time
import numpy as np
import rummy_env
preset, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
env = rummy_env.raw_env(preset, num_players=n)
rng = random.Random(0)
steps, seed = 0, 0
t0 = time.perf_counter()
while time.perf_counter() - t0 < secs:
    env.reset(seed=seed)
    seed += 1
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.randrange(legal.size)]))
        steps += 1
print(steps / (time.perf_counter() - t0))
"""


def measure(checkout: Path, preset: str, players: int, seconds: float, cpu: int) -> float:
    """Decisions a second of one run of ``checkout``'s code."""
    cmd = [sys.executable, "-c", _CHILD, preset, str(players), str(seconds)]
    if cpu >= 0 and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(cpu), *cmd]
    env = {"PYTHONPATH": str(checkout.resolve()), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{checkout}: the run failed:\n{out.stderr.strip()[-2000:]}")
    return float(out.stdout.split()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="checkout measured as the base")
    ap.add_argument("--new", type=Path, required=True, help="checkout compared with it")
    ap.add_argument("--preset", action="append", help="preset (repeat it; default: all)")
    ap.add_argument("--players", type=int, default=2, help="players (default 2)")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds a run (default 2)")
    ap.add_argument("--repeats", type=int, default=4, help="runs of each checkout (default 4)")
    ap.add_argument("--cpu", type=int, default=0, help="core to pin to; -1: none (default 0)")
    args = ap.parse_args(argv)
    for path in (args.old, args.new):
        if not (path / "rummy_env" / "__init__.py").is_file():
            ap.error(f"{path} is not a checkout of rummy-env (no rummy_env/__init__.py)")
    if args.repeats < 1 or args.seconds <= 0:
        ap.error("--repeats must be 1 or more and --seconds above 0")
    import rummy_env

    presets = args.preset or sorted(rummy_env.PRESETS)
    print(f"{'preset':10s} {'old':>9s} {'new':>9s} new/old")
    for preset in presets:
        old, new = [], []
        for _ in range(args.repeats):
            old.append(measure(args.old, preset, args.players, args.seconds, args.cpu))
            new.append(measure(args.new, preset, args.players, args.seconds, args.cpu))
        a, b = statistics.median(old), statistics.median(new)
        print(f"{preset:10s} {a:9.0f} {b:9.0f} {b / a:.3f}", flush=True)


if __name__ == "__main__":
    main()
