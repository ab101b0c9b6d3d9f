"""Learning curve of a training run: every checkpoint against fixed opponents on held-out deals.

```bash
python -m experiments.learning_curve --run runs/gin-2p__s1 --opponents greedy variant --deals 300
```

Each checkpoint of the run (``imitation_model.zip`` as step 0 when the run had
a warm start, then ``checkpoints/step_N.zip``, then ``final_model.zip`` if it
is newer) plays the same duplicate deals ``first_deal .. first_deal + deals - 1``
from every seat against each opponent (:func:`experiments.eval_ppo.play_duplicate`,
deterministic play). The default deals, 2,000,000 and up, are apart from the
trainer's own evaluation deals (1,000,000 and up, which pick ``best_model``)
and from the tournament's (0 and up, where shipped models are tested), so
the curve is measured on deals that played no part in training or selection.

Printed and written to ``<run>/curve/``: a Markdown table (margin per deal,
model minus opponent, with 95% intervals over deals), ``curve.json`` and
``curve.png``, and for each opponent the paired difference last minus first
checkpoint (the same deals, so the interval is of the per-deal differences).
Results are cached per checkpoint, opponent and deal range in
``<run>/curve/cache/``: a rerun evaluates only what is new.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from experiments.eval_ppo import load_player, play_duplicate
from experiments.stats import ratio_ci


def checkpoints(run: Path) -> list[tuple[int, str, Path]]:
    """``(step, label, path)`` of the run's models in step order (module docs)."""
    from agents.model_io import read_sb3_data

    out: list[tuple[int, str, Path]] = []
    if (run / "imitation_model.zip").exists():
        out.append((0, "0 (imitation)", run / "imitation_model.zip"))
    for p in (run / "checkpoints").glob("step_*.zip"):
        m = re.fullmatch(r"step_(\d+)\.zip", p.name)
        if m:
            out.append((int(m.group(1)), m.group(1), p))
    out.sort(key=lambda t: t[0])
    final = run / "final_model.zip"
    if final.exists():
        step = int(read_sb3_data(final).get("num_timesteps", -1))
        if not out or step > out[-1][0]:
            out.append((step, f"{step} (final)", final))
    return out


def per_deal(records: list[dict[str, Any]], key: str = "margin") -> dict[int, float]:
    """Mean of ``key`` per deal (over the deal's seatings)."""
    by: dict[int, list[float]] = {}
    for r in records:
        by.setdefault(int(r["deal"]), []).append(float(r[key]))
    return {d: float(np.mean(v)) for d, v in sorted(by.items())}


def evaluate(
    path: Path,
    opponent: str,
    deals: int,
    first: int,
    preset: str,
    num_players: int,
    rules: dict[str, Any],
    cache: Path,
) -> list[dict[str, Any]]:
    """Game records of ``path`` against ``opponent`` (cached on disk)."""
    f = cache / f"{path.parent.name}_{path.stem}__{opponent}__{first}_{deals}.json"
    if f.exists():
        return json.loads(f.read_text())
    recs = play_duplicate(load_player(path), opponent, deals, first, preset, num_players, rules)
    cache.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(recs))
    return recs


def interval(values: list[float]) -> dict[str, float]:
    m, lo, hi = ratio_ci(values, [1.0] * len(values))
    return {"mean": m, "lo": lo, "hi": hi, "n": len(values)}


def _fmt(c: dict[str, float]) -> str:
    return f"{c['mean']:+.2f} [{c['lo']:+.2f}, {c['hi']:+.2f}]"


def curve(
    run: Path, opponents: list[str], deals: int, first: int, verbose: bool = True, every: int = 0
) -> dict[str, Any]:
    """Evaluate every checkpoint of ``run`` (module docs); the results as plain data."""
    args = json.loads((run / "args.json").read_text())
    from experiments.train_ppo import rule_overrides

    rules = rule_overrides(args.get("rules", []))
    preset, players = args["preset"], int(args["num_players"])
    cache = run / "curve" / "cache"
    points = []
    margins: dict[str, list[dict[int, float]]] = {o: [] for o in opponents}
    chosen = checkpoints(run)
    if every:  # step 0, the multiples of every, and the last
        chosen = [c for i, c in enumerate(chosen) if c[0] % every == 0 or i == len(chosen) - 1]
    for step, label, path in chosen:
        row: dict[str, Any] = {"step": step, "label": label, "file": str(path)}
        for opp in opponents:
            t = time.time()
            recs = evaluate(path, opp, deals, first, preset, players, rules, cache)
            pd = per_deal(recs)
            margins[opp].append(pd)
            row[opp] = interval(list(pd.values()))
            row[opp]["win_rate"] = float(np.mean([r["win"] for r in recs]))
            if verbose:
                print(
                    f"[curve] {label:>16} vs {opp:<12} {_fmt(row[opp])} ({time.time() - t:.0f}s)",
                    flush=True,
                )
        points.append(row)
    diffs = {}
    for opp in opponents:
        if len(margins[opp]) >= 2:
            a, b = margins[opp][0], margins[opp][-1]
            diffs[opp] = interval([b[d] - a[d] for d in a if d in b])
    return {
        "run": str(run),
        "preset": preset,
        "num_players": players,
        "rules": rules,
        "deals": deals,
        "first_deal": first,
        "opponents": opponents,
        "points": points,
        "last_minus_first": diffs,
    }


def table(res: dict[str, Any]) -> str:
    opps = res["opponents"]
    lines = [
        f"Margin per deal, model minus opponent, mean [95% CI] over {res['deals']} duplicate deals "
        f"({res['first_deal']:,}+, every seat; held out from training and selection):",
        "",
        "| PPO steps | " + " | ".join(f"vs {o}" for o in opps) + " |",
        "|---" * (len(opps) + 1) + "|",
    ]
    for p in res["points"]:
        lines.append(f"| {p['label']} | " + " | ".join(_fmt(p[o]) for o in opps) + " |")
    if res["last_minus_first"]:
        lines += [
            "",
            "Last checkpoint minus first, paired over the same deals: "
            + "; ".join(f"vs {o} {_fmt(c)}" for o, c in res["last_minus_first"].items()),
        ]
    return "\n".join(lines)


def plot(res: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for i, o in enumerate(res["opponents"]):
        x = [p["step"] for p in res["points"]]
        y = [p[o]["mean"] for p in res["points"]]
        err = [
            [p[o]["mean"] - p[o]["lo"] for p in res["points"]],
            [p[o]["hi"] - p[o]["mean"] for p in res["points"]],
        ]
        ax.errorbar(x, y, yerr=err, fmt="o-", capsize=3, label=f"vs {o}", color=f"C{i}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(res.get("x_label", "PPO steps (0 = after the imitation warm start)"))
    ax.set_ylabel("margin per deal (95% CI)")
    ax.set_title(f"{Path(res['run']).name}: {res['deals']} held-out duplicate deals", fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


@dataclass
class Args:
    run: str
    """run directory (runs/<run>, as written by rummy-train)"""
    opponents: list[str] = field(default_factory=lambda: ["greedy", "variant"])
    """fixed opponents (registry names; variant = the preset's rule-based agent)"""
    deals: int = 300
    """duplicate deals per checkpoint and opponent (each played from every seat)"""
    first_deal: int = 2_000_000
    """seed of the first deal (apart from the trainer's 1,000,000+ and the tournament's 0+)"""
    every: int = 0
    """evaluate only step 0, the multiples of this and the last checkpoint (0 = every one)"""


def main(argv: list[str] | None = None) -> None:
    import tyro

    args = tyro.cli(Args, args=argv, description=__doc__.splitlines()[0])
    run = Path(args.run)
    if not (run / "args.json").exists():
        raise SystemExit(f"learning_curve: {str(run)!r} is not a run directory (no args.json)")
    res = curve(run, args.opponents, args.deals, args.first_deal, every=args.every)
    out = run / "curve"
    out.mkdir(parents=True, exist_ok=True)
    text = table(res)
    print(text)
    (out / "curve.md").write_text(text + "\n")
    (out / "curve.json").write_text(json.dumps(res, indent=1))
    plot(res, out / "curve.png")
    print(f"\nWrote: {out / 'curve.md'}, {out / 'curve.json'}, {out / 'curve.png'}")


if __name__ == "__main__":
    main()
