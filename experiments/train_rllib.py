"""Self-play PPO on RLlib with action masking: ``rummy-train-rllib``.

```bash
rummy-train-rllib --preset basic --iterations 50                 # local Ray
rummy-train-rllib --preset gin --policies per-seat --ray-address auto   # join a cluster
```

The PettingZoo AEC env (``rummy_env.env``) runs through RLlib's own
``PettingZooEnv`` wrapper (one agent acts per step); its observation dict is
renamed to the ``observations`` / ``action_mask`` pair that RLlib's
action-masking module pattern expects (``ActionMaskingTorchRLModule``: the
mask turns illegal logits to -inf before sampling, in exploration, inference
and the loss). ``--policies shared`` trains one policy that every seat plays
(self-play); ``per-seat`` one policy per seat. RLlib's environment pre-check
is off: it steps the env with a random action of the whole action space,
which a masked game refuses as illegal.

A run writes under ``runs/<exp_name>__s<seed>/``: ``checkpoints/iter_N``
(``Algorithm.save``; ``--resume`` continues from the newest), ``progress.csv``
and the exported policy ``policy.npz`` (``policy_<seat>.npz`` per seat):
the actor network's weights as plain numpy arrays and JSON metadata, which
``agents.make("rllib:runs/<run>/policy.npz", rules)`` plays without Ray or
torch, so an RLlib-trained agent takes part in ``rummy-tournament``.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments.runs import RunArgs  # noqa: E402


@dataclass
class Args(RunArgs):
    """Self-play PPO on RLlib with action masking (module docs)."""

    exp_name: str = "rllib"
    """run name: the run directory is <run_dir>/<exp_name>__s<seed>"""
    policies: str = "shared"
    """shared (one policy for every seat) or per-seat"""
    iterations: int = 20
    """training iterations (Algorithm.train calls)"""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layers of the actor and critic (tanh)"""
    lr: float = 3e-4
    """learning rate"""
    train_batch_size: int = 4000
    """env steps per iteration"""
    minibatch_size: int = 256
    """SGD minibatch"""
    num_epochs: int = 4
    """passes over each batch"""
    num_env_runners: int = 0
    """remote EnvRunner actors (0: sample in the driver)"""
    ray_address: str | None = None
    """None: a local Ray; 'auto' or host:port: join that cluster"""
    num_cpus: int | None = None
    """CPUs of the local Ray (None: all)"""
    checkpoint_every: int = 10
    """save a checkpoint every this many iterations (and the last)"""
    resume: bool = False
    """continue from the run's newest checkpoint"""


def parse_args(argv: list[str] | None = None) -> Args:
    from experiments.train_ppo import parse_cli

    args = parse_cli(Args, argv, __doc__.splitlines()[0].replace("``", ""))
    if args.policies not in ("shared", "per-seat"):
        raise ValueError(f"policies={args.policies!r} is not allowed (allowed: shared, per-seat)")
    if args.iterations < 1 or args.checkpoint_every < 1:
        raise ValueError("iterations and checkpoint_every must be 1 or more")
    return args


def masked_env_class():
    """RLlib's ``PettingZooEnv`` over the rummy AEC env, observations renamed for the
    action-masking module (built lazily: importing this module does not need Ray)."""
    import gymnasium as gym
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    import rummy_env

    class MaskedRummyEnv(PettingZooEnv):
        def __init__(self, config: dict[str, Any] | None = None):
            c = dict(config or {})
            super().__init__(
                rummy_env.env(c.pop("preset", "basic"), num_players=c.pop("num_players", 2), **c)
            )
            spaces = {}
            for a in self._agent_ids:
                o = self.env.observation_space(a)
                mask = gym.spaces.Box(0.0, 1.0, o["action_mask"].shape, np.float32)
                spaces[a] = gym.spaces.Dict({"action_mask": mask, "observations": o["observation"]})
            self.observation_spaces = spaces
            self.observation_space = gym.spaces.Dict(spaces)

        @staticmethod
        def _rename(o: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            return {
                "action_mask": o["action_mask"].astype(np.float32),
                "observations": o["observation"],
            }

        def reset(self, *, seed=None, options=None):
            obs, info = super().reset(seed=seed, options=options)
            return {k: self._rename(v) for k, v in obs.items()}, info

        def step(self, action):
            obs, rew, term, trunc, info = super().step(action)
            return {k: self._rename(v) for k, v in obs.items()}, rew, term, trunc, info

    return MaskedRummyEnv


def policy_ids(args: Args) -> list[str]:
    return (
        ["shared"] if args.policies == "shared" else [f"seat_{k}" for k in range(args.num_players)]
    )


def build_config(args: Args):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    cls = masked_env_class()
    register_env("rummy-masked", lambda cfg: cls(cfg))
    env_config = {"preset": args.preset, "num_players": args.num_players, **args.overrides()}
    probe = cls(env_config)
    aid = sorted(probe._agent_ids)[0]
    spec = {
        pid: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            observation_space=probe.observation_spaces[aid],
            action_space=probe.action_spaces[aid],
            model_config={"fcnet_hiddens": list(args.hidden), "fcnet_activation": "tanh"},
        )
        for pid in policy_ids(args)
    }
    shared = args.policies == "shared"

    def mapping(agent_id: str, *_a: Any, **_k: Any) -> str:
        return "shared" if shared else f"seat_{agent_id.rsplit('_', 1)[-1]}"

    return (
        PPOConfig()
        .environment("rummy-masked", env_config=env_config, disable_env_checking=True)
        .multi_agent(policies=set(spec), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=spec))
        .env_runners(num_env_runners=args.num_env_runners)
        .training(
            lr=args.lr,
            train_batch_size=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
        )
        .debugging(seed=args.seed)
    )


def export_policy(module: Any, path: Path, meta: dict[str, Any]) -> Path:
    """The actor half of a PPO module as plain arrays (``agents/rllib_agent.py`` reads it):
    ``w0, b0, w1, b1, ...`` (the tanh encoder layers, then the linear logits layer)."""
    sd = {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()}
    enc = sorted(
        (k for k in sd if k.startswith("encoder.actor_encoder.") and k.endswith(".weight")),
        key=lambda k: int(k.split(".")[-2]),
    )
    head = sorted(
        (k for k in sd if k.startswith("pi.") and k.endswith(".weight")),
        key=lambda k: int(k.split(".")[-2]),
    )
    arrays: dict[str, np.ndarray] = {}
    for i, k in enumerate(enc + head):
        arrays[f"w{i}"] = sd[k].astype(np.float32)
        arrays[f"b{i}"] = sd[k[: -len("weight")] + "bias"].astype(np.float32)
    meta = {**meta, "layers": len(enc) + len(head), "activation": "tanh"}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
    return path


def train(args: Args) -> dict[str, Any]:
    """Run the iterations (module docs); the last result's summary."""
    import ray

    from experiments.train_ppo import _duration

    run = args.run
    (run / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run / "args.json").write_text(json.dumps(asdict(args), indent=1))
    if not ray.is_initialized():
        ray.init(
            address=args.ray_address,
            num_cpus=None if args.ray_address else args.num_cpus,
            include_dashboard=False,
            log_to_driver=False,
        )
    algo = build_config(args).build_algo()
    start = 0
    done = sorted(
        (int(p.name.split("_")[1]), p) for p in (run / "checkpoints").glob("iter_*") if p.is_dir()
    )
    if args.resume and done:
        start, path = done[-1]
        algo.restore(str(path.resolve()))
        print(f"[rllib] resumed {run} at iteration {start}", flush=True)
    log = run / "progress.csv"
    summary: dict[str, Any] = {}
    t0 = time.time()
    try:
        for it in range(start, args.iterations):
            res = algo.train()
            runners = res.get("env_runners", {})
            summary = {
                "iteration": it + 1,
                "episodes": runners.get("num_episodes", 0),
                "episode_return_mean": runners.get("episode_return_mean"),
                "env_steps": res.get("num_env_steps_sampled_lifetime"),
                "seconds": round(time.time() - t0, 1),
            }
            new = not log.exists()
            with log.open("a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(summary))
                if new:
                    w.writeheader()
                w.writerow(summary)
            left = (time.time() - t0) / (it + 1 - start) * (args.iterations - it - 1)
            print(
                f"[rllib] iteration {it + 1}/{args.iterations} | episodes {summary['episodes']} "
                f"| return {summary['episode_return_mean']} | ETA {_duration(left)}",
                flush=True,
            )
            if (it + 1) % args.checkpoint_every == 0 or it + 1 == args.iterations:
                algo.save(str((run / "checkpoints" / f"iter_{it + 1}").resolve()))
        meta = {
            "preset": args.preset,
            "num_players": args.num_players,
            "rules": args.rules,
            "iterations": args.iterations,
            "policies": args.policies,
            "run": run.name,
        }
        for pid in policy_ids(args):
            name = "policy.npz" if pid == "shared" else f"policy_{pid.split('_')[1]}.npz"
            export_policy(algo.get_module(pid), run / name, {**meta, "policy": pid})
    finally:
        algo.stop()
    return summary


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    s = train(args)
    print(f"[rllib] done: {s.get('iteration')} iterations; policy in {args.run}")


if __name__ == "__main__":
    main()
