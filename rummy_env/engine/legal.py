"""Legal moves of the common turn: the draw, and the melds, lay-offs, swaps and discards
of the play phase, with the no-dead-end checks (DESIGN.md invariant 2)."""

from __future__ import annotations

from itertools import compress

from rummy_env.cards import (
    JOKER,
    NUM_FACES,
    NUM_NATURAL,
    NUM_RANKS,
)
from rummy_env.melds import (
    ACE_HIGH_POS,
    SPREAD,
    SUIT_SHIFT,
    code_faces,
    code_size,
    run3_bits,
    run_face,
    run_value,
    set_value,
    three_suit_ranks,
)


def legal_actions(s: GameState) -> list[int]:
    """Legal action ids of the seat to act (:func:`acting_seat`), ascending (cached until
    the next action)."""
    if s._legal is None:
        s._legal = s.phases[s.phase].legal(s)
    return s._legal


def acting_seat(s: GameState) -> int:
    """The seat that decides now. ``s.current`` is the seat whose turn it is; the two
    differ in a phase whose :class:`PhaseRules` say so (an out-of-turn decision)."""
    return s.phases[s.phase].actor(s)


def _nothing_legal(s: GameState) -> list[int]:
    return []


def _legal_draw(s: GameState) -> list[int]:
    rules = s.rules
    p = s.current
    acts = []
    if s.stock:
        acts.append(0)
    pile = s.discard
    if pile and s.upcard_stage != 2:
        mode = rules.discard_pickup_must_meld
        hand = s.hands[p]
        n = s.nhand[p]
        depths = range(len(pile)) if rules.discard_pickup == "any" else (0,)
        # natural cards a table meld takes: an opened player may lay such a card off at
        # once, when a card other than its copies is left to discard, or going out where
        # no discard is required
        laid = _table_bits(s) if s.opened[p] and mode != "never" else 0
        out_ok = not rules.go_out_requires_discard
        wf = s.wild_faces
        must_from = 0 if mode == "always" else 1 if mode == "below_top" else len(pile)
        t = _use_facts(s, p, laid) if must_from < len(pile) else None
        wilds = t[0] if t else 0
        # the hand with the cards above depth d (they come along), gathered as d grows:
        # suit masks of ranks, rank masks of suits, the taken cards' count of each face,
        # and the wild cards (only the top card: nothing above it, nothing to copy)
        above_s, above_r, above_f = s.smask[p], s.rmask[p], _NO_FACES
        if len(depths) > 1:
            above_s, above_r, above_f = above_s[:], above_r[:], [0] * NUM_FACES
        for d in depths:
            c = pile[-1 - d]
            if d:
                f = pile[-d]  # the card just above c
                above_f[f] += 1
                if f == JOKER or f in wf:
                    wilds += 1
                if f != JOKER:  # (a wild 2 is also natural in a run through its place)
                    above_s[f // NUM_RANKS] |= 1 << (f % NUM_RANKS)
                    above_r[f % NUM_RANKS] |= 1 << (f // NUM_RANKS)
            copies = hand[c] + above_f[c]
            if d >= must_from:
                # the card must be used at once: legal only if some meld or lay-off
                # containing it is legal after the draw (which also rules out dead ends);
                # the first legal meld settles it (no discard is legal before it is used)
                if laid >> c & 1 and (
                    n + d > copies  # (copies of c left may not be discarded this turn)
                    or (n + d == 0 and out_ok)
                ):
                    acts.append(1 + d)
                    continue
                use = _taken_use(c, n + d + 1, copies + 1, above_s, above_r, above_f, wilds, t)
                if use == _YES or (use == _MAYBE and _usable_drawn(s, p, d)):
                    acts.append(1 + d)
            elif n + d > copies:
                acts.append(1 + d)  # something other than the taken face to discard
    if not s.stock and rules.empty_stock == "end_round":
        acts.append(s.layout.END_ROUND)
    return acts


_NO, _MAYBE, _YES = 0, 1, 2
_NO_FACES = (0,) * NUM_FACES


def _use_facts(s: GameState, p: int, laid: int) -> tuple:
    """What :func:`_taken_use` asks of the seat ``p`` to draw, the same at every depth: its
    wild cards, hand, the state's wild faces and meld catalogue, whether every taken card
    is left to :func:`_usable_drawn` (going down in contract rummy, where the contract
    search judges the whole hand), whether a meld may be laid (opened, melds not all laid
    at once), whether going out needs no discard, ``laid`` (:func:`_table_bits` for an
    opened player, else 0), and whether a meld of two natural cards and a joker may be
    laid (no wild 2s, runs of three)."""
    hand, wf, game, opened = s.hands[p], s.wild_faces, s.game, s.opened[p]
    wilds = hand[JOKER]
    for f in wf:
        wilds += hand[f]
    going_down = game.opens_at_once and not opened
    free = opened and not game.opens_at_once
    cat = s.cat
    # a meld of three cards, one of them a joker, may be laid (no wild 2s)
    joker3 = not wf and cat.min_run == 3 and cat.wild_ok(2, 1)
    can_out = not s.rules.go_out_requires_discard
    return wilds, hand, wf, cat, going_down, free, can_out, laid, joker3


def _taken_use(
    c: int,
    n: int,
    copies: int,
    sm: list[int],
    rm: list[int],
    above_f: list[int],
    wilds: int,
    t: tuple,
) -> int:
    """Whether card ``c`` of the discard pile can be used at once after taking it with the
    cards above it, leaving ``n`` cards in hand of which ``copies`` are ``c``'s face: the
    per-suit rank masks ``sm`` and per-rank suit masks ``rm`` of the hand and the cards
    above ``c``, those cards' count of each face ``above_f``, and ``wilds`` wild cards
    among all of them (``t``: :func:`_use_facts`): ``_NO`` when no meld or lay-off holding it
    can be legal, ``_YES`` when a meld holding it is sure to be legal, else
    ``_MAYBE`` (:func:`_usable_drawn` decides).

    The tests only take what a meld needs: a set of ``c``'s rank needs two more cards of
    it (``min_naturals`` natural) or wild cards; a run of ``c``'s suit needs
    ``min_run - 1`` more cards of the suit or wild cards, with a natural within the wild
    cards' reach where ``min_naturals`` is 2; without wild cards, three cards of the rank
    or ``min_run`` neighbouring places through ``c``'s place. For an opened player (melds
    not all laid at once), one of these melds is legal where it leaves something other
    than ``c``'s face to discard, or no card where going out needs no discard: a set of
    three natural cards (suits distinct), a natural run, or, with a joker and no wild
    2s, a set of two naturals or a run of two naturals within two places and the
    joker."""
    _, hand, wf, cat, going_down, free, can_out, laid, joker3 = t
    if c == JOKER or c in wf or going_down:
        return _MAYBE
    r, su = c % NUM_RANKS, c // NUM_RANKS
    if cat.distinct:  # the other suits of c's rank
        others = (rm[r] & ~(1 << su)).bit_count()
    else:  # suits repeat: every other card of the rank
        others = sum([hand[f] + above_f[f] for f in range(r, NUM_NATURAL, NUM_RANKS)])
    pm = sm[su] | 1 << r
    nat_run = cat.run_cover[pm] >> r & 1
    if not wilds and others < 2 and not nat_run:
        return _MAYBE if laid >> c & 1 else _NO
    places = (r,)  # c's places in a run
    if cat.ace_high and pm & 1:
        pm |= 1 << ACE_HIGH_POS
        if r == 0:
            places = (0, ACE_HIGH_POS)
    min_run = cat.min_run
    if free and (not wilds or not wf):
        # a meld sure to be legal, and its size: three natural cards of the rank (suits
        # distinct), two and a wild card, a natural run, two of the suit within two
        # places and a wild card (where such melds are allowed)
        wild3 = wilds and joker3 and cat.distinct
        if others >= 2 and cat.distinct or others and wild3:
            size = 3
        elif nat_run:
            size = min_run
        elif wild3 and any(pm & _reach(q, 2) for q in places):
            size = 3
        else:
            size = 0
        rest = n - size
        if size and (rest > 0 and rest >= copies or (rest == 0 and can_out)):
            return _YES
    if not wilds:
        return _MAYBE
    need = cat.min_naturals - 1  # other natural cards a meld holding c needs
    if others >= need and others + wilds >= 2:
        return _MAYBE
    suit = (pm & ~(1 << r)).bit_count()  # (a held ace may count twice: at either end)
    if suit + wilds >= min_run - 1 and (not need or any(pm & _reach(q, wilds + 1) for q in places)):
        return _MAYBE
    return _MAYBE if laid >> c & 1 else _NO


def _reach(q: int, k: int) -> int:
    """The run places within ``k`` of place ``q``, but not ``q``."""
    return ((1 << (2 * k + 1)) - 1) << q >> k & ~(1 << q) & (1 << ACE_HIGH_POS + 1) - 1


def _table_bits(s: GameState) -> int:
    """Bit ``f`` set for each natural card ``f`` some table meld accepts (its ``lay_bits``)."""
    bits = 0
    for m in s.table:
        bits |= m.lay_bits
    return bits


def held_faces(smask: list[int]) -> int:
    """The natural faces held, a bit each (face ``f`` at bit ``f``), from a seat's per-suit
    rank masks (``GameState.smask[p]``)."""
    return smask[0] | smask[1] << 13 | smask[2] << 26 | smask[3] << 39


def _usable_drawn(s: GameState, p: int, d: int) -> bool:
    """Whether some meld or lay-off is legal after taking the discard at depth ``d``: the
    draw made in place and undone (cheaper than a copy of the state)."""
    pile, keep = s.discard, (s.forbidden, s.must_use, s.phase, s.upcard_stage, s._legal)
    taken = pile[len(pile) - 1 - d :]
    _draw_discard(s, p, d)
    s._legal = None
    try:
        return bool(_legal_play_moves(s, first_meld=True))
    finally:
        for f in taken:  # (the known cards the draw added go with them)
            s._remove(p, f)
        pile += taken
        s.forbidden, s.must_use, s.phase, s.upcard_stage, s._legal = keep


def _draw_discard(s: GameState, p: int, d: int) -> None:
    """Take the discard at depth ``d`` and every card above it."""
    rules = s.rules
    taken = s.discard[len(s.discard) - 1 - d :]
    del s.discard[len(s.discard) - 1 - d :]
    for f in taken:
        s._add(p, f)
        s.known[p][f] += 1
    c = taken[0]
    s.forbidden = c
    mode = rules.discard_pickup_must_meld
    s.must_use = c if mode == "always" or (mode == "below_top" and d > 0) else -1
    s.phase = _PLAY
    s.upcard_stage = -1


def discard_only(s: GameState) -> list[int] | None:
    """The faces the player to act may discard (ascending), when a quick test shows
    that discarding is all he may do (play phase of a game with melding during play);
    else None. When a list, ``legal_actions`` lists exactly ``Discard`` of these faces.

    The test: no taken card to use, and either contract rummy before going down with a
    contract that cannot be laid (no meld, no lay-off), or: no wild card in hand, opened,
    no rank held in three suits (three cards where suits repeat), no three neighbouring
    ranks of a suit (so no meld), no held card that a table meld accepts, and no wild
    card on the table (no swap). None in a game whose play phase is its own (Canasta).
    """
    if s.game.codec is not None:
        return None
    p = s.current
    hand = s.hands[p]
    if s.must_use >= 0:
        return None
    a, b, c, d = s.smask[p]
    if not s.opened[p]:
        if (
            not s.game.opens_at_once
            or s.turn_value
            or s.game.opening_ok(s, p, (), 0, 0, False, s.forbidden)
        ):
            return None
    else:
        if hand[JOKER] or (s.game.no_final_discard(s) and s.nhand[p] == 1):
            return None
        for f in s.wild_faces:
            if hand[f]:
                return None
        if three_suit_ranks(a, b, c, d):
            return None
        if not s.cat.distinct and _ranks_of_three(hand):  # suits repeat (D-16)
            return None
        held = held_faces(s.smask[p])
        if run3_bits(held, s.cat.ace_high):
            return None
        for tm in s.table:
            if tm.lay_bits & held or tm.swaps:  # (a meld with a wild card: not tested further)
                return None
    lo, hi = _LOW_FACES, _HIGH_FACES  # the held faces, ascending, from the suit masks
    faces = [
        *lo[0][a & 127],
        *hi[0][a >> 7],
        *lo[1][b & 127],
        *hi[1][b >> 7],
        *lo[2][c & 127],
        *hi[2][c >> 7],
        *lo[3][d & 127],
        *hi[3][d >> 7],
    ]
    if hand[JOKER]:  # (contract rummy before going down)
        faces.append(JOKER)
    if s.forbidden >= 0 and hand[s.forbidden]:
        faces.remove(s.forbidden)
    return faces


# the faces of suit su whose ranks are the bits of the suit mask m:
# ranks 0..6 in _LOW_FACES[su][m & 127], ranks 7..12 in _HIGH_FACES[su][m >> 7]
_LOW_FACES = [
    [tuple(su * NUM_RANKS + r for r in range(7) if m >> r & 1) for m in range(1 << 7)]
    for su in range(4)
]


_HIGH_FACES = [
    [
        tuple(su * NUM_RANKS + r for r in range(7, NUM_RANKS) if m >> (r - 7) & 1)
        for m in range(1 << 6)
    ]
    for su in range(4)
]


def _wild_fill(s: GameState, hand: list[int], n: int, used: tuple[int, ...] = ()) -> list[int]:
    """The physical cards that fill ``n`` wild places of a meld from ``hand``, in the order
    of :func:`_wild_order` (D-13: a joker before a 2, a 2 being the more useful card to
    keep); ``used``: cards of the same meld laid as naturals (not available)."""
    out: list[int] = []
    need = n
    for f in _wild_order(s):
        if not need:
            break
        c = min(hand[f] - used.count(f), need)
        if c > 0:
            out += [f] * c
            need -= c
    return out


def _wild_order(s: GameState) -> tuple[int, ...]:
    """The order in which the engine lays wild cards: a 2 taken from the pile that must be
    used now first (the rule asks for it in this meld), the jokers, then a 2 taken from the
    pile this turn (it may not be discarded, so laying it never leaves a player stuck where
    another 2 would), then the 2s by suit."""
    if not s.wild_faces:
        return (JOKER,)
    must, forb = s.must_use, s.forbidden
    first = (must,) if must in s.wild_faces else ()
    taken = (forb,) if forb in s.wild_faces and forb != must else ()
    return (*first, JOKER, *taken, *(g for g in s.wild_faces if g not in first + taken))


def _wild_for(s: GameState, hand: list[int], m: TableMeld, k: int) -> int:
    """The card a wild lay-off into slot ``k`` of meld ``m`` lays (:func:`_wild_order`): a
    joker or a wild-rank card that would not stand at its own place there (that one is a
    natural lay-off), or -1."""
    set_of_2s = not m.is_run and m.key == s.rules.fixed_wild_rank  # a 2 on it is natural
    own = m.stands_for(k)
    for f in _wild_order(s):
        if hand[f] and (f == JOKER or (not set_of_2s and f != own)):
            return f
    return -1


def _legal_play(s: GameState) -> list[int]:
    """Legal actions of the play phase (melding during play)."""
    faces = discard_only(s)
    if faces:  # the common case
        b = s.layout.DISCARD
        return [b + f for f in faces]
    return _legal_play_moves(s) or _lapsed_play(s)


def _lapsed_play(s: GameState) -> list[int]:
    """The discards left to a player who has no legal move: only in a restored state
    that could not occur in play (a taken card that cannot be used, an opening that
    cannot be completed, only cards that may not be discarded, e.g. when the hidden
    cards were shuffled). The obligations lapse rather than leave a dead end
    (DESIGN.md invariant 2): any card but the forbidden one, or any card."""
    hand = s.hands[s.current]
    b = s.layout.DISCARD
    faces = [f for f in compress(_FACES, hand) if f != s.forbidden] or list(compress(_FACES, hand))
    return [b + f for f in faces]


def legal_play_to_first_meld(s: GameState) -> list[int]:
    """The legal actions of the play phase (melding during play), ascending, cut short
    after the first meld when there is one: enough for a policy that melds first (the
    search agent's rollouts). Not cached."""
    return _legal_play_moves(s, first_meld=True)


def _legal_play_moves(s: GameState, first_meld: bool = False) -> list[int]:
    """:func:`_legal_play` without the ``discard_only`` shortcut; with ``first_meld``
    only the first (lowest) action when it is a meld: the list is cut short there.

    Melds (sets, then runs: ids ascend in this order), lay-offs and swaps, and discards
    are listed by their own functions, which share this turn's facts as one tuple ``c``
    (``p, hand, n, w, jokers, wf, wrank, cat, L, rules, forb, nforb, can_out, must,
    opened, av, jv, going_down``)."""
    p = s.current
    hand = s.hands[p]
    w = jokers = hand[JOKER]
    wf = s.wild_faces
    if wf:  # wild 2s: wild anywhere but at their own place
        w += sum([hand[f] for f in wf])
    rules, game, forb, must, opened = s.rules, s.game, s.forbidden, s.must_use, s.opened[p]
    n, L = s.nhand[p], s.layout
    # contract rummy, going down: the contract search judges what each meld leaves
    going_down = game.opens_at_once and not opened
    nforb = hand[forb] if forb >= 0 else 0
    c = (p, hand, n, w, jokers, wf, rules.fixed_wild_rank, s.cat, L, rules, forb, nforb, not rules.go_out_requires_discard, must, opened, rules.ace_meld_value, rules.joker_meld_value, going_down)  # fmt: skip
    acts: list[int] = []
    if _may_meld(s, p, opened, forb) and (
        _legal_sets(s, c, acts, first_meld) or _legal_runs(s, c, acts, first_meld)
    ):
        return acts[-1:]
    last7 = game.no_final_discard(s)
    if s.table and opened:  # lay-offs and swaps (only once opened, D-7)
        _legal_layoffs(s, c, acts, last7)
    # discards: not while a taken card awaits its meld, nor in the middle of an opening
    if must < 0 and (opened or s.turn_value == 0) and not (last7 and n == 1):
        b = L.DISCARD
        if forb < 0:
            acts += [b + f for f in compress(_FACES, hand)]
        else:
            acts += [b + f for f in compress(_FACES, hand) if f != forb]
    return acts


def _may_meld(s: GameState, p: int, opened: bool, forb: int) -> bool:
    """Whether the seat to act may lay a new meld now."""
    if opened:
        return not s.game.opens_at_once  # contract rummy: no new melds once down
    if s.rules.open_pure_run and not s.turn_pure:
        # no opening without a pure run of three in hand
        if not run3_bits(held_faces(s.smask[p]), s.cat.ace_high):
            return False
    # no meld is legal unless the whole hand can still complete the opening
    return s.game.opening_ok(s, p, (), 0, 0, False, forb)


def _legal_sets(s: GameState, c: tuple, acts: list[int], first_meld: bool) -> bool:
    """Append the legal set melds; True when ``first_meld`` stopped at the first."""
    p, hand, n, w, jokers, wf, wrank, cat, L, rules, forb, nforb, can_out, must, opened, av, jv, going_down = c  # fmt: skip
    rmask = s.rmask[p]
    nshapes = len(cat.set_shapes)
    shapes = cat.set_shapes
    sizes = cat.set_sizes
    base = L.MELD
    # a taken natural card that must be used: only its rank's sets and its suit's runs
    nat_must = 0 <= must < NUM_NATURAL and must not in wf
    distinct = cat.distinct
    if nat_must:
        ranks = (must % NUM_RANKS,)
    elif w:
        ranks = range(NUM_RANKS)
    elif distinct:  # without wild cards only the ranks held in three suits or more
        three = three_suit_ranks(*s.smask[p])
        ranks = [r for r in range(NUM_RANKS) if three >> r & 1] if three else ()
    else:  # or three natural cards
        ranks = _ranks_of_three(hand)
    nat_first = rules.joker_natural_first
    min_nat = cat.min_naturals
    for r in ranks:
        if distinct:
            rm = rmask[r]
            held = SPREAD[rm]
            nh = rm.bit_count()
        else:
            held = cat.held_code(hand, r)
            nh = code_size(held)
        wr_ = jokers if r == wrank else w  # in a set of 2s every 2 is natural
        if nh >= min_nat and nh + wr_ >= 3:
            fr = 0 <= forb < NUM_NATURAL and forb % NUM_RANKS == r
            for k, wu in cat.sets_for(held, wr_):
                code = shapes[k][0]
                if wu and nat_first and held != code:
                    continue  # a card of this rank in hand could take the wild card's place
                if forb == JOKER:
                    used_f = min(wu, jokers)
                elif wu and forb in wf and r != wrank:
                    used_f = _wild_fill(s, hand, wu).count(forb)
                else:
                    used_f = code >> SUIT_SHIFT * (forb // NUM_RANKS) & 15 if fr else 0
                holds_must = must < 0 or (
                    bool(wu)
                    if must == JOKER or (must in wf and r != wrank)  # the first wild laid
                    else must % NUM_RANKS == r and code >> SUIT_SHIFT * (must // NUM_RANKS) & 15
                )
                if not (
                    going_down or _may_play(n - sizes[k], can_out, forb, nforb, used_f, holds_must)
                ):
                    continue
                if not opened:
                    nat = code_faces(code, r)
                    value = set_value(r, len(nat), wu, av, jv)

                    def meld(r=r, code=code, wu=wu) -> TableMeld:
                        return TableMeld(p, False, r, 0, 0, 0, code, wu, cat)

                    if not s.game.opening_ok(s, p, nat, wu, value, False, forb, meld):
                        continue
                acts.append(base + r * nshapes + k)
                if first_meld:
                    return True
    return False


def _legal_runs(s: GameState, c: tuple, acts: list[int], first_meld: bool) -> bool:
    """Append the legal run melds; True when ``first_meld`` stopped at the first."""
    p, hand, n, w, jokers, wf, wrank, cat, L, rules, forb, nforb, can_out, must, opened, av, jv, going_down = c  # fmt: skip
    nat_must = 0 <= must < NUM_NATURAL and must not in wf
    smask = s.smask[p]
    nseg = len(cat.segments)
    base = L.MELD + cat.n_sets
    ace_high = cat.ace_high
    segs = cat.segments
    for su in (must // NUM_RANKS,) if nat_must else range(4):
        pm = smask[su]
        if not pm:
            continue
        if ace_high and pm & 1:
            pm |= 1 << ACE_HIGH_POS
        if not w and not pm & (pm >> 1) & (pm >> 2):
            continue  # no three neighbouring positions: no run (runs_for would be empty)
        if wf:
            # this suit's 2 is natural in a run through its place (not wild there too);
            # every other 2, and this one in any other run, is wild
            own = su * NUM_RANKS + wrank
            through = [
                o for o in cat.runs_for(pm, w - (hand[own] > 0)) if _covers(segs[o[0]], wrank)
            ]
            other = [o for o in cat.runs_for(pm, w) if not _covers(segs[o[0]], wrank)]
            runs = sorted(through + other)
        else:
            runs = cat.runs_for(pm, w)
        for k, wu in runs:
            lo, hi = segs[k]
            if forb == JOKER:
                used_f = min(wu, jokers)
            else:
                used_f = 1 if forb >= 0 and _run_holds(su, lo, hi, forb) else 0
                if wu and forb in wf:
                    nat_own = (own,) if hand[own] and lo <= wrank <= hi else ()
                    used_f += _wild_fill(s, hand, wu, nat_own).count(forb)
            holds_must = (
                must < 0
                or _run_holds(su, lo, hi, must)
                or (bool(wu) and (must == JOKER or must in wf))  # the first wild laid
            )
            rest = n - (hi - lo + 1)
            if not (going_down or _may_play(rest, can_out, forb, nforb, used_f, holds_must)):
                continue
            if not opened:
                wild = 0
                nat = []
                for q in range(lo, hi + 1):
                    if pm >> q & 1:
                        nat.append(su * NUM_RANKS + q % NUM_RANKS)
                    else:
                        wild |= 1 << q
                value = run_value(lo, hi, wild, av, jv)

                def meld(su=su, lo=lo, hi=hi, wild=wild) -> TableMeld:
                    return TableMeld.run(p, su, lo, hi, wild, cat)

                if not s.game.opening_ok(s, p, nat, wu, value, wu == 0, forb, meld):
                    continue
            acts.append(base + su * nseg + k)
            if first_meld:
                return True
    return False


def _legal_layoffs(s: GameState, c: tuple, acts: list[int], last7: bool) -> None:
    """Append the legal lay-offs and joker swaps, and sort the list."""
    p, hand, n, w, jokers, wf, wrank, cat, L, rules, forb, nforb, can_out, must, opened, av, jv, going_down = c  # fmt: skip
    nat_first = rules.joker_natural_first
    lw = L.layoff_width
    rest = n - 1
    held = held_faces(s.smask[p])
    for mi, m in enumerate(s.table):
        if not (w or m.lay_bits & held):  # nothing in hand that it accepts
            continue
        b = L.LAYOFF + mi * lw
        for k, f in m.accepts.items():
            if f == JOKER and wf:
                f = _wild_for(s, hand, m, k)
                if f < 0:
                    continue
            if hand[f] and (must < 0 or f == must):
                if k >= NUM_NATURAL and nat_first and _natural_playable(m, k, hand):
                    continue
                if last7 and rest == 1:  # no final discard: the last card must fit
                    if _last_card_fits(s, hand, f, mi, m.laid_off(k, s.cat, f)):
                        acts.append(b + k)
                elif _may_play(rest, can_out, forb, nforb, f == forb, True):
                    acts.append(b + k)
    if L.SWAP < L.DISCARD and rules.joker_swap and must < 0:
        for mi, m in enumerate(s.table):
            if m.swaps:
                b = L.SWAP + mi * NUM_NATURAL
                for f in m.swaps:
                    # the swap gives f and takes a wild card: keep something discardable
                    if hand[f] and (
                        forb < 0
                        or n > nforb + (forb == m.wild_cards[m.swap_index(f)]) - (forb == f)
                    ):
                        acts.append(b + f)
    acts.sort()


def _last_card_fits(s: GameState, hand: list[int], f: int, mi: int, new: TableMeld) -> bool:
    """Contract rummy's seventh deal: whether, after ``f`` is laid off making table meld
    ``mi`` into ``new``, the one card left in ``hand`` can be laid off too."""
    y = next(g for g in compress(_FACES, hand) if g != f or hand[g] == 2)
    return any(y in (new if i == mi else m).accepts.values() for i, m in enumerate(s.table))


def _ranks_of_three(hand: list[int]) -> list[int]:
    """The ranks of which ``hand`` holds three natural cards or more (any suits)."""
    return [r for r in range(NUM_RANKS) if sum(hand[r:NUM_NATURAL:NUM_RANKS]) >= 3]


def _may_play(
    rest: int, can_out: bool, forb: int, nforb: int, used_forb: int, holds_must: bool
) -> bool:
    """The one "may this be played" check of a meld or lay-off that leaves ``rest`` cards
    in hand: going out only where the rules allow it without a discard (``can_out``), no dead
    end (what is left must hold a card other than the forbidden one: ``nforb`` copies of it in
    hand, ``used_forb`` of them played here), and a taken card that must be used is in it."""
    if not holds_must:
        return False
    if rest == 0:
        return can_out
    return forb < 0 or rest > nforb - used_forb


def _covers(seg: tuple[int, int], pos: int) -> bool:
    return seg[0] <= pos <= seg[1]


def _run_holds(suit: int, lo: int, hi: int, f: int) -> bool:
    """Whether the run of ``suit`` over positions ``lo..hi`` has face ``f``'s place (an ace at
    either end)."""
    if f // NUM_RANKS != suit:
        return False
    q = f % NUM_RANKS
    return lo <= q <= hi or (q == 0 and hi == ACE_HIGH_POS)


def _natural_playable(m: TableMeld, k: int, hand: list[int]) -> bool:
    """Whether the hand holds a natural card that meld ``m`` would take in place of a
    wild card laid off into slot ``k`` (52: a set, or a run's low end; 53: a run's high end)."""
    if not m.is_run:
        return any(hand[f] for f in m.accepts.values() if f != JOKER)
    return bool(hand[run_face(m.key, m.lo - 1 if k == NUM_NATURAL else m.hi + 1)])


_FACES = range(53)  # compress(_FACES, hand): the faces held, ascending


from rummy_env.engine.state import _PLAY, GameState, TableMeld  # noqa: E402
