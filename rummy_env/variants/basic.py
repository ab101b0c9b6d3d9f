"""Basic rummy (RULES.md 4 basic) and wild-card rummy (4 wild deuces): the base game.

Its ``configure`` sets every hook of :class:`~rummy_env.engine.game.Game`; the other
variant modules change what is theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

from rummy_env.cards import (
    JOKER,
)
from rummy_env.engine.deal import _short
from rummy_env.engine.flow import _apply_after_game, _apply_draw, _apply_play
from rummy_env.engine.game import Game, PhaseRules
from rummy_env.engine.legal import (
    _legal_draw,
    _legal_play,
    _nothing_legal,
    _wild_fill,
)
from rummy_env.engine.saved import _check_opening, _dump_table, _read_table
from rummy_env.engine.scoring import _match_by_target
from rummy_env.engine.state import (
    GameState,
    TableMeld,
)
from rummy_env.melds import (
    code_faces,
    opening_possible,
    set_value,
)
from rummy_env.rules import RuleSet


def resolve_rules(r: RuleSet) -> None:
    """The fields left 0 "by player count" that no other game has set (RULES.md 4 basic)."""
    n = r.num_players
    if r.decks == 0:
        object.__setattr__(r, "decks", 1 + (n > 4))
    if r.hand_size == 0:
        object.__setattr__(r, "hand_size", {2: 10, 3: 7, 4: 7}.get(n, 6 if r.decks == 1 else 10))


def check_rules(r: RuleSet) -> None:
    """The checks every game's rules pass: the pack, the deal, the melds and the opening
    (each game's own fields are checked in its module)."""
    _check_pack(r)
    _check_counts(r)
    _check_melds(r)


def own_scoring(r: RuleSet, scoring: str, fixed: dict[str, Any], why: str, note: str = "") -> bool:
    """The checks of a game whose scoring belongs to the preset of its name: ``scoring``
    exactly for that preset (``note`` says why), and with it the rule values ``fixed``
    (``why`` says what they make). Returns whether the rules play it."""
    if (r.name == scoring) != (r.scoring == scoring):
        raise ValueError(
            f"scoring={r.scoring!r} is not allowed with {r.name!r} (allowed: "
            f"scoring={scoring!r} exactly for the {scoring!r} preset{note})"
        )
    if r.scoring != scoring:
        return False
    clash = [f"{k}={getattr(r, k)!r}" for k, v in fixed.items() if getattr(r, k) != v]
    if clash:
        raise ValueError(
            f"{', '.join(clash)} is not allowed with scoring={scoring!r} (allowed: "
            + ", ".join(f"{k}={v!r}" for k, v in fixed.items())
            + f": {why})"
        )
    return True


def _check_pack(r: RuleSet) -> None:
    most = 3 if r.contract else 2  # (contract rummy with 5 or more: three decks)
    if not 1 <= r.decks <= most:
        raise ValueError(
            f"decks={r.decks} is not allowed (allowed: 1-{most}, or 0 = by player count)"
        )
    if r.buy_limit < 0 or r.low_card_penalty < 0:
        raise ValueError(
            f"buy_limit={r.buy_limit}, low_card_penalty={r.low_card_penalty} is not "
            "allowed (allowed: 0 or more)"
        )
    if not 0 <= r.jokers <= 4:
        raise ValueError(f"jokers={r.jokers} is not allowed (allowed: 0-4 per deck)")
    if r.hand_size < 1:
        raise ValueError(
            f"hand_size={r.hand_size} is not allowed (allowed: 1 or more, 0 = by player count)"
        )
    n = r.num_players
    extra = 2 if r.upcard else 1
    grow = 2 if r.contract and r.match and r.contract_deal < 5 else 0  # (2 more at deal 5)
    if n * (r.hand_size + grow) + extra > r.num_cards:
        raise ValueError(
            f"hand_size={r.hand_size} with {n} players needs "
            f"{n * (r.hand_size + grow) + extra} cards (deal"
            + (f" of {r.hand_size + grow} from the fifth on" if grow else "")
            + f", up-card and one stock card) but the pack has {r.num_cards} "
            f"(allowed: hand_size <= {(r.num_cards - extra) // n - grow})"
        )


_AT_LEAST_0 = (
    "ace_penalty",
    "joker_penalty",
    "max_stock_rebuilds",
    "max_wilds_per_meld",
    "max_turns",
    "knock_limit",
    "wall",
    "gin_bonus",
    "undercut_bonus",
    "big_gin_bonus",
    "game_bonus",
    "line_bonus",
    "open_points",
    "ace_meld_value",
    "joker_meld_value",
    "unopened_penalty",
    "penalty_cap",
)


def _check_counts(r: RuleSet) -> None:
    for key in _AT_LEAST_0:
        if getattr(r, key) < 0:
            raise ValueError(f"{key}={getattr(r, key)} is not allowed (allowed: 0 or more)")
    for key in ("penalty_limit", "target", "rummy_multiplier"):
        if getattr(r, key) < 1:
            raise ValueError(f"{key}={getattr(r, key)} is not allowed (allowed: 1 or more)")
    if r.upcard_offer and r.num_players != 2:
        raise ValueError(
            f"upcard_offer=True is not allowed with {r.num_players} players (allowed: 2 players)"
        )


def _check_melds(r: RuleSet) -> None:
    if r.wild_deuces and not r.meld_during_play:
        raise ValueError(
            "wild_deuces=True is not allowed with meld_during_play=False (allowed: "
            "meld_during_play=True: deuces are wild only in games that meld during play)"
        )
    if not 3 <= r.min_run <= 13:
        raise ValueError(f"min_run={r.min_run} is not allowed (allowed: 3-13)")
    if r.min_run != 3 and not r.meld_during_play:
        raise ValueError(
            f"min_run={r.min_run} is not allowed with meld_during_play=False: deadwood "
            "is counted with runs of 3 (allowed: min_run=3)"
        )
    if r.max_set and r.max_set < 3:
        raise ValueError(
            f"max_set={r.max_set} is not allowed (allowed: 0 = no limit, or 3 or more)"
        )
    if (r.set_suits_distinct, r.max_set) != (True, 4) and not r.meld_during_play:
        raise ValueError(
            f"set_suits_distinct={r.set_suits_distinct}, max_set={r.max_set} is not "
            "allowed with meld_during_play=False: hands are counted with sets of 3-4 "
            "different suits (allowed: set_suits_distinct=True, max_set=4)"
        )
    if not r.set_suits_distinct and (r.open_points or r.open_pure_run):
        raise ValueError(
            "set_suits_distinct=False is not allowed with an opening (open_points="
            f"{r.open_points}, open_pure_run={r.open_pure_run}): the opening "
            "search counts sets of different suits (allowed: open_points=0, "
            "open_pure_run=False)"
        )
    if not r.meld_during_play and r.scoring in ("standard", "winner_takes_all", "rummy500"):
        raise ValueError(
            f"meld_during_play=False is not allowed with scoring={r.scoring!r}: nobody could "
            "ever meld or go out (allowed: meld_during_play=False only with scoring='gin', "
            "where melds are shown by knocking, or 'indian', by declaring)"
        )
    if not r.meld_during_play and r.discard_pickup_must_meld != "never":
        raise ValueError(
            f"discard_pickup_must_meld={r.discard_pickup_must_meld!r} is not allowed with "
            "meld_during_play=False: a taken card could never be used in a meld (allowed: 'never')"
        )


def configure(rules: RuleSet, g: Game) -> None:
    """The base every game starts from: the turn of basic rummy (draw, then melds,
    lay-offs and swaps, then a discard), its two scorings, and a match that ends by
    elimination or a penalty limit (penalties) or at a target (points)."""
    g.draw = PhaseRules(_legal_draw, _apply_draw)
    g.play = PhaseRules(_legal_play, _apply_play)
    g.upcard = g.buy = g.game_over = PhaseRules(_nothing_legal, _apply_after_game)
    g.score = _score_winner_takes_all if rules.scoring == "winner_takes_all" else _score_standard
    g.penalties = rules.scoring == "standard"
    if g.penalties:
        g.match_over = _match_by_elimination if rules.elimination else _match_by_penalty_limit
    else:
        g.match_over = _match_by_target
    g.match_bonus = None
    g.stuck_count = GameState.hand_value
    g.opening_ok = _opening_ok
    g.opened_by = _opened_by
    g.opens_at_once = False
    g.no_final_discard = _never
    g.on_meld = g.knock = g.on_deal = None
    g.discard_pile = True
    g.pending = _never
    g.obs_slices, g.obs_writers, g.obs_view = {}, (), ()
    g.render_lines = (_opening_lines,) if rules.open_points else ()
    g.table_lines = None
    g.blocks = {}
    g.deal_stock = _deal_stock
    g.dump_table, g.read_table = _dump_table, _read_table
    g.on_restore = None
    g.checks = g.result_checks = ()
    g.face_value = _face_value
    g.hand_size = _hand_size
    g.check_standing = _check_standing
    g.one_card_turns = g.melds_owned = True
    g.check_opening = _check_opening
    g.has_opening = False
    g.deal_totals = g.base_totals = g.dump_state = g.load_state = g.round_info = None
    g.held_cards = _nothing_held
    g.obs_full = g.codec = None


def _nothing_held(s: GameState) -> tuple[int, ...]:
    return ()


def _check_standing(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """A match in play: by elimination, exactly the seats within the penalty limit are
    active; else every total is below the limit (penalties) or the target (points)."""
    rules = s.rules
    if s.game.penalties and rules.elimination:
        for p, t in enumerate(s.totals):
            if s.active[p] != (t <= rules.penalty_limit):
                fail(
                    f"totals[{p}]",
                    f"={t} with active[{p}]={s.active[p]}",
                    f"<= penalty_limit ({rules.penalty_limit}) exactly for the active seats",
                )
        return
    key = "penalty_limit" if s.game.penalties else "target"
    limit = getattr(rules, key)
    if max(s.totals) >= limit:
        fail("totals", f"={s.totals}", f"all below {key}={limit} while the match goes on")


def _deal_stock(options: dict[str, Any], stock: list[int], shuffled: bool) -> list[int]:
    """A crafted deal's stock as given: a cut card is another game's."""
    cut = options.get("cut")
    if cut is not None:
        raise ValueError(
            f"cut={_short(cut)} is not allowed with wild_rank='none' "
            "(allowed: a cut card only where the cut card sets the wild rank, wild_rank='cut')"
        )
    return stock


def _opening_lines(s: GameState) -> list[str]:
    """Who has opened (rummy51: with 51), and what the seat to act melded towards it."""
    n = s.rules.num_players
    opened = ", ".join(f"player_{p}" for p in range(n) if s.opened[p]) or "nobody"
    towards = f" · melded this turn towards the opening: {s.turn_value}" if s.turn_value else ""
    return [f"opened: {opened}{towards}"]


def _face_value(rules: RuleSet, rank: int) -> int:
    """A card in hand: an ace its penalty, a 2-9 the low-card penalty where there is one
    (contract rummy: 5), else its rank, the faces 10."""
    if 1 <= rank <= 8 and rules.low_card_penalty:
        return rules.low_card_penalty
    return rules.ace_penalty if rank == 0 else min(rank + 1, 10)


def _hand_size(rules: RuleSet, round_: int) -> int:
    return rules.hand_size


def _opened_by(s: GameState, p: int) -> bool:
    """An opening count (rummy51: 51) reached, with a pure run where one is required."""
    rules = s.rules
    return s.turn_value >= rules.open_points and (s.turn_pure or not rules.open_pure_run)


def _never(s: GameState) -> bool:
    return False


def _opening_ok(
    s: GameState,
    p: int,
    nat,
    wu: int,
    value: int,
    pure: bool,
    forb: int,
    meld: Callable[[], TableMeld] | None = None,
) -> bool:
    """Whether the opening count (and pure run) can still be reached this turn after this
    meld (``nat`` and ``wu`` wild cards); the hook ``Game.opening_ok``."""
    rules = s.rules
    need = rules.open_points - s.turn_value - value
    need_pure = rules.open_pure_run and not s.turn_pure and not pure
    if need <= 0 and not need_pure:
        return True
    if s.wild_faces:
        rest = list(s.hands[p])
        for f in nat:
            rest[f] -= 1
        return _opening_with_deuces(s, rest, wu, need, need_pure, forb)
    return opening_possible(
        s.cat,
        s.hands[p],
        need,
        need_pure,
        forb,
        rules.ace_meld_value,
        rules.joker_meld_value,
        not rules.go_out_requires_discard,
        less=nat,
        less_wilds=wu,
    )


def _opening_with_deuces(
    s: GameState, rest: list[int], wu: int, need: int, need_pure: bool, forb: int
) -> bool:
    """:func:`_opening_ok`'s search with wild 2s (D-13), ``rest`` the hand less the meld's
    naturals: the meld's ``wu`` wild cards are taken from it as :func:`_apply_meld` takes
    them; then each 2 left plays as a natural 2 or as a wild card. The search counts wild
    cards as jokers, so it is asked of every split of the 2s held, with no wild card in a
    set of 2s (a 2 there is natural: :func:`opening_possible`'s ``plain_rank``); the sets of
    2s that hold jokers are laid first (:func:`_deuce_sets_first`). A taken 2 that may not
    be discarded plays wild with all its copies or none; wild, no wild card left counts as
    a discard (the engine may leave that very 2)."""
    for f in _wild_fill(s, rest, wu):
        rest[f] -= 1
    return _deuce_sets_first(s, rest, need, need_pure, forb)


def _deuce_sets_first(s: GameState, rest: list[int], need: int, need_pure: bool, forb: int) -> bool:
    """:func:`_opening_with_deuces` after its meld: with no set of 2s holding a joker laid
    first, or with one (then again)."""
    if _deuce_splits(s, rest, need, need_pure, forb):
        return True
    cat, rules = s.cat, s.rules
    jokers = rest[JOKER]
    two = s.rules.fixed_wild_rank
    if not jokers:
        return False
    for k, wu in cat.sets_for(cat.held_code(rest, two), jokers):
        if not wu:
            continue  # (a set of natural 2s: the search lays those itself)
        nat = code_faces(cat.set_shapes[k][0], two)
        value = set_value(two, len(nat), wu, rules.ace_meld_value, rules.joker_meld_value)
        for f in nat:
            rest[f] -= 1
        rest[JOKER] -= wu
        ok = _deuce_sets_first(s, rest, need - value, need_pure, forb)
        for f in nat:
            rest[f] += 1
        rest[JOKER] += wu
        if ok:
            return True
    return False


def _deuce_splits(s: GameState, rest: list[int], need: int, need_pure: bool, forb: int) -> bool:
    """:func:`_opening_with_deuces`'s search over the splits of the 2s held into natural 2s
    and wild cards."""
    rules = s.rules
    args = (rules.ace_meld_value, rules.joker_meld_value, not rules.go_out_requires_discard)
    two = rules.fixed_wild_rank
    deuces = [f for f in s.wild_faces if rest[f]]
    for split in product(*(range(rest[f] + 1) for f in deuces)):
        counts = list(rest)
        fb = forb
        for f, k in zip(deuces, split):
            if f == forb and 0 < k < rest[f]:
                break
            counts[f] -= k
            counts[JOKER] += k
            if f == forb and k:
                fb = JOKER
        else:
            if opening_possible(s.cat, tuple(counts), need, need_pure, fb, *args, two):
                return True
    return False


def _score_standard(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    rules = s.rules
    if rules.unopened_penalty:
        vals = [
            rules.unopened_penalty if s.active[p] and not s.opened[p] else v
            for p, v in enumerate(vals)
        ]
    vals = [0 if p == winner else v for p, v in enumerate(vals)]
    return list(vals), [-v for v in vals]


def _score_winner_takes_all(
    s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int
):
    mult = s.rules.rummy_multiplier if rummy else 1
    vals = [0 if p == winner else v for p, v in enumerate(vals)]
    scores = [0] * s.rules.num_players
    rewards = [-v * mult for v in vals]
    scores[winner] = rewards[winner] = sum(vals) * mult
    return scores, rewards


def _match_by_elimination(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Standard scoring with elimination: a total past the limit leaves; the last one in wins."""
    for p in range(s.rules.num_players):
        if s.active[p] and s.totals[p] > s.rules.penalty_limit:
            s.active[p] = False
            eliminated.append(p)
    left = [p for p in range(s.rules.num_players) if s.active[p]]
    if len(left) <= 1:
        s.match_winner = left[0] if left else winner
    return len(left) <= 1


def _match_by_penalty_limit(s: GameState, winner: int | None, eliminated: list[int]) -> bool:
    """Standard scoring (D-10): over when a total reaches the limit; the lowest total wins."""
    over = max(s.totals) >= s.rules.penalty_limit
    if over:
        low = min(s.totals)
        s.match_winner = winner if s.totals[winner] == low else s.totals.index(low)
    return over
