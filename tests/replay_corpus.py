"""A corpus of recorded random games that must replay identically through the AEC env.

Each entry is one seeded game: preset, player count, rule overrides, the actions played
and, after every step, a digest of everything a user sees (the agent to act, every
agent's observation and mask, rewards, terminations, truncations and infos), plus the
final ``state.to_dict()``. ``tests/test_replay_corpus.py`` replays every entry and
compares digest by digest, so a change of the engine that alters any observable
behaviour fails at the first step it differs.

Regenerate (only when a change of behaviour is intended, and say so in the commit)::

    python -m tests.replay_corpus --write

A new preset's games are recorded and added, the others kept as recorded::

    python -m tests.replay_corpus --add canasta

After an intended change of behaviour (a rules fix), only the games that no longer
replay are recorded anew, the others kept as recorded::

    python -m tests.replay_corpus --update
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

import rummy_env
from rummy_env.rules import _PRESETS

PATH = Path(__file__).with_name("data") / "replay_corpus.json.gz"
GAMES_PER_COUNT = 2  # seeded games per preset and player count
COMBINATIONS = 24  # games under random rule-option combinations
MATCH_GAMES = 1  # whole matches (match=True) per preset, two players
MAX_STEPS = 4000


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, float) and x != x:
        return "nan"
    return x


def _digest(env: Any) -> str:
    h = hashlib.sha1()
    h.update(str(env.agent_selection).encode())
    for agent in env.possible_agents:
        obs = env.observe(agent)
        h.update(np.ascontiguousarray(obs["observation"]).tobytes())
        h.update(np.ascontiguousarray(obs["action_mask"]).tobytes())
    h.update(
        json.dumps(
            _jsonable([env.rewards, env.terminations, env.truncations, env.infos]), sort_keys=True
        ).encode()
    )
    return h.hexdigest()[:16]


def play(entry: dict[str, Any], actions: list[int] | None = None) -> dict[str, Any]:
    """Play ``entry``'s game: the recorded ``actions`` if given, else seeded random moves."""
    env = rummy_env.raw_env(entry["preset"], num_players=entry["players"], **entry["overrides"])
    env.reset(seed=entry["seed"])
    rng = random.Random(entry["seed"])
    played, digests, middle = [], [_digest(env)], None
    for t in range(MAX_STEPS):
        if t == entry.get("middle_step", 40):
            middle = _jsonable(env.unwrapped.state.to_dict())
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            a = None
        elif actions is not None:
            a = actions[len(played)]
        else:
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            a = int(legal[rng.randrange(legal.size)])
        env.step(a)
        played.append(a)
        digests.append(_digest(env))
    return {
        **entry,
        "actions": played,
        "digests": digests,
        "middle_step": entry.get("middle_step", 40),
        "middle": middle,
        "final": _jsonable(env.unwrapped.state.to_dict()),
    }


def entries() -> list[dict[str, Any]]:
    """The games of the corpus (without their recordings)."""
    from tests.test_rule_combinations import FIELD_VALUES

    out: list[dict[str, Any]] = []
    for preset, (_, _, (lo, hi)) in sorted(_PRESETS.items()):
        for n in range(lo, hi + 1):
            for g in range(GAMES_PER_COUNT):
                out.append(dict(preset=preset, players=n, overrides={}, seed=1000 * n + g))
        out.append(dict(preset=preset, players=lo, overrides={"match": True}, seed=77))
    rng = random.Random(2026)
    presets = sorted(_PRESETS)
    while (
        len(out)
        < len(_PRESETS) * 1
        + sum((hi - lo + 1) * GAMES_PER_COUNT for _, _, (lo, hi) in _PRESETS.values())
        + COMBINATIONS
    ):
        preset = rng.choice(presets)
        lo, hi = _PRESETS[preset][2]
        n = rng.randint(lo, hi)
        fields = rng.sample(sorted(FIELD_VALUES), 4)
        overrides = {f: rng.choice(FIELD_VALUES[f]) for f in fields}
        overrides.pop("match", None)
        try:
            rummy_env.make_rules(preset, n, **overrides)
        except ValueError:
            continue
        out.append(
            dict(
                preset=preset,
                players=n,
                overrides=_jsonable(overrides),
                seed=rng.randrange(2**31),
            )
        )
    return out


def load() -> list[dict[str, Any]]:
    with gzip.open(PATH, "rt") as f:
        return json.load(f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"record the corpus to {PATH}")
    ap.add_argument(
        "--add",
        metavar="PRESET",
        help="record the games of one preset the corpus lacks and add them (the rest kept)",
    )
    ap.add_argument(
        "--update",
        action="store_true",
        help="record anew only the games that no longer replay identically (the rest kept)",
    )
    args = ap.parse_args()
    if args.update:
        games = []
        for e in load():
            seed = {k: e[k] for k in ("preset", "players", "overrides", "seed", "middle_step")}
            try:
                same = play(seed, e["actions"])["digests"] == e["digests"]
            except Exception:  # (a recorded action no longer legal)
                same = False
            games.append(e if same else play(seed))
            if not same:
                print(f"recorded anew: {e['preset']} {e['players']}p seed {e['seed']}")
        with gzip.open(PATH, "wt") as f:
            json.dump(games, f, separators=(",", ":"))
        return
    if args.add:
        old = load()
        if any(e["preset"] == args.add for e in old):
            ap.error(f"the corpus already holds {args.add!r} games")
        new = [play(e) for e in entries() if e["preset"] == args.add and not e["overrides"]]
        new += [
            play(e)
            for e in entries()
            if e["preset"] == args.add and e["overrides"] == {"match": True}
        ]
        with gzip.open(PATH, "wt") as f:
            json.dump(old + new, f, separators=(",", ":"))
        print(f"added {len(new)} games, {sum(len(g['actions']) for g in new)} steps, to {PATH}")
        return
    games = [play(e) for e in entries()]
    steps = sum(len(g["actions"]) for g in games)
    print(f"{len(games)} games, {steps} steps")
    if args.write:
        PATH.parent.mkdir(exist_ok=True)
        with gzip.open(PATH, "wt") as f:
            json.dump(games, f, separators=(",", ":"))
        print(f"wrote {PATH} ({PATH.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
