"""Train a MaskablePPO agent for one rule set (console script ``rummy-train``).

```bash
rummy-train --config experiments/configs/basic-2p.toml          # the recipe of the shipped basic-2p (writes under runs/)
rummy-train --total-timesteps 200000 --opponents random 0.5 greedy 0.5   # flags override the file
rummy-train --config experiments/configs/basic-2p.toml --resume runs/<run>/checkpoints/step_400000.zip
tensorboard --logdir runs
```

One file, CleanRL style: :class:`Args` (a dataclass, one docstring per field,
``tyro`` CLI; ``--config FILE.toml`` sets the defaults, flags override them),
then the loop. The learner is a :class:`rummy_env.wrappers.RummySingleAgentEnv`
seat against embedded opponents, vectorized over ``n_envs`` envs
(``SubprocVecEnv``, all cores, by default).

**Opponents and the self-play league.** Opponents are drawn per episode and
seat by :class:`rummy_env.wrappers.OpponentPool`: the fixed agents of
``--opponents`` (name -> weight) and, from ``selfplay_start`` steps on, frozen
copies of the learner: every ``selfplay_every`` steps the current policy is
written as a numpy snapshot (``runs/<run>/pool/step_N.npz``) and joins the pool
in every env. Once the pool holds a snapshot, an opponent is a snapshot with
probability ``selfplay_frac`` (the newest with probability ``selfplay_latest_frac``,
else uniform over the ``pool_size`` newest), otherwise a fixed agent by weight.
Snapshots play by sampling from their policy.

**Warm start (optional).** With ``--imitate greedy`` the policy first imitates
a heuristic agent for ``imitate_steps`` learner decisions (DAgger: the
learner's own rollouts against the training opponents, mixed with the
teacher's moves early on, labelled with the teacher's move; masked
cross-entropy, and the value head regressed on the episode returns), then PPO
trains from there. Those decisions are counted apart (``imitation/steps``);
``total_timesteps`` counts PPO steps only.

**Logs** (TensorBoard and CSV under ``runs/<run_name>``, run name
``<preset>-<P>p__<exp_name>__<seed>__<unix time>``): ``charts/`` (episode score,
margin, win rate overall and against each opponent, steps per second),
``losses/`` (policy, value, entropy, approx KL, clip fraction), ``eval/``
(duplicate-deal evaluation against each baseline: margin and win rate with 95%
CIs), ``imitation/``; plus SB3's own ``rollout/`` and ``train/``.
Checkpoints every ``checkpoint_every`` steps in ``runs/<run>/checkpoints/``
(each with a ``.json`` of the league state, so ``--resume`` restores the pool),
the best model by evaluation margin against ``best_by``, and the final model
(SB3 ``.zip`` files; ``--resume`` and ``ppo:<file>.zip`` load them without
unpickling anything, :mod:`agents.model_io`). ``--resume`` refuses a checkpoint
holding any zip entry but SB3's own (``data``, ``policy.pth``, ...), weights
that are not plain tensors or not finite, or league state with entries the
trainer does not write (:func:`read_resume`). Bad input of any kind (options,
``--config``, the resume state) prints one line and exits with status 2 before
anything starts. At the end the run writes its
play-ready policy, ``runs/<run>/model.npz`` (the final model, or the best one
with ``--ship-best``) and a ``.json`` card: ``agents.make("ppo:runs/<run>/model.npz")``.
Training never writes into the package: shipping a model is the explicit
``--save-path agents/trained/<name>.npz``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import types
import typing
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


@dataclass
class Args:
    config: str | None = None
    """TOML file whose keys set the defaults of these fields (flags override it)"""
    exp_name: str = "ppo"
    """name of this experiment (part of the run name)"""
    seed: int = 1
    """seed of random, numpy, torch and the envs"""
    run_dir: str = "runs"
    """TensorBoard logs and checkpoints go under run_dir/run_name"""
    run_name: str | None = None
    """fixed run name (default: <preset>-<P>p__<exp_name>__<seed>__<unix time>)"""
    resume: str | None = None
    """checkpoint (.zip) to continue from, or a run directory (its newest checkpoint); logs continue there"""
    save_path: str | None = None
    """ship the run's model.npz (and its .json card) to this path too, e.g. agents/trained/basic-2p.npz;
    never set by the configs: shipping over a model of the package is an explicit step"""
    ship_best: bool = False
    """model.npz is best_model.zip's policy (best evaluation margin against best_by), not the final one"""

    # ---- game
    preset: str = "basic"
    """rule preset (rummy_env.PRESETS)"""
    num_players: int = 2
    """players at the table (the learner plus num_players-1 opponents)"""
    rules: list[str] = field(default_factory=list)
    """RuleSet overrides as key=value (e.g. jokers=2 match=True)"""
    reward: str = "scaled"
    """learner reward: scaled, raw, margin or win (rummy_env.wrappers docs)"""
    reward_scale: float = 100.0
    """divisor of the points for the scaled and margin rewards"""
    shaping: float = 0.0
    """weight of the potential-based shaping on own deadwood (0 = off)"""
    features: str | None = None
    """what agents.features appends to the observation: None, hand, variant or hand+variant"""

    # ---- opponents and league
    opponents: list[str] = field(default_factory=lambda: ["random=1"])
    """fixed opponents as name=weight (registry names, sampling weights; a bare name weighs 1)"""
    selfplay_every: int = 0
    """every this many steps the current policy joins the opponent pool (0 = no self-play)"""
    selfplay_start: int = 0
    """first step at which a snapshot is added"""
    selfplay_frac: float = 0.5
    """probability of a pool snapshot as opponent once the pool holds one"""
    selfplay_latest_frac: float = 0.5
    """within snapshot draws, probability of the newest one"""
    pool_size: int = 10
    """snapshots kept in the pool (oldest dropped)"""

    # ---- vectorization and compute
    n_envs: int = 0
    """parallel envs (0 = os.cpu_count())"""
    vec_env: str = "subproc"
    """subproc (SubprocVecEnv, one process per env) or dummy (all envs in the main process)"""
    torch_threads: int = 1
    """torch intra-op threads in the learner process"""

    # ---- PPO
    total_timesteps: int = 1_000_000
    """PPO learner decisions in all (with --resume: the total including the checkpoint's)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0"""
    n_steps: int = 512
    """steps per env per rollout (rollout = n_steps * n_envs)"""
    batch_size: int = 512
    """minibatch size"""
    n_epochs: int = 4
    """epochs per rollout"""
    gamma: float = 0.99
    """discount"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.005
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float | None = None
    """stop an update early past this KL (None = never)"""
    features_dim: int = 256
    """units of the shared first layer on the compressed observation (agents.ppo_net); 0 = plain MLP"""
    net_arch: list[int] = field(default_factory=lambda: [256])
    """hidden layers of the policy and of the value head (each)"""
    activation: str = "relu"
    """relu or tanh"""

    # ---- imitation warm start
    imitate: str | None = None
    """teacher agent for a DAgger warm start (e.g. greedy; None = off)"""
    imitate_steps: int = 0
    """learner decisions labelled by the teacher"""
    imitate_batch: int = 8192
    """decisions per DAgger iteration"""
    imitate_epochs: int = 4
    """minibatch updates per DAgger iteration, in epochs of the new batch (drawn from the whole dataset)"""
    imitate_final_epochs: int = 2
    """full passes over the aggregated dataset after the last iteration"""
    imitate_lr: float = 1e-3
    """learning rate during imitation"""

    # ---- evaluation and checkpoints
    eval_every: int = 100_000
    """evaluate every this many steps (0 = never)"""
    eval_deals: int = 100
    """duplicate deals per baseline per evaluation (each played from every seat)"""
    eval_first_deal: int = 1_000_000
    """seed of the first evaluation deal (apart from tournament seeds 0..)"""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """baselines of the evaluation"""
    best_by: str = "greedy"
    """the evaluation opponent whose margin picks best_model.zip"""
    eval_at_start: bool = True
    """also evaluate before the first PPO update (step 0)"""
    checkpoint_every: int = 100_000
    """write a checkpoint every this many steps (0 = never)"""
    verbose: int = 1
    """print progress lines"""


def _load_config(path: str, cls: type = None) -> dict[str, Any]:
    """The keys of a TOML config as keyword arguments of the dataclass ``cls`` (default
    :class:`Args`); an unknown key is a ``ValueError`` naming the allowed ones."""
    cls = cls or Args
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(f"--config {path!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"--config {path!r} cannot be read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"--config {path!r} is not valid TOML ({e})") from None
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(
            f"{path}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(names))})"
        )
    for key in ("rules", "opponents"):  # TOML tables -> key=value lists
        if isinstance(data.get(key), dict):
            data[key] = [f"{k}={v}" for k, v in data[key].items()]
    hints = typing.get_type_hints(cls)
    for key, value in data.items():
        if not _fits(value, hints[key]):
            name = getattr(hints[key], "__name__", None) or str(hints[key])
            raise ValueError(f"{path}: {key} = {value!r} is not allowed (expected {name})")
    data["config"] = path
    return data


def _fits(value: Any, hint: Any) -> bool:
    """Whether a TOML value fits a field's type (bool, int, float, str, lists, unions)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin in (list, tuple):
        return isinstance(value, (list, tuple)) and all(
            _fits(x, args[0]) for x in value if args and args[0] is not Ellipsis
        )
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    return True  # other types: the trainer checks them


def parse_cli(cls: type, argv: list[str] | None, description: str):
    """CLI flags (``tyro``) over the ``--config`` file over the defaults of the dataclass ``cls``."""
    import tyro

    argv = list(sys.argv[1:] if argv is None else argv)
    default = cls()
    for i, a in enumerate(argv):
        if a == "--config" and i + 1 < len(argv):
            default = cls(**_load_config(argv[i + 1], cls))
        elif a.startswith("--config="):
            default = cls(**_load_config(a.split("=", 1)[1], cls))
    return tyro.cli(cls, default=default, args=argv, description=description)


def parse_args(argv: list[str] | None = None) -> Args:
    """CLI flags over the ``--config`` file over the defaults."""
    return parse_cli(Args, argv, __doc__.splitlines()[0].replace("``", ""))


def rule_overrides(items: list[str]) -> dict[str, Any]:
    """``["jokers=2", "match=True"]`` -> ``{"jokers": 2, "match": True}`` (:func:`rummy_env.rules.parse_overrides`)."""
    from rummy_env.rules import parse_overrides

    return parse_overrides(items)


def opponent_weights(items: list[str]) -> dict[str, float]:
    """``["greedy=0.8", "random=0.2"]`` -> ``{"greedy": 0.8, "random": 0.2}``."""
    out: dict[str, float] = {}
    for it in items:
        name, _, w = it.partition("=")
        try:
            out[name.strip()] = float(w) if w else 1.0
        except ValueError:
            raise ValueError(
                f"opponents {it!r}: the weight must be a number (name=weight)"
            ) from None
    return out


def env_kwargs(args: Args) -> dict[str, Any]:
    return dict(
        preset=args.preset,
        num_players=args.num_players,
        reward=args.reward,
        reward_scale=args.reward_scale,
        shaping=args.shaping,
        features=args.features,
        **rule_overrides(args.rules),
    )


def _pool(args: Args):
    from rummy_env.wrappers import OpponentPool

    return OpponentPool(
        opponent_weights(args.opponents),
        selfplay_frac=args.selfplay_frac,
        latest_frac=args.selfplay_latest_frac,
        max_snapshots=args.pool_size,
    )


def _make_env(rank: int, args: Args):
    from rummy_env.wrappers import RummySingleAgentEnv

    def thunk():
        env = RummySingleAgentEnv(opponents=_pool(args), **env_kwargs(args))
        env.reset(seed=args.seed * 1000 + rank)
        return env

    return thunk


def make_vec_env(args: Args):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    n = args.n_envs or os.cpu_count() or 1
    fns = [_make_env(i, args) for i in range(n)]
    if args.vec_env == "subproc":
        venv = SubprocVecEnv(fns, start_method="fork" if sys.platform == "linux" else None)
    elif args.vec_env == "dummy":
        venv = DummyVecEnv(fns)
    else:
        raise ValueError(f"vec_env={args.vec_env!r} is not allowed (allowed: 'subproc', 'dummy')")
    return VecMonitor(venv)


def policy_kwargs(args: Args, rules) -> dict[str, Any]:
    from torch import nn

    act = {"relu": nn.ReLU, "tanh": nn.Tanh}
    if args.activation not in act:
        raise ValueError(f"activation={args.activation!r} is not allowed (allowed: relu, tanh)")
    kw: dict[str, Any] = {
        "net_arch": {"pi": list(args.net_arch), "vf": list(args.net_arch)},
        "activation_fn": act[args.activation],
    }
    if args.features and not args.features_dim:
        raise ValueError(
            "features needs the RummyFeatures extractor (features_dim > 0), which records it"
        )
    if args.features_dim:
        from agents.ppo_net import RummyFeatures, feature_kwargs

        kw["features_extractor_class"] = RummyFeatures
        kw["features_extractor_kwargs"] = feature_kwargs(rules, args.features_dim, args.features)
    return kw


def _duration(seconds: float) -> str:
    m = int(seconds // 60)
    return f"{m // 60}h{m % 60:02d}m" if m >= 60 else f"{m}m{int(seconds % 60):02d}s"


def latest_checkpoint(path: str | Path) -> Path:
    """``path`` itself if it is a file, else the newest ``checkpoints/step_N.zip`` of the run
    directory ``path`` (or its ``final_model.zip`` when that is newer).

    Raises:
        ValueError: no such file, or a directory without checkpoints.
    """
    p = Path(path)
    if p.is_file():
        return p
    if not p.is_dir():
        raise ValueError(f"--resume {str(p)!r}: no such checkpoint or run directory")
    from agents.model_io import read_sb3_data

    candidates = [*(p / "checkpoints").glob("step_*.zip"), p / "final_model.zip"]
    # a checkpoint counts once its league .json, written after the model, exists (a kill while
    # writing leaves no .json)
    steps = [
        (int(read_sb3_data(c).get("num_timesteps", 0)), c)
        for c in candidates
        if c.exists() and c.with_suffix(".json").exists()
    ]
    if not steps:
        raise ValueError(f"--resume {str(p)!r}: the run directory has no checkpoints yet")
    return max(steps, key=lambda t: t[0])[1]


#: what the ``.json`` beside a checkpoint may hold (``save_with_league``), and each entry's type
_LEAGUE_KEYS = {
    "pool": list,
    "next_pool": (int, type(None)),
    "next_eval": (int, type(None)),
    "next_ckpt": (int, type(None)),
    "best": (int, float),
    "wall_before": (int, float),
    "evals": list,
}


def read_resume(resume: str | Path, rules) -> tuple[Path, Path, dict[str, Any]]:
    """``(checkpoint, run directory, league state)`` of ``--resume``, everything checked
    without unpickling: the zip holds only SB3's entries (:func:`agents.model_io.read_sb3_data`),
    its league ``.json`` only the keys the trainer writes, and each snapshot of the pool is
    a ``.npz`` policy of these rules.

    Raises:
        ValueError: a missing or refused checkpoint, or league state that is not the trainer's.
    """
    from agents.model_io import open_model, read_sb3_data
    from agents.ppo_agent import PPOAgent

    ckpt = latest_checkpoint(resume)
    read_sb3_data(ckpt)
    run_dir = ckpt.parent.parent if ckpt.parent.name == "checkpoints" else ckpt.parent
    side = ckpt.with_suffix(".json")
    league: dict[str, Any] = {}
    if side.exists():
        try:
            league = json.loads(open_model(side, "league state", 1 << 26).data)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"--resume: league state {str(side)!r} is not JSON ({e})") from None
        if not isinstance(league, dict):
            raise ValueError(f"--resume: league state {str(side)!r} is not a JSON object")
        for k, v in league.items():
            if k not in _LEAGUE_KEYS:
                raise ValueError(
                    f"--resume: league state {str(side)!r} holds an unexpected entry {k!r} "
                    f"(allowed: {', '.join(_LEAGUE_KEYS)})"
                )
            if not isinstance(v, _LEAGUE_KEYS[k]) or isinstance(v, bool):
                raise ValueError(
                    f"--resume: league state {str(side)!r}: {k}={v!r} is not of the right type"
                )
        for entry in league.get("pool", []):
            if (
                not isinstance(entry, list)
                or len(entry) != 2
                or not all(isinstance(x, str) for x in entry)
            ):
                raise ValueError(
                    f"--resume: league state {str(side)!r}: pool entry {entry!r} is not "
                    f"[name, path]"
                )
            PPOAgent(rules, 0, model=entry[1])  # a .npz policy of these rules, or a ValueError
    return ckpt, run_dir, league


# ------------------------------------------------------------------ callbacks
def _callbacks(args: Args, run_dir: Path, league: dict[str, Any]):
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.ppo_agent import PolicySnapshot, save_numpy_policy
    from experiments.eval_ppo import NumpyPredictor, play_duplicate, summarize

    class Periodic(BaseCallback):
        """Metrics every rollout; league, evaluation and checkpoints when their step comes."""

        def __init__(self):
            super().__init__()
            self.eps: list[tuple[str, float, float, float]] = []  # opponent, score, margin, win
            self.t_start = time.time()
            self.n_start = 0
            self.next_pool = league.get("next_pool")
            self.next_eval = league.get("next_eval")
            self.next_ckpt = league.get("next_ckpt")
            self.best = league.get("best", -float("inf"))
            self.last_eval: int | None = None
            self.last_print = time.time()

        def _on_training_start(self) -> None:
            n = self.model.num_timesteps
            self.n_start = n
            self.t_start = time.time()
            if self.next_pool is None:
                self.next_pool = (
                    max(args.selfplay_start, args.selfplay_every) if args.selfplay_every else None
                )
            if self.next_eval is None:
                self.next_eval = n + args.eval_every if args.eval_every else None
            if self.next_ckpt is None:
                self.next_ckpt = n + args.checkpoint_every if args.checkpoint_every else None
            if args.eval_every and args.eval_at_start and n == 0:
                self._evaluate(0)  # the starting point of the curve (the imitation policy, if any)

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done and "score" in info:
                    opp = "+".join(info.get("opponents", ["?"]))
                    self.eps.append((opp, info["score"], info["margin"], float(info["is_success"])))
            return True

        def _on_rollout_end(self) -> None:
            lg = self.logger
            n = self.model.num_timesteps
            if self.eps:
                lg.record("charts/episode_score", float(np.mean([e[1] for e in self.eps])))
                lg.record("charts/episode_margin", float(np.mean([e[2] for e in self.eps])))
                lg.record("charts/win_rate", float(np.mean([e[3] for e in self.eps])))
                lg.record("charts/episodes", len(self.eps))
                by: dict[str, list[float]] = {}
                for e in self.eps:
                    key = "selfplay" if e[0].startswith("step_") else e[0]
                    by.setdefault(key, []).append(e[3])
                for k, v in by.items():
                    lg.record(f"charts/win_rate_vs/{k}", float(np.mean(v)))
                self.eps = []
            dt = time.time() - self.t_start
            sps = (n - self.n_start) / max(dt, 1e-9)
            lg.record("charts/sps", sps)
            if args.verbose and time.time() - self.last_print >= 60:
                self.last_print = time.time()
                left = max(0, args.total_timesteps - n) / max(sps, 1e-9)
                print(
                    f"[ppo] step {n:,}/{args.total_timesteps:,} ({100 * n / max(1, args.total_timesteps):.1f}%), "
                    f"{sps:.0f} steps/s, ETA {_duration(left)} (evaluations not included)",
                    flush=True,
                )
            lg.record(
                "charts/wall_minutes",
                (time.time() - league["t0"] + league.get("wall_before", 0.0)) / 60,
            )
            # the previous update's losses (SB3 dumps them at the next rollout) under losses/
            for k, v in list(lg.name_to_value.items()):
                if k.startswith("train/"):
                    lg.record("losses/" + k[6:], v)
            if "train/entropy_loss" in lg.name_to_value:
                lg.record("losses/entropy", -lg.name_to_value["train/entropy_loss"])
            if self.next_pool is not None and n >= self.next_pool:
                self._add_snapshot(n)
                self.next_pool = n + args.selfplay_every
            if self.next_eval is not None and n >= self.next_eval:
                self._evaluate(n)
                self.next_eval = n + args.eval_every
            if self.next_ckpt is not None and n >= self.next_ckpt:
                self._checkpoint(n)
                self.next_ckpt = n + args.checkpoint_every

        def _on_training_end(self) -> None:
            n = self.model.num_timesteps
            if (
                args.eval_every and self.last_eval != n
            ):  # the final model is a candidate for best too
                self._evaluate(n)
                self.logger.dump(n)

        def _add_snapshot(self, n: int) -> None:
            name = f"step_{n}"
            path = save_numpy_policy(self.model.policy, run_dir / "pool" / f"{name}.npz")
            self.training_env.env_method("add_opponent", name, PolicySnapshot(path, name))
            league["pool"] = ([*league["pool"], [name, str(path)]])[-args.pool_size :]
            self.logger.record("charts/pool_size", len(league["pool"]))
            if args.verbose:
                print(
                    f"[league] {name} joined the pool ({len(league['pool'])} snapshots)", flush=True
                )

        def _evaluate(self, n: int) -> None:
            self.last_eval = n
            t = time.time()
            line = []
            kw = rule_overrides(args.rules)
            player = NumpyPredictor.of(self.model)  # the policy's deterministic moves, in numpy
            for opp in args.eval_opponents:
                recs = play_duplicate(
                    player,
                    opp,
                    args.eval_deals,
                    args.eval_first_deal,
                    args.preset,
                    args.num_players,
                    kw,
                )
                s = summarize(recs)
                for m in ("margin", "win_rate", "score"):
                    self.logger.record(f"eval/{opp}/{m}", s[m]["mean"])
                    self.logger.record(f"eval/{opp}/{m}_ci95", s[m]["ci95"])
                line.append(
                    f"{opp}: margin {s['margin']['mean']:+.2f}±{s['margin']['ci95']:.2f} "
                    f"win {s['win_rate']['mean']:.3f}"
                )
                if opp == args.best_by and s["margin"]["mean"] > self.best:
                    self.best = s["margin"]["mean"]
                    league["best"] = self.best
                    self.model.save(run_dir / "best_model.zip")
            self.logger.record("eval/seconds", time.time() - t)
            league.setdefault("evals", []).append({"step": n, "line": line})
            if args.verbose:
                print(
                    f"[eval] step {n}: " + "; ".join(line) + f" ({time.time() - t:.0f}s)",
                    flush=True,
                )

        def save_with_league(self, path: Path, next_ckpt: int | None) -> None:
            """The model plus a ``.json`` of the league state beside it (what ``--resume`` reads)."""
            path.parent.mkdir(parents=True, exist_ok=True)
            self.model.save(path)
            state = {
                **league,
                "next_pool": self.next_pool,
                "next_eval": self.next_eval,
                "next_ckpt": next_ckpt,
                "best": self.best,
                "wall_before": time.time() - league["t0"] + league.get("wall_before", 0.0),
            }
            state.pop("t0", None)
            path.with_suffix(".json").write_text(json.dumps(state, indent=1))

        def _checkpoint(self, n: int) -> None:
            path = run_dir / "checkpoints" / f"step_{n}.zip"
            self.save_with_league(path, n + args.checkpoint_every)
            if args.verbose:
                print(f"[checkpoint] {path}", flush=True)

    return Periodic()


# ------------------------------------------------------------------ imitation
class _SparseBuffer:
    """Labelled decisions for DAgger, observations and masks stored sparse (they are ~97% zeros)."""

    def __init__(self, n_obs: int, n_act: int):
        self.n_obs, self.n_act = n_obs, n_act
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.size = 0

    _KEYS = ("orow", "ocol", "oval", "mrow", "mcol", "labels", "returns", "valid")

    @staticmethod
    def encode(
        obs: np.ndarray,
        masks: np.ndarray,
        labels: np.ndarray,
        returns: np.ndarray,
        valid: np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        """Dense rows -> the sparse arrays of one part (what :meth:`from_parts` reads back)."""
        r, c = np.nonzero(obs)
        mr, mc = np.nonzero(masks)
        n = len(obs)
        return {
            "orow": np.bincount(r, minlength=n),
            "ocol": c.astype(np.int32),
            "oval": obs[r, c].astype(np.float32),
            "mrow": np.bincount(mr, minlength=n),
            "mcol": mc.astype(np.int32),
            "labels": labels.astype(np.int64),
            "returns": returns.astype(np.float32),
            "valid": (np.ones(n) if valid is None else valid).astype(np.float32),
        }

    @classmethod
    def from_parts(cls, parts: list[dict[str, np.ndarray]], n_obs: int = 0, n_act: int = 0):
        """A buffer holding the rows of ``parts`` (each from :meth:`encode`), in order."""
        buf = cls(n_obs, n_act)
        buf.parts = [tuple(p[k] for k in cls._KEYS) for p in parts]
        buf._index()
        return buf

    def add(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        labels: np.ndarray,
        returns: np.ndarray,
        valid: np.ndarray,
    ) -> None:
        part = self.encode(obs, masks, labels, returns, valid)
        self.parts.append(tuple(part[k] for k in self._KEYS))
        self._index()

    def _index(self) -> None:
        cat = [np.concatenate([p[k] for p in self.parts]) for k in range(8)]
        self.size = len(cat[5])
        self.optr = np.concatenate([[0], np.cumsum(cat[0])])
        self.ocol, self.oval = cat[1], cat[2]
        self.mptr = np.concatenate([[0], np.cumsum(cat[3])])
        self.mcol, self.labels, self.returns, self.valid = cat[4], cat[5], cat[6], cat[7]

    @staticmethod
    def _gather(ptr: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lengths = ptr[idx + 1] - ptr[idx]
        rows = np.repeat(np.arange(len(idx)), lengths)
        pos = (
            np.arange(lengths.sum())
            - np.repeat(np.cumsum(lengths) - lengths, lengths)
            + np.repeat(ptr[idx], lengths)
        )
        return rows, pos

    def batch(self, idx: np.ndarray) -> tuple[np.ndarray, ...]:
        obs = np.zeros((len(idx), self.n_obs), np.float32)
        rows, pos = self._gather(self.optr, idx)
        obs[rows, self.ocol[pos]] = self.oval[pos]
        masks = np.zeros((len(idx), self.n_act), bool)
        rows, pos = self._gather(self.mptr, idx)
        masks[rows, self.mcol[pos]] = True
        return obs, masks, self.labels[idx], self.returns[idx], self.valid[idx]


def imitate(model, venv, args: Args, rules, logger) -> None:
    """DAgger warm start (see the module docs).

    Each iteration plays ``imitate_batch`` learner decisions (the teacher's move
    with probability ``beta``, falling from 0.5 to 0, else the policy's own),
    labels every one with the teacher's move and adds it to the aggregated
    dataset; then ``imitate_epochs`` x (batch / minibatch) minibatches drawn from
    the whole dataset train the policy (masked cross-entropy) and the value head
    (discounted return of the episode). ``imitate_final_epochs`` full passes
    over the dataset, the learning rate falling to a tenth, end it.
    """
    import torch as th
    from sb3_contrib.common.maskable.utils import get_action_masks

    import agents

    teacher = agents.make(args.imitate, rules, 0)
    from rummy_env.observation import ObsLayout

    n_base = ObsLayout(rules).size  # the teacher reads the observation without appended features
    policy = model.policy
    opt = th.optim.Adam(policy.parameters(), lr=args.imitate_lr)
    n_envs = venv.num_envs
    obs = venv.reset()
    buf = _SparseBuffer(obs.shape[1], policy.action_space.n)
    rng = np.random.default_rng(args.seed)
    n_iters = max(1, -(-args.imitate_steps // args.imitate_batch))
    t0 = time.time()

    def update(idx: np.ndarray) -> float:
        o, m, a, ret, val = buf.batch(idx)
        o_t, a_t, ret_t, val_t = (th.as_tensor(x) for x in (o, a, ret, val))
        values, logp, _ = policy.evaluate_actions(o_t, a_t, action_masks=m)
        pol_loss = -logp.mean()
        v_loss = ((values.flatten() - ret_t) ** 2 * val_t).sum() / val_t.sum().clamp(min=1)
        opt.zero_grad()
        (pol_loss + args.vf_coef * v_loss).backward()
        th.nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
        opt.step()
        return pol_loss.item()

    for it in range(n_iters):
        beta = max(0.0, 1.0 - it / max(1, n_iters - 1)) * 0.5  # share of teacher moves, 0.5 -> 0
        T = max(1, args.imitate_batch // n_envs)
        Ob = np.zeros((T, n_envs, obs.shape[1]), np.float32)
        M = np.zeros((T, n_envs, policy.action_space.n), bool)
        A = np.zeros((T, n_envs), np.int64)
        P = np.zeros((T, n_envs), np.int64)
        R = np.zeros((T, n_envs), np.float32)
        D = np.zeros((T, n_envs), bool)
        for t in range(T):
            masks = get_action_masks(venv)
            labels = np.array(
                [teacher.act(obs[i, :n_base], masks[i].astype(np.int8)) for i in range(n_envs)]
            )
            with th.no_grad():
                own, _ = policy.predict(obs, action_masks=masks, deterministic=False)
                greedy_own, _ = policy.predict(obs, action_masks=masks, deterministic=True)
            acts = np.where(rng.random(n_envs) < beta, labels, own)
            Ob[t], M[t], A[t], P[t] = obs, masks, labels, greedy_own
            obs, rew, dones, _ = venv.step(acts)
            R[t], D[t] = rew, dones
        # discounted returns inside the batch; steps of an episode unfinished at its end get no value target
        G = np.zeros_like(R)
        valid = np.zeros_like(D)
        g = np.zeros(n_envs, np.float32)
        seen_end = np.zeros(n_envs, bool)
        for t in reversed(range(T)):
            g = np.where(D[t], 0.0, g * args.gamma) + R[t]
            seen_end |= D[t]
            G[t], valid[t] = g, seen_end
        acc = float(
            (P == A).mean()
        )  # the policy's own move on fresh states, before training on them
        N = T * n_envs
        buf.add(
            Ob.reshape(N, -1), M.reshape(N, -1), A.reshape(-1), G.reshape(-1), valid.reshape(-1)
        )
        policy.set_training_mode(True)
        losses = [
            update(rng.integers(0, buf.size, args.batch_size))
            for _ in range(args.imitate_epochs * max(1, N // args.batch_size))
        ]
        policy.set_training_mode(False)
        logger.record("imitation/steps", buf.size)
        logger.record("imitation/policy_loss", float(np.mean(losses)))
        logger.record("imitation/accuracy", acc)
        logger.record("imitation/teacher_share", beta)
        logger.dump(buf.size)
        if args.verbose:
            print(
                f"[imitate] {buf.size}/{args.imitate_steps} decisions, accuracy on new states {acc:.3f}, "
                f"teacher share {beta:.2f}, loss {np.mean(losses):.3f}, {time.time() - t0:.0f}s",
                flush=True,
            )
    # final passes over the whole dataset
    policy.set_training_mode(True)
    n_mb = max(1, buf.size // args.batch_size)
    total = args.imitate_final_epochs * n_mb
    for e in range(args.imitate_final_epochs):
        perm = rng.permutation(buf.size)
        losses = []
        for k in range(n_mb):
            frac = (e * n_mb + k) / max(1, total)
            for group in opt.param_groups:
                group["lr"] = args.imitate_lr * (1.0 - 0.9 * frac)
            losses.append(update(perm[k * args.batch_size : (k + 1) * args.batch_size]))
        if args.verbose:
            print(
                f"[imitate] final epoch {e + 1}/{args.imitate_final_epochs}: loss {np.mean(losses):.3f}, "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
    policy.set_training_mode(False)


# ----------------------------------------------------------------------- main
def train(args: Args) -> Path:
    """Run the training described by ``args``; returns the run directory."""
    import torch as th
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from rummy_env.rules import make_rules

    random.seed(args.seed)
    np.random.seed(args.seed)
    th.manual_seed(args.seed)
    th.set_num_threads(args.torch_threads)
    th.distributions.Distribution.set_default_validate_args(False)  # masked 1000+-way categoricals

    rules = make_rules(args.preset, args.num_players, **rule_overrides(args.rules))
    league: dict[str, Any] = {"pool": [], "t0": time.time()}
    if args.resume:
        ckpt, run_dir, state = read_resume(args.resume, rules)
        args.resume = str(ckpt)
        league.update(state)
        league["t0"] = time.time()
    else:
        name = (
            args.run_name
            or f"{args.preset}-{args.num_players}p__{args.exp_name}__{args.seed}__{int(time.time())}"
        )
        run_dir = Path(args.run_dir) / name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=1))

    venv = make_vec_env(args)
    venv.seed(args.seed)
    csv = run_dir / "progress.csv"
    if args.resume and csv.exists():  # SB3's CSV writer truncates: keep the earlier part
        csv.rename(run_dir / f"progress_before_{Path(args.resume).stem}.csv")
    logger = configure(
        str(run_dir), ["csv", "tensorboard"] + (["stdout"] if args.verbose > 1 else [])
    )
    lr: Any = args.learning_rate
    if args.anneal_lr:
        lr = lambda frac, lr0=args.learning_rate: lr0 * frac  # noqa: E731
    if args.resume:
        from stable_baselines3.common.utils import ConstantSchedule, FloatSchedule

        from agents.model_io import load_ppo

        # nothing in the checkpoint is unpickled (agents.model_io); the schedules come from args
        model = load_ppo(
            args.resume,
            env=venv,
            overrides={
                "learning_rate": lr,
                "clip_range": FloatSchedule(ConstantSchedule(args.clip_range)),
            },
        )
        model._setup_lr_schedule()
        venv.seed(args.seed + model.num_timesteps)  # fresh deals, not the first ones again
        from agents.ppo_agent import PolicySnapshot

        for name, path in league.get("pool", []):
            venv.env_method("add_opponent", name, PolicySnapshot(path, name))
    else:
        from agents.ppo_net import ResidualPolicy

        residual = bool(args.features and "variant" in args.features)
        model = MaskablePPO(
            ResidualPolicy if residual else "MlpPolicy",
            venv,
            learning_rate=lr,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            target_kl=args.target_kl,
            policy_kwargs=policy_kwargs(args, rules),
            seed=args.seed,
            device="cpu",
            verbose=0,
        )
    model.set_logger(logger)
    _write_hparams(logger, args)
    if args.verbose:
        print(
            f"[train] run {run_dir} | {venv.num_envs} envs ({args.vec_env}) | "
            f"obs {model.observation_space.shape[0]} actions {model.action_space.n} | "
            f"params {sum(p.numel() for p in model.policy.parameters()):,}",
            flush=True,
        )
    if args.imitate and args.imitate_steps and not args.resume:
        imitate(model, venv, args, rules, logger)
        model.save(run_dir / "imitation_model.zip")
    callback = _callbacks(args, run_dir, league)
    remaining = max(0, args.total_timesteps - model.num_timesteps)
    t0 = time.time()
    model.learn(
        remaining, callback=callback, reset_num_timesteps=not args.resume, progress_bar=False
    )
    final = run_dir / "final_model.zip"
    callback.save_with_league(
        final, callback.next_ckpt
    )  # --resume final_model.zip continues the league
    if args.verbose:
        print(
            f"[train] done: {model.num_timesteps} steps, {time.time() - t0:.0f}s of PPO, saved {final}",
            flush=True,
        )
    best = run_dir / "best_model.zip"
    shipped = model
    if args.ship_best and best.exists():
        from agents.model_io import load_ppo

        shipped = load_ppo(best)
        if args.verbose:
            print(
                f"[train] model.npz is {best} (step {shipped.num_timesteps}, best eval margin "
                f"against {args.best_by})",
                flush=True,
            )
    wall = time.time() - league["t0"] + league.get("wall_before", 0.0)
    for path in [run_dir / "model.npz", *([Path(args.save_path)] if args.save_path else [])]:
        ship(shipped, args, path, run_dir, wall)
    venv.close()
    return run_dir


def ship(model, args: Args, path: Path, run_dir: Path, wall: float) -> None:
    """Write the policy as a ``.npz`` (weights + JSON metadata, loads without pickles or
    torch: :mod:`agents.model_io`) plus a JSON card beside it."""
    from agents.ppo_agent import save_numpy_policy

    path = path.with_suffix(".npz")
    save_numpy_policy(model.policy, path)
    card = {
        "preset": args.preset,
        "num_players": args.num_players,
        "rules": rule_overrides(args.rules),
        "timesteps": int(model.num_timesteps),
        "imitation_steps": args.imitate_steps if args.imitate else 0,
        "run": run_dir.name,
        "wall_seconds": round(wall),
        "config": args.config,
        "command": " ".join(["rummy-train", *sys.argv[1:]]),
    }
    path.with_suffix(".json").write_text(json.dumps(card, indent=1))
    if args.verbose:
        print(
            f"[train] wrote {path} ({path.stat().st_size / 1e6:.1f} MB) and its card {path.with_suffix('.json')}",
            flush=True,
        )


def _write_hparams(logger, args: Args) -> None:
    """The hyperparameter table as TensorBoard text (CleanRL's ``hyperparameters``)."""
    rows = "\n".join(f"|{k}|{v}|" for k, v in asdict(args).items())
    try:
        from stable_baselines3.common.logger import TensorBoardOutputFormat

        for fmt in logger.output_formats:
            if isinstance(fmt, TensorBoardOutputFormat):
                fmt.writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + rows)
                fmt.writer.flush()
    except Exception:  # pragma: no cover - logging only
        pass


def check_args(args: Args) -> None:
    """What ``train`` would refuse, checked before anything starts: the rules, the network
    options and the ``--resume`` state (:func:`read_resume`; its model loaded, unpickling
    nothing).

    Raises:
        ValueError: naming the problem.
    """
    from rummy_env.rules import make_rules

    rules = make_rules(args.preset, args.num_players, **rule_overrides(args.rules))
    if args.vec_env not in ("subproc", "dummy"):
        raise ValueError(f"vec_env={args.vec_env!r} is not allowed (allowed: 'subproc', 'dummy')")
    policy_kwargs(args, rules)
    opponent_weights(args.opponents)
    if args.resume:
        from agents.model_io import load_ppo

        ckpt, _, _ = read_resume(args.resume, rules)
        load_ppo(ckpt)


def parse_checked(prog: str, parse: Any, check: Any, argv: list[str] | None) -> Any:
    """``parse(argv)``, then ``check`` it; bad input (a ValueError or OSError) prints one
    line naming the problem and exits with status 2."""
    try:
        args = parse(argv)
        check(args)
        return args
    except (ValueError, OSError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str] | None = None) -> None:
    train(parse_checked("rummy-train", parse_args, check_args, argv))


if __name__ == "__main__":
    main()
