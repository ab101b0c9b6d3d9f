"""Gin rummy (RULES.md 4 gin): knocking, the up-card offer, gin and undercut bonuses."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress

from rummy_env.cards import (
    JOKER,
    NUM_NATURAL,
    NUM_RANKS,
)
from rummy_env.engine.fields import INT, Field
from rummy_env.engine.flow import (
    _apply_draw,
    _apply_play,
)
from rummy_env.engine.game import Game, PhaseRules
from rummy_env.engine.legal import _FACES, _legal_draw
from rummy_env.engine.scoring import _end_round
from rummy_env.engine.state import _DRAW, GameState, _next_active
from rummy_env.melds import (
    deadwood,
    deadwood_after_discard,
    gin_showdown,
    three_suit_ranks,
)
from rummy_env.rules import RuleSet

#: gin's fields (:mod:`rummy_env.engine.fields`)
FIELDS = (
    # the knock limit of the deal (oklahoma: the up-card's value)
    Field(
        "knock_limit",
        INT,
        lambda r: r.knock_limit,
        scope="game",
        lo=0,
        used=lambda r: r.oklahoma,
        unused="the rules' knock_limit (only oklahoma=True sets it from the up-card)",
    ),
    # the up-card offer: 0 offered to the non-dealer, 1 to the dealer, 2 both passed, or -1
    Field(
        "upcard_stage",
        INT,
        -1,
        lo=-1,
        hi=2,
        used=lambda r: r.upcard_offer,
        unused="these rules have no up-card offer",
    ),
    # hands won this match (the line bonus)
    Field(
        "hands_won",
        INT,
        0,
        per_seat=True,
        scope="game",
        lo=0,
        used=lambda r: r.scoring == "gin",
        unused="hands won are counted in gin only",
    ),
)


def check_rules(r: RuleSet) -> None:
    """A knocking game: two players, no melding during play, no wild cards, no digging."""
    if (r.scoring == "gin") != (r.knock_limit > 0 or r.oklahoma):
        raise ValueError(
            f"scoring={r.scoring!r} with knock_limit={r.knock_limit} is not allowed "
            "(allowed: scoring='gin' together with knock_limit > 0 or oklahoma=True)"
        )
    if r.scoring != "gin":
        return
    if r.meld_during_play:
        raise ValueError(
            "scoring='gin' is not allowed with meld_during_play=True "
            "(allowed: meld_during_play=False in a knocking game)"
        )
    if r.jokers:
        raise ValueError(
            f"jokers={r.jokers} is not allowed with scoring='gin': the knock and deadwood "
            "count has no wild cards (allowed: jokers=0)"
        )
    if r.discard_pickup != "top":
        raise ValueError(
            f"discard_pickup={r.discard_pickup!r} is not allowed with scoring='gin': digging "
            "grows a hand past the 11 cards the knock and deadwood count are made for "
            "(allowed: 'top')"
        )
    if r.num_players != 2:
        raise ValueError(
            f"scoring='gin' is not allowed with {r.num_players} players (allowed: 2 players, "
            "the knocker against one defender)"
        )


def configure(rules: RuleSet, g: Game) -> None:
    """Knocking (no melding during play), the up-card offer, and gin's scoring with its
    game and line bonuses."""
    if not rules.meld_during_play:
        g.play = PhaseRules(_legal_knock_play, _apply_play)
    if rules.knock_limit or rules.oklahoma:
        g.render_lines += (_knock_lines,)
    if rules.upcard_offer:
        g.upcard = PhaseRules(_legal_upcard, _apply_upcard)
        g.blocks = {**g.blocks, "PASS": 1}
    if rules.scoring == "gin":
        g.knock = _knock
        g.blocks = {**g.blocks, "KNOCK": NUM_NATURAL + 1}
        g.result_checks += (_check_result,)
        g.score = _score_gin
        g.match_bonus = _gin_bonuses
        g.stuck_count = None  # the wall: a void hand


def _legal_upcard(s: GameState) -> list[int]:
    """gin's first up-card: take it when a draw of it would be legal (a card that must be
    used at once, two decks), or pass."""
    L = s.layout
    return [L.DRAW_DISCARD, L.PASS] if L.DRAW_DISCARD in _legal_draw(s) else [L.PASS]


def _legal_knock_play(s: GameState) -> list[int]:
    """Play phase of a knocking game (gin): discard, or discard and knock."""
    p = s.current
    hand = s.hands[p]
    forb = s.forbidden
    L = s.layout
    faces = list(compress(_FACES, hand))
    cand = [f for f in faces if f != forb] if forb >= 0 else faces
    b = L.DISCARD
    acts = [b + f for f in cand]
    limit = s.knock_limit
    vals = s.values
    rules = s.rules
    if rules.decks == 1:  # one of each face
        total = sum(map(vals.__getitem__, faces))
    else:
        total = sum(vals[f] * hand[f] for f in faces)
    exact = rules.ace_high or rules.ace_penalty != 1  # the bound assumes aces low, worth 1
    # Lower bound first: cards that sit in no possible meld are deadwood for sure.
    cover, drop = (0, 0) if exact else _knock_cover(s, p, cand)
    if exact or total - drop - cover <= limit:
        after = deadwood_after_discard(hand, vals, rules.ace_high)
        acts += [L.KNOCK + f for f in cand if after[f] <= limit]
    if (
        rules.big_gin_bonus
        and (exact or total - cover <= 0)
        and deadwood(hand, vals, rules.ace_high) == 0
    ):
        acts.append(L.KNOCK + NUM_NATURAL)
    return acts


def _knock_cover(s: GameState, p: int, cand: list[int]) -> tuple[int, int]:
    """``(cover, drop)`` for the knock bound of player ``p`` (aces low, worth 1): no
    discard of ``cand`` leaves less deadwood than the hand's value minus ``cover`` and
    ``drop``. ``cover``: the value of the cards that lie in some set or run of 3+;
    ``drop``: the most a discard outside those cards takes away (a covered discard
    takes its value off ``cover`` too). With several decks (copies): ``cover`` counts
    a card for its sets and its runs, and ``drop`` is the highest discard."""
    smask = s.smask[p]
    vals = s.values
    if s.rules.decks > 1:
        cover = 0
        for r, rm in enumerate(s.rmask[p]):
            if rm.bit_count() >= 3:
                cover += vals[r] * rm.bit_count()
        for m in smask:
            cover += _RANK_VALUES[_RUN_COVER[m]]
        return cover, max(vals[f] for f in cand)
    a, b, c, d = smask
    three = three_suit_ranks(a, b, c, d)
    rc, rv, tv = _RUN_COVER, _RANK_VALUES, _TOP_VALUE
    ca, cb, cc, cd = rc[a] | a & three, rc[b] | b & three, rc[c] | c & three, rc[d] | d & three
    cover = rv[ca] + rv[cb] + rv[cc] + rv[cd]
    # the highest card outside the covered ones among the candidates (all held cards but
    # the forbidden one): per suit, the table of a mask's highest value (unrolled: hot path)
    fa, fb, fc, fd = a & ~ca, b & ~cb, c & ~cc, d & ~cd
    forb = s.forbidden
    if 0 <= forb < JOKER:
        bit = ~(1 << forb % NUM_RANKS)
        su = forb // NUM_RANKS
        if su == 0:
            fa &= bit
        elif su == 1:
            fb &= bit
        elif su == 2:
            fc &= bit
        else:
            fd &= bit
    drop = max(tv[fa], tv[fb], tv[fc], tv[fd])
    if s.hands[p][JOKER] > (forb == JOKER):  # a joker among the candidates
        drop = max(drop, vals[JOKER])
    return cover, drop


def _run_cover(mask: int) -> int:
    """The ranks of ``mask`` lying in a run of 3+ (aces low)."""
    below, above = mask << 1, mask >> 1  # bit r: rank r - 1 held; rank r + 1 held
    return mask & (below & (mask << 2) | below & above | above & (mask >> 2))


_RUN_COVER = [_run_cover(m) for m in range(1 << NUM_RANKS)]


# value (ace 1, faces 10) of the ranks of a suit mask
_RANK_VALUES = [
    sum(min(r + 1, 10) for r in range(NUM_RANKS) if m >> r & 1) for m in range(1 << NUM_RANKS)
]


# value of the highest rank of a suit mask (0 for none)
_TOP_VALUE = [min(m.bit_length(), 10) for m in range(1 << NUM_RANKS)]


def _apply_upcard(s: GameState, p: int, a: int) -> bool:
    """gin's up-card: take it (a draw) or pass (to the dealer, then the non-dealer draws
    from the stock)."""
    if a != s.layout.PASS:
        return _apply_draw(s, p, a)
    if s.upcard_stage == 0:
        s.current = s.dealer
        s.upcard_stage = 1
    else:
        s.current = _next_active(s, s.dealer)
        s.upcard_stage = 2  # the non-dealer must draw from the stock
        s.phase = _DRAW
    return False


def _check_result(s: GameState, fail: Callable[[str, str, str], None]) -> None:
    """A gin hand that is over: the winner's points, hands won."""
    rules = s.rules
    w = s.winner
    won = [p == w for p in range(rules.num_players)]
    if [x > 0 for x in s.round_scores] != won or any(x < 0 for x in s.round_scores):
        fail(
            "round_scores",
            f"={s.round_scores} with winner={w}",
            "the winner's points (more than 0) and 0 for the other seat; all 0 for a void "
            "hand (winner None)",
        )
    if not rules.match and s.hands_won != [int(x) for x in won]:
        fail("hands_won", f"={s.hands_won} with winner={w}", "1 for the winner, 0 otherwise")
    for p in range(rules.num_players):
        if (s.totals[p] > 0) != (s.hands_won[p] > 0) or s.totals[p] < s.round_scores[p]:
            fail(
                f"totals[{p}]",
                f"={s.totals[p]} with hands_won[{p}]={s.hands_won[p]}, "
                f"round_scores[{p}]={s.round_scores[p]}",
                "the points of the hands the seat won: more than 0 exactly when it won one, "
                "at least this round's",
            )


def _knock_lines(s: GameState) -> list[str]:
    return [f"knock limit: {s.knock_limit}"]


def _knock(s: GameState, p: int, a: int) -> bool:
    """Knock (``Game.knock``): discard (none for big gin) and lay the hands down."""
    rules = s.rules
    f = a - s.layout.KNOCK
    if f < NUM_NATURAL:
        s._remove(p, f)
        s.discard.append(f)
    q = _next_active(s, p)
    res = gin_showdown(
        s.hands[p],
        s.hands[q],
        s.values,
        s.knock_limit,
        rules.gin_bonus,
        rules.undercut_bonus,
        rules.big_gin_bonus,
        rules.ace_high,
    )
    winner = p if res["points"] > 0 else q
    return _end_round(s, winner, res["kind"], abs(res["points"]), res)


# One function per RuleSet.scoring: (state, winner, rummy, hand values, knock points) ->
# (scores added to the totals, rewards), and one per way a match ends.
def _score_gin(s: GameState, winner: int | None, rummy: bool, vals: list[int], points: int):
    n = s.rules.num_players
    scores, rewards = [0] * n, [0] * n
    if winner is not None:  # None: a void hand (the wall)
        scores[winner] = points
        s.hands_won[winner] += 1
        rewards = [points if p == winner else -points for p in range(n)]
    return scores, rewards


def _gin_bonuses(s: GameState, rewards: list[int]) -> list[int]:
    """Gin match end: the game bonus to the winner, the line bonus per hand won to both (zero-sum)."""
    n = s.rules.num_players
    bonus = [s.rules.line_bonus * s.hands_won[p] for p in range(n)]
    bonus[s.match_winner] += s.rules.game_bonus
    for p in range(n):
        rewards[p] += bonus[p] - sum(bonus[q] for q in range(n) if q != p)
    return bonus
