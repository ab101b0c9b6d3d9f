"""Decisions per second of random masked play on one core, per preset and mode.

Four modes per configuration:

* ``engine``: the rules engine alone (``legal_actions`` + ``apply_action``);
* ``raw``: the raw AEC env, ``env.last()`` (observation and mask) every
  decision, then ``step``;
* ``env``: the same through the ``env()`` users get by default;
* ``vector``: ``rummy_env.vector_env`` with ``--num-envs`` games (256 by default) stepped
  together, a uniform legal move per game chosen from the batch's mask each step
  (``rummy_env.vector_env.random_actions``): observations and masks as arrays.

A *decision* is an action chosen by a player (not PettingZoo's ``step(None)``
for a finished agent). Games are played back to back for ``--seconds`` per
repeat; the median of ``--repeats`` is printed.

``--peers`` compares gin with the peers' gin rummy in the same run. OpenSpiel
(``pyspiel``, the ``peers`` extra) is measured in this process, interleaved
with ours (ours, peer, ours, peer, ... for ``--repeats`` rounds), and the
median of the per-round ratios is reported: our raw AEC env (observation and
mask every decision) against OpenSpiel with ``observation_tensor`` every
decision, and our engine against OpenSpiel without observations. RLCard and
PettingZoo's gin_rummy_v4 (removed from PettingZoo 1.27) cannot be imported
beside our dependencies; their scripts in ``../shared/peers`` run in their own
venv (``--peers-python``) when it exists.

``--agents A,B`` measures agents instead: A plays B on the same deals, seats
swapped every deal, and each agent's own ``act`` time is counted, so both are
timed side by side in one run on one core (the speed of a shipped model
against its preset's variant agent: agents/trained/README.md).

    python -m experiments.benchmark                     # basic, 2 players
    python -m experiments.benchmark --preset basic --players 4 --seconds 5
    python -m experiments.benchmark --preset gin --agents es:gin-2p,variant --seconds 5
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import time
from functools import partial
from pathlib import Path

import numpy as np

import rummy_env
from rummy_env import engine
from rummy_env.rules import parse_overrides

TARGETS = {"engine": 150_000, "raw": 50_000, "env": 20_000}


def bench_engine(rules, seconds: float, seed: int) -> dict:
    rng = random.Random(seed)
    legal_actions, apply_action = engine.legal_actions, engine.apply_action
    games = decisions = 0
    t0 = time.perf_counter()
    while True:
        s = engine.new_game(rules, seed=games + seed * 100_003)
        while s.phase != engine.Phase.GAME_OVER:
            acts = legal_actions(s)
            apply_action(s, acts[rng.randrange(len(acts))])
            decisions += 1
        games += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return {"games": games, "decisions": decisions, "seconds": el}


def bench_aec(make, seconds: float, seed: int) -> dict:
    rng = random.Random(seed)
    env = make()
    env.reset(seed=seed)
    games = decisions = 0
    t0 = time.perf_counter()
    while True:
        env.reset()
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = rummy_env.legal_moves(obs["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
                decisions += 1
            env.step(action)
        games += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return {"games": games, "decisions": decisions, "seconds": el}


def bench_vector(
    preset: str, players: int, overrides: dict, seconds: float, seed: int, num_envs: int
) -> dict:
    from rummy_env.vector_env import random_actions

    venv = rummy_env.vector_env(preset, num_envs, players, seed=seed, **overrides)
    rng = np.random.default_rng(seed)
    _, mask, _ = venv.reset()
    games = decisions = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(8):
            _, mask, _, terminated, _ = venv.step(random_actions(mask, rng))
            games += int(terminated.sum())
        decisions += 8 * num_envs
        el = time.perf_counter() - t0
        if el >= seconds:
            return {"games": max(games, 1), "decisions": decisions, "seconds": el}


def _bench_fn(
    mode: str, preset: str, players: int, overrides: dict, seconds: float, num_envs: int = 256
):
    """The benchmark of one mode and configuration, as a function of the seed."""
    rules = rummy_env.make_rules(preset, players, **overrides)
    if mode == "vector":
        bench_vector(preset, players, overrides, 0.3, 0, num_envs)  # warm-up
        return lambda sd: bench_vector(preset, players, overrides, seconds, sd, num_envs)
    if mode == "engine":
        bench_engine(rules, 0.3, 0)  # warm-up
        return lambda sd: bench_engine(rules, seconds, sd)
    factory = rummy_env.raw_env if mode == "raw" else rummy_env.env
    return lambda sd: bench_aec(lambda: factory(preset, players, **overrides), seconds, sd)


def _rate(run: dict) -> float:
    return run["decisions"] / run["seconds"]


def _rounds(fns: list, repeats: int, seed: int) -> list[list[dict]]:
    """``repeats`` rounds, each running every benchmark of ``fns`` in turn on the round's
    own seed: per function, its runs. Each round plays new games: a repeat of the same
    games would find the engine's memo tables (Indian rummy's show search) filled."""
    runs: list[list[dict]] = [[] for _ in fns]
    for i in range(repeats):
        for out, fn in zip(runs, fns):
            out.append(fn(seed + 1 + i))
    return runs


def run_mode(
    mode: str,
    preset: str,
    players: int,
    overrides: dict,
    seconds: float,
    repeats: int,
    seed: int,
    versus: str | None = None,
    num_envs: int = 256,
) -> dict:
    """``repeats`` runs of ``seconds``; with ``versus`` each run is paired with a reference
    run just before it in this process, and the median of the per-pair ratios is reported
    too: a ratio that the machine's load, which moves both alike, leaves steady. ``versus``
    is a preset (the same mode, players and overrides) or ``mode:MODE`` (the same preset in
    another mode: ``--modes vector --versus mode:raw``)."""
    fn = _bench_fn(mode, preset, players, overrides, seconds, num_envs)
    if versus:
        ref_mode, ref_preset = (
            (versus[5:], preset) if versus.startswith("mode:") else (mode, versus)
        )
        ref = _bench_fn(ref_mode, ref_preset, players, overrides, seconds, num_envs)
        ref_runs, runs = _rounds([ref, fn], repeats, seed)
    else:
        ref_runs, (runs,) = [], _rounds([fn], repeats, seed)
    rates = [_rate(r) for r in runs]
    med = statistics.median(rates)
    ratios = [a / _rate(b) for a, b in zip(rates, ref_runs)]
    return {
        "versus": versus,
        "ratio_median": statistics.median(ratios) if ratios else None,
        "ratios": ratios,
        "mode": mode,
        "preset": preset,
        "players": players,
        "overrides": overrides,
        "decisions_per_s": med,
        "spread": (max(rates) - min(rates)) / med,
        "decisions_per_game": sum(r["decisions"] for r in runs) / sum(r["games"] for r in runs),
    }


def state_metrics(preset: str, players: int, overrides: dict) -> dict:
    """Size of a mid-game state (pickled) and the time of ``copy()``."""
    import pickle

    rules = rummy_env.make_rules(preset, players, **overrides)
    s = engine.new_game(rules, seed=1)
    rng = random.Random(1)
    for _ in range(40):
        if s.phase == engine.Phase.GAME_OVER:
            break
        acts = engine.legal_actions(s)
        engine.apply_action(s, acts[rng.randrange(len(acts))])
    d = {
        k: getattr(s, k)
        for k in s.__slots__
        if k not in ("rules", "layout", "cat", "values", "_legal")
    }
    size = len(pickle.dumps(d))
    n = 20_000
    t = time.perf_counter()
    for _ in range(n):
        s.copy()
    return {"state_bytes": size, "copy_us": (time.perf_counter() - t) / n * 1e6}


PEER_SCRIPTS = [
    ("PettingZoo gin_rummy_v4 env()", ["bench_pettingzoo_gin.py"]),
    ("RLCard gin step loop", ["bench_rlcard_gin.py", "--mode", "step"]),
]


def bench_openspiel(seconds: float, seed: int, with_obs: bool) -> dict:
    """OpenSpiel's gin rummy (C++ through pyspiel), random legal play: chance outcomes drawn by
    their probabilities, a uniform legal action at each decision, and with ``with_obs`` the acting
    player's ``observation_tensor`` first (what an RL loop reads)."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)
    games = decisions = 0
    t0 = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                r, acc, pick = rng.random(), 0.0, outcomes[-1][0]
                for a, p in outcomes:
                    acc += p
                    if r < acc:
                        pick = a
                        break
                state.apply_action(pick)
            else:
                if with_obs:
                    state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        games += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return {"games": games, "decisions": decisions, "seconds": el}


#: (ours, the OpenSpiel run it is paired with, target ratio)
INTERLEAVED = [
    ("raw", "OpenSpiel gin (C++) + observation_tensor", True, 2.0),
    ("engine", "OpenSpiel gin (C++), no obs", False, 2.0),
]


def interleaved_openspiel(seconds: float, repeats: int, seed: int) -> list[dict]:
    """Ours and OpenSpiel alternately in this process; per pair the median ratio (module docs)."""
    out = []
    for mode, peer, with_obs, target in INTERLEAVED:
        ours_fn = _bench_fn(mode, "gin", 2, {}, seconds)
        bench_openspiel(0.3, seed, with_obs)  # warm-up (loads the game)
        peer_fn = partial(bench_openspiel, seconds, with_obs=with_obs)  # peer_fn(seed)
        ours, peers = _rounds([ours_fn, peer_fn], repeats, seed)
        mine, theirs = [_rate(r) for r in ours], [_rate(r) for r in peers]
        ratios = [a / b for a, b in zip(mine, theirs)]
        out.append(
            {
                "ours": mode,
                "peer": peer,
                "ours_per_s": statistics.median(mine),
                "peer_per_s": statistics.median(theirs),
                "ratio_median": statistics.median(ratios),
                "ratios": ratios,
                "target": target,
            }
        )
    return out


def print_interleaved(rows: list[dict]) -> None:
    print("\ngin rummy vs OpenSpiel, random play, one core, one process, interleaved:")
    print(
        f"  {'ours':12s} {'decisions/s':>12s}  {'OpenSpiel':42s} {'decisions/s':>12s} {'median ratio':>13s}"
        f" {'target':>7s}"
    )
    for r in rows:
        label = {"engine": "gin engine", "raw": "gin raw AEC"}[r["ours"]]
        print(
            f"  {label:12s} {r['ours_per_s']:12,.0f}  {r['peer']:42s} {r['peer_per_s']:12,.0f} "
            f"{r['ratio_median']:12.2f}x {r['target']:6.0f}x   (per round: "
            + ", ".join(f"{x:.2f}" for x in r["ratios"])
            + ")"
        )


def run_peers(python: str, seconds: float, repeats: int, peers_dir: Path) -> list[dict]:
    """Each peer script's median decisions a second, or ``None`` with the ``error`` that
    says why (a missing script names its path)."""
    out = []
    for name, argv in PEER_SCRIPTS:
        script = Path(peers_dir) / argv[0]
        if not script.is_file():
            out.append({"name": name, "decisions_per_s": None, "error": f"no script {script}"})
            continue
        jpath = Path("/tmp") / f"peer-{os.getpid()}-{argv[0]}.json"
        cmd = [
            python,
            *argv,
            "--seconds",
            str(seconds),
            "--repeats",
            str(repeats),
            "--json",
            str(jpath),
        ]
        try:
            subprocess.run(cmd, cwd=peers_dir, check=True, capture_output=True, timeout=600)
            data = json.loads(jpath.read_text())
            med = data.get("median", data)
            out.append({"name": name, "decisions_per_s": med["decisions_per_s"]})
        except (subprocess.SubprocessError, OSError, KeyError, ValueError) as e:
            out.append({"name": name, "decisions_per_s": None, "error": str(e)[:200]})
    return out


# (our mode, peer name, target ratio): the peers measured in their own venv
PEER_PAIRS = [
    ("env", "PettingZoo gin_rummy_v4 env()", 4.0),
    ("env", "RLCard gin step loop", None),
]


def print_peer_table(ours: dict, peers: list[dict]) -> None:
    """Our gin figures beside the peers' gin rummy (rows of :func:`run_peers`), measured in
    the same run; a peer not measured is printed with the reason."""
    print("\ngin rummy, random masked play, one core, same run:")
    print(
        f"  {'ours':18s} {'decisions/s':>12s}  {'peer':42s} {'decisions/s':>12s} {'ratio':>7s} {'target':>7s}"
    )
    rows = {r["name"]: r for r in peers}
    for mode, peer, target in PEER_PAIRS:
        mine = ours[mode]
        row = rows.get(peer, {"error": "not run"})
        theirs = row.get("decisions_per_s")
        label = {"engine": "gin engine", "raw": "gin raw AEC", "env": "gin env()"}[mode]
        if not theirs:
            why = row.get("error") or f"it measured {theirs!r} decisions/s"
            print(f"  {label:18s} {mine:12,.0f}  {peer:42s} not measured: {why}")
            continue
        tgt = f"{target:.0f}x" if target else "-"
        print(
            f"  {label:18s} {mine:12,.0f}  {peer:42s} {theirs:12,.0f} {mine / theirs:6.1f}x {tgt:>7s}"
        )


def bench_agents(
    preset: str,
    overrides: dict,
    specs: list[str],
    seconds: float,
    repeats: int,
    seed: int,
    players: int = 2,
) -> list[dict]:
    """Decisions per second of each agent's own moves, A against B (module docs): A at
    the even seats and B at the odd ones (with partnerships, a side each), swapped every
    deal."""
    import agents
    from experiments.tournament import play_out

    env = rummy_env.raw_env(preset, num_players=players, **overrides)
    P = env.rules.num_players
    bots = {(spec, seat): agents.make(spec, env.rules, seat) for spec in specs for seat in range(P)}
    rows = []
    deal = seed
    for _ in range(repeats):
        spent = {s: 0.0 for s in specs}
        count = {s: 0 for s in specs}
        t_end = time.perf_counter() + seconds
        while time.perf_counter() < t_end:
            pair = specs if deal % 2 == 0 else specs[::-1]
            order = [pair[k % 2] for k in range(P)]
            seated = [bots[order[k], k] for k in range(P)]
            for k, b in enumerate(seated):
                b.reset(seed=deal * 1009 + k)

            def timed(
                k: int, obs, mask, seated=seated, order=order, spent=spent, count=count
            ) -> int:
                t0 = time.perf_counter()
                a = seated[k].act(obs, mask)
                spent[order[k]] += time.perf_counter() - t0
                count[order[k]] += 1
                return a

            play_out(env, deal, timed)
            deal += 1
        rows.append({s: count[s] / max(spent[s], 1e-9) for s in specs})
    return rows


def print_agents(specs: list[str], rows: list[dict]) -> None:
    a, b = specs
    ratios = [r[a] / r[b] for r in rows]
    print(f"{'agent':24s} {'decisions/s (median)':>21s}")
    for s in specs:
        print(f"{s:24s} {statistics.median(r[s] for r in rows):21,.0f}")
    print(
        f"{a} / {b}: median ratio {statistics.median(ratios):.2f} "
        f"(per repeat {', '.join(f'{x:.2f}' for x in ratios)})"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rummy-benchmark", description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="basic", help="preset name, or 'all' for every preset")
    ap.add_argument("--players", type=int, default=2, help="players at the table (default: 2)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="rule override, e.g. --set jokers=2 (repeatable)",
    )
    ap.add_argument(
        "--modes", default="engine,raw,env", help="comma-separated: engine, raw, env, vector"
    )
    ap.add_argument("--seconds", type=float, default=5.0, help="wall time per repeat, in seconds")
    ap.add_argument(
        "--repeats", type=int, default=3, help="repeats of each run; the median is printed"
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game (default: 0)")
    ap.add_argument("--cpu", type=int, default=0, help="core to pin to (-1: no pinning)")
    ap.add_argument(
        "--versus",
        default=None,
        metavar="PRESET|mode:MODE",
        help="pair every run with one of PRESET (e.g. basic), or of the same preset in MODE "
        "(e.g. mode:raw), and print the median ratio",
    )
    ap.add_argument(
        "--num-envs", type=int, default=256, help="games stepped together in the vector mode"
    )
    ap.add_argument("--peers", action="store_true", help="also run the peer gin rummy scripts")
    ap.add_argument(
        "--peers-python",
        default=str(Path.home() / ".peers-venv/bin/python"),
        help="the Python of the venv that runs RLCard's and PettingZoo's gin scripts",
    )
    ap.add_argument(
        "--peers-dir",
        default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "peers"),
        help="folder of the peer gin scripts (bench_*.py)",
    )
    ap.add_argument(
        "--json",
        default=None,
        help="write the results to this file as JSON (python -m experiments.speed_table turns "
        "it into a Markdown table)",
    )
    ap.add_argument(
        "--agents", default=None, metavar="A,B", help="time two agents playing each other instead"
    )
    args = ap.parse_args(argv)
    for flag, value, ok, need in (
        ("--seconds", args.seconds, args.seconds > 0, "more than 0"),  # NaN is not
        ("--repeats", args.repeats, args.repeats >= 1, "1 or more"),
        ("--num-envs", args.num_envs, args.num_envs >= 1, "1 or more"),
    ):
        if not ok:
            ap.exit(2, f"rummy-benchmark: error: {flag} must be {need}, got {value:g}\n")
    if args.preset != "all" and args.preset not in rummy_env.PRESETS:
        ap.exit(
            2,
            f"rummy-benchmark: error: --preset {args.preset!r} is not a preset "
            f"(allowed: all, {', '.join(rummy_env.PRESETS)})\n",
        )
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    try:
        overrides = parse_overrides(args.set)
    except ValueError as e:
        ap.error(str(e))
    if args.agents:
        specs = [x.strip() for x in args.agents.split(",")]
        if len(specs) != 2 or args.preset == "all":
            ap.error("--agents takes two agent specs (A,B) and one --preset")
        try:
            rows = bench_agents(
                args.preset, overrides, specs, args.seconds, args.repeats, args.seed, args.players
            )
        except (ValueError, FileNotFoundError) as e:
            ap.error(str(e))
        print_agents(specs, rows)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
        return
    presets = sorted(rummy_env.PRESETS) if args.preset == "all" else [args.preset]
    results = []
    print(
        f"{'preset':10s} {'players':>7s} {'mode':7s} {'decisions/s':>12s} {'spread':>7s} "
        f"{'dec/game':>8s} {'target':>8s}"
        + (f"  x {args.versus} (median, range)" if args.versus else "")
    )
    for preset in presets:
        for mode in args.modes.split(","):
            r = run_mode(
                mode,
                preset,
                args.players,
                overrides,
                args.seconds,
                args.repeats,
                args.seed,
                args.versus,
                args.num_envs,
            )
            results.append(r)
            tgt = TARGETS.get(mode, 0) if preset == "basic" and args.players == 2 else 0
            ratio = (
                f"  {r['ratio_median']:.2f}x ({min(r['ratios']):.2f}-{max(r['ratios']):.2f})"
                if r["ratios"]
                else ""
            )
            print(
                f"{preset:10s} {args.players:7d} {mode:7s} {r['decisions_per_s']:12,.0f} "
                f"{r['spread']:7.1%} {r['decisions_per_game']:8.1f} {tgt or '':>8}{ratio}",
                flush=True,
            )
        m = state_metrics(preset, args.players, overrides)
        print(f"{preset:10s} state: {m['state_bytes']} bytes pickled, copy() {m['copy_us']:.2f} us")
        results.append({"preset": preset, **m})
    if args.peers:
        try:
            rows = interleaved_openspiel(args.seconds, args.repeats, args.seed)
            results.append({"interleaved": rows})
            print_interleaved(rows)
        except ImportError:
            print("\nOpenSpiel (pyspiel) is not installed: pip install -e '.[peers]'")
        if not Path(args.peers_python).exists():
            print(
                f"(RLCard / PettingZoo gin: no peers venv at {args.peers_python}; see ../shared/peers)"
            )
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=2))
            return
        peers = run_peers(args.peers_python, args.seconds, args.repeats, Path(args.peers_dir))
        results.append({"peers": peers})
        ours = {
            r["mode"]: r["decisions_per_s"]
            for r in results
            if r.get("preset") == "gin" and "mode" in r
        }
        for m in {mode for mode, _, _ in PEER_PAIRS} - set(ours):  # not among --modes
            ours[m] = run_mode(m, "gin", 2, {}, args.seconds, args.repeats, args.seed)[
                "decisions_per_s"
            ]
        print_peer_table(ours, peers)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
