"""Evaluate a trained MaskablePPO model on duplicate deals against baseline agents.

```bash
python -m experiments.eval_ppo --model agents/trained/basic-2p.npz --opponents random greedy \
    --deals 2000 --workers 2 --out results/basic-2p-eval.json
```

Deal *i* is seed *i* (the deal ``rummy_env.raw_env(...).reset(seed=i)`` makes) and
is played once from every seat (seats swapped in 2p), the model playing
deterministically (``predict(..., deterministic=True)``, or the same
policy in numpy with ``--backend numpy``, the default: identical moves, faster) through
``sb3_contrib``'s ``evaluate_policy`` on a :class:`RummySingleAgentEnv` in
duplicate mode. Per deal the games are averaged; the summary gives, per
opponent, the mean over deals and a normal 95% confidence interval (1.96
standard errors across deals) of:

* ``margin``: the model's round score minus the opponent's (zero-sum; > 0 beats it);
* ``win_rate``: share of games the model won;
* ``score``: the model's own round score (basic: 0 when it wins, minus its penalty).
"""

from __future__ import annotations

import json
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from experiments.stats import ratio_ci

METRICS = ("margin", "win_rate", "score")


class NumpyPredictor:
    """``predict`` as ``evaluate_policy`` calls it, on a numpy copy of the policy
    (:class:`agents.ppo_agent.NumpyPolicy`: the same actions as the torch
    ``predict``, about ten times faster per decision on one CPU core)."""

    def __init__(self, np_policy: Any):
        self.np_policy = np_policy

    @classmethod
    def of(cls, model: Any) -> NumpyPredictor:
        from agents.ppo_agent import NumpyPolicy

        return cls(NumpyPolicy.from_torch(model.policy))

    def predict(
        self,
        observation: np.ndarray,
        state: Any = None,
        episode_start: Any = None,
        deterministic: bool = True,
        action_masks: np.ndarray | None = None,
    ) -> tuple[np.ndarray, None]:
        if not deterministic:
            raise ValueError("NumpyPredictor plays deterministically only")
        obs = np.atleast_2d(observation)
        masks = np.atleast_2d(action_masks)
        acts = np.array([int(np.argmax(self.np_policy.probs(o, m))) for o, m in zip(obs, masks)])
        return acts, None


def model_features(model: Any) -> str | None:
    """The :mod:`agents.features` map a model (MaskablePPO or :class:`NumpyPredictor`) reads, or None."""
    if isinstance(model, NumpyPredictor):
        return model.np_policy.meta.get("features")
    return getattr(model.policy.features_extractor, "hand_features", None)


def play_duplicate(
    model: Any,
    opponent: str,
    n_deals: int,
    first_deal: int = 0,
    preset: str = "basic",
    num_players: int = 2,
    rules: dict[str, Any] | None = None,
    deterministic: bool = True,
) -> list[dict[str, Any]]:
    """Play deals ``first_deal .. first_deal + n_deals - 1`` from every seat; one record per game."""
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rummy_env.wrappers import RummySingleAgentEnv

    features = model_features(model)

    def make() -> RummySingleAgentEnv:
        return RummySingleAgentEnv(
            preset,
            num_players,
            opponents=opponent,
            reward="raw",
            duplicate_deals=n_deals,
            first_deal=first_deal,
            features=features,
            **(rules or {}),
        )

    venv = DummyVecEnv([make])
    records: list[dict[str, Any]] = []

    def grab(loc: dict[str, Any], _glob: dict[str, Any]) -> None:
        if loc["done"]:
            info = loc["info"]
            records.append(
                {
                    "deal": info["deal"],
                    "seat": info["seat"],
                    "score": info["score"],
                    "margin": info["margin"],
                    "win": float(info["is_success"]),
                }
            )

    evaluate_policy(
        model,
        venv,
        n_eval_episodes=n_deals * num_players,
        deterministic=deterministic,
        callback=grab,
        warn=False,
        use_masking=True,
    )
    venv.close()
    return records


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-deal means, then mean and 95% CI half-width across deals for each metric."""
    by_deal: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        by_deal.setdefault(r["deal"], []).append(r)
    out: dict[str, Any] = {"deals": len(by_deal), "games": len(records)}
    for m, key in (("margin", "margin"), ("win_rate", "win"), ("score", "score")):
        x = [float(np.mean([g[key] for g in games])) for games in by_deal.values()]
        mean, lo, hi = ratio_ci(x, [1.0] * len(x))  # one value per deal, the deals independent
        out[m] = {"mean": mean, "ci95": hi - mean, "lo": lo, "hi": hi}
    return out


def load_player(path: str | Path, backend: str = "numpy") -> Any:
    """What :func:`play_duplicate` plays for a model file: ``.npz`` in numpy; ``.zip``
    through :func:`agents.model_io.load_ppo` (nothing unpickled), in numpy or torch."""
    from agents.ppo_agent import NumpyPolicy

    if backend not in ("numpy", "torch"):
        raise ValueError(f"backend={backend!r} is not allowed (allowed: 'numpy', 'torch')")
    if Path(path).suffix == ".npz":
        if backend != "numpy":
            raise ValueError("a .npz policy plays in numpy only (--backend numpy)")
        return NumpyPredictor(NumpyPolicy.load(path))
    import torch

    from agents.model_io import load_ppo

    torch.set_num_threads(1)
    model = load_ppo(path)
    return NumpyPredictor.of(model) if backend == "numpy" else model


def _worker(job: tuple[str, str, int, int, str, int, dict[str, Any], str]) -> list[dict[str, Any]]:
    path, opponent, n, first, preset, num_players, rules, backend = job
    model = load_player(path, backend)
    return play_duplicate(model, opponent, n, first, preset, num_players, rules)


def evaluate_file(
    path: str | Path,
    opponents: list[str],
    n_deals: int,
    first_deal: int = 0,
    preset: str = "basic",
    num_players: int = 2,
    rules: dict[str, Any] | None = None,
    workers: int = 1,
    backend: str = "numpy",
) -> dict[str, Any]:
    """Evaluate a model file against each opponent over ``n_deals`` duplicate deals (in ``workers`` processes)."""
    results: dict[str, Any] = {}
    for opp in opponents:
        t0 = time.time()
        chunks = max(1, workers)
        size = math.ceil(n_deals / chunks)
        jobs = [
            (
                str(path),
                opp,
                min(size, n_deals - k * size),
                first_deal + k * size,
                preset,
                num_players,
                rules or {},
                backend,
            )
            for k in range(chunks)
            if n_deals - k * size > 0
        ]
        if workers > 1:
            with ProcessPoolExecutor(workers) as ex:
                records = [r for part in ex.map(_worker, jobs) for r in part]
        else:
            records = [r for job in jobs for r in _worker(job)]
        results[opp] = summarize(records)
        results[opp]["seconds"] = round(time.time() - t0, 1)
    return results


def format_table(results: dict[str, Any]) -> str:
    """A Markdown table of :func:`evaluate_file`'s results."""
    lines = [
        "| opponent | deals | margin (95% CI) | win rate (95% CI) | own score (95% CI) |",
        "|---|---|---|---|---|",
    ]
    for opp, r in results.items():
        cells = [
            f"{r[m]['mean']:+.2f} ± {r[m]['ci95']:.2f}"
            if m != "win_rate"
            else f"{r[m]['mean']:.3f} ± {r[m]['ci95']:.3f}"
            for m in METRICS
        ]
        lines.append(f"| {opp} | {r['deals']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


@dataclass
class Args:
    model: str = "agents/trained/basic-2p.npz"
    """model file: a .npz policy (shipped models) or a .zip written by experiments/train_ppo.py"""
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """registry names of the opponents (agents.make)"""
    deals: int = 2000
    """duplicate deals per opponent (each played from every seat)"""
    first_deal: int = 0
    """seed of the first deal"""
    preset: str = "basic"
    """rule preset the model plays"""
    num_players: int = 2
    """players at the table"""
    workers: int = 0
    """processes (0 = all cores)"""
    backend: str = "numpy"
    """numpy (NumpyPredictor, same actions, faster) or torch (MaskablePPO.predict)"""
    out: str | None = None
    """write the results as JSON here"""


def main() -> None:
    import tyro

    args = tyro.cli(Args, description=__doc__.splitlines()[0])
    try:
        load_player(args.model, args.backend)  # a clear error before any worker starts
    except ValueError as e:
        raise SystemExit(f"eval_ppo: {e}") from None
    workers = args.workers or os.cpu_count() or 1
    res = evaluate_file(
        args.model,
        args.opponents,
        args.deals,
        args.first_deal,
        args.preset,
        args.num_players,
        workers=workers,
        backend=args.backend,
    )
    print(format_table(res))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"model": args.model, "results": res}, indent=2))


if __name__ == "__main__":
    main()
