"""Self-play PPO on the batched env: one network learns every seat of many games at once.

```bash
rummy-selfplay train --preset gin --total-steps 2000000 --out runs/selfplay-gin   # resumes if the run exists
rummy-selfplay eval --run runs/selfplay-gin --opponents random,greedy --deals 200 --first-deal 900000
```

**What it trains.** One network plays every seat of ``num_envs`` games of
:func:`rummy_env.vector_env` (self-play): each step, one batched forward pass over every
game's observation gives the masked logits (illegal moves get no probability) and the
value of the seat to act; a move is sampled per game and the batch is stepped. From a
randomly initialised network: no imitation, no expert move as an input, no search.

**Whose reward.** A seat's decisions form its own trajectory: the reward of a decision
is what that seat received until its next decision (a round's points reach every seat
at the round's last step, whoever made it), and a game's end closes every seat's
trajectory. Advantages are GAE(lambda) along each seat's trajectory; a trajectory cut by
the end of a rollout is bootstrapped with the value of what that seat sees then
(``VectorEnv.observe``). Rewards are the game's points divided by ``reward_scale``.

**The network.** The observation (:mod:`rummy_env.observation`) is mostly the discard
pile, one one-hot row per position; the network reads its top ``pile_rows`` rows and
the pile's per-face counts instead of all of it (as :class:`agents.ppo_net.RummyFeatures`
does), count fields divided by fixed scales; then an MLP (``hidden`` units, two layers)
with a policy head and a value head.

**Runs resume.** Every ``checkpoint_every`` updates the run folder gets ``model.pt``
(the network's and the optimizer's tensors, the config and the counters; loaded with
``torch.load(weights_only=True)``, which runs no code) and a numbered copy under
``checkpoints/``; ``train`` with an existing ``--out`` continues from ``model.pt``.
``progress.csv`` logs steps, speed and the losses.

**Evaluation** (``eval``): each checkpoint of a run plays ``--deals`` duplicate deals
(each deal from every seat) against each opponent (registry names of :mod:`agents`),
the network playing its most probable legal move; the mean score margin a deal with
its 95% interval and the win rate, into ``eval.csv`` and a PNG of the curves.
Use deals that played no part in training or selection (``--first-deal``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import agents
import rummy_env
from agents.base import KNOCK
from agents.model_io import read_npz
from agents.neural import (
    CONTEXT,
    CONTEXT_BLOCKS,
    Compress,
    action_kinds,
    face_actions,
    model_path,
)
from rummy_env.observation import ObsLayout
from rummy_env.rules import parse_overrides
from rummy_env.variants.canasta import sides_of
from rummy_env.vector_env import VectorEnv


@dataclass
class Config:
    preset: str = "gin"
    """the game (a preset of rummy_env.PRESETS)"""
    num_players: int = 2
    overrides: tuple[str, ...] = ()
    """rule overrides FIELD=VALUE"""
    num_envs: int = 128
    """games stepped together"""
    num_steps: int = 64
    """batch steps per rollout (decisions per update: num_envs * num_steps)"""
    total_steps: int = 2_000_000
    """decisions to train for, counted at the env"""
    lr: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    update_epochs: int = 2
    minibatch_size: int = 4096
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    pile_rows: int = 3
    """top rows of the discard pile the network reads one by one (the rest as counts)"""
    features: str = ""
    """"melds": add agents.meld_features (deadwood after each discard, ...) to the input;
    "melds+table": also the faces that fit the table's melds"""
    face_head: bool = False
    """score each discard and knock also by one small network shared by every
    face, from that face's features (needs features="melds" or "melds+table")"""
    kind_head: bool = False
    """add to each action's logit one learned from the state for its kind (draw, meld,
    lay-off, discard, ...), shared by every action of that kind"""
    face_context: bool = False
    """the face head also reads each face's neighbours (same rank, same suit one and two
    ranks away) in the hand, among the opponent's known cards and in the pile"""
    opponents: str = ""
    """comma-separated players of one seat in a share of the games: agents of the registry
    (``variant``, ``greedy``, ...) or ``past`` (an earlier checkpoint of this run)"""
    opponent_share: float = 0.0
    """the share of games in which one seat is played by one of ``opponents``"""
    knock_explore: float = 0.0
    """lower every knock's logit by this much (the policy layer's bias) when the run takes
    this value up: at a new run's start, or on resuming a run trained with another value
    (by the difference). A network that always knocks never learns what holding a knock
    is worth; this makes it try again"""
    reward_scale: float = 100.0
    seed: int = 0
    threads: int = 1
    """torch threads"""
    checkpoint_every: int = 20
    """updates between checkpoints"""
    init: str = ""
    """a new run starts from this network (a ``neural:`` model's name or file, ``export``'s
    output) of the same game and shape, instead of random weights; its value head starts
    fresh"""
    value_warmup: int = 0
    """updates at a run's start that train the value head alone (the policy and the layers
    it shares stay as they are): a run started from ``init`` learns its values first"""
    teacher: str = ""
    """an agent of the registry whose moves the network imitates in the run's first
    ``teacher_updates`` updates (DAgger: the network plays, the teacher names its move at
    each of the network's decisions); a warm start, after which the run is PPO"""
    teacher_updates: int = 0
    """updates at a run's start that learn the teacher's moves (cross-entropy) instead of
    PPO's objective; the value head learns the returns as in PPO"""


#: the fields that make a network's game and input: a network file records them (its
#: ``meta``), and a run resumed or started from a file must have the same
NETWORK_FIELDS = (
    "preset",
    "num_players",
    "overrides",
    "pile_rows",
    "features",
    "face_head",
    "face_context",
    "kind_head",
)
_DEFAULT = Config()


#: the help of each Config field on the command line
FIELD_HELP = {
    "preset": "the game (a preset of rummy_env.PRESETS)",
    "num_players": "players a game",
    "num_envs": "games stepped together",
    "num_steps": "batch steps a rollout (decisions an update: num-envs x num-steps)",
    "total_steps": "decisions to train for, counted at the env",
    "lr": "Adam's learning rate",
    "gamma": "discount along a seat's own decisions",
    "gae_lambda": "GAE's lambda",
    "update_epochs": "passes over a rollout an update",
    "minibatch_size": "decisions a gradient step",
    "clip": "PPO's clip range of the probability ratio",
    "ent_coef": "weight of the policy's entropy in the loss",
    "vf_coef": "weight of the value loss",
    "max_grad_norm": "gradients clipped to this norm",
    "hidden": "units of each of the two hidden layers",
    "pile_rows": "top rows of the discard pile the network reads one by one (the rest as counts)",
    "features": "'melds': add the hand's meld features (agents.meld_features) to the input; "
    "'melds+table': also the faces that fit the table's melds",
    "face_head": "also score each discard and knock by a head shared by every face, "
    "from that face's features (needs --features melds)",
    "kind_head": "add to each action's logit one shared by every action of its kind "
    "(draw, meld, lay-off, discard, ...)",
    "face_context": "the face head also reads each face's neighbours (same rank, same suit one "
    "and two ranks away) in hand, known to the opponent and in the pile",
    "opponents": "comma-separated players of one seat (with partnerships, one side) in a share "
    "of the games (--opponent-share): "
    "agent names (variant, greedy, ...) or 'past' (an earlier checkpoint of this run); their "
    "decisions are not learned from",
    "opponent_share": "the share of games (drawn at each game's start) in which one random seat "
    "(with partnerships, one side) is played by one of --opponents",
    "knock_explore": "lower every knock's logit by this much when the run takes this value up "
    "(a new run, or resuming one trained with another value), so that holding a knock is tried",
    "reward_scale": "game points are divided by this to make the reward",
    "seed": "seeds the deals and the network",
    "threads": "torch threads",
    "checkpoint_every": "updates between checkpoints",
    "init": "start a new run from this network (a neural: .npz of the same game and shape; "
    "its value head starts fresh)",
    "value_warmup": "updates at a run's start that train the value head alone (for --init)",
    "teacher": "an agent name whose moves the network imitates in the first --teacher-updates "
    "updates (DAgger: the network plays, the teacher labels its decisions)",
    "teacher_updates": "updates at a run's start that learn the teacher's moves instead of PPO's "
    "objective (a warm start; a checkpoint is written at its end)",
}


# ------------------------------------------------------------------ network
#: units of the face head's hidden layer and of its summary of the state
FACE_HIDDEN, FACE_STATE = 32, 16


class Net(nn.Module):
    """An MLP with a policy and a value head. With ``faces`` (the input offsets of the
    per-face blocks and :func:`agents.neural.face_actions`), a face head adds to the logit
    of each discard and knock ``w2 . relu(W1 [phi_f, kind, relu(Wz h)] + b1)``:
    one small network for every face, reading that face's features ``phi_f`` (its count
    in hand, known to the opponent, on top of the pile, in the pile, the deadwood without
    it, in a meld), so that what it learns of one card serves every card."""

    def __init__(
        self,
        n_in: int,
        n_actions: int,
        hidden: int,
        faces: tuple | None = None,
        kinds: np.ndarray | None = None,
    ):
        super().__init__()
        self.kinds = kinds is not None
        if kinds is not None:
            self.register_buffer("k_idx", torch.as_tensor(kinds), persistent=False)
            self.kh = nn.Linear(hidden, int(kinds.max()) + 1)
            nn.init.zeros_(self.kh.weight)
            nn.init.zeros_(self.kh.bias)
        self.body = nn.Sequential(
            nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pi.weight, 0.01)
        nn.init.zeros_(self.pi.bias)
        nn.init.orthogonal_(self.v.weight, 1.0)
        self.faces = faces is not None
        if faces is not None:
            offsets, ids, face, kind, context = faces
            k, nk = len(offsets), int(kind.max()) + 1
            self.context = context
            if context:
                self.register_buffer("f_ctx", torch.as_tensor(CONTEXT), persistent=False)
                self.register_buffer("f_face", torch.as_tensor(face), persistent=False)
                self.ctx_offsets = [offsets[j] for j in CONTEXT_BLOCKS]
                k += len(CONTEXT_BLOCKS) * len(CONTEXT)
            self.register_buffer("f_ids", torch.as_tensor(ids), persistent=False)
            cols = torch.as_tensor(np.asarray(offsets)[None, :] + face[:, None])
            self.register_buffer("f_cols", cols, persistent=False)
            self.register_buffer(
                "f_kind", nn.functional.one_hot(torch.as_tensor(kind), nk).float(), persistent=False
            )
            self.fz = nn.Linear(hidden, FACE_STATE)
            self.f1 = nn.Linear(k + nk + FACE_STATE, FACE_HIDDEN)
            self.f2 = nn.Linear(FACE_HIDDEN, 1)
            nn.init.orthogonal_(self.f2.weight, 0.01)
            nn.init.zeros_(self.f2.bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        logits = self.pi(h)
        if self.kinds:
            logits = logits + self.kh(h)[:, self.k_idx]
        if self.faces:
            phi = x[:, self.f_cols]  # (B, n, k)
            if self.context:
                F = self.f_ctx.shape[1]
                blocks = torch.stack([x[:, o : o + F] for o in self.ctx_offsets], 1)
                ctx = torch.einsum("bjg,mfg->bfjm", blocks, self.f_ctx).reshape(len(x), F, -1)
                phi = torch.cat([phi, ctx[:, self.f_face]], -1)
            k = phi.shape[2]
            w = self.f1.weight  # columns: phi, kind, state summary
            nk = self.f_kind.shape[1]
            z = torch.relu(self.fz(h)) @ w[:, k + nk :].T  # (B, FACE_HIDDEN)
            kind = self.f_kind @ w[:, k : k + nk].T + self.f1.bias  # (n, FACE_HIDDEN)
            u = torch.relu(phi @ w[:, :k].T + kind[None] + z[:, None])
            logits = logits.index_add(1, self.f_ids, self.f2(u).squeeze(-1))
        return logits.masked_fill(~mask, -1e9), self.v(h).squeeze(-1)


def _build(cfg: Config) -> tuple[VectorEnv, Compress, Net]:
    venv = rummy_env.vector_env(
        cfg.preset, cfg.num_envs, cfg.num_players, seed=cfg.seed, **parse_overrides(cfg.overrides)
    )
    comp = Compress(venv.rules, cfg.pile_rows, cfg.features)
    return venv, comp, _net(cfg, venv.rules, comp, venv.num_actions)


def _net(cfg: Config, rules: Any, comp: Compress, n_actions: int) -> Net:
    faces = None
    if cfg.face_head:
        if not comp.face_offsets:
            raise ValueError(
                "face_head needs features='melds' or 'melds+table' and a game with a discard pile"
            )
        faces = (comp.face_offsets, *face_actions(rules), cfg.face_context)
    elif cfg.face_context:
        raise ValueError("face_context needs face_head")
    kinds = action_kinds(rules) if cfg.kind_head else None
    return Net(comp.size, n_actions, cfg.hidden, faces, kinds)


def _sample(logits: torch.Tensor) -> torch.Tensor:
    """One action a row of masked logits, drawn from their softmax (Gumbel-max)."""
    gumbel = -torch.log(-torch.log(torch.rand_like(logits).clamp_(1e-20, 1.0)))
    return (logits + gumbel).argmax(1)


# ------------------------------------------------------------------- league
#: entries an opponent's memo may keep from one game to its next (more: emptied)
BOT_MEMO = 2_000


def check_agents(names: list[str], rules: Any) -> None:
    """Make each agent once, so that an unknown name fails before a run, not mid-run."""
    for n in names:
        agents.make(n, rules, 0)


class Bots:
    """Agents of the registry for a batch of games: one instance a game, seat and name,
    made at its first game and reset at each game's start; an expert's memos (deadwood of
    hands, ...) grow to hundreds of MB over many games, so a memo beyond :data:`BOT_MEMO`
    entries is emptied then."""

    def __init__(self, rules: Any, names: list[str], rng: np.random.Generator):
        self.rules, self.names, self.rng = rules, names, rng
        self.bots: dict[tuple[int, int, int], Any] = {}  # (game, seat, name) -> agent

    def reset(self, i: int, p: int, k: int, seed: int | None = None) -> None:
        """Start game ``i``'s seat ``p`` as agent ``k``, seeded by ``seed`` (None: drawn from
        the pool's generator)."""
        bot = self.bots.get((i, p, k))
        if bot is None:
            bot = self.bots[(i, p, k)] = agents.make(self.names[k], self.rules, p)
        bot.reset(seed=int(self.rng.integers(2**31)) if seed is None else seed)
        for name, memo in vars(bot).items():
            if name.endswith("cache") and isinstance(memo, dict) and len(memo) > BOT_MEMO:
                memo.clear()

    def act(self, i: int, p: int, k: int, obs: np.ndarray, mask: np.ndarray) -> int:
        return self.bots[(i, p, k)].act(obs, mask)


class Teacher:
    """The teacher of ``cfg.teacher_updates`` (DAgger): at each of the network's decisions,
    the move the agent ``cfg.teacher`` would play there. One instance a game and seat, reset
    at each game's start, sees every decision of its seat the network plays."""

    def __init__(self, cfg: Config, venv: VectorEnv, seed: int):
        check_agents([cfg.teacher], venv.rules)
        self.bots = Bots(venv.rules, [cfg.teacher], np.random.default_rng(seed))
        self.P = venv.num_players
        self.new_games(np.ones(venv.num_envs, bool))

    def new_games(self, started: np.ndarray) -> None:
        for i in np.flatnonzero(started).tolist():
            for p in range(self.P):
                self.bots.reset(i, p, 0)

    def moves(self, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray, actor: np.ndarray):
        """The teacher's move in each game of ``rows`` (the others: -1)."""
        out = np.full(len(obs), -1, np.int64)
        for i in np.flatnonzero(rows).tolist():
            out[i] = self.bots.act(i, int(actor[i]), 0, obs[i], mask[i])
        return out


class League:
    """The players besides the learning network. In a share ``cfg.opponent_share`` of the
    games (drawn anew at each game's start) the seats of one random side (one seat; with
    partnerships, both partners: :func:`rummy_env.variants.canasta.sides_of`) are played
    by one of ``cfg.opponents``: an agent of the registry (one instance a game and seat,
    reset at each game's start) or ``past``, a checkpoint drawn from the later half of the
    run's checkpoints (:meth:`refresh`), sampling its policy. Their decisions are not learned
    from; :meth:`margins` gives the learner's points against each of them."""

    def __init__(self, cfg: Config, venv: VectorEnv, comp: Compress, out: Path, seed: int):
        self.names = [n.strip() for n in cfg.opponents.split(",") if n.strip()]
        if not self.names:
            raise ValueError("opponent_share > 0 needs --opponents (agent names or 'past')")
        if not 0.0 < cfg.opponent_share <= 1.0:
            raise ValueError(
                f"opponent_share={cfg.opponent_share} is not allowed (allowed: 0 < share <= 1)"
            )
        check_agents([n for n in self.names if n != "past"], venv.rules)
        self.is_past = np.array([n == "past" for n in self.names])
        self.cfg, self.rules, self.comp, self.out = cfg, venv.rules, comp, out
        self.rng = np.random.default_rng(seed)
        n, self.P, self.num_actions = venv.num_envs, venv.num_players, venv.num_actions
        self.side_of = np.array(sides_of(venv.rules))  # each seat's side (partners share one)
        self.held = int(np.sum(self.side_of == 0))  # seats a side holds
        self.seat = np.full(n, -1)  # a seat of the opponent's side (-1: no opponent)
        self.who = np.zeros(n, np.int64)
        self.bots = Bots(venv.rules, self.names, self.rng)
        self.past: Net | None = None
        self.past_name = ""
        self.points = np.zeros((len(self.names), 2))  # per opponent: learner's margin, games
        self.new_games(np.ones(n, bool))

    def refresh(self, net: Net) -> None:
        """Draw the ``past`` player anew from the later half of the run's checkpoints (the
        network itself while there are none)."""
        if "past" not in self.names:
            return
        if self.past is None:
            self.past = _net(self.cfg, self.rules, self.comp, self.num_actions)
            self.past.eval()
        cks = sorted((self.out / "checkpoints").glob("step_*.pt"))
        if cks:
            ck = cks[len(cks) // 2 :][int(self.rng.integers(len(cks) - len(cks) // 2))]
            self.past.load_state_dict(_load(ck)["model"])
            self.past_name = ck.stem
        else:
            self.past.load_state_dict(net.state_dict())
            self.past_name = "itself"

    def new_games(self, started: np.ndarray) -> None:
        for i in np.flatnonzero(started):
            if self.rng.random() >= self.cfg.opponent_share:
                self.seat[i] = -1
                continue
            q, k = int(self.rng.integers(self.P)), int(self.rng.integers(len(self.names)))
            self.seat[i], self.who[i] = q, k
            if self.names[k] == "past":
                continue
            for p in np.flatnonzero(self.side_of == self.side_of[q]).tolist():
                self.bots.reset(i, p, k)

    def act(
        self, a: np.ndarray, obs: np.ndarray, x: np.ndarray, mask: np.ndarray, actor: np.ndarray
    ) -> np.ndarray:
        """Replace in ``a`` the moves of the games whose opponent is to act; returns which
        decisions are the learner's."""
        theirs = (self.seat >= 0) & (self.side_of[actor] == self.side_of[self.seat])
        rows = np.flatnonzero(theirs)
        past = self.is_past[self.who[rows]]
        if past.any():
            r = rows[past]
            with torch.no_grad():
                lg, _ = self.past(torch.from_numpy(x[r]), torch.from_numpy(mask[r]))
            a[r] = _sample(lg).numpy()
        for i in rows[~past]:
            a[i] = self.bots.act(i, int(actor[i]), int(self.who[i]), obs[i], mask[i])
        return ~theirs

    def record(self, rewards: np.ndarray, ended: np.ndarray) -> None:
        """Add a step's points to the learner's margin against each opponent."""
        rows = np.flatnonzero(self.seat >= 0)
        r = rewards[rows]
        theirs = r[np.arange(len(rows)), self.seat[rows]]  # (partners score alike)
        mine = (r.sum(1) - self.held * theirs) / (self.P - self.held)  # the learner's seats
        np.add.at(self.points[:, 0], self.who[rows], mine - theirs)
        np.add.at(self.points[:, 1], self.who[rows], ended[rows])

    def margins(self) -> str:
        """The learner's mean margin a game against each opponent since the last call."""
        out = ", ".join(
            f"vs {n} {s / g:+.1f} ({int(g)} games)"
            for n, (s, g) in zip(self.names, self.points)
            if g
        )
        self.points[:] = 0
        return out


# ---------------------------------------------------------------- advantages
def seat_advantages(
    values: np.ndarray,
    actors: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE along each seat's own decisions.

    ``values`` and ``actors``: ``(T, N)``, the value and the seat of each step's decision;
    ``rewards``: ``(T, N, P)``, what each seat received at that step; ``terminated``:
    ``(T, N)``, the game ended at that step (later steps are a new game); ``bootstrap``:
    ``(N, P)``, the value of what each seat sees after the last step. Returns ``(T, N)``.
    """
    T, N = values.shape
    rows = np.arange(N)
    next_v = bootstrap.astype(np.float64).copy()
    next_adv = np.zeros_like(next_v)
    acc = np.zeros_like(next_v)  # rewards since the decision, until the seat's next one
    adv = np.zeros((T, N))
    for t in range(T - 1, -1, -1):
        ended = terminated[t]
        next_v[ended] = 0.0
        next_adv[ended] = 0.0
        acc[ended] = 0.0
        acc += rewards[t]
        q = actors[t]
        delta = acc[rows, q] + gamma * next_v[rows, q] - values[t]
        a = delta + gamma * lam * next_adv[rows, q]
        adv[t] = a
        next_v[rows, q] = values[t]
        next_adv[rows, q] = a
        acc[rows, q] = 0.0
    return adv


# -------------------------------------------------------------------- train
def _save(path: Path, net: Net, opt: torch.optim.Optimizer, cfg: Config, counters: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(
        {
            "model": net.state_dict(),
            "optimizer": opt.state_dict(),
            "config": json.dumps(dataclasses.asdict(cfg)),
            "counters": json.dumps(counters),
        },
        tmp,
    )
    tmp.replace(path)


def progress_log(path: Path, header: list[str], updates: int):
    """``(file, csv writer)`` appending to a run's progress log, one row an update. A run
    resumed from its checkpoint at ``updates`` drops the rows logged after it (a run
    stopped between checkpoints plays those updates again), so each update has one row."""
    rows = []
    if path.exists():
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
    if not rows or rows[0] == header:  # (another header: the log is left as it is)
        col = header.index("updates")
        # (a row cut short by a kill is dropped too)
        rows = [header] + [
            r
            for r in rows[1:]
            if len(r) == len(header) and r[col].isdigit() and int(r[col]) <= updates
        ]
        with path.open("w", newline="") as fh:
            csv.writer(fh).writerows(rows)
    fh = path.open("a", newline="")
    return fh, csv.writer(fh)


def _load(path: Path) -> dict[str, Any]:
    try:
        ck = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as e:  # a file that is not a checkpoint of this trainer
        raise ValueError(f"{path}: not a checkpoint of rummy-selfplay ({e})") from None
    if not isinstance(ck, dict) or set(ck) != {"model", "optimizer", "config", "counters"}:
        raise ValueError(f"{path}: not a checkpoint of rummy-selfplay (unexpected entries)")
    return ck


def train(
    cfg: Config,
    out: Path,
    log_every: int = 1,
    max_seconds: float | None = None,
    progress: float = 0.0,
) -> dict[str, Any]:
    """Train (or resume) the run in ``out`` to ``cfg.total_steps``, or until ``max_seconds``
    have passed (checked after each update; a checkpoint is written then). Every
    ``progress`` seconds (0: never) a line on stderr gives the decisions done, the speed
    and the time left."""
    torch.set_num_threads(cfg.threads)
    out.mkdir(parents=True, exist_ok=True)
    counters = {"steps": 0, "updates": 0, "games": 0}
    resume = out / "model.pt"
    ck = None
    if resume.exists():
        ck = _load(resume)
        saved = Config(
            **{k: tuple(v) if k == "overrides" else v for k, v in json.loads(ck["config"]).items()}
        )
        if any(getattr(saved, k) != getattr(cfg, k) for k in (*NETWORK_FIELDS, "hidden")):
            raise ValueError(f"{resume} was trained with another game or network: {saved}")
        counters = json.loads(ck["counters"])
    torch.manual_seed(cfg.seed + counters["updates"])
    venv, comp, net = _build(cfg)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5, foreach=True)
    if ck is None and cfg.init:
        _init_from(net, cfg, model_path(cfg.init))
    if ck is not None:
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])  # (this brings back the saved learning rate)
        for group in opt.param_groups:
            group["lr"] = cfg.lr  # the run goes on at the one asked for
    shift = cfg.knock_explore - (saved.knock_explore if ck is not None else 0.0)
    if shift:
        knocks = np.flatnonzero(action_kinds(venv.rules) == KNOCK)
        if not len(knocks):
            raise ValueError(f"knock_explore: {cfg.preset!r} has no knock actions")
        with torch.no_grad():
            net.pi.bias[torch.from_numpy(knocks)] -= shift
    T, N, P = cfg.num_steps, cfg.num_envs, venv.num_players
    na = venv.num_actions
    obs, mask, info = venv.reset(seed=cfg.seed * 1_000_003 + counters["updates"])
    actor = info["actor"]
    league = None
    if cfg.opponent_share > 0:
        league = League(cfg, venv, comp, out, cfg.seed * 1_000_003 + counters["updates"])
        league.refresh(net)
    teacher = None
    if counters["updates"] < cfg.teacher_updates:
        teacher = Teacher(cfg, venv, cfg.seed * 1_000_003 + counters["updates"] + 1)
    b_own = np.ones((T, N), bool)
    b_ta = np.full((T, N), -1, np.int64)  # the teacher's moves (while it teaches)
    b_x = np.zeros((T, N, comp.size), np.float32)
    b_m = np.zeros((T, N, na), bool)
    b_a = np.zeros((T, N), np.int64)
    b_lp = np.zeros((T, N), np.float32)
    b_v = np.zeros((T, N), np.float32)
    b_q = np.zeros((T, N), np.int64)
    b_r = np.zeros((T, N, P), np.float32)
    b_t = np.zeros((T, N), bool)
    fh, w = progress_log(
        out / "progress.csv",
        ["steps", "updates", "games", "sps", "env_sps"]
        + ["pg_loss", "v_loss", "entropy", "kl", "score_std"],
        counters["updates"],
    )
    t_start, steps0 = time.perf_counter(), counters["steps"]
    shown = 0.0
    while counters["steps"] < cfg.total_steps:
        t_env = 0.0
        with torch.no_grad():
            for t in range(T):
                x = comp(obs)
                m = mask.astype(bool)
                logits, v = net(torch.from_numpy(x), torch.from_numpy(m))
                logp = torch.log_softmax(logits, -1)
                a = _sample(logp).numpy()  # a sample of the masked policy
                if league is not None:
                    b_own[t] = league.act(a, obs, x, m, actor)
                if teacher is not None:
                    b_ta[t] = teacher.moves(b_own[t], obs, m, actor)
                lp = logp.gather(1, torch.from_numpy(a)[:, None]).squeeze(1)
                b_x[t], b_m[t], b_a[t], b_lp[t], b_v[t], b_q[t] = (
                    x,
                    m,
                    a,
                    lp.numpy(),
                    v.numpy(),
                    actor,
                )
                e0 = time.perf_counter()
                obs, mask, r, term, info = venv.step(a)
                t_env += time.perf_counter() - e0
                actor = info["actor"]
                b_r[t], b_t[t] = r / cfg.reward_scale, term
                if league is not None:
                    league.record(r, term)
                    league.new_games(term)
                if teacher is not None:
                    teacher.new_games(term)
                counters["games"] += int(term.sum())
            # the value of what every seat sees now (the seat to act: this batch's obs)
            seen = np.stack([venv.observe(i, q) for i in range(N) for q in range(P)])
            boot = net(torch.from_numpy(comp(seen)), torch.ones(N * P, na, dtype=torch.bool))[1]
            boot = boot.numpy().reshape(N, P)
        adv = seat_advantages(b_v, b_q, b_r, b_t, boot, cfg.gamma, cfg.gae_lambda)
        ret = adv + b_v
        own = b_own.reshape(-1)  # the opponents' decisions are not learned from
        stats = _update(
            cfg,
            net,
            opt,
            counters["updates"] >= cfg.value_warmup,
            *(b.reshape(T * N, -1)[own] for b in (b_x, b_m)),
            *(b.reshape(-1)[own] for b in (b_a, b_lp, adv, ret)),
            teacher=b_ta.reshape(-1)[own] if teacher is not None else None,
        )
        counters["steps"] += T * N
        counters["updates"] += 1
        taught = teacher is not None and counters["updates"] == cfg.teacher_updates
        if taught:
            teacher = None  # PPO from here on
        el = time.perf_counter() - t_start
        sps = (counters["steps"] - steps0) / el
        if counters["updates"] % log_every == 0:
            w.writerow(
                [
                    counters["steps"],
                    counters["updates"],
                    counters["games"],
                    round(sps),
                    round(T * N / max(t_env, 1e-9)),
                    *(round(stats[k], 5) for k in ("pg", "v", "ent", "kl")),
                    round(float(b_r.std()), 5),
                ]
            )
            fh.flush()
        if progress and el - shown >= progress:
            shown = el
            left = (cfg.total_steps - counters["steps"]) / max(sps, 1e-9)
            print(
                f"{counters['steps']:,}/{cfg.total_steps:,} decisions, {sps:,.0f} a second, "
                f"{counters['games']:,} games, ETA {time.strftime('%H:%M:%S', time.gmtime(left))}"
                f"{'' if left < 86400 else f' (+{int(left // 86400)} d)'}"
                f"{'; ' + league.margins() if league is not None else ''}",
                file=sys.stderr,
                flush=True,
            )
        out_of_time = max_seconds is not None and el >= max_seconds
        if (
            counters["updates"] % cfg.checkpoint_every == 0
            or taught  # the warm start's network: where PPO's phase starts
            or counters["steps"] >= cfg.total_steps
            or out_of_time
        ):
            _save(resume, net, opt, cfg, counters)
            (out / "checkpoints").mkdir(exist_ok=True)
            _save(
                out / "checkpoints" / f"step_{counters['steps']:010d}.pt", net, opt, cfg, counters
            )
            if league is not None:
                league.refresh(net)
        if out_of_time:
            break
    fh.close()
    return {
        **counters,
        "steps_per_s": (counters["steps"] - steps0) / (time.perf_counter() - t_start),
    }


def policy_terms(logits, a, old_lp):
    """The log-probabilities of every move, the log-probability and probability ratio of the
    moves played, and the policy's mean entropy (illegal moves' logits are -inf)."""
    logp = torch.log_softmax(logits, -1)
    lp = logp.gather(1, a[:, None]).squeeze(1)
    ratio = (lp - old_lp).exp()
    ent = -(logp.exp() * logp.clamp(min=-1e8)).sum(-1).mean()
    return logp, lp, ratio, ent


def clipped_surrogate(adv, ratio, clip: float):
    """PPO's clipped objective, as a loss to minimise."""
    return torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()


def approx_kl(ratio, lp, old_lp) -> float:
    """The estimate ``(r - 1) - log r`` of the KL divergence of the new policy from the old."""
    return ((ratio - 1) - (lp - old_lp)).mean().item()


def _update(cfg, net, opt, policy, b_x, b_m, b_a, b_lp, adv, ret, teacher=None) -> dict[str, float]:
    """PPO's update on one rollout; with ``policy`` False (``value_warmup``) only the value
    head learns, from the shared layers' features as they are. With ``teacher`` (the
    teacher's move at each decision) the policy learns those moves by cross-entropy instead
    of PPO's objective (reported as ``pg``)."""
    n = b_a.size
    x = torch.from_numpy(b_x.reshape(n, -1))
    m = torch.from_numpy(b_m.reshape(n, -1))
    a = torch.from_numpy(b_a.reshape(n))
    old_lp = torch.from_numpy(b_lp.reshape(n))
    A = torch.from_numpy(adv.reshape(n).astype(np.float32))
    R = torch.from_numpy(ret.reshape(n).astype(np.float32))
    TA = torch.from_numpy(teacher) if teacher is not None else None
    stats = {"pg": 0.0, "v": 0.0, "ent": 0.0, "kl": 0.0}
    k = 0
    for _ in range(cfg.update_epochs):
        perm = torch.randperm(n)
        for s in range(0, n, cfg.minibatch_size):
            idx = perm[s : s + cfg.minibatch_size]
            if len(idx) < 2:  # (the opponents' decisions left out: a remainder of one)
                continue
            if not policy:
                with torch.no_grad():
                    h = net.body(x[idx])
                vl = 0.5 * ((net.v(h).squeeze(-1) - R[idx]) ** 2).mean()
                opt.zero_grad()
                vl.backward()
                opt.step()
                stats["v"] += vl.item()
                k += 1
                continue
            logits, v = net(x[idx], m[idx])
            logp, lp, ratio, ent = policy_terms(logits, a[idx], old_lp[idx])
            vl = 0.5 * ((v - R[idx]) ** 2).mean()
            if teacher is not None:  # imitation: the teacher's move's log-likelihood
                pg = -logp.gather(1, TA[idx, None]).mean()
                loss = pg + cfg.vf_coef * vl
            else:
                adv_mb = A[idx]
                adv_mb = (adv_mb - adv_mb.mean()) / (adv_mb.std() + 1e-8)
                pg = clipped_surrogate(adv_mb, ratio, cfg.clip)
                loss = pg + cfg.vf_coef * vl - cfg.ent_coef * ent
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["pg"] += pg.item()
                stats["v"] += vl.item()
                stats["ent"] += ent.item()
                stats["kl"] += approx_kl(ratio, lp, old_lp[idx])
            k += 1
    return {key: val / max(k, 1) for key, val in stats.items()}


# --------------------------------------------------------------------- eval
class NetAgent:
    """A trained network as an agent: its most probable legal move."""

    def __init__(self, net: Net, comp: Compress):
        self.net, self.comp = net, comp

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        x = torch.from_numpy(self.comp(np.asarray(observation, np.float32)[None]))
        m = torch.from_numpy(np.asarray(action_mask).astype(bool)[None])
        with torch.no_grad():
            logits, _ = self.net(x, m)
        return int(logits.argmax(1).item())


def load_agent(path: Path) -> tuple[NetAgent, Config]:
    ck = _load(path)
    d = json.loads(ck["config"])
    cfg = Config(**{k: tuple(v) if k == "overrides" else v for k, v in d.items()})
    _, comp, net = _build(dataclasses.replace(cfg, num_envs=1))
    net.load_state_dict(ck["model"])
    net.eval()
    return NetAgent(net, comp), cfg


def duplicate_margin(path: Path, opponent: str, deals: int, first_deal: int) -> dict[str, float]:
    """The network against ``opponent`` on ``deals`` deals, each from every seat (with
    partnerships, from each side: the network plays both partners): the mean margin a deal
    (own points minus the opponents' mean, summed over the seatings) with its 95% interval,
    and the win rate over games (with partnerships, a game the side scored more in)."""
    from experiments.tournament import play_out

    me, cfg = load_agent(path)
    env = rummy_env.raw_env(cfg.preset, cfg.num_players, **parse_overrides(cfg.overrides))
    P = cfg.num_players
    team = env.rules.partnerships
    side_of = sides_of(env.rules)
    # the seats the network plays in each seating: one side (a seat, or two partners)
    sides = [[p for p in range(P) if side_of[p] == k] for k in sorted(set(side_of))]
    margins, wins, games = [], 0.0, 0
    opp = {q: agents.make(opponent, env.rules, q) for q in range(P)}
    for d in range(first_deal, first_deal + deals):
        total = 0.0
        for mine in sides:
            for q in range(P):
                opp[q].reset(seed=d * 1009 + q)
            rounds, _, _ = play_out(
                env, d, lambda s, o, m, mine=mine: me.act(o, m) if s in mine else opp[s].act(o, m)
            )
            pts = np.sum([r["rewards"] for r in rounds], axis=0)
            seat, others = mine[0], [p for p in range(P) if p not in mine]
            total += pts[seat] - np.mean(pts[others])
            if team:
                diff = pts[seat] - pts[others[0]]
                wins += 1.0 if diff > 0 else (0.5 if diff == 0 else 0.0)
            else:
                w = rounds[-1].get("match_winner", rounds[-1]["winner"])
                wins += 1.0 if w == seat else (0.5 if w is None else 0.0)
            games += 1
        margins.append(total)
    m = np.array(margins)
    half = 1.96 * m.std(ddof=1) / math.sqrt(len(m)) if len(m) > 1 else float("nan")
    return {
        "margin": float(m.mean()),
        "lo": float(m.mean() - half),
        "hi": float(m.mean() + half),
        "win_rate": wins / games,
        "deals": deals,
    }


def evaluate(run: Path, opponents: list[str], deals: int, first_deal: int, every: int = 1) -> Path:
    # one observation at a time: more torch threads only wait on each other (and, beside a
    # training run, slow the evaluation many times over)
    torch.set_num_threads(1)
    cks = sorted((run / "checkpoints").glob("step_*.pt"))[::-1][::every][::-1]
    if not cks:
        raise ValueError(f"{run}: no checkpoints (train first)")
    path = run / "eval.csv"
    done = set()
    if path.exists():
        with path.open() as fh:
            done = {
                (r["checkpoint"], r["opponent"], int(r["deals"]), int(r["first_deal"]))
                for r in csv.DictReader(fh)
            }
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(
                [
                    "checkpoint",
                    "steps",
                    "opponent",
                    "deals",
                    "first_deal",
                    "margin",
                    "lo",
                    "hi",
                    "win_rate",
                ]
            )
        for ck in cks:
            steps = int(ck.stem.split("_")[1])
            for opp in opponents:
                if (ck.name, opp, deals, first_deal) in done:
                    continue
                r = duplicate_margin(ck, opp, deals, first_deal)
                w.writerow(
                    [
                        ck.name,
                        steps,
                        opp,
                        deals,
                        first_deal,
                        *(round(r[k], 4) for k in ("margin", "lo", "hi", "win_rate")),
                    ]
                )
                fh.flush()
                print(
                    f"{ck.name} vs {opp}: {r['margin']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}] a deal, win rate {r['win_rate']:.3f}",
                    flush=True,
                )
    _plot(path, run / "eval.png")
    return path


def _plot(csv_path: Path, png: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rows = list(csv.DictReader(csv_path.open()))
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in sorted({r["opponent"] for r in rows}):
        rs = sorted((r for r in rows if r["opponent"] == opp), key=lambda r: int(r["steps"]))
        x = [int(r["steps"]) for r in rs]
        ax.plot(x, [float(r["margin"]) for r in rs], marker="o", label=f"vs {opp}")
        ax.fill_between(x, [float(r["lo"]) for r in rs], [float(r["hi"]) for r in rs], alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("decisions trained")
    ax.set_ylabel("score margin a duplicate deal (95% CI)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def _npz_names(kind_head: bool, face_head: bool) -> dict[str, str]:
    """The arrays of a ``neural:`` model file and the parameters of :class:`Net` they hold."""
    names = {
        "w0": "body.0.weight",
        "b0": "body.0.bias",
        "w1": "body.2.weight",
        "b1": "body.2.bias",
        "w_pi": "pi.weight",
        "b_pi": "pi.bias",
    }
    if kind_head:
        names.update({"w_kh": "kh.weight", "b_kh": "kh.bias"})
    if face_head:
        names.update({"w_fz": "fz.weight", "b_fz": "fz.bias", "w_f1": "f1.weight"})
        names.update({"b_f1": "f1.bias", "w_f2": "f2.weight", "b_f2": "f2.bias"})
    return names


def _network_meta(cfg: dict[str, Any]) -> dict[str, Any]:
    """A network file's record of its game and input (:data:`NETWORK_FIELDS`) from a run's
    config as a dict (a field an older checkpoint lacks takes its default)."""
    meta = {k: cfg.get(k, getattr(_DEFAULT, k)) for k in NETWORK_FIELDS}
    meta["overrides"] = list(meta["overrides"])
    return meta


def _init_from(net: Net, cfg: Config, path: Path) -> None:
    """Load a ``neural:`` model file's policy into ``net`` (``--init``): the file must be of
    this run's game and network (preset, players, rules, input and heads, layer sizes)."""
    z = read_npz(path)
    try:
        meta = json.loads(str(z["meta"]))
    except (KeyError, ValueError) as e:
        raise ValueError(f"--init {path}: not a rummy-selfplay network ({e})") from None
    want = {"kind": "rummy-selfplay", **_network_meta(dataclasses.asdict(cfg))}
    diff = [f"{k}={meta.get(k)!r} (this run: {v!r})" for k, v in want.items() if meta.get(k) != v]
    if diff:
        raise ValueError(f"--init {path} is another game or network: {', '.join(diff)}")
    params = dict(net.named_parameters())
    names = _npz_names(cfg.kind_head, cfg.face_head)
    with torch.no_grad():
        for key, name in names.items():
            if key not in z:
                raise ValueError(f"--init {path}: the array {key!r} is missing")
            w = torch.from_numpy(np.asarray(z[key], np.float32))
            if w.shape != params[name].shape:
                raise ValueError(
                    f"--init {path}: {key} has shape {tuple(w.shape)}, this run's network "
                    f"{tuple(params[name].shape)} (--hidden {cfg.hidden}?)"
                )
            params[name].copy_(w)


#: the weights' types a model file may hold (``neural:`` computes in float32 either way)
EXPORT_DTYPES = ("float32", "float16")


def export(checkpoint: Path, out: Path, average: int = 1, dtype: str = "float32") -> Path:
    """Write a checkpoint's policy as a numpy model file for ``neural:<path>``
    (:mod:`agents.neural`): the MLP's and the policy head's arrays and a ``meta`` JSON.
    ``average`` > 1: the mean of the weights of this checkpoint and the ``average - 1``
    before it in its folder (the same network, further along the same run). ``dtype``
    ``float16`` halves the file (a network with thousands of actions); the agent reads the
    rounded weights as float32, so the file is the network it plays."""
    if dtype not in EXPORT_DTYPES:
        raise ValueError(f"dtype={dtype!r} is not allowed (allowed: {', '.join(EXPORT_DTYPES)})")
    ck = _load(checkpoint)
    cfg = json.loads(ck["config"])
    sd = ck["model"]
    averaged: list[str] = []
    if average > 1:
        ours = sorted(checkpoint.parent.glob("step_*.pt"))
        if checkpoint not in ours:
            raise ValueError(f"--average needs a numbered checkpoint (step_*.pt), not {checkpoint}")
        k = ours.index(checkpoint)
        if k + 1 < average:
            raise ValueError(
                f"--average {average}: {checkpoint.name} has only {k} checkpoints before it"
            )
        group = ours[k + 1 - average : k + 1]
        sds = [_load(c)["model"] for c in group]
        if any(set(d) != set(sd) or any(d[n].shape != sd[n].shape for n in sd) for d in sds):
            raise ValueError(f"--average: {group[0].parent} holds checkpoints of other networks")
        sd = {n: sum(d[n].double() for d in sds) / len(sds) for n in sd}
        averaged = [c.name for c in group]
    meta = {
        "kind": "rummy-selfplay",
        **_network_meta(cfg),
        "steps": json.loads(ck["counters"])["steps"],
        **({"averaged": averaged} if averaged else {}),
        # a network that imitated a teacher did not learn from the game's points alone
        **(
            {k: cfg[k] for k in ("teacher", "teacher_updates")}
            if cfg.get("teacher_updates")
            else {}
        ),
        # a run started from another network names it
        **({"init": cfg["init"]} if cfg.get("init") else {}),
    }
    names = _npz_names(meta["kind_head"], meta["face_head"])
    with np.errstate(over="ignore"):
        arrays = {k: sd[v].numpy().astype(dtype) for k, v in names.items()}
    lost = sorted(k for k, a in arrays.items() if not np.isfinite(a).all())
    if lost:
        raise ValueError(f"{checkpoint}: {', '.join(lost)} hold weights beyond {dtype}'s range")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, meta=np.array(json.dumps(meta)), **arrays)
    return out


# ------------------------------------------------------------------- recipe
def recipe(cfg: Config) -> Config:
    """The settings the ``neural:`` runs of the model card were trained with: 4 passes of
    minibatches of 2048 an update; in the games of sets and runs (the shared observation:
    not Canasta's own) the meld features and the face head with its context; in the games
    that meld during play (basic, Rummy 500, Rummy 51, Canasta) also the kind head (basic:
    329 melds and 884 lay-offs) and a discount of 0.999 (their rounds run to hundreds of
    decisions)."""
    rules = rummy_env.make_rules(cfg.preset, cfg.num_players, **parse_overrides(cfg.overrides))
    melding = rules.meld_during_play
    sets_and_runs = ObsLayout(rules).full is None
    return dataclasses.replace(
        cfg,
        features="melds" if sets_and_runs else cfg.features,
        face_head=sets_and_runs or cfg.face_head,
        face_context=sets_and_runs or cfg.face_context,
        kind_head=melding or cfg.kind_head,
        update_epochs=4,
        minibatch_size=2048,
        gamma=0.999 if melding else cfg.gamma,
    )


#: the model card's runs, phase after phase on one run folder: each phase trains the run on
#: to its ``total_steps`` with these settings over :func:`recipe`'s (a run stopped in any
#: phase resumes there). gin's second phase lowers the entropy bonus (learning rate 3e-4
#: throughout); its third makes the network try holding its knocks again (it knocked at
#: every chance) and plays one seat of half the games with gin-expert; its fourth plays one
#: seat of half the games with gin-simple at learning rate 1e-4, and the network is the
#: checkpoint at its end (30.02 M decisions). Rummy 500's network is its run's checkpoint at
#: 0.82 M decisions, its best against the expert. Canasta (4 players, the plain network
#: with the kind head, points in thousands) plays in self-play, then with greedy or
#: canasta-expert at one side of half the games; its network is the mean of the last four
#: checkpoints (``export --average 4``).
_CANASTA = {"num_players": 4, "reward_scale": 1000.0, "checkpoint_every": 25}
RECIPES: dict[str, tuple[dict[str, Any], ...]] = {
    "gin": (
        {"total_steps": 8_192_000},
        {"total_steps": 11_673_600, "ent_coef": 0.005, "checkpoint_every": 25},
        {
            "total_steps": 18_022_400,
            "ent_coef": 0.005,
            "checkpoint_every": 25,
            "knock_explore": 22.0,
            "opponents": "variant",
            "opponent_share": 0.5,
            "seed": 2,
        },
        {
            "total_steps": 30_023_680,
            "lr": 1e-4,
            "ent_coef": 0.005,
            "checkpoint_every": 25,
            "knock_explore": 22.0,  # (unchanged: no second shift)
            "opponents": "gin-simple",
            "opponent_share": 0.5,
            "seed": 11,
        },
    ),
    "basic": ({"total_steps": 4_915_200, "checkpoint_every": 50},),
    "rummy500": ({"total_steps": 819_200},),
    "canasta": (
        {**_CANASTA, "total_steps": 7_372_800},
        {
            **_CANASTA,
            "total_steps": 20_000_000,
            "opponents": "greedy,variant",
            "opponent_share": 0.5,
            "seed": 2,
        },
    ),
}


def recipe_phases(preset: str, threads: int = 1) -> list[Config]:
    """The configs of ``preset``'s recipe, phase by phase (:data:`RECIPES`)."""
    if preset not in RECIPES:
        raise ValueError(f"no recipe for {preset!r} (recipes: {', '.join(sorted(RECIPES))})")
    base = recipe(Config(preset=preset, threads=threads))
    return [dataclasses.replace(base, **phase) for phase in RECIPES[preset]]


def command_line(cfg: Config, out: str) -> str:
    """The ``rummy-selfplay train`` command that runs ``cfg`` (the settings that differ from
    the defaults)."""
    args = ["rummy-selfplay train"]
    for f in dataclasses.fields(Config):
        v, flag = getattr(cfg, f.name), "--" + f.name.replace("_", "-")
        if v == f.default and f.name != "preset":
            continue
        if f.name == "overrides":
            args += [f"--set {o}" for o in v]
        elif isinstance(v, bool):
            args.append(flag if v else "--no-" + flag[2:])
        else:
            args.append(f"{flag} {v}")
    return " ".join([*args, f"--out {out}"])


def run_recipe(preset: str, out: Path, threads: int = 1, progress: float = 0.0) -> dict[str, Any]:
    """Train ``out`` through every phase of ``preset``'s recipe (phases already done are
    skipped: the run resumes where it stopped)."""
    res: dict[str, Any] = {}
    for cfg in recipe_phases(preset, threads):
        done = 0
        if (out / "model.pt").exists():
            done = json.loads(_load(out / "model.pt")["counters"])["steps"]
        if done < cfg.total_steps:
            res = train(cfg, out, progress=progress)
    return res


# -------------------------------------------------------------------- speed
def bench(preset: str, seconds: float, threads: int) -> Iterator[dict[str, Any]]:
    """Decisions a second with learning, counted at the env over the whole run's wall clock,
    in this process one after the other: this trainer, then sb3-contrib's MaskablePPO on
    :class:`rummy_env.sb3_vec_env.RummyVecEnv` (the batched env) and on a ``DummyVecEnv`` of
    :class:`rummy_env.wrappers.RummySingleAgentEnv` (one game an env), both against random
    opponents, 64 envs, n_steps 64, its default MLP."""
    import tempfile

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rummy_env.sb3_vec_env import RummyVecEnv
    from rummy_env.wrappers import RummySingleAgentEnv

    torch.set_num_threads(threads)
    base = Config(preset=preset, total_steps=10**12, threads=threads, checkpoint_every=10**9)
    for name, cfg in (
        ("rummy-selfplay, default network (self-play, every seat learns)", base),
        ("rummy-selfplay, the model card's recipe (meld features, face head)", recipe(base)),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            res = train(cfg, Path(tmp), max_seconds=seconds)
            el = time.perf_counter() - t0  # (the whole run: start-up included)
        yield {
            "trainer": name,
            "steps": res["steps"],
            "steps_per_s": res["steps"] / el,
            "seconds": el,
        }

    class Stop(BaseCallback):
        def __init__(self, until: float):
            super().__init__()
            self.until = until

        def _on_step(self) -> bool:
            return time.perf_counter() < self.until

    for name, make in (
        ("MaskablePPO on RummyVecEnv (batched)", lambda: RummyVecEnv(preset, num_envs=64, seed=0)),
        (
            "MaskablePPO on DummyVecEnv(RummySingleAgentEnv)",
            lambda: DummyVecEnv([lambda: RummySingleAgentEnv(preset) for _ in range(64)]),
        ),
    ):
        venv = make()
        model = MaskablePPO(
            "MlpPolicy", venv, n_steps=64, batch_size=4096, n_epochs=2, seed=0, verbose=0
        )
        t0 = time.perf_counter()
        model.learn(10**12, callback=Stop(t0 + seconds))
        el = time.perf_counter() - t0
        yield (
            {
                "trainer": name,
                "steps": model.num_timesteps,
                "steps_per_s": model.num_timesteps / el,
                "seconds": el,
            }
        )
        venv.close()


# --------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rummy-selfplay", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    tr = sub.add_parser("train", help="train (or resume) a run")
    for f in dataclasses.fields(Config):
        kind = type(f.default)
        if f.name == "overrides":
            tr.add_argument(
                "--set",
                dest="overrides",
                action="append",
                default=[],
                metavar="FIELD=VALUE",
                help="rule override (repeatable)",
            )
        elif kind is bool:
            tr.add_argument(
                "--" + f.name.replace("_", "-"),
                action=argparse.BooleanOptionalAction,
                default=f.default,
                help=f"{FIELD_HELP[f.name]} (default {f.default})",
            )
        else:
            tr.add_argument(
                "--" + f.name.replace("_", "-"),
                type=kind,
                default=f.default,
                help=f"{FIELD_HELP[f.name]} (default {f.default})",
            )
    tr.add_argument("--out", required=True, help="the run folder (resumed when it holds model.pt)")
    tr.add_argument(
        "--max-seconds", type=float, default=None, help="stop (with a checkpoint) after this long"
    )
    tr.add_argument(
        "--progress",
        type=float,
        default=30.0,
        help="seconds between progress lines (decisions, speed, ETA) on stderr; 0: none",
    )
    ev = sub.add_parser("eval", help="evaluate a run's checkpoints on duplicate deals")
    ev.add_argument("--run", required=True, help="the run folder")
    ev.add_argument("--opponents", default="random,greedy", help="comma-separated agent names")
    ev.add_argument(
        "--deals", type=int, default=200, help="duplicate deals per checkpoint and opponent"
    )
    ev.add_argument(
        "--first-deal",
        type=int,
        default=900_000,
        help="the first deal's seed (held out from training)",
    )
    ev.add_argument(
        "--every", type=int, default=1, help="evaluate every k-th checkpoint (the newest always)"
    )
    ex = sub.add_parser("export", help="write a checkpoint as a numpy model (neural:<path>)")
    ex.add_argument("--checkpoint", required=True, help="a checkpoint (.pt) of a run")
    ex.add_argument("--out", required=True, help="the .npz to write")
    ex.add_argument(
        "--average",
        type=int,
        default=1,
        help="the mean weights of this checkpoint and the k-1 before it in its folder",
    )
    ex.add_argument(
        "--dtype",
        choices=EXPORT_DTYPES,
        default="float32",
        help="the weights' type in the file (float16: half the size)",
    )
    rc = sub.add_parser(
        "recipe",
        help="train a run through the model card's recipe, phase after phase (resumes)",
    )
    rc.add_argument("--preset", required=True, help=f"the game ({', '.join(sorted(RECIPES))})")
    rc.add_argument("--out", required=True, help="the run folder (resumed where it stopped)")
    rc.add_argument("--threads", type=int, default=1, help="torch threads")
    rc.add_argument(
        "--print", action="store_true", help="print the phases' train commands and stop"
    )
    rc.add_argument(
        "--progress", type=float, default=30.0, help="seconds between progress lines; 0: none"
    )
    be = sub.add_parser("bench", help="decisions a second with learning, beside MaskablePPO's")
    be.add_argument("--preset", default="gin", help="the game")
    be.add_argument("--seconds", type=float, default=60.0, help="wall time of each trainer")
    be.add_argument("--threads", type=int, default=2, help="torch threads")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "train":
            vals = {f.name: getattr(args, f.name) for f in dataclasses.fields(Config)}
            vals["overrides"] = tuple(vals["overrides"])
            cfg = Config(**vals)
            for k in (
                "num_envs",
                "num_steps",
                "total_steps",
                "minibatch_size",
                "hidden",
                "threads",
                "checkpoint_every",
                "update_epochs",
            ):
                if getattr(cfg, k) < 1:
                    raise ValueError(
                        f"--{k.replace('_', '-')}={getattr(cfg, k)} is not allowed (allowed: >= 1)"
                    )
            for k in ("value_warmup", "teacher_updates"):
                if getattr(cfg, k) < 0:
                    raise ValueError(
                        f"--{k.replace('_', '-')}={getattr(cfg, k)} is not allowed (allowed: >= 0)"
                    )
            if cfg.teacher_updates and not cfg.teacher:
                raise ValueError("--teacher-updates needs --teacher (an agent name)")
            res = train(cfg, Path(args.out), max_seconds=args.max_seconds, progress=args.progress)
            print(json.dumps(res))
        elif args.cmd == "recipe":
            if args.threads < 1:
                raise ValueError(f"--threads={args.threads} is not allowed (allowed: >= 1)")
            if args.print:
                for cfg in recipe_phases(args.preset, args.threads):
                    print(command_line(cfg, args.out))
            else:
                res = run_recipe(args.preset, Path(args.out), args.threads, args.progress)
                print(json.dumps(res))
        elif args.cmd == "export":
            if args.average < 1:
                raise ValueError(f"--average={args.average} is not allowed (allowed: >= 1)")
            print(export(Path(args.checkpoint), Path(args.out), args.average, args.dtype))
        elif args.cmd == "bench":
            if args.seconds <= 0 or args.threads < 1:
                raise ValueError("--seconds must be > 0 and --threads >= 1")
            for r in bench(args.preset, args.seconds, args.threads):
                print(
                    f"{r['trainer']:50s} {r['steps']:10,d} steps {r['steps_per_s']:9,.0f} steps/s",
                    flush=True,
                )
        else:
            if args.deals < 2:
                raise ValueError(f"--deals={args.deals} is not allowed (allowed: >= 2)")
            evaluate(
                Path(args.run),
                [o.strip() for o in args.opponents.split(",")],
                args.deals,
                args.first_deal,
                args.every,
            )
    except ValueError as e:
        ap.exit(2, f"rummy-selfplay: error: {e}\n")


if __name__ == "__main__":
    main()
