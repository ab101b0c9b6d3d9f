"""Property tests of the six invariants of docs/design.md under random masked play.

Every test draws a seed with hypothesis; the seed fixes the deal (``reset(seed=...)``)
and the random choices among the legal actions, so a failure prints a seed that
replays it exactly. The configurations cover the basic preset with 2-6 players,
jokers 0/2, both ace options, both scorings and match True/False.

1. card conservation    -> test_card_conservation
2. no dead ends         -> test_no_dead_ends, test_swap_joker_never_leaves_a_dead_end
3. mask exactness       -> test_mask_exactness
4. termination          -> test_termination, test_rounds_end_under_any_play
5. determinism          -> test_determinism
6. no leaks             -> test_no_leaks
returns (pgx api_test)  -> test_returns
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import rummy_env
from rummy_env import cover, engine
from rummy_env.cards import card_str
from rummy_env.moves import (
    Buy,
    Commit,
    Declare,
    Discard,
    DrawDiscard,
    DrawStock,
    Drop,
    LayOff,
    Meld,
    Pass,
    PlayTile,
    SwapJoker,
)
from rummy_env.rules import CONTRACTS
from tests.helpers import (
    SEEDS,
    engine_accepted,
    pack,
    permute_hidden,
    places,
)
from tests.test_indian import brute_count, brute_show, wild_of


def vec(tiles: Counter) -> list[int]:
    """Rummikub: a multiset of tiles as counts per face (cover's vectors)."""
    return [tiles[card_str(f)] for f in range(53)]


# (id, overrides): every option value with several player counts. The match
# configurations play whole matches (several rounds, eliminations in standard
# scoring) with lowered limits so that a match lasts a few rounds.
CONFIGS = [
    ("2p", dict(num_players=2)),
    (
        "3p-jokers-high-wta",
        dict(num_players=3, jokers=2, ace="low_or_high", scoring="winner_takes_all"),
    ),
    ("4p-high", dict(num_players=4, ace="low_or_high")),
    ("5p-jokers-wta", dict(num_players=5, jokers=2, scoring="winner_takes_all")),
    ("6p-jokers-high", dict(num_players=6, jokers=2, ace="low_or_high")),
    ("6p-wta", dict(num_players=6, scoring="winner_takes_all")),
    (
        "2p-jokers-wta-match",
        dict(num_players=2, jokers=2, scoring="winner_takes_all", match=True, target=60),
    ),
    ("3p-high-match", dict(num_players=3, ace="low_or_high", match=True, penalty_limit=40)),
    ("4p-jokers-match", dict(num_players=4, jokers=2, match=True, penalty_limit=30)),
    # wild-card rummy: every 2 wild (natural at its own place), with and without jokers
    ("deuces-2p", dict(preset="deuces", num_players=2)),
    ("deuces-4p-jokers-high", dict(preset="deuces", num_players=4, jokers=1, ace="low_or_high")),
    ("deuces-3p-match", dict(preset="deuces", num_players=3, match=True, penalty_limit=40)),
    # Indian rummy: random play drops out early, so also without drops (declarations, stock
    # rebuilds, the stuck-round count); pool 101 with a lower limit
    ("indian-2p", dict(preset="indian", num_players=2)),
    ("indian-4p", dict(preset="indian", num_players=4)),
    ("indian-2p-no-drops", dict(preset="indian", num_players=2, drop_penalties=(0, 0))),
    ("indian-4p-no-drops", dict(preset="indian", num_players=4, drop_penalties=(0, 0))),
    ("indian-3p-match", dict(preset="indian", num_players=3, match=True, penalty_limit=60)),
    # set limits (issue 17): suits that repeat with two decks (D-16), sets of any size or
    # at most 5, and sets of 3 only
    (
        "2p-repeated-suits",
        dict(num_players=2, decks=2, jokers=1, set_suits_distinct=False, max_set=0),
    ),
    (
        "4p-repeated-suits-5-run4",
        dict(num_players=4, decks=2, set_suits_distinct=False, max_set=5, min_run=4),
    ),
    ("3p-sets-of-3", dict(num_players=3, jokers=1, max_set=3)),
    # contract rummy: going down with the contract, buying out of turn; the 7th deal (runs
    # only, no final discard); five players with three decks; a match of the last deals
    ("contract-3p", dict(preset="contract", num_players=3)),
    ("contract-4p", dict(preset="contract", num_players=4)),
    ("contract-4p-deal6", dict(preset="contract", num_players=4, contract_deal=6)),
    ("contract-3p-deal7", dict(preset="contract", num_players=3, contract_deal=7)),
    ("contract-5p-deal2", dict(preset="contract", num_players=5, contract_deal=2)),
    ("contract-2p-match", dict(preset="contract", num_players=2, contract_deal=5, match=True)),
    # Rummikub: the table one pool of tiles; 2-4 players, and a match (a round per player)
    ("rummikub-2p", dict(preset="rummikub", num_players=2)),
    ("rummikub-3p", dict(preset="rummikub", num_players=3)),
    ("rummikub-4p", dict(preset="rummikub", num_players=4)),
    ("rummikub-2p-match", dict(preset="rummikub", num_players=2, match=True)),
    # Canasta: partnerships with 4 players (and without), 2-3 players, a short match
    ("canasta-2p", dict(preset="canasta", num_players=2)),
    ("canasta-3p", dict(preset="canasta", num_players=3)),
    ("canasta-4p", dict(preset="canasta", num_players=4)),
    ("canasta-4p-no-partners", dict(preset="canasta", num_players=4, partnerships=False)),
    ("canasta-4p-match", dict(preset="canasta", num_players=4, match=True, target=1500)),
]
CONFIG_IDS = [c[0] for c in CONFIGS]
CONFIG_KW = [c[1] for c in CONFIGS]

# Random play ends a round in a few hundred steps (the longest seen: ~650);
# a match in standard scoring needs at most a few dozen rounds.
MAX_ROUND_STEPS = 10_000
MAX_ROUNDS = 200
MAX_GAME_STEPS = MAX_ROUND_STEPS * MAX_ROUNDS


def fast(n: int):
    """Hypothesis settings for a test whose examples are whole games."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make(kw: dict[str, Any]) -> rummy_env.raw_env:
    kw = dict(kw)
    return rummy_env.raw_env(kw.pop("preset", "basic"), **kw)


def every(kw: dict[str, Any], k: int) -> int:
    """Check stride: every ``k``-th step of a round, sparser in (longer) matches."""
    return 4 * k if kw.get("match") else k


def random_play(
    env: rummy_env.raw_env, seed: int
) -> Iterator[tuple[str, np.ndarray | None, int | None]]:
    """Play a random masked game from ``reset(seed=seed)``.

    Yields ``(agent, mask, action)`` before every step (``mask`` and ``action``
    are None for the steps of terminated agents); the caller may inspect the env
    between the yield and the step.
    """
    env.reset(seed=seed)
    rng = random.Random(seed)
    for steps, agent in enumerate(env.agent_iter()):
        assert steps < MAX_GAME_STEPS, f"seed {seed}: no end after {steps} steps"
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            yield agent, None, None
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size, f"seed {seed}: {agent} has an empty mask"
        action = int(legal[rng.randrange(legal.size)])
        yield agent, mask, action
        env.step(action)


def card_value(card: str, rules: rummy_env.RuleSet) -> int:
    """Penalty value of a card left in hand (docs/rules.md 6; a wild 2 costs a joker's)."""
    if card == "JK" or (rules.wild_deuces and card[0] == "2"):
        return rules.joker_penalty
    r = card[0]
    if r == "A":
        return rules.ace_penalty
    if rules.scoring == "rummikub":  # a tile's number
        return "A23456789TJQK".index(r) + 1
    if r in "TJQK":
        return 10
    return rules.low_card_penalty or int(r)  # (contract rummy: a 2-9 counts 5)


def hand_value(cards: list[str], rules: rummy_env.RuleSet) -> int:
    return sum(card_value(c, rules) for c in cards)


# ------------------------------------------------------------ 1. conservation
@pytest.mark.parametrize("kw", CONFIG_KW, ids=CONFIG_IDS)
@fast(5)
@given(seed=SEEDS)
def test_card_conservation(kw, seed):
    """Hands + stock + discard + table are exactly the pack after every step of a
    round (every 4th step of a match)."""
    env = make(kw)
    full = pack(env.rules)
    k = every(kw, 1)
    for i, _ in enumerate(random_play(env, seed)):
        if i % k:
            continue
        d = env.state.to_dict()
        assert places(d) == full, (
            f"seed {seed}, step {d['step_count']}: cards {places(d) - full} "
            f"appeared, {full - places(d)} vanished"
        )
    d = env.state.to_dict()
    assert places(d) == full


# --------------------------------------------------------------- 2. dead ends
@pytest.mark.parametrize("kw", CONFIG_KW, ids=CONFIG_IDS)
@fast(5)
@given(seed=SEEDS)
def test_no_dead_ends(kw, seed):
    """A non-terminal state always offers its player a legal move; the others get zero masks."""
    env = make(kw)
    for agent, mask, _ in random_play(env, seed):
        if mask is None:
            continue
        s = env.state
        assert not engine.is_terminal(s)
        assert env.agent_selection == agent == f"player_{engine.acting_seat(s)}"
        legal = env.legal_actions()
        assert legal, f"seed {seed}: dead end at step {s.step_count} ({s.to_dict()})"
        assert np.flatnonzero(mask).tolist() == legal
        if s.step_count % 5 == 0:
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
    assert engine.is_terminal(env.state)
    assert env.legal_actions() == []


def _state_with_swap_trap() -> rummy_env.raw_env:
    """Player 0 holds only 6H; the discard top is a joker; player 1's run 5H JK 7H
    on the table holds a joker standing for 6H.

    ```
    table:   [0] player_1 run: 5H JK 7H
    discard: JK (top)
    player_0 hand: 6H          player_1 hand: 9D
    ```
    """
    env = rummy_env.raw_env("basic", num_players=2, jokers=2, hand_size=1)
    env.reset(seed=0, options={"hands": [["6H"], ["9D"]], "discard": ["JK"], "dealer": 1})
    d = env.state.to_dict()
    for c in ("5H", "7H", "JK"):
        d["stock"].remove(c)
    d["table"] = [{"owner": 1, "kind": "run", "cards": ["5H", "JK", "7H"]}]
    env.reset(options={"state": d})
    return env


def test_swap_joker_never_leaves_a_dead_end():
    """Regression (fixed in c28426d, "mask swaps that would leave only
    undiscardable cards"): SwapJoker was legal when it left only forbidden jokers.

    Taking the joker from the discard makes JK the face that may not be discarded.
    Swapping 6H for the table's joker then leaves JK JK in hand: neither may be
    discarded, laying one off would leave only the other, so no move would be legal.
    Such a swap must be masked (docs/design.md invariant 2); every legal move must lead
    to a state with a legal move."""
    env = _state_with_swap_trap()
    env.step(env.encode(DrawDiscard()))
    assert env.state.to_dict()["forbidden"] == "JK"
    assert env.encode(SwapJoker("6H", 0)) not in env.legal_actions()
    for a in env.legal_actions():
        probe = env.state.copy()
        engine.apply_action(probe, a)
        assert engine.is_terminal(probe) or engine.legal_actions(probe), (
            f"{env.decode(a)} leaves {probe.to_dict()['hands'][0]} with forbidden "
            f"{probe.to_dict()['forbidden']} and no legal move"
        )


# ------------------------------------------------------------ 3. mask exactness
class Oracle:
    """Legal actions from the rule text (docs/rules.md 3 and 5, docs/design.md moves), written
    independently of the engine: one decoded ``Move`` per action id, judged on the
    ``to_dict()`` data. The documented no-dead-end rules are mirrored: a meld,
    lay-off or joker swap may not leave only cards that may not be discarded this
    turn, and the top discard may not be taken when every card in hand is a copy
    of it."""

    RANKS = "A23456789TJQK"

    def __init__(self, env: rummy_env.raw_env):
        self.rules = env.rules
        self.taken: tuple[str | None, str | None] = (None, None)
        self.max_pos = 13 if self.rules.ace == "low_or_high" else 12
        self.draws, self.discards, self.melds = [], [], []
        self.declares: list[tuple[int, str]] = []  # Indian rummy
        self.drops: list[int] = []
        self.buy_question: set[int] = set()
        self.passes: list[int] = []  # (Pass: also Rummikub's, the pool empty)
        self.tiles: list[tuple[int, str]] = []  # Rummikub: PlayTile
        self.commit = -1
        self.layoffs: dict[int, list] = {}
        self.swaps: dict[int, list] = {}
        for a in range(env.codec.num_actions):
            m = env.codec.decode(a)
            if isinstance(m, (DrawStock, DrawDiscard)):
                self.draws.append((a, m))
            elif isinstance(m, Discard):
                self.discards.append((a, m.card))
            elif isinstance(m, Meld):
                nat = [c for c in m.cards if c != "JK"]
                kind = "set" if len({c[0] for c in nat}) == 1 else "run"
                self.melds.append((a, kind, m.cards))
            elif isinstance(m, LayOff):
                self.layoffs.setdefault(m.meld, []).append((a, m))
            elif isinstance(m, SwapJoker):
                self.swaps.setdefault(m.meld, []).append((a, m.card))
            elif isinstance(m, Declare):
                self.declares.append((a, m.card))
            elif isinstance(m, Drop):
                self.drops.append(a)
            elif isinstance(m, (Buy, Pass)):
                self.buy_question.add(a)
                self.passes.append(a)
            elif isinstance(m, PlayTile):
                self.tiles.append((a, m.tile))
            elif isinstance(m, Commit):
                self.commit = a
            else:
                raise AssertionError(f"unexpected move {m!r} in basic")

    def wild_ok(self, naturals: int, wilds: int) -> bool:
        r = self.rules
        if wilds and not r.wilds:
            return False
        if naturals < (2 if r.wilds_at_most_naturals else 1):
            return False
        if r.wilds_at_most_naturals and wilds > naturals:
            return False
        return not (r.max_wilds_per_meld and wilds > r.max_wilds_per_meld)

    def rank(self, card: str) -> int:
        return self.RANKS.index(card[0])

    def deuce(self, card: str) -> bool:
        """A wild 2 (wild_deuces), wherever it does not stand at its own place."""
        return self.rules.wild_deuces and card[0] == "2"

    def wild_pool(self, hand: Counter, own: str | None = None, set_of_2s: bool = False):
        """The wild cards of ``hand`` in the order the rule book lays them (D-13: a 2 taken
        from the pile that must be used now, the jokers, a 2 taken from the pile this turn
        (it may not be discarded), then the 2s by suit S H D C), without ``own`` (a 2 that
        would stand at its own place) and without any 2 for a set of 2s (natural there)."""
        must, taken = self.taken
        twos = [c for c in ("2S", "2H", "2D", "2C") if c != own]
        first = [must] if must in twos else []
        later = [taken] if taken in twos and taken != must else []
        twos = first + later + [c for c in twos if c not in first + later]
        pool = ["JK"] * hand["JK"]
        if self.rules.wild_deuces and not set_of_2s:
            pool = [c for c in first for _ in range(hand[c])] + pool
            pool += [c for c in twos[len(first) :] for _ in range(hand[c])]
        return pool

    def parse_meld(self, m: dict[str, Any]) -> dict[str, Any]:
        cards = m["cards"]
        if m["kind"] == "set":
            plain = [c for c in cards if c != "JK" and not self.deuce(c)]
            rank = self.rank(plain[0]) if plain else 1  # only 2s and jokers: a set of 2s
            nat = [c for c in cards if c != "JK" and self.rank(c) == rank]
            wild = [c for c in cards if c == "JK" or self.rank(c) != rank]
            return {
                "kind": "set",
                "rank": rank,
                "suits": {c[1] for c in nat},
                "naturals": len(nat),
                "wilds": len(wild),
                "wild_cards": wild,
            }
        i, first = next((i, c) for i, c in enumerate(cards) if c != "JK" and not self.deuce(c))
        r = self.rank(first)
        suit = first[1]
        for lo in (r - i, 13 - i) if r == 0 else (r - i,):
            hi = lo + len(cards) - 1
            stands = [self.RANKS[(lo + j) % 13] + suit for j in range(len(cards))]
            wild_at = [j for j, c in enumerate(cards) if c != stands[j]]
            if (
                lo >= 0
                and hi <= self.max_pos
                and all(cards[j] == "JK" or self.deuce(cards[j]) for j in wild_at)
            ):
                wild_pos = [lo + j for j in wild_at]
                return {
                    "kind": "run",
                    "suit": suit,
                    "lo": lo,
                    "hi": hi,
                    "wild_faces": {self.RANKS[q % 13] + suit for q in wild_pos},
                    "naturals": len(cards) - len(wild_at),
                    "wilds": len(wild_at),
                    "wild_at": {stands[j]: cards[j] for j in wild_at},
                }
        raise AssertionError(f"table meld {cards} is not a run")

    def legal(self, d: dict[str, Any]) -> set[int]:
        self.taken = (d.get("must_use"), d.get("forbidden"))  # (the order of wild 2s, D-13)
        p = d["current_player"]
        hand = Counter(d["hands"][p])
        n = len(d["hands"][p])
        out: set[int] = set()
        if self.rules.scoring == "rummikub":
            return self.tile_moves(d, hand)
        if d["phase"] == "draw":
            for a, m in self.draws:
                if isinstance(m, DrawStock):
                    if d["stock"]:
                        out.add(a)
                elif m.depth == 0 and d["discard"] and n > hand[d["discard"][-1]]:
                    out.add(a)
            return out | set(self.drops)  # Indian rummy: a drop instead of a draw
        if d["phase"] == "buy":  # contract rummy: the asked seat buys or passes
            return set(self.buy_question)
        if d["phase"] != "play":
            return out
        forb = d["forbidden"]
        r = self.rules
        contract = r.contract_deal > 0
        last7 = contract and r.contract_deal + d["round"] == 7  # no final discard
        opened = d["opened"][p]

        def leaves_a_move(rest: Counter) -> bool:
            if not +rest:
                return not self.rules.go_out_requires_discard
            return any(c != forb for c in +rest)

        mine = [m for m in d["table"] if m["owner"] == p]
        if not contract or opened or not mine:  # (not in the middle of going down)
            for a, card in self.discards:
                if hand[card] and card != forb and not (last7 and n == 1):
                    out.add(a)
        for a, card in self.declares:  # Indian rummy: every other card in a show (brute force)
            if hand[card] and card != forb:
                rest = list((hand - Counter([card])).elements())
                if brute_show(rest, wild_of(d["cut"]), everything=True) == 0:
                    out.add(a)
        if contract:
            sets, runs = CONTRACTS[r.contract_deal + d["round"]]
            left = [sets - sum(m["kind"] == "set" for m in mine), runs]
            left[1] -= sum(m["kind"] == "run" for m in mine)
            for a, kind, cards in self.melds if not opened else ():
                need = (left[0] - (kind == "set"), left[1] - (kind == "run"))
                used = self.meld_use(kind, cards, hand)
                if used is not None and min(need) >= 0:
                    laid = [self.as_table(kind, cards, hand)]
                    if self.contract_done(hand - used, need, forb, last7, d["table"], laid):
                        out.add(a)
        else:
            for a, kind, cards in self.melds:
                used = self.meld_use(kind, cards, hand)
                if used is not None and leaves_a_move(hand - used):
                    out.add(a)
        for mi, m in enumerate(d["table"]):
            t = self.parse_meld(m)
            if contract and not opened:
                break  # no lay-off before going down
            for a, lay in self.layoffs.get(mi, ()):
                card = lay.card
                if card == "JK":  # a wild lay-off: a joker, else a 2 not at its own place
                    pool = self.wild_pool(hand, self.stands_for(t, lay), t.get("rank") == 1)
                    card = pool[0] if pool else None
                if not (card and hand[card] and self.accepts(t, lay)):
                    continue
                rest = hand - Counter([card])
                if last7 and n == 2:  # the last card must then be laid off too
                    after = dict(m, cards=self.laid_cards(m, lay, card))
                    table = d["table"][:mi] + [after] + d["table"][mi + 1 :]
                    if self.fits(next(iter(rest)), table):
                        out.add(a)
                elif leaves_a_move(rest):
                    out.add(a)
            for a, card in self.swaps.get(mi, ()) if r.joker_swap else ():
                if t["kind"] == "run":
                    taken = t["wild_at"].get(card, "JK")
                else:
                    taken = "JK" if "JK" in t["wild_cards"] else (t["wild_cards"] or ["JK"])[-1]
                if (
                    hand[card]
                    and self.swappable(t, card)
                    and leaves_a_move(hand - Counter([card]) + Counter([taken]))
                ):
                    out.add(a)
        return out

    def tile_moves(self, d: dict[str, Any], rack: Counter) -> set[int]:
        """Rummikub (RULES.md 4 rummikub): draw or pass before any tile is played; a tile
        when some commit holds it and the tiles played (D-18); commit when something is
        played and the table's tiles with the played ones split into melds (D-17), or before
        the initial meld the played tiles alone, worth 30 (D-19). The cover questions are
        rummy_env.cover's, itself checked against a brute force in tests/test_cover.py."""
        played = Counter(d["played_tiles"])
        out: set[int] = set()
        if not played:
            if d["stock"]:
                out.add(self.draws[0][0])
            else:
                out.add(self.passes[0])
        table = Counter(c for m in d["table"] for c in m["cards"])
        opened = d["opened"][d["current_player"]]
        base = played + table if opened else played
        for a, tile in self.tiles:
            if not rack[tile]:
                continue
            mand, opt = vec(base + Counter([tile])), vec(rack - Counter([tile]))
            if opened:
                ok = cover.can_cover(mand, opt)
            else:
                ok = (cover.best_cover(mand, opt) or 0) >= self.rules.open_points
            if ok:
                out.add(a)
        if played:
            if opened:
                ok = cover.can_cover(vec(base))
            else:
                ok = (cover.best_cover(vec(base)) or 0) >= self.rules.open_points
            if ok:
                out.add(self.commit)
        return out

    def contract_done(self, rest, need, forb, last7, table, laid) -> bool:
        """Brute force: the melds still needed (``need`` sets, runs) can be laid one after
        another from ``rest`` (every meld action tried), leaving nothing, or a card other
        than ``forb``; in the seventh deal one card left must fit on the table or a meld
        laid (``laid``: the melds of this search as table dicts)."""
        if need == (0, 0):
            if not +rest:
                return True
            if last7 and sum(rest.values()) == 1:
                return self.fits(next(iter(+rest)), table + laid)
            return any(c != forb for c in +rest)
        for _, kind, cards in self.melds:
            k = (need[0] - (kind == "set"), need[1] - (kind == "run"))
            if min(k) < 0:
                continue
            used = self.meld_use(kind, cards, rest)
            if used is not None and self.contract_done(
                rest - used, k, forb, last7, table, laid + [self.as_table(kind, cards, rest)]
            ):
                return True
        return False

    def as_table(self, kind: str, cards, hand: Counter) -> dict[str, Any]:
        """The meld action's cards as they would lie on the table (JK where the hand lacks a
        run's card)."""
        if kind == "run":
            cards = tuple(c if hand[c] else "JK" for c in cards)
        return {"owner": -1, "kind": kind, "cards": list(cards)}

    def fits(self, card: str, table: list[dict[str, Any]]) -> bool:
        """Whether ``card`` can be laid off on some meld of ``table``."""
        for m in table:
            t = self.parse_meld(m)
            ends = (None,) if t["kind"] == "set" or card != "JK" else ("low", "high")
            if any(self.accepts(t, LayOff(card, 0, end)) for end in ends):
                return True
        return False

    def laid_cards(self, m: dict[str, Any], lay: LayOff, card: str) -> list[str]:
        """A table meld's cards after ``card`` is laid off as ``lay`` says."""
        cards = list(m["cards"])
        if m["kind"] == "set":
            return cards + [card]
        t = self.parse_meld(m)
        if card == "JK":
            low = lay.end == "low"
        else:  # (a card that fits both ends, an ace, goes high, as the engine lays it)
            r = self.rank(card)
            high = t["hi"] < self.max_pos and (t["hi"] + 1) % 13 == r
            low = t["lo"] > 0 and (t["lo"] - 1) % 13 == r and not high
        return [card] + cards if low else cards + [card]

    def stands_for(self, t: dict[str, Any], lay: LayOff) -> str | None:
        """The card a wild card laid off on run ``t`` stands for (None on a set)."""
        if t["kind"] == "set":
            return None
        q = t["hi"] + 1 if lay.end == "high" else t["lo"] - 1
        return self.RANKS[q % 13] + t["suit"]

    def meld_use(self, kind: str, cards: tuple[str, ...], hand: Counter) -> Counter | None:
        """Cards a meld action takes from ``hand`` (None if it cannot be laid). A run
        action (decoded without a state: every position natural) uses the hand's
        naturals and wild cards for the rest."""
        if kind == "set":
            nat = [c for c in cards if c != "JK"]
            need = len(cards) - len(nat)
            pool = self.wild_pool(hand - Counter(nat), set_of_2s=self.rank(nat[0]) == 1)
            if need > len(pool):
                return None
            used = Counter(nat) + Counter(pool[:need])
        else:
            have = [c for c in cards if hand[c]]
            need = len(cards) - len(have)
            pool = self.wild_pool(hand - Counter(have))
            if need > len(pool) or need and not self.wild_ok(len(have), need):
                return None
            used = Counter(have) + Counter(pool[:need])
        return None if used - hand else used

    def accepts(self, t: dict[str, Any], m: LayOff) -> bool:
        if t["kind"] == "set":
            if self.rules.max_set and t["naturals"] + t["wilds"] >= self.rules.max_set:
                return False
            if m.card == "JK":
                return m.end is None and self.wild_ok(t["naturals"], t["wilds"] + 1)
            return self.rank(m.card) == t["rank"] and self.new_suit(t, m.card)
        if t["hi"] - t["lo"] >= 12:
            return False
        low_ok = t["lo"] > 0
        high_ok = t["hi"] < self.max_pos
        if m.card == "JK":
            ok = high_ok if m.end == "high" else low_ok
            return ok and self.wild_ok(t["naturals"], t["wilds"] + 1)
        if m.card[1] != t["suit"]:
            return False
        r = self.rank(m.card)
        return (low_ok and (t["lo"] - 1) % 13 == r) or (high_ok and (t["hi"] + 1) % 13 == r)

    def swappable(self, t: dict[str, Any], card: str) -> bool:
        if t["wilds"] == 0 or card == "JK":
            return False
        if t["kind"] == "set":
            return self.rank(card) == t["rank"] and self.new_suit(t, card)
        return card in t["wild_faces"]

    def new_suit(self, t: dict[str, Any], card: str) -> bool:
        """D-2: a set takes a suit it lacks; without it (D-16) any suit."""
        return not self.rules.set_suits_distinct or card[1] not in t["suits"]


# the brute-force check tries every id: at most this many states per game
MAX_BRUTE_FORCE = 5


# every action id of sampled states is tried: contract rummy's deal 6 with 4 players and
# 5 players with 3 decks (18,727 ids) take 25-40 s of CPU each
_SLOW_MASK = {"contract-4p-deal6", "contract-5p-deal2"}


@pytest.mark.parametrize(
    "kw",
    [
        pytest.param(kw, marks=pytest.mark.slow) if name in _SLOW_MASK else kw
        for name, kw in CONFIGS
    ],
    ids=CONFIG_IDS,
)
@fast(4)
@given(seed=SEEDS)
def test_mask_exactness(kw, seed):
    """The mask from ``env.observe`` marks exactly the ids ``apply_action`` accepts
    (every id tried, every 7th step, up to MAX_BRUTE_FORCE states a game), and
    exactly the legal moves of the rule text (every 4th step)."""
    env = make(kw)
    # (Canasta's moves have an oracle of their own: tests/test_canasta_masks.py)
    oracle = Oracle(env) if env.rules.scoring != "canasta" else None
    full = pack(env.rules)
    na = env.codec.num_actions
    brute = 0
    k_brute, k_oracle = every(kw, 7), every(kw, 4)
    for i, (_agent, mask, _) in enumerate(random_play(env, seed)):
        if mask is None:
            continue
        assert mask.shape == (na,) and mask.dtype == np.int8
        assert set(np.unique(mask).tolist()) <= {0, 1}
        if i % k_brute == 0 and brute < MAX_BRUTE_FORCE:
            brute += 1
            got = engine_accepted(env.state, mask, full, clear_cache=False, strict=False)
            want = set(np.flatnonzero(mask).tolist())
            assert got == want, (
                f"seed {seed}, step {env.state.step_count}: accepted but masked "
                f"{[str(env.decode(a)) for a in sorted(got - want)]}, marked but refused "
                f"{[str(env.decode(a)) for a in sorted(want - got)]}"
            )
        if oracle is not None and i % k_oracle == 0:
            d = env.state.to_dict()
            want = oracle.legal(d)
            got = set(np.flatnonzero(mask).tolist())
            assert got == want, (
                f"seed {seed}, step {d['step_count']}, hand {d['hands'][d['current_player']]}, "
                f"forbidden {d['forbidden']}, table {d['table']}: the mask also marks "
                f"{[str(env.decode(a)) for a in sorted(got - want)]} and lacks "
                f"{[str(env.decode(a)) for a in sorted(want - got)]}"
            )
    assert brute > 0


def test_a_meld_lays_the_2_taken_this_turn_before_another():
    """D-13: with 2S and 2C (2C taken from the pile this turn, so not discardable) and
    4D 5D, ``meld JK 4D 5D`` lays 2C and leaves 2S to discard: legal. (The game where the
    rule book's oracle once disagreed with the mask.)"""
    env = make(dict(preset="deuces", num_players=4, jokers=1, ace="low_or_high"))
    oracle = Oracle(env)
    compared = 0
    for _agent, mask, _ in random_play(env, 363576399):
        if mask is None:
            continue
        d = env.state.to_dict()
        assert oracle.legal(d) == set(np.flatnonzero(mask).tolist()), d["step_count"]
        compared += 1
    assert compared > 108


# --------------------------------------------------------------- 4. termination
@pytest.mark.parametrize("kw", CONFIG_KW, ids=CONFIG_IDS)
@fast(6)
@given(seed=SEEDS)
def test_termination(kw, seed):
    """Every round ends within MAX_ROUND_STEPS steps and a match within MAX_ROUNDS
    rounds; every agent is then removed after one dead step."""
    env = make(kw)
    round_start, rounds, dead_steps = 0, 0, 0
    last_result = None
    for _agent, mask, _ in random_play(env, seed):
        s = env.state
        if mask is None:
            dead_steps += 1
            continue
        if s.last_result is not last_result:
            last_result = s.last_result
            rounds += 1
            round_start = s.step_count
        assert s.step_count - round_start < MAX_ROUND_STEPS, f"seed {seed}: round {s.round} goes on"
        assert rounds < MAX_ROUNDS
    assert engine.is_terminal(env.state)
    assert env.agents == []
    assert dead_steps == kw["num_players"]
    if not kw.get("match"):
        assert env.state.round == 0


class AlwaysTakeTheDiscard:
    """A legal policy: take the top discard whenever allowed, never meld, discard
    the highest card id allowed."""

    def __init__(self, env: rummy_env.raw_env):
        self.env = env
        self.moves = [env.codec.decode(a) for a in range(env.codec.num_actions)]

    def __call__(self) -> int:
        legal = self.env.legal_actions()
        draw = [a for a in legal if isinstance(self.moves[a], DrawDiscard)]
        if draw:
            return draw[0]
        discards = [a for a in legal if isinstance(self.moves[a], Discard)]
        return discards[-1] if discards else legal[0]


@pytest.mark.parametrize("num_players", [2, 3])
def test_rounds_end_under_any_play(num_players):
    """Invariant 4 (docs/design.md): every round ends in a bounded number of steps. A
    policy that always takes the top discard (legal every turn) never touches the
    stock; the round must still end (a learned policy may find this loop)."""
    env = rummy_env.raw_env("basic", num_players=num_players)
    env.reset(seed=0)
    policy = AlwaysTakeTheDiscard(env)
    for _ in range(MAX_ROUND_STEPS):
        if engine.is_terminal(env.state):
            break
        env.step(policy())
    assert engine.is_terminal(env.state), (
        f"no end after {MAX_ROUND_STEPS} steps; stock still {len(env.state.stock)} cards"
    )


# -------------------------------------------------------------- 5. determinism
@pytest.mark.parametrize("kw", CONFIG_KW, ids=CONFIG_IDS)
@fast(4)
@given(seed=SEEDS)
def test_determinism(kw, seed):
    """The same seed and the same actions give the same trajectory (agents,
    states, rewards, infos), in a fresh env and in the reused one."""
    env = make(kw)
    k = every(kw, 3)  # states compared every k-th step; agents and rewards every step
    trace, actions = [], []
    for i, (agent, _, action) in enumerate(random_play(env, seed)):
        trace.append((agent, env.state.to_dict() if i % k == 0 else None, dict(env.rewards)))
        actions.append(action)
    final = (env.state.to_dict(), dict(env.rewards), copy.deepcopy(env.infos))
    first = make(kw)
    first.reset(seed=seed)
    first_obs = first.observe(first.agent_selection)

    for replay in (make(kw), env):
        replay.reset(seed=seed)
        for i, (agent, action) in enumerate(zip(replay.agent_iter(), actions)):
            want_agent, want_state, want_rewards = trace[i]
            assert agent == want_agent, f"seed {seed}: step {i} is {agent}'s, was {want_agent}'s"
            if want_state is not None:
                assert replay.state.to_dict() == want_state, f"seed {seed}: diverged at step {i}"
            assert dict(replay.rewards) == want_rewards
            replay.step(action)
        assert replay.agents == []
        assert (replay.state.to_dict(), dict(replay.rewards), replay.infos) == final
    env.reset(seed=seed)
    again = env.observe(env.agent_selection)
    assert np.array_equal(first_obs["observation"], again["observation"])
    assert np.array_equal(first_obs["action_mask"], again["action_mask"])


# ---------------------------------------------------------------- 6. no leaks
@pytest.mark.parametrize("kw", CONFIG_KW, ids=CONFIG_IDS)
@fast(4)
@given(seed=SEEDS)
def test_no_leaks(kw, seed):
    """Permuting the cards a player cannot see (the other hands less their known
    cards, and the stock) changes neither his observation nor his mask: for the
    player to act every 4th step, for every seated player every 12th step."""
    env = make(kw)
    other = make(kw)
    rng = random.Random(seed)
    k = every(kw, 4)
    changed = 0
    for i, (agent, mask, _) in enumerate(random_play(env, seed)):
        if mask is None or i % k:
            continue
        d = env.state.to_dict()
        for q, known in enumerate(d["known"]):
            assert not Counter(known) - Counter(d["hands"][q]), (
                f"known cards of seat {q} not in hand"
            )
        viewers = env.agents if i % (3 * k) == 0 else [agent]
        for viewer in viewers:
            v = env.agent_name_mapping[viewer]
            want = env.observe(viewer)
            perm = permute_hidden(d, v, rng)
            changed += perm["hands"] != d["hands"] or perm["stock"] != d["stock"]
            assert places(perm) == places(d)
            assert perm["hands"][v] == d["hands"][v]
            other.reset(options={"state": perm})
            assert other.agent_selection == agent
            got = other.observe(viewer)
            assert np.array_equal(got["action_mask"], want["action_mask"]), (
                f"seed {seed}, step {d['step_count']}: {viewer}'s mask depends on hidden cards"
            )
            diff = np.flatnonzero(got["observation"] != want["observation"])
            slices = [
                name
                for name, sl in env.obs_layout.slices.items()
                if any(sl.start <= j < sl.stop for j in diff)
            ]
            assert diff.size == 0, (
                f"seed {seed}, step {d['step_count']}: {viewer}'s observation depends on "
                f"hidden cards (slices {slices})"
            )
    assert changed, "no permutation moved a card: the test checked nothing"


# ------------------------------------------------------------------ returns
def _canasta_returns(env, res, before) -> None:
    """Canasta: each seat's reward is its side's round score (partners equal), a round
    nobody went out of has no winner, the totals grow by the round's scores."""
    sides = before["sides"]
    rewards = res["rewards"]
    assert rewards == res["round_scores"]
    assert all(rewards[q] == rewards[sides[q]] for q in range(len(sides)))
    for a in env.agents:
        info = env.infos[a]
        assert info["side_scores"] == [rewards[sd] for sd in range(len(info["side_scores"]))]
        assert [sum(b.values()) for b in info["breakdown"]] == info["side_scores"]
    if res["reason"] == "went_out":
        assert res["winner"] == before["current_player"]
    else:
        assert res["winner"] is None
    assert res["totals"] == [t + s for t, s in zip(before["totals"], res["round_scores"])]


@pytest.mark.parametrize("kw", CONFIG_KW, ids=CONFIG_IDS)
@fast(5)
@given(seed=SEEDS)
def test_returns(kw, seed):
    """At each round end: winner-takes-all rewards sum to zero (the winner gets what
    the others pay); standard: the winner gets 0, the others minus their hand value.
    ``infos`` carry the round's result and the running totals."""
    env = make(kw)
    rules = env.rules
    n = rules.num_players
    rounds = 0
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _agent in env.agent_iter(MAX_GAME_STEPS):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        prev = env.state.copy()
        last = env.state.last_result
        env.step(int(legal[rng.randrange(legal.size)]))
        res = env.state.last_result
        if res is last:
            assert all(r == 0 for r in env.rewards.values())
            continue
        rounds += 1
        before = prev.to_dict()
        actor = before["current_player"]
        rewards = res["rewards"]
        winner = res["winner"]
        assert res["round"] == before["round"]
        reasons = ("went_out", "stock_exhausted", "turn_limit", "declared", "dropped", "all_passed")
        assert res["reason"] in reasons
        if rules.scoring == "canasta":  # (tests/test_canasta_scoring.py scores each round)
            _canasta_returns(env, res, before)
            continue
        assert 0 <= winner < n and before["active"][winner]
        for a in env.agents:
            assert env.rewards[a] == rewards[env.agent_name_mapping[a]]
            info = env.infos[a]
            for key in ("round", "round_scores", "totals", "winner", "reason"):
                assert info[key] == res[key], key
        assert res["totals"] == [t + s for t, s in zip(before["totals"], res["round_scores"])]
        if res["reason"] == "went_out":
            assert winner == actor
        rummy = res["reason"] == "went_out" and not before["played"][winner]
        assert res["rummy"] == rummy
        # the players other than the one who acted hold what they held before
        others = [q for q in range(n) if q not in (actor, winner) and before["active"][q]]
        if rules.scoring == "rummikub":  # zero-sum: each other pays his rack less the winner's
            assert sum(rewards) == 0 and rewards == res["round_scores"], rewards
            end = [hand_value(h, rules) for h in env.state.to_dict()["hands"]]
            if not rules.match or res["match_over"]:
                assert end[winner] == min(end)
                for q in range(n):
                    if q != winner:
                        assert rewards[q] == end[winner] - end[q]
        elif rules.scoring == "indian":  # D-15: each loser pays his count or drop, zero-sum
            assert sum(rewards) == 0 and res["round_scores"][winner] == 0, rewards
            wild = wild_of(before["cut"])
            for q in others:
                drop = before["dropped"][q]
                want = drop if drop is not None else brute_count(before["hands"][q], wild)
                assert res["round_scores"][q] == want == -rewards[q], (q, before["hands"][q])
        elif rules.scoring == "winner_takes_all":
            assert sum(rewards) == 0, rewards
            mult = rules.rummy_multiplier if rummy else 1
            for q in others:
                assert rewards[q] == -mult * hand_value(before["hands"][q], rules)
            assert rewards[winner] >= 0
            assert res["round_scores"][winner] == rewards[winner]
        else:
            assert rewards[winner] == 0
            assert all(r <= 0 for r in rewards), rewards
            for q in others:
                assert rewards[q] == -hand_value(before["hands"][q], rules) < 0
            assert res["round_scores"] == [-r for r in rewards]
        if res["reason"] == "stock_exhausted" and not rules.match and rules.scoring != "indian":
            end = env.state.to_dict()
            values = [hand_value(h, rules) for h in end["hands"]]
            assert values[winner] == min(values)
    assert rounds >= 1
    if not kw.get("match"):
        assert rounds == 1
