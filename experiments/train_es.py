"""Evolution strategies on a variant agent's constants: ``es:<model>`` models (agents/tuned.py).

```bash
python -m experiments.train_es --config experiments/configs/es/gin-2p.toml   # train (resumable)
python -m experiments.train_es --config experiments/configs/es/gin-2p.toml --stage curve
tensorboard --logdir runs
```

The policy is the preset's rule-based agent (``base``, default ``variant``)
with its ``TUNABLE`` constants as parameters: value = default + scale * z for
each constant (the class gives the scale), so z = 0 is the hand-written agent
and the learning curve starts at it. Each iteration (antithetic evolution
strategies, Salimans et al. 2017, with common random numbers):

1. draw ``directions`` Gaussian directions e_j (from the seed and the
   iteration, so a resumed run draws the same ones);
2. play z + sigma e_j and z - sigma e_j against ``opponent`` on the same
   ``deals`` fresh training deals (``first_deal`` + iteration * deals ...), each
   from every seat: the return F is the mean score margin per deal
   (candidate minus the mean of the others, summed over the game's rounds);
3. the gradient estimate sum_j (F+_j - F-_j) e_j / (2 sigma directions) takes an
   Adam step of ``lr`` on z (ascent).

Playing both twins on the same deals makes most of the deal's luck cancel in
F+ - F-. Training deals are 100,000,000 and up: apart from the learning
curve's (2,000,000+), the trainer's of the PPO runs (1,000,000+) and the
tournament's (0+) where shipped models are tested.

The run directory ``runs/<exp_name>__s<seed>`` holds ``args.json``,
``state.json`` (z, Adam moments, history; rewritten after every iteration:
a killed run resumes from the last finished iteration when the command is run
again, with the same results as an uninterrupted run), ``checkpoints/iter_NNNN.npz``
(model files that ``es:<path>`` loads; iteration 0 is the defaults) every
``checkpoint_every`` iterations and at the end, ``final_model.npz``, and
TensorBoard events (``tb/``: the mean return of the pairs, |gradient|, each
constant). ``--stage curve`` plays every checkpoint against fixed opponents
on held-out deals (2,000,000+; cached in ``curve/cache``) and writes the table,
``curve.json`` and ``curve.png`` with the paired difference last minus first.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import re
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
    """Evolution strategies on a variant agent's constants (module docs)."""

    exp_name: str = "es"
    """run name: the run directory is <run_dir>/<exp_name>__s<seed>"""
    stage: str = "train"
    """train (resumes a run), curve (the learning curve of its checkpoints) or ship (copy
    the final model to agents/trained/es/<ship_name>.npz)"""
    ship_name: str = ""
    """name of the shipped model (default <preset>-<players>p: es:<preset>-<players>p)"""

    # ---- game
    base: str = "variant"
    """the agent whose constants are learned (a registry name with TUNABLE constants)"""
    tune: list[str] = field(default_factory=list)
    """constants to learn (default: all of the base agent's TUNABLE)"""
    opponent: str = "variant"
    """agent spec the candidates play against"""

    # ---- evolution strategies
    iterations: int = 60
    """iterations to run (a resumed run continues up to this)"""
    directions: int = 8
    """antithetic pairs per iteration"""
    deals: int = 40
    """training deals per candidate per iteration (each from every seat)"""
    sigma: float = 0.5
    """perturbation size in units of each constant's scale"""
    lr: float = 0.1
    """Adam step size (units of scale)"""
    first_deal: int = 100_000_000
    """deal of iteration 0's first game"""
    checkpoint_every: int = 10
    """write iter_NNNN.npz every this many iterations (and the last)"""
    workers: int = 1
    """processes that play the games"""

    # ---- learning curve (--stage curve)
    curve_opponents: list[str] = field(default_factory=lambda: ["greedy", "variant"])
    """fixed opponents of the learning curve"""
    curve_deals: int = 300
    """held-out duplicate deals per checkpoint and opponent"""
    curve_first_deal: int = 2_000_000
    """seed of the first held-out deal"""
    verbose: int = 1
    """print progress lines"""


def parse_args(argv: list[str] | None = None) -> Args:
    from experiments.train_ppo import parse_cli

    args = parse_cli(Args, argv, __doc__.splitlines()[0].replace("``", ""))
    if args.stage not in ("train", "curve", "ship"):
        raise ValueError(f"stage={args.stage!r} is not allowed (allowed: train, curve, ship)")
    for name in ("iterations", "directions", "deals", "workers", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ValueError(f"{name}={getattr(args, name)} is not allowed (allowed: 1 or more)")
    if not args.sigma > 0 or not args.lr > 0:
        raise ValueError("sigma and lr must be positive")
    return args


def space(args: Args) -> tuple[type, list[str], np.ndarray, np.ndarray]:
    """``(base class, names, defaults, scales)`` of the learned constants."""
    import agents

    rules = args.make_rules()
    cls = agents.agent_class(agents.resolve(args.base, rules))
    tunable = getattr(cls, "TUNABLE", {})
    if not tunable:
        raise ValueError(f"base={args.base!r} ({cls.name}) has no TUNABLE constants")
    names = list(args.tune or tunable)
    bad = [n for n in names if n not in tunable]
    if bad:
        raise ValueError(
            f"tune: {', '.join(bad)} not allowed for {cls.name} (allowed: {', '.join(tunable)})"
        )
    probe = cls(rules, 0)
    defaults = np.array([float(getattr(probe, n)) for n in names])
    scales = np.array([float(tunable[n]) for n in names])
    return cls, names, defaults, scales


# ------------------------------------------------------------------ playing
_W: dict[str, Any] = {}


def _init(args_dict: dict[str, Any]) -> None:
    import rummy_env

    args = Args(**args_dict)
    _W.clear()
    _W["args"] = args
    _W["rules"] = args.make_rules()
    _W["env"] = rummy_env.raw_env(args.preset, num_players=args.num_players, **args.overrides())
    _W["space"] = space(args)
    _W["opp"] = {}


def _opponent(spec: str, seat: int):
    import agents

    key = (spec, seat)
    if key not in _W["opp"]:
        _W["opp"][key] = agents.make(spec, _W["rules"], seat)
    return _W["opp"][key]


def play_deal(candidate_at, opponent: str, deal: int) -> float:
    """Mean over seats of the candidate's margin on ``deal``: its reward minus the mean
    of the others', summed over the game's rounds. ``candidate_at(seat)`` makes it."""
    from experiments.tournament import play_out

    env = _W["env"]
    n = env.rules.num_players
    total = 0.0
    for seat in range(n):
        bots = [candidate_at(s) if s == seat else _opponent(opponent, s) for s in range(n)]
        for s, b in enumerate(bots):
            b.reset(seed=deal * 1009 + s)
        rounds, _, _ = play_out(env, deal, lambda k, o, m, bots=bots: bots[k].act(o, m))
        rewards = [sum(r["rewards"][p] for r in rounds) for p in range(n)]
        total += rewards[seat] - sum(r for p, r in enumerate(rewards) if p != seat) / (n - 1)
    return total / n


def _evaluate(task: tuple[list[float] | str, str, list[int]]) -> list[float]:
    """Per-deal margins against ``opponent`` (worker side) of the candidate: a list of
    constants (the base agent with those values) or an agent spec (a checkpoint)."""
    import agents
    from agents.tuned import build

    candidate, opponent, deals = task
    cls, names, _, _ = _W["space"]
    rules = _W["rules"]
    made: dict[int, Any] = {}

    def candidate_at(seat: int):
        if seat not in made:
            made[seat] = (
                agents.make(candidate, rules, seat)
                if isinstance(candidate, str)
                else build(cls, rules, seat, dict(zip(names, candidate)))
            )
        return made[seat]

    return [play_deal(candidate_at, opponent, d) for d in deals]


class Players:
    """Runs evaluation tasks in this process (workers=1) or a pool."""

    def __init__(self, args: Args):
        self.args = args
        d = asdict(args)
        if args.workers > 1:
            self.pool = mp.get_context("spawn").Pool(args.workers, _init, (d,))
        else:
            self.pool = None
            _init(d)

    def map(self, fn, tasks: list) -> list:
        if self.pool is None:
            return [fn(t) for t in tasks]
        return self.pool.map(fn, tasks, chunksize=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def _split(deals: list[int], parts: int) -> list[list[int]]:
    k = max(1, math.ceil(len(deals) / parts))
    return [deals[i : i + k] for i in range(0, len(deals), k)]


# ------------------------------------------------------------------ training
def model_meta(args: Args, names: list[str], it: int, elapsed: float) -> dict[str, Any]:
    import agents

    rules = args.make_rules()
    return {
        "preset": args.preset,
        "num_players": args.num_players,
        "rules": args.rules,
        "base": agents.resolve(args.base, rules),
        "method": "evolution strategies (antithetic, common random numbers) against "
        + args.opponent,
        "iteration": it,
        "games": it * args.directions * 2 * args.deals * args.num_players,
        "wall_seconds": round(elapsed, 1),
        "command": f"python -m experiments.train_es --config {args.config}"
        if args.config
        else "python -m experiments.train_es",
    }


def _write_checkpoint(run: Path, args: Args, state: dict[str, Any], names, defaults, scales):
    from agents.tuned import write_model

    z = np.array(state["z"])
    values = dict(zip(names, map(float, defaults + scales * z)))
    meta = model_meta(args, names, state["iteration"], state["elapsed"])
    write_model(run / "checkpoints" / f"iter_{state['iteration']:04d}.npz", values, meta)
    write_model(run / "final_model.npz", values, meta)


def _save_state(run: Path, state: dict[str, Any]) -> None:
    tmp = run / "state.json.tmp"
    tmp.write_text(json.dumps(state))
    tmp.replace(run / "state.json")


def _read_json(path: Path) -> Any:
    from agents.model_io import open_model

    try:
        return json.loads(open_model(path, "run file", 1 << 26).data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} is not JSON ({e}); remove the run folder to start over") from None


def load_state(run: Path, n: int) -> dict[str, Any] | None:
    """The saved state of a run whose parameters are ``n`` constants (None: a new run).

    Raises:
        ValueError: ``args.json`` or ``state.json`` that this trainer did not write.
    """
    path = run / "state.json"
    if not path.exists():
        return None
    state = _read_json(path)

    def vector(v: Any) -> bool:
        return (
            isinstance(v, list)
            and len(v) == n
            and all(isinstance(x, (int, float)) and math.isfinite(x) for x in v)
        )

    ok = (
        isinstance(state, dict)
        and isinstance(state.get("iteration"), int)
        and state["iteration"] >= 0
        and all(vector(state.get(k)) for k in ("z", "m", "v"))
        and isinstance(state.get("elapsed"), (int, float))
        and isinstance(state.get("history"), list)
    )
    if not ok:
        raise ValueError(
            f"{path} is not a state this trainer wrote (iteration, and z, m, v of {n} finite "
            f"numbers each, are expected); remove the run folder to start over"
        )
    return state


def check_run(args: Args) -> None:
    """A run folder that ``args`` can resume: its ``args.json`` has the same settings.

    Raises:
        ValueError: other settings, or a file that is not the trainer's.
    """
    saved = args.run / "args.json"
    if not saved.exists():
        return
    old = _read_json(saved)
    if not isinstance(old, dict):
        raise ValueError(f"{saved} is not a JSON object; remove the run folder to start over")
    mine = {k: v for k, v in asdict(args).items() if k not in ("iterations", "workers", "stage")}
    diff = sorted(
        k
        for k in mine
        if k in old and old[k] != mine[k] and not k.startswith(("curve_", "verbose", "config"))
    )
    if diff:
        raise ValueError(
            f"{args.run} was started with other settings ({', '.join(diff)}); "
            "use another exp_name or seed, or the same settings to resume"
        )


def train(args: Args) -> dict[str, Any]:
    """Run (or resume) the iterations of ``args`` (module docs); the final state."""
    run = args.run
    check_run(args)
    cls, names, defaults, scales = space(args)
    n = len(names)
    state = load_state(run, n)
    run.mkdir(parents=True, exist_ok=True)
    (run / "args.json").write_text(json.dumps(asdict(args), indent=1))
    if state is not None:
        if args.verbose:
            print(f"[es] resuming {run} at iteration {state['iteration']}", flush=True)
    else:
        state = {
            "iteration": 0,
            "z": [0.0] * n,
            "m": [0.0] * n,
            "v": [0.0] * n,
            "elapsed": 0.0,
            "history": [],
        }
        _write_checkpoint(run, args, state, names, defaults, scales)
        _save_state(run, state)
    writer = _writer(run)
    players = Players(args)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    start_it = state["iteration"]
    t_start = time.time()
    try:
        while state["iteration"] < args.iterations:
            it = state["iteration"]
            t0 = time.time()
            rng = np.random.default_rng([args.seed, it])
            eps_dirs = rng.standard_normal((args.directions, n))
            deals = list(
                range(args.first_deal + it * args.deals, args.first_deal + (it + 1) * args.deals)
            )
            z = np.array(state["z"])
            tasks = [
                (
                    list(map(float, defaults + scales * (z + sign * args.sigma * e))),
                    args.opponent,
                    deals,
                )
                for e in eps_dirs
                for sign in (1.0, -1.0)
            ]
            per_cand = players.map(_evaluate, tasks)
            F = np.array([np.mean(c) for c in per_cand]).reshape(args.directions, 2)
            diff = F[:, 0] - F[:, 1]
            grad = (diff[:, None] * eps_dirs).sum(0) / (2 * args.sigma * args.directions)
            m = beta1 * np.array(state["m"]) + (1 - beta1) * grad
            v = beta2 * np.array(state["v"]) + (1 - beta2) * grad**2
            t = it + 1
            step = args.lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
            z = z + step
            state.update(
                iteration=it + 1,
                z=z.tolist(),
                m=m.tolist(),
                v=v.tolist(),
                elapsed=state["elapsed"] + time.time() - t0,
            )
            rec = {
                "iteration": it + 1,
                "mean_return": float(F.mean()),
                "pair_diff_sd": float(diff.std()),
                "grad_norm": float(np.linalg.norm(grad)),
                "seconds": round(time.time() - t0, 2),
            }
            state["history"].append(rec)
            if (it + 1) % args.checkpoint_every == 0 or it + 1 == args.iterations:
                _write_checkpoint(run, args, state, names, defaults, scales)
            _save_state(run, state)
            if writer is not None:
                writer.add_scalar("es/mean_return", rec["mean_return"], it + 1)
                writer.add_scalar("es/grad_norm", rec["grad_norm"], it + 1)
                writer.add_scalar("es/pair_diff_sd", rec["pair_diff_sd"], it + 1)
                for name, val in zip(names, defaults + scales * z):
                    writer.add_scalar(f"constants/{name}", float(val), it + 1)
                writer.flush()
            if args.verbose:
                done = it + 1 - start_it
                left = (time.time() - t_start) / done * (args.iterations - it - 1)
                from experiments.train_ppo import _duration

                print(
                    f"[es] iteration {it + 1}/{args.iterations} | return {rec['mean_return']:+.3f} "
                    f"| |grad| {rec['grad_norm']:.3f} | {rec['seconds']:.0f}s | "
                    f"{_duration(state['elapsed'])} elapsed, ETA {_duration(left)}",
                    flush=True,
                )
    finally:
        players.close()
        if writer is not None:
            writer.close()
    return state


def _writer(run: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # the train extra is not installed: no TensorBoard logs
        return None
    return SummaryWriter(str(run / "tb"))


# ------------------------------------------------------------------ curve
def checkpoints(run: Path) -> list[tuple[int, str, Path]]:
    """``(iteration, label, path)`` of the run's checkpoints in order."""
    out = []
    for p in sorted((run / "checkpoints").glob("iter_*.npz")):
        m = re.fullmatch(r"iter_(\d+)\.npz", p.name)
        if m:
            it = int(m.group(1))
            out.append((it, f"{it} (defaults)" if it == 0 else str(it), p))
    return out


def curve(args: Args) -> dict[str, Any]:
    """Every checkpoint against ``curve_opponents`` on held-out deals (module docs)."""
    from experiments.learning_curve import interval

    run = args.run
    cache = run / "curve" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    deals = list(range(args.curve_first_deal, args.curve_first_deal + args.curve_deals))
    players = Players(args)
    points, margins = [], {o: [] for o in args.curve_opponents}
    try:
        for it, label, path in checkpoints(run):
            row: dict[str, Any] = {"step": it, "label": label, "file": str(path)}
            for opp in args.curve_opponents:
                f = cache / f"{path.stem}__{opp}__{args.curve_first_deal}_{args.curve_deals}.json"
                t = time.time()
                if f.exists():
                    per = json.loads(f.read_text())
                else:
                    tasks = [
                        (f"es:{path.resolve()}", opp, c) for c in _split(deals, args.workers * 4)
                    ]
                    per = [x for part in players.map(_evaluate, tasks) for x in part]
                    f.write_text(json.dumps(per))
                margins[opp].append(per)
                row[opp] = interval(per)
                if args.verbose:
                    c = row[opp]
                    print(
                        f"[curve] {label:>14} vs {opp:<14} {c['mean']:+.2f} "
                        f"[{c['lo']:+.2f}, {c['hi']:+.2f}] ({time.time() - t:.0f}s)",
                        flush=True,
                    )
            points.append(row)
    finally:
        players.close()
    diffs = {
        o: interval([b - a for a, b in zip(ms[0], ms[-1])])
        for o, ms in margins.items()
        if len(ms) >= 2
    }
    return {
        "run": str(run),
        "preset": args.preset,
        "num_players": args.num_players,
        "rules": args.rules,
        "deals": args.curve_deals,
        "first_deal": args.curve_first_deal,
        "opponents": args.curve_opponents,
        "points": points,
        "last_minus_first": diffs,
        "x_label": "ES iteration (0 = the hand-written constants)",
    }


def ship(args: Args, to: Path | None = None) -> Path:
    """Copy the run's final model to ``agents/trained/es/<ship_name>.npz`` (or ``to``)."""
    from agents.tuned import ES_DIR, read_model, write_model

    final = args.run / "final_model.npz"
    if not final.exists():
        raise ValueError(f"{final}: no final model (train the run first)")
    values, meta = read_model(final)
    meta["run"] = args.run.name
    name = args.ship_name or f"{args.preset}-{args.num_players}p"
    return write_model(to or ES_DIR / f"{name}.npz", values, meta)


def check_args(args: Args) -> None:
    """What the stage would refuse, checked before it starts (a ValueError naming it)."""
    import agents

    rules = args.make_rules()
    _, names, _, _ = space(args)
    for spec in [args.opponent, *args.curve_opponents]:
        agents.make(spec, rules, 0)
    if args.stage == "train":
        check_run(args)
        load_state(args.run, len(names))
    elif args.stage == "ship" and not (args.run / "final_model.npz").exists():
        raise ValueError(f"{args.run / 'final_model.npz'}: no final model (train the run first)")


def main(argv: list[str] | None = None) -> None:
    from experiments.train_ppo import parse_checked

    args = parse_checked("train_es", parse_args, check_args, argv)
    if args.stage == "train":
        state = train(args)
        if args.verbose:
            print(
                f"[es] done: {state['iteration']} iterations, model {args.run / 'final_model.npz'}"
            )
        return
    if args.stage == "ship":
        print(f"[es] shipped {ship(args)}")
        return
    from experiments.learning_curve import plot, table

    res = curve(args)
    out = args.run / "curve"
    (out / "curve.json").write_text(json.dumps(res, indent=1))
    text = table(res).replace("| PPO steps |", "| ES iteration |")
    (out / "curve.md").write_text(text + "\n")
    plot(res, out / "curve.png")
    print(text)


if __name__ == "__main__":
    main()
