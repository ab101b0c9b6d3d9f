"""Duplicate PPO: a network improves against a fixed opponent on deals it plays alike.

Luck swamps skill in a round of rummy: who was dealt what and the order of the stock move
the score far more than any one move. A learned value baseline (``rummy-selfplay train``)
removes little of it, so PPO's advantages are mostly luck, and a network that starts near
an expert's level drifts (the model card). Here the baseline is the deal itself, as in a
duplicate tournament and in group-relative policy gradients (RLOO, GRPO):

* each update plays ``deals`` deals; each deal is played ``repeats`` times from each
  seat (``rummy_env.vector_env``'s ``reset(deals=...)`` deals the copies alike), the
  network in that seat, ``opponent`` (an agent of the registry, seeded alike in every
  copy) in the others;
* a game's score is the network's margin: its points minus the others' mean;
* every decision of a game is credited with the game's score less the mean score of the
  other copies of the same deal and seat. Copies in which the network sampled the same
  moves end alike and teach nothing; where they part, the moves that parted them take the
  difference. The deal's luck cancels exactly;
* PPO's clipped objective on those advantages (divided by their standard deviation, not
  centred), ``update_epochs`` passes.

A run starts from a network (``--init``, a ``neural:`` file of ``rummy-selfplay``) and
writes ``rummy-selfplay`` checkpoints (``rummy-selfplay export`` and ``evaluate`` read
them); it resumes from ``model.pt`` in its folder, seeded alike.

```bash
python -m experiments.duplicate_ppo --init experiments/selfplay/basic-2p-teacher/net.npz \\
    --opponent variant --total-deals 2000 --out runs/basic-dup
```
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import rummy_env
from agents.model_io import read_npz
from agents.neural import Compress
from experiments import selfplay_ppo as sp
from rummy_env.rules import parse_overrides


@dataclass
class Config:
    init: str = ""
    """the network to improve: a ``neural:`` model file of ``rummy-selfplay``"""
    opponent: str = "variant"
    """the agent (of the registry) in every seat the network does not hold"""
    deals: int = 32
    """deals an update"""
    repeats: int = 4
    """games of each deal from each seat (at least 2: a game's baseline is the others)"""
    total_deals: int = 10_000
    lr: float = 3e-5
    update_epochs: int = 4
    minibatch_size: int = 2048
    clip: float = 0.2
    ent_coef: float = 0.0
    max_grad_norm: float = 0.5
    reward_scale: float = 100.0
    seed: int = 0
    threads: int = 1
    checkpoint_every: int = 10
    """updates between checkpoints"""


#: the fields a resumed run must share with the run in its folder
RUN_FIELDS = ("init", "opponent", "deals", "repeats", "seed")


def network_config(cfg: Config) -> sp.Config:
    """The ``rummy-selfplay`` config of the network in ``cfg.init`` (its game and shape, from
    the file's ``meta`` and arrays), with this run's optimiser settings."""
    path = sp.model_path(cfg.init)
    z = read_npz(path)
    try:
        meta = json.loads(str(z["meta"]))
    except (KeyError, ValueError) as e:
        raise ValueError(f"--init {path}: not a rummy-selfplay network ({e})") from None
    if meta.get("kind") != "rummy-selfplay":
        raise ValueError(f"--init {path}: not a rummy-selfplay network (kind {meta.get('kind')!r})")
    fields = {k: meta[k] for k in sp.NETWORK_FIELDS if k in meta}
    fields["overrides"] = tuple(fields.get("overrides", ()))
    return sp.Config(
        **fields,
        hidden=int(np.asarray(z["w0"]).shape[0]),
        init=str(path),
        lr=cfg.lr,
        update_epochs=cfg.update_epochs,
        minibatch_size=cfg.minibatch_size,
        clip=cfg.clip,
        ent_coef=cfg.ent_coef,
        max_grad_norm=cfg.max_grad_norm,
        reward_scale=cfg.reward_scale,
        seed=cfg.seed,
        threads=cfg.threads,
        checkpoint_every=cfg.checkpoint_every,
    )


class Opponents:
    """``cfg.opponent`` in every seat of every game the network does not hold: one instance
    a game and seat, reset at each deal with a seed its copies share (so that copies the
    network plays alike stay alike)."""

    def __init__(self, name: str, rules: Any, games: int):
        sp.check_agents([name], rules)
        self.bots = sp.Bots(rules, [name], np.random.default_rng(0))
        self.P, self.games = rules.num_players, games

    def new_deals(self, seeds: np.ndarray, net_seat: np.ndarray) -> None:
        for i in range(self.games):
            for p in range(self.P):
                if p != net_seat[i]:
                    self.bots.reset(i, p, 0, seed=int(seeds[i]) * 1009 + p)

    def act(self, i: int, p: int, obs: np.ndarray, mask: np.ndarray) -> int:
        return self.bots.act(i, p, 0, obs, mask)


def play(venv, comp, net, opp: Opponents, seeds: np.ndarray, net_seat: np.ndarray):
    """Every game of the batch dealt from ``seeds`` to its end, the network (sampling its
    policy) in ``net_seat``. Returns the network's decisions (inputs, masks, moves, log
    probabilities, game of each) and each game's margin (the network's points less the
    others' mean)."""
    G, P = venv.num_envs, venv.num_players
    obs, mask, info = venv.reset(deals=seeds)
    opp.new_deals(seeds, net_seat)
    active = np.ones(G, bool)
    margin = np.zeros(G)
    xs, ms, acts, lps, game = [], [], [], [], []
    while active.any():
        actor = info["actor"]
        mine = np.flatnonzero(active & (actor == net_seat))
        a = np.zeros(G, np.int64)
        if len(mine):
            x = comp(obs[mine])
            m = mask[mine].astype(bool)
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(x), torch.from_numpy(m))
                logp = torch.log_softmax(logits, -1)
                chosen = sp._sample(logp)
                lp = logp.gather(1, chosen[:, None]).squeeze(1)
            a[mine] = chosen.numpy()
            xs.append(x)
            ms.append(m)
            acts.append(a[mine])  # (a fancy index: a copy)
            lps.append(lp.numpy())
            game.append(mine)
        for i in np.flatnonzero(active & (actor != net_seat)).tolist():
            a[i] = opp.act(i, int(actor[i]), obs[i], mask[i])
        ids = np.flatnonzero(active)
        obs, mask, r, term, info = venv.step(a[ids], ids=ids)
        own = r[ids, net_seat[ids]]
        margin[ids] += own - (r[ids].sum(1) - own) / (P - 1)
        active[ids[term[ids]]] = False
    return (
        np.concatenate(xs),
        np.concatenate(ms),
        np.concatenate(acts),
        np.concatenate(lps),
        np.concatenate(game),
        margin,
    )


def group_advantages(margin: np.ndarray, repeats: int) -> np.ndarray:
    """Each game's margin less the mean of the other games of its group (consecutive runs
    of ``repeats`` games: one deal, one seat)."""
    g = margin.reshape(-1, repeats)
    others = (g.sum(1, keepdims=True) - g) / (repeats - 1)
    return (g - others).reshape(-1)


def update(cfg: Config, net, opt, x, m, a, old_lp, adv) -> dict[str, float]:
    """PPO's clipped objective on one batch; the advantages are scaled, not centred (a game
    that ended like its copies stays at 0)."""
    n = len(a)
    x, m, a = torch.from_numpy(x), torch.from_numpy(m), torch.from_numpy(a)
    old_lp = torch.from_numpy(old_lp)
    A = torch.from_numpy((adv / (adv.std() + 1e-8)).astype(np.float32))
    stats = {"pg": 0.0, "ent": 0.0, "kl": 0.0, "clipped": 0.0}
    k = 0
    for _ in range(cfg.update_epochs):
        perm = torch.randperm(n)
        for s in range(0, n, cfg.minibatch_size):
            idx = perm[s : s + cfg.minibatch_size]
            logits, _ = net(x[idx], m[idx])
            _, lp, ratio, ent = sp.policy_terms(logits, a[idx], old_lp[idx])
            pg = sp.clipped_surrogate(A[idx], ratio, cfg.clip)
            loss = pg - cfg.ent_coef * ent
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["pg"] += pg.item()
                stats["ent"] += ent.item()
                stats["kl"] += sp.approx_kl(ratio, lp, old_lp[idx])
                stats["clipped"] += ((ratio - 1).abs() > cfg.clip).float().mean().item()
            k += 1
    return {key: v / max(k, 1) for key, v in stats.items()}


def train(
    cfg: Config, out: Path, max_seconds: float | None = None, progress: float = 0.0
) -> dict[str, Any]:
    """Train (or resume) the run in ``out`` to ``cfg.total_deals`` deals, or until
    ``max_seconds`` have passed (checked after each update; a checkpoint is written then)."""
    if cfg.repeats < 2:
        raise ValueError(f"repeats={cfg.repeats} is not allowed (allowed: 2 or more)")
    if cfg.deals < 1 or cfg.total_deals < 1:
        raise ValueError("deals and total_deals must be at least 1")
    if not cfg.init:
        raise ValueError("--init is required: the network to improve (a neural: model file)")
    torch.set_num_threads(cfg.threads)
    out.mkdir(parents=True, exist_ok=True)
    saved_cfg = out / "duplicate.json"
    if saved_cfg.exists():
        before = json.loads(saved_cfg.read_text())
        diff = [f"{k}={before[k]!r}" for k in RUN_FIELDS if before.get(k) != getattr(cfg, k)]
        if diff:
            raise ValueError(f"{out} holds a run with other settings: {', '.join(diff)}")
    ncfg = network_config(cfg)
    P = ncfg.num_players
    G = cfg.deals * P * cfg.repeats
    venv = rummy_env.vector_env(ncfg.preset, G, P, **parse_overrides(ncfg.overrides))
    comp = Compress(venv.rules, ncfg.pile_rows, ncfg.features)
    net = sp._net(ncfg, venv.rules, comp, venv.num_actions)
    opp = Opponents(cfg.opponent, venv.rules, G)
    # the run's settings, once the network and the opponent are known to load
    saved_cfg.write_text(json.dumps(dataclasses.asdict(cfg), indent=1))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5, foreach=True)
    counters = {"steps": 0, "updates": 0, "games": 0, "deals": 0}
    resume = out / "model.pt"
    if resume.exists():
        ck = sp._load(resume)
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        for group in opt.param_groups:
            group["lr"] = cfg.lr
        counters = json.loads(ck["counters"])
    else:
        sp._init_from(net, ncfg, Path(ncfg.init))
        (out / "checkpoints").mkdir(exist_ok=True)
        sp._save(out / "checkpoints" / "step_0000000000.pt", net, opt, ncfg, counters)
    # game index = (deal * P + seat) * repeats + copy
    net_seat = np.repeat(np.tile(np.arange(P), cfg.deals), cfg.repeats)
    fh, w = sp.progress_log(
        out / "progress.csv",
        ["deals", "steps", "updates", "sps", "margin", "parted", "pg", "ent", "kl", "clipped"],
        counters["updates"],
    )
    t0, shown = time.perf_counter(), 0.0
    steps0, deals0 = counters["steps"], counters["deals"]
    while counters["deals"] < cfg.total_deals:
        torch.manual_seed(cfg.seed * 1_000_003 + counters["updates"])
        rng = np.random.default_rng([cfg.seed, counters["updates"]])
        deal_seeds = rng.integers(0, 2**31 - 1_000, cfg.deals)
        seeds = np.repeat(deal_seeds, P * cfg.repeats)
        x, m, a, lp, game, margin = play(venv, comp, net, opp, seeds, net_seat)
        margin = margin / cfg.reward_scale
        adv_game = group_advantages(margin, cfg.repeats)
        stats = update(cfg, net, opt, x, m, a, lp, adv_game[game])
        counters["steps"] += len(a)
        counters["updates"] += 1
        counters["games"] += G
        counters["deals"] += cfg.deals
        el = time.perf_counter() - t0
        sps = (counters["steps"] - steps0) / el
        parted = float(np.mean(np.ptp(margin.reshape(-1, cfg.repeats), 1) > 0))
        w.writerow(
            [
                counters["deals"],
                counters["steps"],
                counters["updates"],
                round(sps),
                round(float(margin.mean()) * cfg.reward_scale, 3),
                round(parted, 3),
                *(round(stats[k], 5) for k in ("pg", "ent", "kl", "clipped")),
            ]
        )
        fh.flush()
        if progress and el - shown >= progress:
            shown = el
            left = (cfg.total_deals - counters["deals"]) * el / (counters["deals"] - deals0)
            print(
                f"{counters['deals']:,}/{cfg.total_deals:,} deals, {sps:,.0f} decisions a "
                f"second, margin {margin.mean() * cfg.reward_scale:+.2f} a game, "
                f"ETA {time.strftime('%H:%M:%S', time.gmtime(left))}",
                file=sys.stderr,
                flush=True,
            )
        out_of_time = max_seconds is not None and el >= max_seconds
        if (
            counters["updates"] % cfg.checkpoint_every == 0
            or counters["deals"] >= cfg.total_deals
            or out_of_time
        ):
            sp._save(resume, net, opt, ncfg, counters)
            sp._save(
                out / "checkpoints" / f"step_{counters['steps']:010d}.pt", net, opt, ncfg, counters
            )
        if out_of_time:
            break
    fh.close()
    return counters


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.duplicate_ppo",
        description="Improve a rummy-selfplay network against a fixed opponent by PPO on "
        "deals played alike (each game's baseline: the other copies of its deal and seat).",
    )
    for f in dataclasses.fields(Config):
        ap.add_argument(
            "--" + f.name.replace("_", "-"),
            type=type(f.default),
            default=f.default,
            help=FIELD_HELP[f.name],
        )
    ap.add_argument("--out", required=True, help="the run folder (resumed when it holds model.pt)")
    ap.add_argument("--max-seconds", type=float, default=None, help="stop (and save) after this")
    ap.add_argument("--progress", type=float, default=60.0, help="seconds between progress lines")
    args = ap.parse_args(argv)
    cfg = Config(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Config)})
    try:
        counters = train(cfg, Path(args.out), args.max_seconds, args.progress)
    except ValueError as e:
        ap.exit(2, f"error: {e}\n")
    print(json.dumps(counters))


FIELD_HELP = {
    "init": "the network to improve (a neural: model file of rummy-selfplay)",
    "opponent": "the agent in every seat the network does not hold",
    "deals": "deals an update",
    "repeats": "games of each deal from each seat (2 or more)",
    "total_deals": "deals to train for",
    "update_epochs": "passes over an update's decisions",
    "reward_scale": "game points are divided by this",
    "seed": "seeds the deals and the sampling",
    **{
        k: sp.FIELD_HELP[k]
        for k in ("lr", "minibatch_size", "clip", "ent_coef", "max_grad_norm", "threads")
    },
    "checkpoint_every": sp.FIELD_HELP["checkpoint_every"],
}


if __name__ == "__main__":
    main()
