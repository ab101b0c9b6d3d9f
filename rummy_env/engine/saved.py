"""Saving and restoring: ``GameState.to_dict`` data read back field by field, and the
check that a restored state is one that could occur under its rules."""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import cache
from typing import Any

from rummy_env.cards import (
    card_str,
    counts_str,
)
from rummy_env.melds import (
    classify_wild,
)
from rummy_env.rules import RuleSet

#: the keys of ``GameState.to_dict()`` beside the declared fields; :func:`from_dict`
#: requires the first seven
_CORE_KEYS = (
    "hands",
    "stock",
    "discard",
    "table",
    "current_player",
    "phase",
    "dealer",
    "rules",
    "known",
)
_REQUIRED = _CORE_KEYS[:7]


@cache
def state_keys() -> tuple[str, ...]:
    """Every key of ``GameState.to_dict()`` data: the core's and each declared field's."""
    return _CORE_KEYS + tuple(f.name for f in state_class().FIELDS if f.saved)


_MELD_KEYS = ("owner", "kind", "cards")


def _range_text(lo: int | None, hi: int | None) -> str:
    if lo is None:
        return "an integer" if hi is None else f"an integer <= {hi}"
    if hi is None:
        return f"an integer >= {lo}"
    return f"{lo}" if lo == hi else f"an integer in {lo}..{hi}"


class _Saved:
    """Reads the fields of a saved state ``d`` for ``n`` seats, each checked for type
    and range: a ValueError names the field and what is allowed."""

    def __init__(self, d: dict[str, Any], n: int, rules: RuleSet | None = None):
        self.d = d
        self.n = n
        self.rules = rules

    @staticmethod
    def error(key: str, value: Any, allowed: str) -> ValueError:
        return ValueError(f"saved state: {key}={_short(value)} is not allowed (allowed: {allowed})")

    def integer(self, key: str, v: Any, lo: int | None = None, hi: int | None = None) -> int:
        try:
            if isinstance(v, bool):
                raise TypeError
            i = operator.index(v)
        except TypeError:
            raise self.error(key, v, _range_text(lo, hi)) from None
        if (lo is not None and i < lo) or (hi is not None and i > hi):
            raise self.error(key, v, _range_text(lo, hi))
        return i

    def flag(self, key: str, v: Any) -> bool:
        if not isinstance(v, bool):
            raise self.error(key, v, "True or False")
        return v

    def seat(self, key: str, v: Any, none: bool = False) -> int | None:
        if none and v is None:
            return None
        return self.integer(key, v, 0, self.n - 1)

    def card(self, key: str, v: Any) -> int:
        """A face (-1 for None)."""
        return -1 if v is None else _parse(v, f"saved state: {key} (or None)")

    def field(self, key: str, default: Any, read: Callable[[str, Any], Any]) -> Any:
        return read(key, self.d.get(key, default))

    def per_seat(self, key: str, default: Any, read: Callable[[str, Any], Any]) -> list:
        v = self.d.get(key, default)
        if not isinstance(v, (list, tuple)) or len(v) != self.n:
            raise self.error(key, v, f"a list of {self.n} values, one per seat")
        return [read(f"{key}[{p}]", x) for p, x in enumerate(v)]

    def cards(self, key: str, v: Any) -> list[int]:
        return _card_list(v, f"saved state: {key}")


def from_dict(d: dict[str, Any], rules: RuleSet, *, check: bool = True) -> GameState:
    """Restore a state written by :meth:`GameState.to_dict`.

    Every field is checked for its type and range (a missing optional field takes
    its start-of-round value). With ``check`` (the default) the state must also be
    one that could occur under ``rules`` (:func:`_check_state`): exactly the pack's
    cards across hands, stock, discard pile and table, valid table melds, an active
    player to act who holds cards, per-turn fields that fit the phase, and a player
    mid-way through his opening holding cards that can complete it.
    ``check=False`` skips that (for partial states the caller completes, as
    :mod:`rummy_env.determinize` does).

    Raises:
        ValueError: naming the field and what is allowed.
    """
    if not isinstance(d, dict):
        raise ValueError(f"a saved state must be a dict (GameState.to_dict()), got {_short(d)}")
    keys = state_keys()
    unknown = [k for k in d if k not in keys]
    if unknown:
        raise ValueError(
            f"saved state: unknown field(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(keys)})"
        )
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise ValueError(
            f"saved state: missing field(s) {', '.join(map(repr, missing))} "
            f"(required: {', '.join(_REQUIRED)})"
        )
    saved = d.get("rules")
    if saved is not None:
        mine = {k: getattr(rules, k) for k in rules.__dataclass_fields__}
        if not isinstance(saved, dict) or set(saved) - set(mine):
            raise _Saved.error("rules", saved, "a dict of RuleSet fields, as to_dict() writes")
        diff = sorted(  # (a tuple field comes back from JSON as a list)
            k
            for k in saved
            if (tuple(saved[k]) if isinstance(saved[k], list) else saved[k]) != mine[k]
        )
        if diff:
            raise ValueError(
                f"saved state was made with other rules: {', '.join(diff)} differ "
                f"(allowed: the rules of this env, e.g. {diff[0]}={mine[diff[0]]!r})"
            )
    n = rules.num_players
    load = game_of(rules).load_state
    if load is not None:
        d = load(d, rules)
    f = _Saved(d, n, rules)
    s = _blank(rules)
    for p, h in enumerate(f.per_seat("hands", None, f.cards)):
        s.add_cards(p, h)
    s.stock = f.cards("stock", d["stock"])[::-1]
    s.discard = f.cards("discard", d["discard"])
    s.game.read_table(f, s)
    phases = [
        ph.name.lower()
        for ph in Phase
        if (ph != Phase.UPCARD or rules.upcard_offer) and (ph != Phase.BUY or rules.buy_limit)
    ]
    phase = d["phase"]
    if not isinstance(phase, str) or phase.lower() not in phases:
        raise f.error("phase", phase, ", ".join(map(repr, phases)))
    s.phase = Phase[phase.upper()]
    s.current = f.seat("current_player", d["current_player"])
    s.dealer = f.seat("dealer", d["dealer"])
    for p, k in enumerate(f.per_seat("known", [[]] * n, f.cards)):
        for c in k:
            s.known[p][c] += 1
    for fld in s.FIELDS:
        if fld.saved:
            setattr(s, fld.name, fld.read(f, rules))
    if s.game.on_restore is not None:
        s.game.on_restore(s, f)
    if check:
        _check_state(s)
    return s


def _read_table(f: _Saved, s: GameState) -> None:
    """The table melds of saved state data, each classified under the rules (``Game.read_table``)."""
    rules = s.rules
    table = f.d["table"]
    if not isinstance(table, (list, tuple)) or len(table) > rules.max_melds:
        raise f.error(
            "table",
            table,
            f"a list of at most {rules.max_melds} melds (dicts with "
            f"{', '.join(map(repr, _MELD_KEYS))})"
            + ("" if rules.meld_during_play else ": empty, nobody melds during play"),
        )
    out = []
    for i, m in enumerate(table):
        key = f"table[{i}]"
        if (
            not isinstance(m, dict)
            or set(m) - set(_MELD_KEYS)
            or "owner" not in m
            or "cards" not in m
        ):
            raise f.error(key, m, "a dict {'owner': seat, 'kind': 'set' or 'run', 'cards': [...]}")
        owner = f.seat(f"{key}['owner']", m["owner"])
        kind = m.get("kind")
        if kind not in (None, "set", "run"):
            raise f.error(f"{key}['kind']", kind, "'set', 'run' or None")
        cards = f.cards(f"{key}['cards']", m["cards"])
        desc, wild_at = classify_wild(cards, s.cat, rules.fixed_wild_rank, kind)
        if desc is None:
            raise f.error(
                f"{key}['cards']",
                m["cards"],
                (
                    f"a valid {kind or 'meld'} under these rules: {rules.meld_text}, JK where a "
                    f"wild card stands (ace={rules.ace!r}, jokers={rules.jokers}, "
                    f"wilds_at_most_naturals={rules.wilds_at_most_naturals}, "
                    f"max_wilds_per_meld={rules.max_wilds_per_meld})"
                ),
            )
        wild_cards = tuple(cards[i] for i in wild_at)
        if desc[0] == "set":
            out.append(
                TableMeld(owner, False, desc[1], 0, 0, 0, desc[2], desc[3], s.cat, wild_cards)
            )
        else:
            _, su, lo, hi = desc
            wild = sum(1 << (lo + i) for i in wild_at)
            out.append(TableMeld.run(owner, su, lo, hi, wild, s.cat, wild_cards))
    s.table = out


def _dump_table(s: GameState) -> list[dict[str, Any]]:
    """The table melds as ``to_dict`` data (``Game.dump_table``)."""
    return [
        {
            "owner": m.owner,
            "kind": "run" if m.is_run else "set",
            "cards": [card_str(f) for f in m.cards],
        }
        for m in s.table
    ]


def _check_unused(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """A field the rules do not use holds its start value (its declaration says which)."""
    rules = s.rules
    for fld in s.FIELDS:
        if fld.used is not None and not fld.used(rules):
            start = fld.dump(fld.fresh(fld.start_value(rules), rules.num_players))
            value = fld.dump(getattr(s, fld.name))
            if value != start:
                fail(fld.name, f"={value}", f"{start}: {fld.unused}")


def _eliminating(rules: RuleSet, game: Game) -> bool:
    """Whether seats leave the match (a match of penalties with elimination)."""
    return rules.match and game.penalties and rules.elimination


def _fail(key: str, what: str, allowed: str) -> None:
    """Raise the ValueError of a restored state's field that is not allowed."""
    raise ValueError(
        f"saved state: {key}{'' if what[0] == '=' else ' '}{what} (allowed: {allowed})"
    )


def _check_state(s: GameState) -> None:
    """Raise a ValueError naming the field unless ``s`` could occur under its rules:
    the pack, the seats in play, the per-turn fields of the phase, the match
    standing (DESIGN.md invariant 1; a player to act who holds a card always has a
    legal move, invariant 2: see :func:`_lapsed_play`)."""
    _check_cards(s, _fail)
    _check_seats(s, _fail)
    if s.phase == Phase.GAME_OVER:
        _check_result(s, _fail)
        return
    _check_round(s, _fail)
    _check_turn(s, _fail)
    s.game.check_opening(s, _fail)


def _check_cards(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """Exactly the pack; known cards held; the turn's cards of the pack."""
    rules = s.rules
    n = rules.num_players
    s.phase.name.lower()
    pack = _pack_counts(rules)
    held = [0] * 53
    for h in s.hands:
        for c, k in enumerate(h):
            held[c] += k
    for c in s.stock + s.discard + [c for m in s.table for c in m.cards]:
        held[c] += 1
    for c in s.game.held_cards(s):  # (Canasta's red 3s)
        held[c] += 1
    for f in s.FIELDS:  # cards the game keeps in fields (Rummikub: the table's tiles)
        if f.kind is FACES:
            for c, k in enumerate(getattr(s, f.name)):
                held[c] += k
    if held != pack:
        extra = [f"{card_str(c)} x{k - pack[c]}" for c, k in enumerate(held) if k > pack[c]]
        lack = [f"{card_str(c)} x{pack[c] - k}" for c, k in enumerate(held) if k < pack[c]]
        fail(
            "hands + stock + discard + table",
            "do not hold exactly the pack: "
            + "; ".join(
                ([f"extra {', '.join(extra)}"] if extra else [])
                + ([f"missing {', '.join(lack)}"] if lack else [])
            ),
            f"each card of the pack exactly once, {_pack_text(rules)}",
        )
    for p in range(n):
        for c, k in enumerate(s.known[p]):
            if k > s.hands[p][c]:
                fail(
                    f"known[{p}]",
                    f"lists {card_str(c)} x{k} but hands[{p}] holds {s.hands[p][c]}",
                    f"cards in hands[{p}] (known cards are held by their owner)",
                )
    for key, c in (("forbidden", s.forbidden), ("must_use", s.must_use)):
        if c >= 0 and not pack[c]:
            fail(
                key, f"={card_str(c)} is not in the pack", f"None or a card of {_pack_text(rules)}"
            )


def _check_seats(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """The seats in the match, the opened flags, the unused fields, the game's own checks."""
    rules = s.rules
    phase = s.phase.name.lower()
    if not _eliminating(rules, s.game) and not all(s.active):
        fail(
            "active",
            f"={s.active} drops a seat",
            "every seat active: only an elimination match "
            "(match=True, scoring='standard', elimination=True) drops players",
        )
    if not any(s.active):
        fail("active", f"={s.active} has no active seat", "at least one active seat")
    if _open_from_start(rules) and not all(s.opened):
        fail("opened", f"={s.opened}", "all True: these rules have no opening (open_points=0)")
    _check_unused(s, fail)
    for check in s.game.checks:  # (the game's own; drops before anything walks the seats)
        check(s, fail)
    if (s.phase == Phase.UPCARD) != (s.upcard_stage in (0, 1)):
        fail(
            "upcard_stage",
            f"={s.upcard_stage} in phase {phase!r}",
            "0 or 1 (offered to the "
            "non-dealer, then the dealer) exactly in phase 'upcard'; -1 or 2 otherwise",
        )


def _check_round(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """A round in play: seats to act, hands, no result yet, hand sizes, table owners."""
    rules = s.rules
    n = rules.num_players
    phase = s.phase.name.lower()
    if _eliminating(rules, s.game) and sum(s.active) < 2:
        fail(
            "active",
            f"={s.active} leaves fewer than two players",
            "at least two active seats while the match goes on (phase 'game_over' otherwise)",
        )
    for key, p in (("current_player", s.current), ("dealer", s.dealer)):
        if not s.active[p]:
            fail(
                key,
                f"={p} is an eliminated seat",
                f"an active seat: {[q for q in range(n) if s.active[q]]}",
            )
    for p in range(n):
        # (the player to act may have laid his whole hand, not yet committed: Rummikub)
        if s.active[p] and not s.nhand[p] and not (p == s.current and s.game.pending(s)):
            fail(
                f"hands[{p}]",
                "is empty while the round is in play",
                "at least one card for an active seat: the round ends when a player has none",
            )
        if not s.active[p] and s.nhand[p]:
            fail(f"hands[{p}]", "holds cards of an eliminated seat", "no cards")
    for key in ("winner", "match_winner", "reason"):
        if getattr(s, key) is not None:
            fail(
                key, f"={getattr(s, key)!r} while the game goes on", "None until phase 'game_over'"
            )
    if any(s.round_scores):
        fail("round_scores", f"={s.round_scores} while the round is in play", "zeros until it ends")
    _check_standing(s, fail)
    if rules.discard_pickup == "top" and s.game.one_card_turns:
        # a turn draws one card and ends with a discard (rummy500's digging and contract
        # rummy's buys take more): no hand holds more than the deal, the player to act one
        # more between his draw and his discard; exactly that where nobody melds (gin, Indian)
        size = s.game.hand_size(rules, s.round)
        exact = not rules.meld_during_play
        for p in range(n):
            want = size + (p == s.current and s.phase == Phase.PLAY)
            if s.active[p] and (s.nhand[p] > want or exact and s.nhand[p] < want):
                fail(
                    f"hands[{p}]",
                    f"holds {s.nhand[p]} cards in phase {phase!r}",
                    f"{'' if exact else 'at most '}{want}: {size} dealt, one more for the player "
                    "to act between his draw and his discard"
                    + (" (nobody melds during play)" if exact else ""),
                )
    if rules.open_points and s.game.melds_owned:
        owners = {m.owner for m in s.table}
        for p in range(n):
            if s.opened[p] and p not in owners:
                fail(
                    f"opened[{p}]",
                    f"=True with no meld of seat {p} on the table",
                    "False until the seat has laid its opening, whose melds stay on the table",
                )
    if rules.max_turns and s.turns >= rules.max_turns:
        fail(
            "turns",
            f"={s.turns}",
            f"0..{rules.max_turns - 1}: the round ends at max_turns={rules.max_turns}",
        )
    for i, m in enumerate(s.table):
        if not s.active[m.owner]:
            fail(f"table[{i}]['owner']", f"={m.owner} is an eliminated seat", "an active seat")
        if not s.opened[m.owner] and (m.owner != s.current or s.phase != Phase.PLAY):
            fail(
                f"table[{i}]['owner']",
                f"={m.owner} has not opened (opened[{m.owner}]=False)",
                "the seat of a player who has opened, or the player to act in his opening turn",
            )


def _check_turn(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """The per-turn fields of the phase: reset outside the play phase, the up-card offer, the card that must be used."""
    rules = s.rules
    phase = s.phase.name.lower()
    if s.phase != Phase.PLAY:
        for key, v in (
            ("forbidden", s.forbidden >= 0),
            ("must_use", s.must_use >= 0),
            ("turn_played", s.turn_played),
            ("turn_value", s.turn_value),
            ("turn_pure", s.turn_pure),
        ):
            if v:
                fail(
                    key,
                    f"is set in phase {phase!r}",
                    "None, False or 0 outside phase 'play': it is reset at the end of each turn",
                )
        if (
            s.phase == Phase.DRAW
            and not s.stock
            and rules.empty_stock == "rebuild"
            and s.game.discard_pile  # (Rummikub: an empty pool, players pass)
        ):
            fail(
                "stock",
                "is empty in phase 'draw'",
                "at least one card: an empty stock is rebuilt, "
                "or the round ends, before a draw (empty_stock='rebuild')",
            )
    if s.upcard_stage >= 0:
        want = s.dealer if s.upcard_stage == 1 else _next_active(s, s.dealer)
        if s.current != want or (s.upcard_stage == 2 and s.phase != Phase.DRAW):
            fail(
                "upcard_stage",
                f"={s.upcard_stage} with current_player={s.current}, dealer={s.dealer}, "
                f"phase {phase!r}",
                f"current_player={want}, the {'dealer' if s.upcard_stage == 1 else 'non-dealer'}"
                + (", in phase 'draw'" if s.upcard_stage == 2 else ""),
            )
    if s.must_use >= 0:
        taken = card_str(s.must_use)
        if rules.discard_pickup_must_meld == "never":
            fail(
                "must_use",
                f"={taken}",
                "None: taken cards need not be used (discard_pickup_must_meld='never')",
            )
        if s.must_use != s.forbidden or not s.known[s.current][s.must_use]:
            fail(
                "must_use",
                f"={taken} with forbidden="
                f"{card_str(s.forbidden) if s.forbidden >= 0 else None}, known[{s.current}]="
                f"{[card_str(c) for c, k in enumerate(s.known[s.current]) for _ in range(k)]}",
                "the card the player to act took from the discard pile: the forbidden card, "
                "known to be in his hand",
            )


def _check_opening(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """A seat in its opening turn: what it laid this turn, and cards that can still complete it."""
    rules = s.rules
    s.phase.name.lower()
    if s.phase == Phase.PLAY and not s.opened[s.current]:
        mine = [m for m in s.table if m.owner == s.current]
        value = sum(_meld_value(m, rules) for m in mine)
        pure = any(m.is_run and not m.n_wild for m in mine)
        if (s.turn_value, s.turn_pure) != (value, pure):
            fail(
                "turn_value, turn_pure",
                f"={s.turn_value}, {s.turn_pure}",
                f"{value}, {pure}: the value of the melds laid this turn by the player to act, who "
                "has not opened, and whether one is a pure run",
            )
        if mine and not s.game.opening_ok(s, s.current, (), 0, 0, False, s.forbidden):
            fail(
                f"hands[{s.current}]",
                f"={counts_str(s.hands[s.current])} cannot complete the opening begun this turn",
                "cards that can still complete it this turn, as in play (a first meld is "
                "laid only then): else the turn would end with melds down and no opening",
            )
    elif s.turn_value and _open_from_start(rules):
        fail("turn_value", f"={s.turn_value}", "0: these rules have no opening (open_points=0)")


def _check_result(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """The fields of a game that is over: the winners, the scores they come from."""
    rules = s.rules
    w = s.winner
    if w is not None and not s.active[w]:
        fail("winner", f"={w} is an eliminated seat", "an active seat or None")
    if not rules.match:
        base = _base_totals(s)
        want = [b + r for b, r in zip(base, s.round_scores)]
        if (s.totals, s.match_winner) != (want, w):
            fail(
                "totals, match_winner",
                f"={s.totals}, {s.match_winner} with round_scores={s.round_scores}, winner={w}",
                "the round's (added to the totals it started from): one round is the whole "
                "game (match=False)",
            )
    elif s.match_winner is None:
        fail("match_winner", "=None in phase 'game_over'", "the seat that won the match")
    for check in s.game.result_checks:
        check(s, fail)


def _base_totals(s: GameState) -> list[int]:
    """The totals a single round starts from: zeros, or the game's (a crafted deal's)."""
    base = s.game.base_totals
    return list(base(s)) if base is not None else [0] * s.rules.num_players


def _check_standing(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """The match totals of a game in play: none has ended the match yet."""
    rules = s.rules
    if not rules.match:
        if s.totals != _base_totals(s):
            fail(
                "totals",
                f"={s.totals}",
                f"{_base_totals(s)}: one round, not scored yet (match=False)",
            )
    else:
        s.game.check_standing(s, fail)


from rummy_env.engine.deal import _card_list, _pack_counts, _pack_text, _parse, _short  # noqa: E402
from rummy_env.engine.fields import FACES  # noqa: E402
from rummy_env.engine.flow import _meld_value  # noqa: E402
from rummy_env.engine.game import Game, game_of  # noqa: E402
from rummy_env.engine.state import (  # noqa: E402
    GameState,
    Phase,
    TableMeld,
    _blank,
    _next_active,
    _open_from_start,
    state_class,  # noqa: E402
)
