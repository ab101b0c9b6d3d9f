"""Determinization: full game states consistent with one player's observation.

Search agents (information-set Monte Carlo, IS-MCTS) need concrete states to
play out. :func:`sample_state` builds one from what player ``seat`` sees and
nothing else:

* everything the observation shows is kept as observed: own hand, the discard
  pile in order, the table melds with their owners, the cards each opponent is
  known to hold, hand and stock sizes, phase, whose turn, the forbidden card,
  opened/active flags, totals, dealer, stock rebuilds and the knock limit;
* the hidden cards (the pack minus everything visible) are shuffled and dealt
  to the opponents (on top of their known cards, up to their hand sizes) and
  the rest become the stock;
* what the observation cannot show is chosen: the seed of future stock
  rebuilds (random), the round and turn counters (0), and ``turn_played`` (whether the
  player to act melded earlier this turn: the caller may pass it, since an
  agent knows its own moves; otherwise False). In gin the up-card stage is
  read off the phase, the turn, the untouched stock and the known cards (and
  the observer's action mask when he is to act).

An opponent to act who is mid-way through his opening (melds laid this turn, not
opened) is dealt cards like the others, which may not complete the opening: no game
reaches that, and :func:`rummy_env.engine.from_dict` refuses such a saved state, but
the sample is built without that check (the search plays on from it).

The state is built through :func:`rummy_env.engine.from_dict`, so it is a
regular engine state: ``observation.encode(sample, seat, ObsLayout(rules))``
equals the observation it came from (tested), and cards are conserved.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from rummy_env import engine
from rummy_env.cards import NUM_FACES, card_str, deck_faces, face_counts, parse_card
from rummy_env.engine.game import game_of
from rummy_env.melds import classify_wild
from rummy_env.observation import decode
from rummy_env.rules import RuleSet

Rng = random.Random | np.random.Generator


def observed(
    obs: np.ndarray, rules: RuleSet, seat: int, action_mask: np.ndarray | None = None
) -> tuple[dict[str, Any], list[int], list[int]]:
    """What ``seat`` sees, in absolute seats.

    Returns:
        ``(template, hidden, need)``: a ``to_dict``-style dict without the
        hidden cards (opponents' hands hold only their known cards, the stock
        is empty); the hidden faces (copies repeated, sorted); and per seat the
        number of hidden cards its hand still needs.

    Raises:
        ValueError: the observation does not fit the rules (wrong size, or
            sizes that do not add up to the pack).
    """
    if game_of(rules).obs_full is not None:
        raise ValueError(
            f"determinization covers the card games of the common observation, not "
            f"{rules.name!r} (its observation is its own)"
        )
    v = decode(obs, rules)
    hands, known, sizes, need = _hands_seen(v, seat, rules.num_players)
    bottom, hidden = _hidden_cards(v, rules, hands, need)
    template = _core_template(v, rules, seat, hands, known, bottom, action_mask)
    _add_variant_fields(template, v, rules, seat, sizes)
    _add_turn_facts(template, seat, known)
    return template, hidden, need


def _by_seat(xs: list, seat: int, P: int) -> list:
    """Per-seat values listed from ``seat``'s view (next seat first) in absolute seats."""
    return [xs[(q - seat) % P] for q in range(P)]


def _hands_seen(
    v: dict[str, Any], seat: int, P: int
) -> tuple[list[list[str]], list[list[str]], list[int], list[int]]:
    """``(hands, known, sizes, need)``: per seat the cards ``seat`` sees in the hand (all of
    its own, the known ones of the others), the known cards, the hand sizes and how many
    hidden cards each hand still needs."""
    hands: list[list[str]] = [[] for _ in range(P)]
    known: list[list[str]] = [[] for _ in range(P)]
    hands[seat] = list(v["hand"])
    for off in range(1, P):
        q = (seat + off) % P
        known[q] = list(v["known"][off - 1])
        hands[q] = list(known[q])
    sizes = _by_seat(v["hand_sizes"], seat, P)
    need = [sizes[q] - len(hands[q]) for q in range(P)]
    if need[seat] != 0 or min(need) < 0:
        raise ValueError(
            f"observation is inconsistent: hand sizes {sizes} vs cards seen {[len(h) for h in hands]}"
        )
    return hands, known, sizes, need


def _hidden_cards(
    v: dict[str, Any], rules: RuleSet, hands: list[list[str]], need: list[int]
) -> tuple[list[str], list[int]]:
    """``(bottom, hidden)``: the stock's seen cards and the faces nobody in view holds
    (copies repeated, sorted), checked against the pack and the sizes."""
    left = face_counts(deck_faces(rules.decks, rules.jokers))
    # Indian rummy: the cut card lies face up at the bottom of the stock until drawn
    bottom = [v["cut"]] if v["cut"] and v["rebuilds"] == 0 and v["stock_size"] else []
    seen = (
        [c for h in hands for c in h]
        + list(v["discard"])
        + [c for m in v["table"] for c in m["cards"]]
        + bottom
        + v["table_tiles"]  # Rummikub: the table's tiles and this turn's played tiles
        + v["played_tiles"]
    )
    for c in seen:
        left[parse_card(c)] -= 1
    if min(left) < 0:
        over = sorted({card_str(f) for f in range(NUM_FACES) if left[f] < 0})
        raise ValueError(
            f"observation is inconsistent: more copies seen than the pack holds ({', '.join(over)})"
        )
    hidden = [f for f in range(NUM_FACES) for _ in range(left[f])]
    if len(hidden) != sum(need) + v["stock_size"] - len(bottom):
        raise ValueError(
            f"observation is inconsistent: {len(hidden)} hidden cards, but hands need "
            f"{sum(need)} and the stock holds {v['stock_size']} (a seen cut card among them: "
            f"{len(bottom)})"
        )
    return bottom, hidden


def _core_template(
    v: dict[str, Any],
    rules: RuleSet,
    seat: int,
    hands: list[list[str]],
    known: list[list[str]],
    bottom: list[str],
    action_mask: np.ndarray | None,
) -> dict[str, Any]:
    """The ``to_dict`` fields every game has (and gin's), in absolute seats."""
    P = rules.num_players
    phase = v["phase"]
    current = (seat + v["to_act"]) % P
    if phase == "buy":  # (contract rummy) the asked seat acts; the drawer's turn goes on
        current = (seat + v["turn"]) % P
    dealer = (seat + v["dealer"]) % P
    return {
        "hands": hands,
        "stock": bottom,  # the stock's seen cards, bottom last (the hidden ones go on top)
        "discard": list(v["discard"]),
        "table": [
            {"owner": (seat + m["owner"]) % P, "kind": m["kind"], "cards": list(m["cards"])}
            for m in v["table"]
        ],
        "current_player": current,
        "phase": phase,
        "dealer": dealer,
        "forbidden": v["forbidden"],
        "turn_played": False,
        "played": _by_seat(v["played"], seat, P),
        "known": known,
        "rebuilds": v["rebuilds"],
        "seed": 0,
        "round": 0,
        "round_scores": [0] * P,
        "totals": _by_seat(v["totals"], seat, P),
        "active": _by_seat(v["active"], seat, P),
        "winner": None,
        "match_winner": None,
        "reason": None,
        "step_count": 0,
        "knock_limit": v.get("knock_limit", rules.knock_limit),
        "upcard_stage": _upcard_stage(v, rules, seat, current, dealer, known, action_mask),
        "hands_won": [0] * P,
    }


def _upcard_stage(
    v: dict[str, Any],
    rules: RuleSet,
    seat: int,
    current: int,
    dealer: int,
    known: list[list[str]],
    action_mask: np.ndarray | None,
) -> int:
    """Gin's up-card stage (-1: over) as far as the observation shows it."""
    if v["phase"] == "upcard":
        return 1 if current == dealer else 0
    if (
        rules.upcard_offer
        and v["phase"] == "draw"
        and current != dealer
        and len(v["discard"]) == 1
        and v["rebuilds"] == 0
        and not any(known)
        and v["stock_size"] == rules.num_cards - rules.hand_size * sum(v["active"]) - 1
    ):
        # Untouched stock, the non-dealer to draw and nobody holding a taken card:
        # both players passed the up-card, so the non-dealer must draw from the stock.
        # (The dealer's own taken card is not in his observation; the mask settles it.)
        if action_mask is not None and current == seat and action_mask[1]:
            return -1
        return 2
    return -1


def _add_variant_fields(
    template: dict[str, Any], v: dict[str, Any], rules: RuleSet, seat: int, sizes: list[int]
) -> None:
    """The fields of later variants, where the observation has them."""
    P = rules.num_players
    for key in ("opened", "credit"):
        if key in v:
            template[key] = _by_seat(v[key], seat, P)
    for key in ("must_use", "turn_value"):
        if key in v:
            template[key] = v[key]
    if v["drew"]:  # (Indian rummy: draws, drops and the cut card)
        first, middle = rules.drop_penalties
        drew = _by_seat(v["drew"], seat, P)
        template["drew"] = drew
        template["dropped"] = [
            (middle if drew[q] else first) if out else None
            for q, out in enumerate(_by_seat(v["dropped"], seat, P))
        ]
        template["cut"] = v["cut"]
    if not game_of(rules).melds_owned:  # (Rummikub: one pool of tiles)
        template["passes"] = v["passes"]
        template["table"] = (
            [{"owner": None, "kind": None, "cards": list(v["table_tiles"])}]
            if v["table_tiles"]
            else []
        )
        template["played_tiles"] = list(v["played_tiles"])
    if v["deal"]:  # (contract rummy: the deal, buys)
        template["buys"] = _by_seat(v["buys"], seat, P)
        asked = None
        if v["phase"] == "buy":  # the seat asked whether it buys is the one to act
            asked = (seat + v["to_act"]) % P
        template["asked"] = asked
        template["round"] = v["deal"] - rules.contract_deal
        # the deal's first turn (nobody has discarded yet: the question skips no one)
        known = template["known"]
        first = len(v["discard"]) == 1 and not v["table"] and not any(known)
        first = first and v["stock_size"] == rules.num_cards - sum(sizes) - 1
        template["turns"] = 0 if first else 1


def _add_turn_facts(template: dict[str, Any], seat: int, known: list[list[str]]) -> None:
    """What the current turn shows: the card the observer must use, and whether the melds
    of a player yet to open hold a pure run."""
    current = template["current_player"]
    if template.get("must_use") and current == seat:
        # the observer took it from the discard pile this turn, in view of all: a card
        # known to be in his hand (his own known cards are not in his observation)
        known[seat].append(template["must_use"])
    if "opened" in template:
        # melds of a player who has not opened yet were all laid this turn: the
        # turn holds a pure run when one of them is a run without wild cards
        template["turn_pure"] = not template["opened"][current] and any(
            m["owner"] == current and m["kind"] == "run" and "JK" not in m["cards"]
            for m in template["table"]
        )


def _randint(rng: Rng) -> int:
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**31 - 1))
    return rng.randrange(2**31 - 1)


def _fill(
    template: dict[str, Any],
    hidden: list[int],
    need: list[int],
    rng: Rng,
    turn_played: bool,
    hands_won: list[int] | None,
) -> dict[str, Any]:
    """The template with the hidden cards shuffled and dealt, for ``from_dict``: the
    plain path, which :meth:`Determinizer.sample` follows faster (tested equal)."""
    cards = list(hidden)
    rng.shuffle(cards)
    return _dealt(template, cards, need, _randint(rng), turn_played, hands_won)


def _dealt(
    template: dict[str, Any],
    cards: list[int],
    need: list[int],
    seed: int,
    turn_played: bool,
    hands_won: list[int] | None,
) -> dict[str, Any]:
    """The template with ``cards`` dealt: ``need[q]`` to each seat in turn, the rest to the stock."""
    d = dict(template)
    hands = [list(h) for h in template["hands"]]
    i = 0
    for q, k in enumerate(need):
        hands[q].extend(card_str(f) for f in cards[i : i + k])
        i += k
    d["hands"] = hands
    # top first; the order is random anyway, below it the seen cards (the cut card)
    d["stock"] = [card_str(f) for f in cards[i:]] + list(template["stock"])
    d["seed"] = seed
    d["turn_played"] = bool(turn_played)
    if hands_won is not None:
        d["hands_won"] = list(hands_won)
    return d


def _fix_table(s: engine.GameState, template: dict[str, Any]) -> None:
    """``from_dict`` classifies a meld from its cards; where a run could also
    read as a set (only when a meld may hold fewer than two naturals), rebuild
    it as the run the observation shows (Rummikub's table is one pool of tiles: nothing)."""
    if not s.game.melds_owned:
        return
    for i, m in enumerate(template["table"]):
        if (m["kind"] == "run") == s.table[i].is_run:
            continue
        cards = [parse_card(c) for c in m["cards"]]
        (_, suit, lo, hi), wild_at = classify_wild(cards, s.cat, s.rules.fixed_wild_rank, "run")
        wild = sum(1 << (lo + j) for j in wild_at)
        wild_cards = tuple(cards[j] for j in wild_at)
        s.table[i] = engine.TableMeld.run(m["owner"], suit, lo, hi, wild, s.cat, wild_cards)


class Determinizer:
    """Decodes one observation once, then samples states from it cheaply.

    Args: as :func:`sample_state` (without ``rng``).
    """

    def __init__(
        self,
        obs: np.ndarray,
        rules: RuleSet,
        seat: int,
        *,
        action_mask: np.ndarray | None = None,
        turn_played: bool = False,
        hands_won: list[int] | None = None,
    ):
        self.rules = rules
        self.seat = seat
        self.template, self.hidden, self.need = observed(obs, rules, seat, action_mask)
        self.turn_played = turn_played
        self.hands_won = hands_won
        self._base: engine.GameState | None = None
        self._bottom = [parse_card(c) for c in reversed(self.template["stock"])]

    def sample(self, rng: Rng, dealt: dict[int, list[int]] | None = None) -> engine.GameState:
        """One state. ``dealt``: the hidden cards given to some seats (``{seat: faces}``,
        as many as that seat's hidden cards, each one of the hidden cards): a caller that
        infers more than the observation shows (an opponent's likely hand) picks them; the
        rest are dealt at random as usual."""
        # What the template fixes is built into a state once; a sample copies it and
        # deals the hidden cards with the same random draws as _fill: the same state
        # as from_dict(_fill(...)), several times faster.
        if self._base is None:
            d = _dealt(self.template, [], [0] * len(self.need), 0, self.turn_played, self.hands_won)
            self._base = engine.from_dict(d, self.rules, check=False)  # the hidden cards come next
            _fix_table(self._base, d)
        cards = list(self.hidden)
        if dealt:
            for q, faces in dealt.items():
                if not 0 <= q < len(self.need):
                    raise ValueError(
                        f"dealt: {q!r} is not a seat (allowed: 0..{len(self.need) - 1})"
                    )
                if len(faces) != self.need[q]:
                    raise ValueError(
                        f"dealt[{q}] has {len(faces)} cards; seat {q} has {self.need[q]} hidden"
                    )
                for f in faces:
                    try:
                        cards.remove(f)
                    except ValueError:
                        raise ValueError(
                            f"dealt[{q}]: {card_str(f)} is not among the hidden cards"
                        ) from None
        rng.shuffle(cards)
        s = self._base.copy()
        i = 0
        for q, k in enumerate(self.need):
            if dealt and q in dealt:
                s.add_cards(q, dealt[q])
                continue
            s.add_cards(q, cards[i : i + k])
            i += k
        s.stock = self._bottom + cards[i:][::-1]  # _fill lists the stock top first
        s.seed = _randint(rng)
        return s


def sample_states(
    obs: np.ndarray,
    rules: RuleSet,
    seat: int,
    rng: Rng,
    n: int,
    *,
    action_mask: np.ndarray | None = None,
    turn_played: bool = False,
    hands_won: list[int] | None = None,
) -> list[engine.GameState]:
    """``n`` independent determinizations of ``seat``'s observation (decoded once)."""
    det = Determinizer(
        obs, rules, seat, action_mask=action_mask, turn_played=turn_played, hands_won=hands_won
    )
    return [det.sample(rng) for _ in range(n)]


def sample_state(
    obs: np.ndarray,
    rules: RuleSet,
    seat: int,
    rng: Rng,
    *,
    action_mask: np.ndarray | None = None,
    turn_played: bool = False,
    hands_won: list[int] | None = None,
) -> engine.GameState:
    """A full engine state consistent with player ``seat``'s observation ``obs``.

    Args:
        obs: the observation vector (``obs["observation"]``) of ``seat``.
        rules: the rule set the observation was made under.
        seat: the observer's seat.
        rng: ``random.Random`` or ``numpy.random.Generator`` for the hidden cards.
        action_mask: the observer's mask, when he is to act: it tells whether
            the gin up-card may still be taken (not otherwise observable).
        turn_played: whether the player to act has melded or laid off earlier
            in this turn (not in the observation; an agent knows its own moves).
        hands_won: per seat, hands won so far in the match (gin line bonus; not
            in the observation); zeros when omitted.

    Raises:
        ValueError: the observation does not fit the rules.
    """
    return sample_states(
        obs,
        rules,
        seat,
        rng,
        1,
        action_mask=action_mask,
        turn_played=turn_played,
        hands_won=hands_won,
    )[0]
