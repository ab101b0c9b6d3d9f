"""Recorded games replay identically: what a user observes has not changed.

The corpus (``tests/replay_corpus.py``) holds seeded random games of every preset and
player count, whole matches, and games under random rule-option combinations, with a
digest of every agent's observation, mask, rewards and infos after every step, the
state saved mid-game and at the end.
"""

from __future__ import annotations

import pytest

import rummy_env
from rummy_env.engine.state import state_class
from rummy_env.variants import canasta
from tests import replay_corpus

CORPUS = replay_corpus.load()


def _name(e):
    opts = ",".join(f"{k}={v}" for k, v in e["overrides"].items())
    return f"{e['preset']}-{e['players']}p-{e['seed']}" + (f"-{opts}" if opts else "")


#: state keys and rule fields added after a game was recorded (Canasta's): a saved state
#: of an earlier game holds them at their start values
LATER_KEYS = {
    "red_threes",
    "frozen",
    "opening_count",
    "pending",
    "final_turn",
    "round_start_totals",
    "turn_on_old",
    "sides",
}
LATER_RULES = set(canasta.CANASTA_ONLY)


def _as_recorded(got: dict | None, want: dict | None) -> dict | None:
    """``got`` without the keys added after ``want`` was recorded (only those may be new,
    each at its start value, as a state saved without it restores)."""
    if not got or not want:
        return got
    assert set(got) - set(want) <= LATER_KEYS, set(got) - set(want)
    assert set(got["rules"]) - set(want["rules"]) <= LATER_RULES
    rules = rummy_env.RuleSet(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in got["rules"].items()}
    )
    n = rules.num_players
    for f in state_class().FIELDS:
        if f.name in set(got) - set(want):
            start = f.dump(f.fresh(f.start_value(rules), n))
            assert got[f.name] == replay_corpus._jsonable(start), f.name
    out = {k: v for k, v in got.items() if k in want}
    out["rules"] = {k: v for k, v in got["rules"].items() if k in want["rules"]}
    return out


def test_corpus_covers_every_preset_and_player_count():
    have = {(e["preset"], e["players"]) for e in CORPUS}
    for preset, (_, _, (lo, hi)) in replay_corpus._PRESETS.items():
        for n in range(lo, hi + 1):
            assert (preset, n) in have
    assert sum(bool(e["overrides"]) and "match" not in e["overrides"] for e in CORPUS) >= 20


@pytest.mark.parametrize("entry", CORPUS, ids=_name)
def test_recorded_game_replays_identically(entry):
    again = replay_corpus.play(entry, entry["actions"])
    for t, (want, got) in enumerate(zip(entry["digests"], again["digests"], strict=True)):
        assert got == want, f"step {t} (action {entry['actions'][t - 1] if t else None}) differs"
    assert _as_recorded(again["final"], entry["final"]) == entry["final"]
    assert _as_recorded(again["middle"], entry["middle"]) == entry["middle"]


@pytest.mark.parametrize("entry", [e for e in CORPUS if e["middle"]][::3], ids=_name)
def test_game_restored_mid_way_plays_on_identically(entry):
    env = rummy_env.raw_env(entry["preset"], num_players=entry["players"], **entry["overrides"])
    env.reset(options={"state": entry["middle"]})
    k = entry["middle_step"]
    for t, a in enumerate(entry["actions"][k:], start=k):
        if not env.agents:
            break
        env.step(a)
        assert replay_corpus._digest(env) == entry["digests"][t + 1], f"step {t + 1} differs"
    final = replay_corpus._jsonable(env.unwrapped.state.to_dict())
    assert _as_recorded(final, entry["final"]) == entry["final"]
