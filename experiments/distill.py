"""Search distillation: a network learns the moves of ``search`` (expert iteration, one step).

```bash
python -m experiments.distill --config experiments/configs/distill/basic-2p.toml            # collect, then fit
python -m experiments.distill --config experiments/configs/distill/basic-2p.toml --stage fit
python -m experiments.learning_curve --run runs/basic-2p-distill__s1 --opponents greedy variant
```

Two stages, both resumable after a kill (rerun the same command):

1. **collect**: ``games`` games in which every seat is played by the teacher
   (``search``: determinized rollouts around the preset's rule-based agent, which
   it leaves only where a rollout gain is clear). At every decision with more
   than one legal move the collector records the network's input (the
   observation plus the ``features`` map, the same map
   :class:`agents.ppo_agent.PPOAgent` computes at play time), the legal mask,
   the teacher's move, and at the end of the round the deciding seat's margin
   (own score minus the others' mean, / ``reward_scale``) as the value target;
   for a searching teacher also the candidates it compared and each one's mean
   return over its determinizations (``cands``, ``values``: -1 / NaN where it did
   not search), for value-based students.
   Games are written in shards of ``shard_games`` (``<run>/data/shard_K.npz``,
   sparse, written atomically); a rerun continues at the first missing shard.
   Deal ``first_deal + g`` for game ``g``: 10,000,000 and up by default, apart
   from the tournament's deals (0 and up), the PPO trainer's evaluation
   (1,000,000 and up) and the learning curve's held-out deals (2,000,000 and up).
2. **fit**: a residual policy (:class:`agents.ppo_net.ResidualPolicy`: the
   rule-based agent's move one-hot is added to the logits, so the untrained
   network plays exactly that agent's moves) is trained by masked cross-entropy
   on the teacher's moves and squared error on the value targets, for ``epochs``
   passes over the data. Each epoch's model is a checkpoint
   (``<run>/checkpoints/step_N.zip``, N = decisions trained on so far; the
   untrained model is ``imitation_model.zip``, step 0), so
   :mod:`experiments.learning_curve` draws the curve on held-out deals. The last
   epoch's policy is written as ``<run>/model.npz`` with its card.

Progress lines with an ETA go to stdout, losses and accuracies to TensorBoard
(``<run>/``).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from experiments.runs import RunArgs


@dataclass
class Args(RunArgs):
    exp_name: str = "distill"
    """name of this experiment; the run directory is <run_dir>/<exp_name>__s<seed>"""
    stage: str = "all"
    """collect, fit or all (collect then fit)"""

    # ---- game
    reward_scale: float = 100.0
    """divisor of the margin for the value targets"""

    # ---- collection
    teacher: str = "search"
    """agent spec of the teacher (registry name with options, e.g. search:simulations=96)"""
    games: int = 2000
    """games to collect"""
    shard_games: int = 50
    """games per data shard (the unit of resumption)"""
    first_deal: int = 10_000_000
    """deal of game 0"""

    # ---- network (as in experiments.train_ppo)
    features: str = "hand+variant"
    """input features (agents.features): a residual policy needs variant or hand+variant"""
    features_dim: int = 512
    """units of the shared first layer"""
    net_arch: list[int] = field(default_factory=lambda: [256])
    """hidden layers of the policy and value heads"""
    activation: str = "relu"
    """relu or tanh"""

    # ---- fit
    epochs: int = 8
    """passes over the collected data"""
    batch_size: int = 1024
    """minibatch size"""
    learning_rate: float = 3e-4
    """Adam learning rate (falls linearly to a tenth over the epochs)"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    deviation_weight: float = 1.0
    """weight of the decisions where the teacher left the rule-based agent's move (the
    residual input's one-hot) in the policy loss; the others weigh 1"""
    holdout: float = 0.05
    """share of the games kept out of the fit to report accuracy on"""
    torch_threads: int = 1
    """torch intra-op threads"""
    verbose: int = 1
    """print progress lines"""


def parse_args(argv: list[str] | None = None) -> Args:
    """CLI flags over the ``--config`` file over the defaults."""
    from experiments.train_ppo import parse_cli

    args = parse_cli(Args, argv, __doc__.splitlines()[0])
    if args.stage not in ("collect", "fit", "all"):
        raise ValueError(f"stage={args.stage!r} is not allowed (allowed: collect, fit, all)")
    return args


def _eta(done: int, total: int, elapsed: float) -> str:
    from experiments.train_ppo import _duration

    left = elapsed / max(done, 1) * (total - done)
    return f"{done}/{total}, {_duration(elapsed)} elapsed, ETA {_duration(left)}"


# ------------------------------------------------------------------ collect
#: candidates kept per decision (the search agent's default: 4 and a knock, or every draw)
MAX_CANDS = 8


def play_game(args: Args, rules, deal: int) -> dict[str, np.ndarray]:
    """One game with the teacher in every seat; the decisions' rows (module docs)."""
    import agents
    import rummy_env
    from agents.features import make_features

    env = rummy_env.env(args.preset, args.num_players, **args.overrides())
    env.reset(seed=deal)
    names = list(env.possible_agents)
    teachers = {a: agents.make(args.teacher, rules, i) for i, a in enumerate(names)}
    feats = {a: make_features(args.features, rules) for a in names}
    for i, a in enumerate(names):
        teachers[a].reset(seed=deal * 16 + i)
    xs, masks, labels, seats, cands, values = [], [], [], [], [], []
    total = dict.fromkeys(names, 0.0)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o, m = obs["observation"], obs["action_mask"]
        x = feats[name].augment(o, m) if feats[name] is not None else o
        teacher = teachers[name]
        if hasattr(teacher, "last_search"):
            teacher.last_search = None
        a = teacher.act(o, m)
        if int(m.sum()) > 1:
            xs.append(x)
            masks.append(m.astype(bool))
            labels.append(a)
            seats.append(names.index(name))
            # a searching teacher's candidates and their mean returns (-1 / NaN: not searched)
            found = getattr(teacher, "last_search", None)
            c, q = ([], []) if found is None else found
            cands.append((list(c) + [-1] * MAX_CANDS)[:MAX_CANDS])
            values.append((list(q) + [np.nan] * MAX_CANDS)[:MAX_CANDS])
        env.step(a)
        for k, r in env.rewards.items():
            total[k] += r
    score = np.array([total[a] for a in names], np.float64)
    n = len(names)
    margin = (score * n - score.sum()) / max(n - 1, 1) / args.reward_scale  # own - others' mean
    seats_a = np.array(seats, np.int64)
    return {
        "x": np.array(xs, np.float32),
        "mask": np.array(masks, bool),
        "label": np.array(labels, np.int64),
        "ret": margin[seats_a].astype(np.float32),
        "seat": seats_a,
        "cands": np.array(cands, np.int32).reshape(-1, MAX_CANDS),
        "values": np.array(values, np.float32).reshape(-1, MAX_CANDS),
    }


def shard_path(args: Args, k: int) -> Path:
    return args.run / "data" / f"shard_{k:05d}.npz"


def collect(args: Args) -> None:
    """Write the missing shards (module docs)."""
    from experiments.train_ppo import _SparseBuffer

    rules = args.make_rules()
    n_shards = -(-args.games // args.shard_games)
    todo = [k for k in range(n_shards) if not shard_path(args, k).exists()]
    shard_path(args, 0).parent.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for done, k in enumerate(todo, 1):
        games = range(k * args.shard_games, min((k + 1) * args.shard_games, args.games))
        rows = [play_game(args, rules, args.first_deal + g) for g in games]
        cat = {key: np.concatenate([r[key] for r in rows]) for key in rows[0]}
        game_of = np.concatenate([np.full(len(r["label"]), g) for g, r in zip(games, rows)])
        part = _SparseBuffer.encode(cat["x"], cat["mask"], cat["label"], cat["ret"])
        tmp = shard_path(args, k).with_suffix(".tmp.npz")
        np.savez_compressed(
            tmp,
            **part,
            seat=cat["seat"],
            cands=cat["cands"],
            values=cat["values"],
            game=game_of,
            shape=np.array(cat["x"].shape[1:] + cat["mask"].shape[1:]),
        )
        tmp.rename(shard_path(args, k))
        if args.verbose:
            print(
                f"[collect] shard {k} ({len(cat['label'])} decisions) | shards {_eta(done, len(todo), time.time() - t0)}",
                flush=True,
            )


# ---------------------------------------------------------------------- fit
def load_data(args: Args):
    """All shards as one sparse buffer, plus each row's game number."""
    from experiments.train_ppo import _SparseBuffer

    n_shards = -(-args.games // args.shard_games)
    missing = [k for k in range(n_shards) if not shard_path(args, k).exists()]
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} of {n_shards} shards are not collected yet "
            f"(first: {shard_path(args, missing[0])}); run --stage collect"
        )
    games = []
    parts = []
    for k in range(n_shards):
        with np.load(shard_path(args, k), allow_pickle=False) as z:
            parts.append({key: z[key] for key in z.files})
            games.append(parts[-1]["game"])
    n_obs, n_act = (int(v) for v in parts[0]["shape"])
    buf = _SparseBuffer.from_parts(parts, n_obs, n_act)
    return buf, np.concatenate(games)


def _model(args: Args, rules):
    """A fresh residual MaskablePPO model (spaces from a one-env vector env)."""
    from sb3_contrib import MaskablePPO

    from agents.ppo_net import ResidualPolicy
    from experiments import train_ppo

    targs = train_ppo.Args(
        seed=args.seed,
        preset=args.preset,
        num_players=args.num_players,
        rules=list(args.rules),
        features=args.features,
        features_dim=args.features_dim,
        net_arch=list(args.net_arch),
        activation=args.activation,
        n_envs=1,
        vec_env="dummy",
        opponents=["random=1"],
    )
    venv = train_ppo.make_vec_env(targs)
    model = MaskablePPO(
        ResidualPolicy,
        venv,
        learning_rate=args.learning_rate,
        policy_kwargs=train_ppo.policy_kwargs(targs, rules),
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    return model, venv


def fit(args: Args) -> Path:
    """Train on the collected data, one checkpoint per epoch (module docs)."""
    import torch as th
    from stable_baselines3.common.logger import configure

    from agents.model_io import load_ppo
    from experiments.learning_curve import checkpoints

    th.manual_seed(args.seed)
    th.set_num_threads(args.torch_threads)
    th.distributions.Distribution.set_default_validate_args(False)
    rules = args.make_rules()
    run = args.run
    (run / "checkpoints").mkdir(parents=True, exist_ok=True)
    buf, game = load_data(args)
    rng = np.random.default_rng(args.seed)
    n_hold = max(1, int(args.games * args.holdout))
    held = game >= args.games - n_hold  # the last games: accuracy on games not trained on
    train_idx, test_idx = np.flatnonzero(~held), np.flatnonzero(held)
    per_epoch = len(train_idx)
    model, venv = _model(args, rules)
    if not (run / "imitation_model.zip").exists():
        model.save(run / "imitation_model.zip")
    done = [s for s, _, p in checkpoints(run) if p.parent.name == "checkpoints"]
    epoch0 = len(done)
    if epoch0:
        model = load_ppo(run / "checkpoints" / f"step_{done[-1]}.zip", env=venv)
    policy = model.policy
    assert policy.share_features_extractor  # losses() runs the shared extractor once
    opt = th.optim.Adam(policy.parameters(), lr=args.learning_rate)
    opt_path = run / "checkpoints" / "optimizer.pt"
    if epoch0 and opt_path.exists():
        opt.load_state_dict(th.load(opt_path, weights_only=True))
    logger = configure(str(run), ["csv", "tensorboard"])
    (run / "args.json").write_text(json.dumps(asdict(args), indent=1))

    n_act = buf.n_act
    residual = "variant" in (args.features or "")

    def losses(idx: np.ndarray, train: bool) -> tuple[float, ...]:
        """Policy loss, value loss, accuracy; and counts for the deviation metrics: the
        teacher's deviations from the rule-based move, those the policy plays, the teacher's
        agreements, and those where the policy deviates anyway."""
        o, m, a, ret, _ = buf.batch(idx)
        o_t, a_t, ret_t = (th.as_tensor(x) for x in (o, a, ret))
        expert = o[:, -n_act:].argmax(1) if residual else a
        dev = th.as_tensor(expert != a)
        w = 1.0 + (args.deviation_weight - 1.0) * dev.float()
        with th.set_grad_enabled(train):
            # one forward pass for the values and the masked distribution (as evaluate_actions)
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(o_t))
            dist = policy.action_dist.proba_distribution(action_logits=policy.action_net(latent_pi))
            dist.apply_masking(m)
            values = policy.value_net(latent_vf)
            logp = dist.log_prob(a_t)
            pol = -(w * logp).sum() / w.sum()
            val = ((values.flatten() - ret_t) ** 2).mean()
            if train:
                opt.zero_grad()
                (pol + args.vf_coef * val).backward()
                th.nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
                opt.step()
        pred = dist.distribution.probs.argmax(1).numpy()
        acc = float((pred == a).mean())
        devs = expert != a
        return (
            pol.item(),
            val.item(),
            acc,
            float(devs.sum()),
            float((devs & (pred == a)).sum()),
            float((~devs).sum()),
            float((~devs & (pred != expert)).sum()),
        )

    def evaluate() -> tuple[float, ...]:
        """Held-out policy loss, value loss, accuracy, the share of the teacher's deviations
        the policy plays (recall) and the share of agreements where it deviates anyway."""
        policy.set_training_mode(False)
        out = [losses(test_idx[i : i + 4096], False) for i in range(0, len(test_idx), 4096)]
        if not out:
            return 0.0, 0.0, 0.0, 0.0, 0.0
        mean = [float(np.mean(c)) for c in zip(*out)][:3]
        tot = [sum(c) for c in zip(*out)][3:]
        return (*mean, tot[1] / max(tot[0], 1), tot[3] / max(tot[2], 1))

    if args.verbose:
        print(
            f"[fit] {run}: {per_epoch} training decisions, {len(test_idx)} held out "
            f"({n_hold} games); epoch {epoch0}/{args.epochs}",
            flush=True,
        )
    if epoch0 == 0:
        pol, val, acc, recall, false_dev = evaluate()
        logger.record("fit/held_out_accuracy", acc)
        logger.record("fit/held_out_policy_loss", pol)
        logger.record("fit/held_out_deviation_recall", recall)
        logger.record("fit/held_out_false_deviations", false_dev)
        logger.dump(0)
        if args.verbose:
            print(
                f"[fit] untrained: held-out accuracy {acc:.4f} loss {pol:.4f} deviations "
                f"played {recall:.3f} false {false_dev:.4f}",
                flush=True,
            )
    t0 = time.time()
    n_mb = max(1, per_epoch // args.batch_size)
    for epoch in range(epoch0, args.epochs):
        policy.set_training_mode(True)
        perm = rng.permutation(train_idx)
        stats = []
        for k in range(n_mb):
            frac = (epoch * n_mb + k) / max(1, args.epochs * n_mb)
            for group in opt.param_groups:
                group["lr"] = args.learning_rate * (1.0 - 0.9 * frac)
            stats.append(losses(perm[k * args.batch_size : (k + 1) * args.batch_size], True))
        pol, val, acc, recall, false_dev = evaluate()
        step = (epoch + 1) * per_epoch
        model.num_timesteps = step
        model.save(run / "checkpoints" / f"step_{step}.zip")
        th.save(opt.state_dict(), opt_path)
        tr = [float(np.mean(c)) for c in zip(*stats)]
        for key, v in (
            ("fit/policy_loss", tr[0]),
            ("fit/value_loss", tr[1]),
            ("fit/accuracy", tr[2]),
            ("fit/held_out_policy_loss", pol),
            ("fit/held_out_value_loss", val),
            ("fit/held_out_accuracy", acc),
            ("fit/held_out_deviation_recall", recall),
            ("fit/held_out_false_deviations", false_dev),
        ):
            logger.record(key, v)
        logger.dump(step)
        if args.verbose:
            print(
                f"[fit] epoch {epoch + 1}: train loss {tr[0]:.4f} acc {tr[2]:.4f} | held-out loss "
                f"{pol:.4f} acc {acc:.4f} value {val:.4f} deviations played {recall:.3f} "
                f"false {false_dev:.4f} | epochs "
                f"{_eta(epoch + 1 - epoch0, args.epochs - epoch0, time.time() - t0)}",
                flush=True,
            )
    from agents.ppo_agent import save_numpy_policy

    save_numpy_policy(policy, run / "model.npz")
    card = {
        "preset": args.preset,
        "num_players": args.num_players,
        "rules": args.overrides(),
        "method": f"distillation of {args.teacher}",
        "decisions": int(per_epoch),
        "games": args.games,
        "epochs": args.epochs,
        "run": run.name,
        "config": args.config,
        "command": " ".join(["python -m experiments.distill", *sys.argv[1:]]),
    }
    (run / "model.json").write_text(json.dumps(card, indent=1))
    venv.close()
    return run


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.stage in ("collect", "all"):
        collect(args)
    if args.stage in ("fit", "all"):
        fit(args)


if __name__ == "__main__":
    main()
