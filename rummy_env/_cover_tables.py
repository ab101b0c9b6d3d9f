"""The tables of the skeleton search of :mod:`rummy_env.cover`: a position's input
checked and read per number, one colour's (and one number's groups') ways through one
number, and the views a search reads (see cover's docstring for the programme).

Every function that keeps what it computes takes the caller's memo object
(:class:`rummy_env.cover.CoverMemo`) first and keeps it there; nothing here grows
by itself but the numbering of a colour's open runs (:func:`_cs_id`), which is
process-wide on purpose (see there).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product
from operator import add as _add
from typing import Any

from rummy_env.cards import JOKER, NUM_FACES, NUM_RANKS, NUM_SUITS

Memo = Any  # a rummy_env.cover.CoverMemo (not imported: cover imports this module)

# ------------------------------------------------------------------- constants

_EMPTY = ((), (), (), ())
_NONE4 = (0, 0, 0, 0)
_MAX_JOKERS = 2
_MAX_COPIES = 13  # of one face in all (the search packs its states into ints)
_CACHE_LIMIT = 300_000  # entries per transition cache before it is cleared


def _store(table: dict, key, value):
    """``table[key] = value`` (the table emptied first when it has grown past
    ``_CACHE_LIMIT``); the value."""
    if len(table) > _CACHE_LIMIT:
        table.clear()
    table[key] = value
    return value


# ----------------------------------------------------------------------- input


def _as_list(counts: Sequence[int] | None) -> list[int]:
    if counts is None:
        return [0] * NUM_FACES
    if hasattr(counts, "tolist"):
        counts = counts.tolist()
    out = list(map(int, counts))
    if len(out) != NUM_FACES:
        raise ValueError(f"a count vector has {NUM_FACES} entries, not {len(out)}")
    if min(out) < 0:
        raise ValueError("counts must be >= 0")
    return out


def _levels(mand: list[int], opt: list[int]) -> tuple[list[tuple], int, int]:
    """Per number ``(m, o)`` colour tuples, the mandatory and the total jokers."""
    jm, jo = mand[JOKER], opt[JOKER]
    if jm + jo > _MAX_JOKERS:
        raise ValueError(f"at most {_MAX_JOKERS} jokers in all (got {jm} + {jo})")
    levels = []
    for k in range(NUM_RANKS):
        m = (mand[k], mand[13 + k], mand[26 + k], mand[39 + k])
        o = (opt[k], opt[13 + k], opt[26 + k], opt[39 + k])
        levels.append((m, o))
    return levels, jm, jm + jo


def _first_level(levels: list[tuple], jt: int) -> int:
    """The first number (index) where a run or group may start: jokers may stand
    at most 2 numbers before the first natural."""
    for k, (m, o) in enumerate(levels):
        if any(m) or any(o):
            return max(0, k - jt)
    return NUM_RANKS


def _last_level(levels: list[tuple], jt: int) -> int:
    for k in range(NUM_RANKS - 1, -1, -1):
        m, o = levels[k]
        if any(m) or any(o):
            return min(NUM_RANKS - 1, k + jt)
    return -1


# ----------------------------------------------------- skeleton DP: one number
# Feasibility only: naturals and the jokers standing in gaps; the other jokers are
# counted, not placed (see the module docstring).

# Open run states, in the order of dominance (a later state can do all an earlier
# one can): A one natural; G ends in a gap (a joker), needs a natural next; B two
# adjacent naturals (may close, taking one joker at an end); V valid, may close.
_SA, _SG, _SB, _SV = 0, 1, 2, 3
_SK_NAT = (_SB, _SV, _SV, _SV)

# ``(jokers needed, extra jokers it could take)`` when a run closes: two adjacent
# naturals need one joker at an end and could take a second; a valid run could
# take two more (its ends have room; see the module docstring for runs of 12+).
_SK_CLOSE = (None, None, (1, 1), (0, 2))


def _sk_dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether the sorted run multiset ``a`` dominates ``b`` (same size)."""
    return len(a) == len(b) and all(x >= y for x, y in zip(a, b))


def _sk_colour_opts(memo: Memo, runs: tuple[int, ...], nmax: int, gmax: int, fin: bool) -> tuple:
    """One colour's ways through one number (skeleton DP).

    ``runs``: sorted run states; ``nmax`` naturals at most into runs; ``gmax``
    jokers at most (gaps and needs); ``fin``: the last number (every run closes
    after it). Options ``(runs2, nr, dn, de, acts, sn)``: naturals into runs,
    jokers needed (gaps, and pairs closed), extra jokers the closed runs could
    take (capped at 2), an action per run (0 natural, 1 gap, 2 close) and runs
    started. Of the options with the same ``nr`` those another one beats (runs
    as far along, no more jokers needed, at least as many takeable) are left out."""
    key = (runs, nmax, gmax, fin)
    res = memo.sk_colour.get(key)
    if res is not None:
        return res
    more = memo.sk_colour.get((runs, nmax, _MAX_JOKERS, fin)) if gmax < _MAX_JOKERS else None
    if more is not None:  # the same as with more jokers, less those needing more
        res = memo.sk_colour[key] = tuple(op for op in more if op[2] <= gmax)
        return res
    distinct = sorted(set(runs))
    per_state = []
    for code in distinct:
        cnt = runs.count(code)
        closing = _SK_CLOSE[code]
        choices = []
        for a_n in range(cnt + 1):
            for a_g in range(cnt - a_n + 1):
                a_x = cnt - a_n - a_g
                if a_x and closing is None:
                    continue
                dn = a_g + (a_x * closing[0] if a_x else 0)
                de = a_x * closing[1] if a_x else 0
                choices.append((a_n, a_g, a_x, dn, de))
        per_state.append(choices)
    best: dict = {}  # nr -> {(runs2, dn): (de, acts, sn)}
    for combo in product(*per_state):
        nr = sum(c[0] for c in combo)
        dn = sum(c[3] for c in combo)
        de = sum(c[4] for c in combo)
        if nr > nmax or dn > gmax:
            continue
        kept: list[int] = []
        acts: list[int] = []
        for code, (a_n, a_g, a_x, _dn, _de) in zip(distinct, combo):
            kept.extend([_SK_NAT[code]] * a_n)
            kept.extend([_SG] * a_g)
            acts.extend([0] * a_n + [1] * a_g + [2] * a_x)
        for sn in range(nmax - nr + 1):
            states = sorted(kept + [_SA] * sn)
            dn2, de2 = dn, de
            if fin:
                ok = True
                for code in states:
                    c = _SK_CLOSE[code]
                    if c is None:
                        ok = False
                        break
                    dn2 += c[0]
                    de2 += c[1]
                if not ok or dn2 > gmax:
                    continue
                states = []
            de2 = min(de2, 2)
            bucket = best.setdefault(nr + sn, {})
            t = (tuple(states), dn2)
            old = bucket.get(t)
            if old is None or old[0] < de2:
                bucket[t] = (de2, tuple(acts), sn)
    out = []
    for nr, bucket in best.items():
        items = list(bucket.items())
        for (t, dn), (de, acts, sn) in items:
            dominated = any(
                (t2, dn2) != (t, dn) and dn2 <= dn and de2 >= de and _sk_dominates(t2, t)
                for (t2, dn2), (de2, _a, _s) in items
            )
            if not dominated:
                out.append((t, nr, dn, de, acts, sn))
    res = memo.sk_colour[key] = tuple(out)
    return res


def _sk_group_opts(memo: Memo, g: tuple[int, ...]) -> tuple:
    """Partitions of ``g[c]`` naturals of colour c (one number) into groups of
    2-4 distinct colours: ``(need, extra, groups)`` for each Pareto-best
    (fewer jokers needed, more jokers takeable) pair."""
    res = memo.sk_groups.get(g)
    if res is not None:
        return res
    found = _sk_group_found(memo, g)
    out = []
    for (need, extra), parts in found.items():
        if not any((n2, e2) != (need, extra) and n2 <= need and e2 >= extra for (n2, e2) in found):
            out.append((need, min(extra, 2), parts))
    res = memo.sk_groups[g] = tuple(out)
    return res


def _sk_group_found(memo: Memo, g: tuple[int, ...]) -> dict:
    """``{(need, extra): groups}`` over every partition of ``g`` into groups, the
    first one found for each pair: the group holding the first colour left
    (with 1, 2 or 3 of the others, in order), then the rest the same way."""
    res = memo.sk_gfound.get(g)
    if res is not None:
        return res
    if not any(g):
        res = {(0, 0): ()}
    else:
        res = {}
        c0 = next(c for c in range(NUM_SUITS) if g[c])
        others = [c for c in range(c0 + 1, NUM_SUITS) if g[c]]
        for size in range(1, min(3, len(others)) + 1):
            for pick in combinations(others, size):
                r2 = list(g)
                r2[c0] -= 1
                for c in pick:
                    r2[c] -= 1
                grp = (c0, *pick)
                n, e = size == 1, size < 3  # a group of 2 needs a joker; 2 or 3 take one
                for (need, extra), parts in _sk_group_found(memo, tuple(r2)).items():
                    key = (need + n, extra + e)
                    if key not in res:
                        res[key] = (grp, *parts)
    memo.sk_gfound[g] = res
    return res


def _sk_group_choices(memo: Memo, caps: tuple[int, ...], gmax: int) -> tuple:
    """``(g, need, extra, groups)`` for every ``g[c] <= caps[c]`` that splits into
    groups needing at most ``gmax`` jokers."""
    key = (caps, gmax)
    res = memo.sk_gchoices.get(key)
    if res is None:
        more = memo.sk_gchoices.get((caps, _MAX_JOKERS)) if gmax < _MAX_JOKERS else None
        if more is not None:  # the same as with more jokers, less those needing more
            res = tuple(ch for ch in more if ch[1] <= gmax)
        else:
            res = tuple(
                (g, need, extra, parts)
                for g in product(*(range(c + 1) for c in caps))
                for need, extra, parts in _sk_group_opts(memo, g)
                if need <= gmax
            )
        memo.sk_gchoices[key] = res
    return res


def _sk_transitions(memo: Memo, key: tuple) -> dict:
    """``{(runs2, dn, de, u): recipe}``: the ways through one number (skeleton DP)
    from ``runs`` with mandatory / optional naturals ``m`` / ``o`` per colour,
    ``gmax`` jokers left for needs and the last-number flag ``fin``."""
    res = memo.sk_trans.get(key)
    if res is not None:
        return res
    runs, m, o, gmax, fin = key
    caps = (m[0] + o[0], m[1] + o[1], m[2] + o[2], m[3] + o[3])
    opts = [_sk_colour_opts(memo, runs[c], caps[c], gmax, fin) for c in range(NUM_SUITS)]
    out: dict = {}
    for g, gneed, gextra, parts in _sk_group_choices(memo, caps, gmax):
        rest = gmax - gneed
        lists = []
        for c in range(NUM_SUITS):
            lo = m[c] - g[c]
            hi = caps[c] - g[c]
            lst = [op for op in opts[c] if lo <= op[1] <= hi and op[2] <= rest]
            if not lst:
                break
            lists.append(lst)
        else:
            for a, b, c_, d in product(*lists):
                dn = a[2] + b[2] + c_[2] + d[2]
                if dn > rest:
                    continue
                de = min(2, gextra + a[3] + b[3] + c_[3] + d[3])
                k2 = (
                    (a[0], b[0], c_[0], d[0]),
                    dn + gneed,
                    de,
                    (a[1] + g[0], b[1] + g[1], c_[1] + g[2], d[1] + g[3]),
                )
                if k2 not in out:
                    out[k2] = (g, parts, (a, b, c_, d))
    return _store(memo.sk_trans, key, out)


def _sk_succ(memo: Memo, key: tuple) -> tuple:
    """``(runs2, dn, de)`` reachable through one number, the most ``de`` for each
    ``(runs2, dn)``."""
    res = memo.sk_succ.get(key)
    if res is None:
        best: dict = {}
        for r, dn, de, _u in _sk_transitions(memo, key):
            if best.get((r, dn), -1) < de:
                best[(r, dn)] = de
        res = _store(memo.sk_succ, key, tuple((r, dn, de) for (r, dn), de in best.items()))
    return res


def _sk_edges(memo: Memo, key: tuple) -> tuple:
    res = memo.sk_edges.get(key)
    return res if res is not None else _store(memo.sk_edges, key, tuple(_sk_transitions(memo, key)))


# ------------------------------------------ skeleton DP: the search's tables

# A colour's open runs (a sorted tuple of run codes) are numbered, so that a
# search state is a flat tuple of small ints. The numbering is process-wide, not
# the memo object's: the tables of every memo object name runs by these ids, and
# the compiled search's copies of tables (process-wide too) may serve any of them.
# It is never cleared: a sorted tuple of at most 13 run codes gets one id (4,096
# at most, checked), a pure function of its key.
_CS_ID: dict = {}
_CS_MAX = 1 << 12
_CS: list = []


def _cs_id(runs: tuple[int, ...]) -> int:
    i = _CS_ID.get(runs)
    if i is None:
        if len(_CS) >= _CS_MAX:  # ids are 12-bit fields of the search's keys
            raise ValueError(f"more than {_MAX_COPIES} copies of a tile")
        i = _CS_ID[runs] = len(_CS)
        _CS.append(runs)
    return i


_cs_id(())  # 0: no open run

# Orders of the ways through a number: the most promising first (fewest jokers
# needed, fewest runs still short), or the most naturals used first (playable).
_PROMISE, _MOST = 0, 1


def _sk_filtered(
    memo: Memo, sid: int, cap: int, gmax: int, fin: bool, nxt: int, order: int
) -> tuple:
    """One colour's options from the runs ``sid``: ``(runs2 id, nr, e, dn, de,
    option)`` with ``e`` the jokers needed here plus those the runs left open
    need at least at the next two numbers (:func:`_sk_ahead`, ``nxt``): options
    with ``e > gmax`` are left out. Sorted by ``order`` (:func:`_cl_row` takes
    the ones with a number of naturals into runs from these, in this order)."""
    key = (sid, cap, gmax, fin, nxt, order)
    res = memo.sk_filter.get(key)
    if res is None:
        out = []
        for op in _sk_colour_opts(memo, _CS[sid], cap, gmax, fin):
            runs2, nr, dn, de = op[0], op[1], op[2], op[3]
            s2 = _cs_id(runs2)
            e = dn + _sk_ahead(memo, s2, nxt) if nxt else dn
            if e > gmax:
                continue
            rank = (e, sum(1 for r in runs2 if r < _SB), -de, len(runs2))
            out.append(((-nr, *rank) if order else rank, (s2, nr, e, dn, de, op)))
        out.sort(key=lambda p: p[0])
        res = _store(memo.sk_filter, key, tuple(p[1] for p in out))
    return res


def _sk_ahead(memo: Memo, sid: int, nxt: int) -> int:
    """The fewest jokers one colour's open runs ``sid`` need at the next one or
    two numbers, ``nxt`` = ``first << 16 | second`` with each number coded by
    :func:`_next_code` (0: none); naturals not run-only may go into groups or
    stay unused. 9 if there is no way."""
    key = (sid, nxt)
    res = memo.sk_ahead.get(key)
    if res is None:
        code = (nxt >> 16) - 1
        more = (nxt & 0xFFFF) << 16
        cap, must, fin = code >> 7, (code >> 1) & 63, bool(code & 1)
        res = 9
        for op in _sk_colour_opts(memo, _CS[sid], cap, _MAX_JOKERS, fin):
            if op[1] < must or op[2] >= res:
                continue
            v = op[2] + (_sk_ahead(memo, _cs_id(op[0]), more) if more else 0)
            if v < res:
                res = v
        memo.sk_ahead[key] = res
    return res


def _next_code(cap: int, must: int, fin: bool) -> int:
    """One number as :func:`_sk_ahead` reads it: a colour's naturals there,
    those only a run can hold, and whether it is the last."""
    return ((cap * 64 + must) * 2 + fin) + 1


def _sk_group_order(memo: Memo, caps: tuple[int, ...], gmax: int, order: int) -> tuple:
    key = (caps, gmax, order)
    res = memo.sk_gsorted.get(key)
    if res is None:
        if order:
            rank = lambda c: (-sum(c[0]), c[1], -c[2])  # noqa: E731
        else:
            rank = lambda c: (c[1], sum(c[0]), -c[2])  # noqa: E731
        res = tuple(sorted(_sk_group_choices(memo, caps, gmax), key=rank))
        memo.sk_gsorted[key] = res
    return res


# Per colour and number, the options of every run state are kept in a table
# shared by all the positions that read the same there: the colour's naturals
# and mandatory naturals at the number, whether it is the last, the two numbers
# after it (:func:`_sk_ahead`) and the order. Likewise per number the group
# choices, by the naturals of each colour and the order. The memo object keeps
# them: ``cl``, (cap, fin, m, nxt, order) -> [{runs id * 4 + jokers left: row},
# key]; ``gl``, (caps, order) -> [{(masks, jokers left): choices}, key]; ``at``,
# (naturals, mandatory, next codes, order) -> :func:`_colour_tables`; ``codes``,
# (mandatory, naturals, jokers, last) -> :func:`_number_codes`.
_LEVELS_LIMIT = 20_000  # tables of either kind before they are dropped


def _level_table(tables: dict, key: tuple) -> list:
    """The table of ``key`` in ``tables`` (a memo object's ``cl`` or ``gl``), made
    empty the first time (all of them dropped past ``_LEVELS_LIMIT``)."""
    table = tables.get(key)
    if table is None:
        if len(tables) > _LEVELS_LIMIT:
            tables.clear()
        table = tables[key] = [{}, key]
    return table


def _number_codes(m: tuple, caps: tuple, jt: int, fin: bool) -> tuple:
    """Per colour, a number with naturals ``caps`` (``m`` mandatory) as
    :func:`_sk_ahead` reads it (see :func:`_next_code`)."""
    must = _run_only(m, caps, jt)
    f = 2 if fin else 1
    return (
        (caps[0] * 64 + must[0]) * 2 + f,
        (caps[1] * 64 + must[1]) * 2 + f,
        (caps[2] * 64 + must[2]) * 2 + f,
        (caps[3] * 64 + must[3]) * 2 + f,
    )


def _cl_row(memo: Memo, cl: list, sid: int, gmax: int) -> tuple:
    """One colour's options from the runs ``sid`` with ``gmax`` jokers left, for
    each number ``g`` of its naturals put into groups: ``(mask, lists)``,
    ``lists[g]`` the options with ``m - g .. cap - g`` naturals into runs (from
    :func:`_sk_filtered`, in its order), bit ``g`` of ``mask`` set when there is
    one."""
    cap, fin, m, nxt, order = cl[1]
    full = _sk_filtered(memo, sid, cap, gmax, fin, nxt, order)
    lists = []
    mask = 0
    for g in range(cap + 1):
        lo, hi = m - g, cap - g
        lst = tuple(p for p in full if lo <= p[1] <= hi)
        lists.append(lst)
        if lst:
            mask |= 1 << g
    row = (mask, tuple(lists))
    rows = cl[0]
    if len(rows) > _CACHE_LIMIT:
        rows.clear()
    rows[sid * 4 + gmax] = row
    return row


def _gl_fit(memo: Memo, gl: list, key: int, m0: int, m1: int, m2: int, m3: int, gmax: int) -> tuple:
    """The group choices (:func:`_sk_group_order`) for which every colour has an
    option: ``m0..m3`` the colours' masks (:func:`_cl_row`), ``gmax`` the jokers
    left, ``key`` those as one int."""
    caps, order = gl[1]
    out = tuple(
        choice
        for choice in _sk_group_order(memo, caps, gmax, order)
        if m0 >> choice[0][0] & m1 >> choice[0][1] & m2 >> choice[0][2] & m3 >> choice[0][3] & 1
    )
    fits = gl[0]
    if len(fits) > _CACHE_LIMIT:
        fits.clear()
    fits[key] = out
    return out


def _colour_tables(
    memo: Memo, cp: tuple, mk: tuple, a: tuple | None, b: tuple | None, order: int
) -> tuple:
    """The colours' tables of options at a number with naturals ``cp`` and
    mandatory naturals ``mk``, ``a`` and ``b`` the codes of the next two numbers
    (:func:`_number_codes`, ``_NONE4`` for none; ``a`` None: the last number),
    and its group table; kept, as a number reads the same in many positions."""
    got = memo.at.get((cp, mk, a, b, order))
    if got is not None:
        return got
    if a is not None:
        k0 = (cp[0], False, mk[0], a[0] << 16 | b[0], order)
        k1 = (cp[1], False, mk[1], a[1] << 16 | b[1], order)
        k2 = (cp[2], False, mk[2], a[2] << 16 | b[2], order)
        k3 = (cp[3], False, mk[3], a[3] << 16 | b[3], order)
    else:
        k0 = (cp[0], True, mk[0], 0, order)
        k1 = (cp[1], True, mk[1], 0, order)
        k2 = (cp[2], True, mk[2], 0, order)
        k3 = (cp[3], True, mk[3], 0, order)
    get = memo.cl.get
    got = (
        get(k0) or _level_table(memo.cl, k0),
        get(k1) or _level_table(memo.cl, k1),
        get(k2) or _level_table(memo.cl, k2),
        get(k3) or _level_table(memo.cl, k3),
        memo.gl.get((cp, order)) or _level_table(memo.gl, (cp, order)),
    )
    if len(memo.at) > _LEVELS_LIMIT:
        memo.at.clear()
    memo.at[(cp, mk, a, b, order)] = got
    return got


class _View:
    """One position read in one number order, as the search wants it: per
    number index the colours' tables of options (:func:`_level_table` of ``cl``) and the
    group table (of ``gl``), looked up when the search first reaches
    that number (:meth:`level`; a failing search often stops early)."""

    __slots__ = ("memo", "m", "caps", "codes", "cl", "lo", "hi", "jt", "order")

    def __init__(
        self, memo: Memo, m: list, caps: list, lo: int, hi: int, jt: int, order: int
    ) -> None:
        """``m``, ``caps``: per number index the mandatory naturals and all the
        naturals per colour, in this view's number order; ``memo`` keeps the tables."""
        self.memo = memo
        self.lo, self.hi, self.jt, self.order = lo, hi, jt, order
        self.m, self.caps = m, caps
        self.codes = [None] * NUM_RANKS  # filled by code()
        self.cl = [None] * NUM_RANKS  # filled by level()

    def level(self, k: int) -> tuple:
        """The tables at number index ``k`` (``cl[k]``), looked up the first time."""
        lv = self.cl[k]
        if lv is None:
            lv = self.cl[k] = self._colour_levels(k)
        return lv

    def code(self, k: int) -> tuple:
        """:func:`_number_codes` of number index ``k``, looked up the first time."""
        c = self.codes[k]
        if c is None:
            key = (self.m[k], self.caps[k], self.jt, k == self.hi)
            codes = self.memo.codes
            c = codes.get(key)
            if c is None:
                c = _number_codes(*key)
                if len(codes) > _LEVELS_LIMIT:
                    codes.clear()
                codes[key] = c
            self.codes[k] = c
        return c

    def _colour_levels(self, k: int) -> tuple:
        """The colours' tables of options and the group table at number index
        ``k``."""
        cp, mk, order, hi = self.caps[k], self.m[k], self.order, self.hi
        if k < hi:
            a = self.code(k + 1)
            b = self.code(k + 2) if k + 2 <= hi else _NONE4
        else:
            a = b = None
        return _colour_tables(self.memo, cp, mk, a, b, order)

    def changed(self, k: int, c: int) -> _View:
        """The same with one more mandatory natural of colour ``c`` at number
        index ``k`` (one optional natural made mandatory)."""
        v = object.__new__(_View)
        v.memo = self.memo
        v.lo, v.hi, v.jt, v.order = self.lo, self.hi, self.jt, self.order
        v.caps = self.caps
        mk = list(self.m[k])
        mk[c] += 1
        v.m = list(self.m)
        v.m[k] = mk = tuple(mk)
        v.codes, v.cl = self.codes, list(self.cl)
        codes = _number_codes(mk, self.caps[k], self.jt, k == self.hi)
        v.cl[k] = None
        if codes != self.code(k):  # the numbers before read it too
            v.codes = list(self.codes)
            v.codes[k] = codes
            for j in (k - 1, k - 2):
                if j >= self.lo:
                    v.cl[j] = None
        return v


def _run_only(m: tuple, caps: tuple, jt: int) -> tuple:
    """Per colour the mandatory naturals that no group of their number can hold
    (no other colour there, or one and no joker), else 0."""
    have = (caps[0] > 0) + (caps[1] > 0) + (caps[2] > 0) + (caps[3] > 0)
    if have > 2 or (have == 2 and jt):
        return _NONE4
    out = []
    for c in range(NUM_SUITS):
        others = have - (caps[c] > 0)
        out.append(m[c] if others == 0 or (others == 1 and not jt) else 0)
    return tuple(out)


def _make_view(memo: Memo, levels: list[tuple], d: int, jt: int, order: int) -> _View:
    """The position ``levels`` read upwards (``d`` 0) or from 13 down (1)."""
    m = [lv[0] for lv in levels]
    caps = [a if b == _NONE4 else tuple(map(_add, a, b)) for a, b in levels]
    ks = [k for k in range(NUM_RANKS) if caps[k] != _NONE4]
    lo, hi = (ks[0], ks[-1]) if ks else (0, -1)
    if ks and max(map(max, caps)) > _MAX_COPIES:
        raise ValueError(f"at most {_MAX_COPIES} copies of a tile in all")
    if d:
        m.reverse()
        caps.reverse()
        lo, hi = NUM_RANKS - 1 - hi, NUM_RANKS - 1 - lo
    return _View(memo, m, caps, lo, hi, jt, order)
