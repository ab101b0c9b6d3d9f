"""Dealing: a seeded deal or a crafted one (checked card by card), and a new game."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any

from rummy_env.cards import (
    NUM_RANKS,
    card_str,
    deck_faces,
    face_counts,
    parse_card,
    shuffle,
)
from rummy_env.rules import RuleSet


def _start_round(s: GameState, dealer: int, deal: dict[str, Any] | None = None) -> None:
    """Deal a round: from ``deal`` (validated) or shuffled from the seed."""
    rules = s.rules
    n = rules.num_players
    s.dealer = dealer
    for p in range(n):
        s.hands[p] = [0] * 53
        s.nhand[p] = 0
        s.smask[p] = [0] * 4
        s.rmask[p] = [0] * NUM_RANKS
        s.known[p] = [0] * 53
    s.table = []
    _new_round_fields(s)
    if deal is None:
        pack = deck_faces(rules.decks, rules.jokers)
        shuffle(pack, s.seed * 1_000_003 + s.round)
        hands: list[list[int]] = [[] for _ in range(n)]
        order = []
        p = _next_active(s, dealer)
        for _ in range(sum(s.active)):
            order.append(p)
            p = _next_active(s, p)
        k = len(order)
        dealt = pack[len(pack) - k * s.game.hand_size(rules, s.round) :]
        del pack[len(pack) - len(dealt) :]
        dealt.reverse()  # one at a time from the top (the end), the first seat first
        for i, p in enumerate(order):
            hands[p] = dealt[i::k]
        discard = [pack.pop()] if rules.upcard else []
        stock = pack  # top at the end
    else:
        hands, discard, stock = deal["hands"], deal["discard"], list(deal["stock"])
    for p in range(n):
        s.add_cards(p, hands[p])
    s.discard = list(discard)
    s.stock = stock
    if s.game.on_deal is not None:
        s.game.on_deal(s, deal is None)
    s.current = _next_active(s, dealer)
    s.phase = Phase.DRAW
    s._legal = None
    s.upcard_stage = -1
    if rules.oklahoma and s.discard:
        s.knock_limit = s.values[s.discard[-1]]  # the up-card's value (ace 1, faces 10)
    if rules.upcard_offer and s.discard:
        s.phase = Phase.UPCARD
        s.upcard_stage = 0
    _begin_draw(s)


#: the keys of a crafted deal in ``reset(options=...)`` / :func:`new_game` (``cut``:
#: Indian rummy's cut card, the bottom of the stock)
DEAL_KEYS = ("hands", "discard", "stock", "dealer", "cut", "totals")


#: every key :func:`new_game` reads from ``options``
OPTION_KEYS = ("state", *DEAL_KEYS)


def _check_options(options: Any) -> dict[str, Any]:
    """The reset options, checked. Unknown keys are ignored (PettingZoo's api_test
    passes ``{"options": 1}``) unless the options also hold a deal or a state, or a
    key is close to a known one (a typo such as ``"hand"``): then a ValueError names
    the allowed keys."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(
            f"options must be None or a dict, got {_short(options)} "
            f"(allowed keys: {', '.join(map(repr, OPTION_KEYS))})"
        )
    known = [k for k in options if k in OPTION_KEYS]
    unknown = [k for k in options if k not in OPTION_KEYS]
    typos = [
        k for k in unknown if isinstance(k, str) and get_close_matches(k, OPTION_KEYS, 1, 0.75)
    ]
    if (known and unknown) or typos:
        raise ValueError(
            f"unknown reset option(s) {', '.join(map(repr, typos or unknown))} "
            f"(allowed: {', '.join(map(repr, OPTION_KEYS))})"
        )
    if options.get("state") is not None:
        if not isinstance(options["state"], dict):
            raise ValueError(
                f"options['state'] must be a dict from GameState.to_dict(), got "
                f"{_short(options['state'])}"
            )
        if len(known) > 1:
            raise ValueError(
                f"options['state'] restores a whole state: it cannot be combined with "
                f"{', '.join(repr(k) for k in known if k != 'state')} (allowed: 'state' alone)"
            )
    elif ("discard" in options or "stock" in options) and "hands" not in options:
        raise ValueError(
            "a crafted deal needs 'hands' (a list of card lists, one per seat; "
            f"allowed keys: {', '.join(map(repr, DEAL_KEYS))})"
        )
    return options


def _short(value: Any) -> str:
    """``repr(value)``, cut short for an error message."""
    r = repr(value)
    return r if len(r) <= 80 else r[:77] + "..."


def _card_list(value: Any, where: str, *, none: str = "") -> list[int]:
    """Cards given as a list (strings or ids) or a space-separated string, as faces;
    a ValueError naming ``where`` otherwise (``none`` says what None means, if allowed)."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)):
        raise ValueError(
            f"{where}={_short(value)} is not allowed (allowed: a list of cards such as "
            f"['AS', 'TD', 'JK'] or a string 'AS TD JK'{none})"
        )
    return [_parse(c, where) for c in value]


def _parse(card: Any, where: str) -> int:
    """A card as its face; a ValueError naming ``where`` otherwise."""
    try:
        return parse_card(card)
    except ValueError as e:
        raise ValueError(
            f"{where}: {e}; allowed: cards as text ('AS', 'TD', 'JK') or ids 0..52"
        ) from None


def _pack_counts(rules: RuleSet) -> list[int]:
    """Copies of each face in the pack."""
    return face_counts(deck_faces(rules.decks, rules.jokers))


def _pack_text(rules: RuleSet) -> str:
    return f"{rules.decks} deck(s) and {rules.jokers * rules.decks} joker(s)"


def _validate_deal(rules: RuleSet, options: dict[str, Any], rng_seed: int) -> dict[str, Any]:
    n = rules.num_players
    hands_in = options["hands"]
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != n:
        raise ValueError(
            f"hands={_short(hands_in)} is not allowed (allowed: a list of {n} card lists, "
            "one per seat)"
        )
    hands = []
    for p, h in enumerate(hands_in):
        cards = _card_list(h, f"hands[{p}]")
        if len(cards) != rules.hand_size:
            raise ValueError(
                f"hand of seat {p} has {len(cards)} cards (allowed: exactly {rules.hand_size})"
            )
        hands.append(cards)
    discard = _card_list(options.get("discard", []), "discard", none="; omit it for an empty pile")
    if discard and not game_of(rules).discard_pile:
        raise ValueError(
            f"discard={_short(options['discard'])} is not allowed in Rummikub (allowed: [] or "
            "omitted: there is no discard pile)"
        )
    left = _pack_counts(rules)
    used = [f for h in hands for f in h] + discard
    if options.get("stock") is not None:
        stock_top_first = _card_list(options["stock"], "stock", none="; None or omitted: shuffled")
        used = used + stock_top_first
    else:
        stock_top_first = None
    for f in used:
        left[f] -= 1
    over = sorted({card_str(f) for f in range(53) if left[f] < 0})
    if over:
        raise ValueError(
            f"cards dealt more often than the pack holds them: {', '.join(over)} "
            f"(pack: {_pack_text(rules)})"
        )
    if stock_top_first is None:
        stock = [f for f in range(53) for _ in range(left[f])]
        shuffle(stock, rng_seed)
    else:
        missing = sorted({card_str(f) for f in range(53) if left[f] > 0})
        if missing:
            raise ValueError(
                f"cards missing from the deal (hands + discard + stock must be the whole pack): "
                f"{', '.join(missing)}"
            )
        stock = stock_top_first[::-1]
    stock = game_of(rules).deal_stock(options, stock, stock_top_first is None)
    return {"hands": hands, "discard": discard, "stock": stock}


def new_game(rules: RuleSet, seed: int = 0, options: dict[str, Any] | None = None) -> GameState:
    """A new game: a seeded deal, or the deal/state given in ``options``.

    Args:
        rules: the rule set.
        seed: fixes every shuffle of the game (deals and stock rebuilds).
        options: ``{"hands", "discard", "stock", "dealer"}`` for a crafted deal
            (cards as strings or ids; ``stock`` top first, shuffled from the
            seed when omitted) or ``{"state": d}`` to restore ``to_dict()`` data.

    Raises:
        ValueError: malformed options, deal or state, naming what is wrong and
            what is allowed.
    """
    options = _check_options(options)
    if options.get("state") is not None:
        return from_dict(options["state"], rules)
    s = _blank(rules)
    s.seed = int(seed)
    dealer = options.get("dealer", rules.num_players - 1)
    if (
        isinstance(dealer, bool)
        or not isinstance(dealer, int)
        or not 0 <= dealer < rules.num_players
    ):
        raise ValueError(f"dealer={dealer!r} is not allowed (allowed: 0..{rules.num_players - 1})")
    deal = _validate_deal(rules, options, s.seed) if "hands" in options else None
    _start_round(s, dealer, deal)
    totals = options.get("totals")
    if totals is not None:
        if s.game.deal_totals is None:
            raise ValueError(
                f"totals={_short(totals)} is not allowed in {rules.name!r} (allowed: omitted; "
                "a crafted deal sets the match totals in Canasta only)"
            )
        s.game.deal_totals(s, totals)
    return s


from rummy_env.engine.flow import _begin_draw  # noqa: E402
from rummy_env.engine.game import game_of  # noqa: E402
from rummy_env.engine.saved import from_dict  # noqa: E402
from rummy_env.engine.state import (  # noqa: E402
    GameState,
    Phase,
    _blank,
    _new_round_fields,  # noqa: E402
    _next_active,
)
