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

Resuming runs no code a user could have planted. RLlib's checkpoints are
pickles (``algorithm_state.pkl`` and others), and unpickling runs whatever
code a crafted file names. So every checkpoint the run writes gets a
manifest beside it, ``checkpoints/iter_N.manifest.json``: the SHA-256 of each
of its files, signed with an HMAC-SHA256 key private to the user
(``$RUMMY_CHECKPOINT_KEY``, or ``~/.config/rummy-env/checkpoint.key``,
created on first use with mode 0600). ``--resume`` takes the newest
checkpoint that has a manifest, checks the signature, reads every file once,
compares its digest and restores from that verified copy. A checkpoint with
a changed, added or missing file, a manifest not signed with this user's key
(a checkpoint from elsewhere), or none at all is refused: the command exits
with status 2 and says why, before Ray starts and before anything is
unpickled. Bad options also exit 2 with one line.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import json
import os
import shutil
import sys
import tempfile
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
    """continue from the run's newest checkpoint whose files match the digests its manifest
    recorded when the run wrote it (signed with this user's key; else exit 2)"""


def parse_args(argv: list[str] | None = None) -> Args:
    from experiments.train_ppo import parse_cli

    args = parse_cli(Args, argv, __doc__.splitlines()[0].replace("``", ""))
    if args.policies not in ("shared", "per-seat"):
        raise ValueError(f"policies={args.policies!r} is not allowed (allowed: shared, per-seat)")
    if args.iterations < 1 or args.checkpoint_every < 1:
        raise ValueError("iterations and checkpoint_every must be 1 or more")
    return args


# ------------------------------------------------------------------ checkpoint manifests
class CheckpointRefused(ValueError):
    """A checkpoint that ``--resume`` will not load (the message says why)."""


def key_path() -> Path:
    """The user's checkpoint signing key (module docs)."""
    env = os.environ.get("RUMMY_CHECKPOINT_KEY")
    if env:
        return Path(env)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "rummy-env" / "checkpoint.key"


def _key(create: bool) -> bytes:
    path = key_path()
    if not path.exists():
        if not create:
            raise CheckpointRefused(
                f"no checkpoint key at {str(path)!r}: this user never wrote a checkpoint here, "
                f"so none can be verified"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(32).hex().encode())
    return path.read_bytes().strip()


def _sign(files: dict[str, str], key: bytes) -> str:
    body = json.dumps(files, sort_keys=True).encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def manifest_path(ckpt: Path) -> Path:
    return ckpt.with_name(ckpt.name + ".manifest.json")


def _files(ckpt: Path) -> list[Path]:
    """The files under ``ckpt``; a link or anything else that is not a file or folder is refused."""
    out = []
    for p in sorted(ckpt.rglob("*")):
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            raise CheckpointRefused(f"checkpoint {str(ckpt)!r}: {str(p)!r} is not a plain file")
        if p.is_file():
            out.append(p)
    return out


def write_manifest(ckpt: Path) -> Path:
    """Record the SHA-256 of every file of the checkpoint folder ``ckpt``, signed (module docs)."""
    files = {
        p.relative_to(ckpt).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in _files(ckpt)
    }
    path = manifest_path(ckpt)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"files": files, "hmac": _sign(files, _key(True))}, indent=1))
    tmp.replace(path)
    return path


def verified_copy(ckpt: Path, dest: Path) -> Path:
    """Copy the checkpoint folder ``ckpt`` into ``dest`` from bytes read once, each checked
    against the signed manifest; ``dest``.

    Raises:
        CheckpointRefused: no manifest, a bad signature, a file changed, added or missing.
    """
    from agents.model_io import open_model

    mpath = manifest_path(ckpt)
    try:
        manifest = json.loads(open_model(mpath, "checkpoint manifest", 1 << 24).data)
        files, mac = manifest["files"], manifest["hmac"]
        if not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items()
        ):
            raise TypeError("'files' must map names to digests")
    except (ValueError, KeyError, TypeError) as e:
        raise CheckpointRefused(
            f"checkpoint {str(ckpt)!r} has no readable manifest ({e}); it is not resumed"
        ) from None
    if not isinstance(mac, str) or not hmac.compare_digest(mac, _sign(files, _key(False))):
        raise CheckpointRefused(
            f"checkpoint {str(ckpt)!r}: its manifest is not signed with this user's key "
            f"({str(key_path())!r}); it was not written by this user's run, and is not resumed"
        )
    on_disk = {p.relative_to(ckpt).as_posix() for p in _files(ckpt)}
    if on_disk != set(files):
        extra, missing = sorted(on_disk - set(files)), sorted(set(files) - on_disk)
        raise CheckpointRefused(
            f"checkpoint {str(ckpt)!r} does not hold the files its run recorded "
            f"(added: {', '.join(extra) or 'none'}; missing: {', '.join(missing) or 'none'})"
        )
    for rel, digest in files.items():
        try:
            data = open_model(ckpt / rel, "checkpoint file").data
        except ValueError as e:
            raise CheckpointRefused(str(e)) from None
        if not hmac.compare_digest(hashlib.sha256(data).hexdigest(), digest):
            raise CheckpointRefused(
                f"checkpoint file {str(ckpt / rel)!r} changed since its run wrote it (SHA-256 "
                f"differs from the manifest); the checkpoint is not resumed"
            )
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    return dest


def resume_point(args: Args) -> tuple[int, Path | None]:
    """(iterations done, the checkpoint folder to resume) of ``--resume``: the newest
    checkpoint with a manifest ((0, None) without --resume or checkpoints).

    Raises:
        CheckpointRefused: checkpoints exist but none has a manifest.
    """
    folder = args.run / "checkpoints"
    if not args.resume or not folder.is_dir():
        return 0, None
    done = sorted(
        (int(p.name.split("_")[1]), p)
        for p in folder.glob("iter_*")
        if p.is_dir() and p.name.split("_")[1].isdigit()
    )
    signed = [(n, p) for n, p in done if manifest_path(p).exists()]
    if done and not signed:
        raise CheckpointRefused(
            f"--resume: no checkpoint of {str(folder)!r} has a manifest "
            f"(iter_N.manifest.json), so none can be verified; none is loaded"
        )
    return signed[-1] if signed else (0, None)


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
    start, ckpt = resume_point(args)
    restore_dir = None
    if ckpt is not None:
        restore_dir = Path(tempfile.mkdtemp(prefix="rummy-rllib-resume-"))
        try:
            verified_copy(ckpt, restore_dir / ckpt.name)
        except BaseException:
            shutil.rmtree(restore_dir, ignore_errors=True)
            raise
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
    if restore_dir is not None:
        try:
            algo.restore(str((restore_dir / ckpt.name).resolve()))
        finally:
            shutil.rmtree(restore_dir, ignore_errors=True)
        print(f"[rllib] resumed {run} at iteration {start} (checkpoint verified)", flush=True)
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
                path = run / "checkpoints" / f"iter_{it + 1}"
                algo.save(str(path.resolve()))
                write_manifest(path)
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


def check_args(args: Args) -> None:
    """The rules, and the checkpoint ``--resume`` would load (verified before Ray starts;
    ``train`` verifies it again as it copies it): a ValueError naming what is wrong."""
    args.make_rules()
    _, ckpt = resume_point(args)
    if ckpt is not None:
        with tempfile.TemporaryDirectory() as tmp:
            verified_copy(ckpt, Path(tmp))


def main(argv: list[str] | None = None) -> None:
    from experiments.train_ppo import parse_checked

    args = parse_checked("rummy-train-rllib", parse_args, check_args, argv)
    s = train(args)
    print(f"[rllib] done: {s.get('iteration')} iterations; policy in {args.run}")


if __name__ == "__main__":
    main()
