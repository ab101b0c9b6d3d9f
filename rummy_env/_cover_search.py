"""The depth-first skeleton search of :mod:`rummy_env.cover` (one search, in Python and,
where it was built, compiled: ``rummy_env/_cover_c.c``), the solver that runs it in
both number orders, and the breadth-first reference passes the tests check it against.

The tables it reads are :mod:`rummy_env._cover_tables`', kept in the caller's memo
object (:class:`rummy_env.cover.CoverMemo`), which also says whether the compiled
search serves (``memo.compiled``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rummy_env._cover_tables import (
    _EMPTY,
    _PROMISE,
    _as_list,
    _levels,
    _make_view,
    _sk_edges,
    _sk_succ,
    _View,
)
from rummy_env._native import checked
from rummy_env.cards import JOKER, NUM_RANKS, NUM_SUITS

_C_API = 8  # the form of the compiled search's call this file makes
#: the compiled inner search, when it was built (pyproject.toml's ext-modules)
try:
    from rummy_env import _cover_c as _built
except ImportError:  # built without a C compiler
    _built = None
_compiled = checked(_built, _C_API, "Rummikub uses the (slower) Python search")

Memo = Any  # a rummy_env.cover.CoverMemo
StateMemo = Any  # a search's memo of states (:func:`_state_memo`)


class _OutOfBudget(Exception):
    pass


# A pure function of (jokers, cap), at most 3 x 3 small lists: a module constant.
_WORSE: dict = {}


def _worse(jt: int, cap: int) -> list[int]:
    """Per code, the codes as bits that a failing state fails with too: with ``n``
    jokers needed and ``x`` placeable (code ``n * 4 + x``), more needed or fewer
    placeable. The searches' memos keep, per state after a number without its code
    (``key``), the codes that failed as such bits at ``~key``, and each way found
    at ``key | code``."""
    res = _WORSE.get((jt, cap))
    if res is None:
        res = _WORSE[(jt, cap)] = [
            sum(1 << (nn * 4 + xx) for nn in range(n, jt + 1) for xx in range(x + 1))
            if n <= jt and x <= cap
            else 0
            for n in range(4)
            for x in range(4)
        ]
    return res


def _search(
    view: _View,
    cap: int,
    need_x: int,
    shared: StateMemo,
    from_k: int,
    local: StateMemo,
    budget: int,
    start: tuple | None = None,
    any_: tuple | None = None,
) -> tuple | None:
    """Depth-first search for one way through the numbers ``lo..hi`` of ``view``
    that ends with at least ``need_x`` jokers placeable (``cap`` caps that
    count): a linked list ``(step, rest)`` (``rest`` None after the last number)
    of steps ``(group choice, colour options)``, or None. The states after a
    number that were tried are remembered (failed ones with those they beat: no
    fewer jokers needed, no more placeable) in ``shared`` when the number is
    ``> from_k`` (only levels the caller did not change lie beyond), else in
    ``local``. Raises _OutOfBudget after ``budget`` states (-1: no limit).
    ``start`` = ``(k, s0, s1, s2, s3, n, x)``: search from that state before
    number index k instead (the way then starts there).

    With ``any_`` = ``(um, last, unused)`` the way must also use at least one of
    some optional naturals (the faces not yet shown playable): ``um[k]`` has bit
    ``c`` set when the natural of colour ``c`` at number index ``k`` is one of
    them, the last such index ``last``. A state is then the same plus whether the
    way has used one yet. States that have are plain ones (``from_k`` is -1 and
    ``local`` is ``shared`` then: the memo of the same view with no number
    changed); those that have not keep their failures in ``unused``, which stay
    true for fewer such faces (the caller's next search), and their ways in a
    memo of this search only (a way found shows a face, which is then no longer
    one of them)."""
    lo, hi = view.lo, view.hi
    if hi < lo or (any_ is not None and any_[1] < lo):
        return () if need_x <= 0 and any_ is None else None
    state = (lo, 0, 0, 0, 0, 0, 0) if start is None else start
    memo = view.memo
    worse = _worse(view.jt, cap)  # failing (n, x) fails (n', x') with n' >= n, x' <= x
    if memo.compiled is not None:  # the same search, compiled
        tables = (memo.row_of, memo.order_of, _OutOfBudget, memo.cl, memo.gl)
        args = (view, cap, need_x, from_k, budget, shared, local, worse, *tables, state)
        return memo.compiled.search(*args, any_)
    um, last, unused = (None, NUM_RANKS, None) if any_ is None else any_
    reads = (view.cl, view.level, memo.row_of, memo.fit_of, view.m, view.hi, view.jt, cap, need_x)
    memos = (from_k, shared, local, um, last, unused, {}, worse, [budget])
    return _go((reads, memos), *state, any_ is None)


def _go(cx: tuple, k: int, s0: int, s1: int, s2: int, s3: int, n: int, x: int, used: bool):
    """:func:`_search` from the state before number index ``k`` (runs ``s0..s3``, ``n``, ``x``,
    ``used``: always true without ``any_``); ``cx``: what it reads, and its memos and budget."""
    (CL, level, row_of, fit_of, M, hi, jt, cap, need_x), memos = cx
    from_k, shared, local, um, last, unused, found_here, worse, left = memos
    left[0] -= 1
    if left[0] == 0:
        raise _OutOfBudget
    gl, fin, k1 = jt - n, k == hi, k + 1
    c0, c1, c2, c3, gtab = CL[k] or level(k)
    r0 = c0[0].get(s0 * 4 + gl) or row_of(c0, s0, gl)
    r1 = c1[0].get(s1 * 4 + gl) or row_of(c1, s1, gl)
    r2 = c2[0].get(s2 * 4 + gl) or row_of(c2, s2, gl)
    r3 = c3[0].get(s3 * 4 + gl) or row_of(c3, s3, gl)
    gkey = (((r0[0] << 14 | r1[0]) << 14 | r2[0]) << 14 | r3[0]) << 2 | gl
    groups = gtab[0].get(gkey)
    if groups is None:
        groups = fit_of(gtab, gkey, r0[0], r1[0], r2[0], r3[0], gl)  # () : no way
    mm = shared if k1 > from_k else local
    u = 0 if used else um[k]
    m0, m1, m2, m3 = M[k]
    for choice in groups:
        g0, g1, g2, g3 = choice[0]
        rest = gl - choice[1]
        lb, lc, ld = r1[1][g1], r2[1][g2], r3[1][g3]
        if not (lb and lc and ld):
            continue
        for a in r0[1][g0]:
            if a[2] > rest:
                continue
            na, xa, ka = choice[1] + a[3], choice[2] + a[4], (k1 << 12 | a[0]) << 12
            ua = used or (u & 1 and g0 + a[1] > m0)
            for b in lb:
                eab = a[2] + b[2]
                if eab > rest:
                    continue
                nb, xb, kb = na + b[3], xa + b[4], (ka | b[0]) << 12
                ub = ua or (u & 2 and g1 + b[1] > m1)
                for c in lc:
                    eabc = eab + c[2]
                    if eabc > rest:
                        continue
                    nc, xc, kc = nb + c[3], xb + c[4], (kb | c[0]) << 12
                    uc = ub or (u & 4 and g2 + c[1] > m2)
                    for d in ld:
                        if eabc + d[2] > rest:
                            continue
                        ud = uc or (u & 8 and g3 + d[1] > m3)
                        dn = nc + d[3]
                        x2 = x + dn + xc + d[4]
                        if x2 > cap:
                            x2 = cap
                        if fin:
                            if ud and x2 >= need_x:
                                return ((choice, a, b, c, d), None)
                            continue
                        if not ud and k1 > last:
                            continue  # none of the faces left to use
                        n2 = n + dn
                        # the state after the number, as one int (see _cs_id)
                        key = (kc | d[0]) << 4
                        code = n2 * 4 + x2
                        mt = mm if ud else unused
                        r = mt.get(key | code, 0)
                        if r == 0 and not ud:
                            r = found_here.get(key | code, 0)
                        if r == 0:
                            fails = mt.get(~key, 0)
                            if fails >> code & 1:  # failed before
                                continue
                            r = _go(cx, k1, a[0], b[0], c[0], d[0], n2, x2, ud)
                            if r is None:  # (go wrote no key of this number)
                                mt[~key] = fails | worse[code]
                            elif ud:
                                mt[key | code] = r
                            else:
                                found_here[key | code] = r
                        if r is not None:
                            return ((choice, a, b, c, d), r)
    return None


def _state_memo(memo: Memo) -> StateMemo:
    """A search's memo of states: a dict for the Python search, the compiled one's own
    type (the same entries, kept in C) when ``memo`` uses it."""
    return {} if memo.compiled is None else memo.compiled.Memo()


def _unlink(path: tuple | None) -> list:
    out = []
    while path:
        out.append(path[0])
        path = path[1]
    return out


def _path_jokers(path: list, cap: int) -> tuple[int, int]:
    """Jokers a way needs and (capped at ``cap``) the jokers it has a place for."""
    n = x = 0
    for step in path:
        choice = step[0]
        dn = choice[1] + step[1][3] + step[2][3] + step[3][3] + step[4][3]
        n += dn
        x += dn + choice[2] + step[1][4] + step[2][4] + step[3][4] + step[4][4]
    return n, min(x, cap)


# states allowed a search's first run in each order (then twice as many each time):
# measured by instruction counts over random games, 64 was best for the Python search
# and 1024 for the compiled one (256: 0.5% more; 64: 4% more)
_START_BUDGET = 64
_START_BUDGET_C = 1024
_REVERSE_FROM = 6


class _Solver:
    """Searches on one position in both number orders (the rules read the same
    with the numbers reversed, 13 down to 1): one order, then the other, each
    with twice the states allowed last time, until one finishes. The memos of
    each order are kept from run to run and shared by searches that change one
    number (``solve`` with ``k_mod``). ``memo``: the tables' memo object."""

    first = 0  # the order tried first without a changed number (the tests set 1)

    def __init__(
        self,
        memo: Memo,
        levels: list[tuple],
        jt: int,
        cap: int,
        order: int = _PROMISE,
        views: list | None = None,
    ) -> None:
        self.memo = memo
        self.jt, self.cap, self.order = jt, cap, order
        self.levels = levels
        # the position as read in each order (may be shared by solvers of one
        # position with the same order)
        self.views: list = [None, None] if views is None else views
        self.shared: list = [_state_memo(memo), _state_memo(memo)]
        self.unused: dict | None = None  # solve_any's memos of failures
        self.budget = _START_BUDGET if memo.compiled is None else _START_BUDGET_C

    def view(self, d: int) -> _View:
        v = self.views[d]
        if v is None:
            v = self.views[d] = _make_view(self.memo, self.levels, d, self.jt, self.order)
        return v

    def solve(self, need_x: int, k_mod: int | None = None, c_mod: int = 0):
        """``(path, reversed, lo)`` of a way (a list of steps from number index
        ``lo`` in the order searched), or None. With ``k_mod``, one optional
        natural of colour ``c_mod`` at number index ``k_mod`` is mandatory."""
        order = (self.first, 1 - self.first)
        if k_mod is not None:
            order = (1, 0) if k_mod > _REVERSE_FROM else (0, 1)  # reach the changed number early
            if self.first:
                order = order[::-1]
        locals_: list = [_state_memo(self.memo), _state_memo(self.memo)]

        def make(d: int) -> tuple:
            view, from_k = self.view(d), -1
            if k_mod is not None:
                from_k = k_mod if d == 0 else NUM_RANKS - 1 - k_mod
                view = view.changed(from_k, c_mod)
            return view, from_k, self.shared[d], locals_[d], None

        return self._run(order, make, need_x)

    def solve_any(self, need_x: int, faces: Iterable[int], high: bool = False):
        """:meth:`solve` for a way that uses at least one of the optional
        naturals ``faces`` (one natural of each), searched from 13 down first
        when ``high`` (the faces are then numbers past the middle)."""
        if self.unused is None:
            self.unused = {}
        # failures of states that used none of the faces stay true for fewer
        # faces: one memo for each set of faces and the sets that follow it
        unused = self.unused.get(high)
        if unused is None:
            unused = self.unused[high] = [_state_memo(self.memo), _state_memo(self.memo)]
        order = (1, 0) if high else (0, 1)  # reach the faces early
        if self.first:
            order = order[::-1]

        def make(d: int) -> tuple:
            um = [0] * NUM_RANKS
            for f in faces:
                k = f % NUM_RANKS
                um[NUM_RANKS - 1 - k if d else k] |= 1 << (f // NUM_RANKS)
            last = max(k for k in range(NUM_RANKS) if um[k]) if any(um) else -1
            shared = self.shared[d]
            return self.view(d), -1, shared, shared, (um, last, unused[d])

        return self._run(order, make, need_x)

    def _run(self, order: tuple, make, need_x: int):
        """The searches of each order ``d`` (``make(d)``: the view, ``from_k``, the
        memos and ``any_`` of :func:`_search`, made when first needed), in
        ``order``, each with twice the states allowed the time before, until one
        finishes."""
        budget = self.budget
        views: list = [None, None]
        while True:
            for d in order:
                if views[d] is None:
                    views[d] = make(d)
                view, from_k, shared, local, any_ = views[d]
                try:
                    path = _search(
                        view, self.cap, need_x, shared, from_k, local, budget, None, any_
                    )
                except _OutOfBudget:
                    continue
                return None if path is None else (_unlink(path), d == 1, view.lo)
            budget *= 2


# ------------------------- skeleton DP: breadth-first reference passes (tests)


def _can_cover_bfs(
    memo: Memo, mandatory: Sequence[int], optional: Sequence[int] | None = None
) -> bool:
    """:func:`rummy_env.cover.can_cover` by a breadth-first pass over the numbers
    (every reachable state; the tests check the depth-first search against it)."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if not any(mand):
        return True
    lo, hi = _natural_span(levels)
    states = {(_EMPTY, 0, 0)}
    for k in range(lo, hi + 1):
        m, o = levels[k]
        fin = k == hi
        new = set()
        add = new.add
        for runs, n, x in states:
            for r2, dn, de in _sk_succ(memo, (runs, m, o, jt - n, fin)):
                x2 = x + dn + de
                add((r2, n + dn, x2 if x2 < jm else jm))
        if not new:
            return False
        states = _prune(new) if len(new) > 8 else new
    return any(x >= jm for _r, _n, x in states)


def _natural_span(levels: list[tuple]) -> tuple[int, int]:
    """First and last number index holding a natural (mandatory or optional)."""
    ks = [k for k, (m, o) in enumerate(levels) if any(m) or any(o)]
    return (ks[0], ks[-1]) if ks else (0, -1)


def _prune(states: set) -> set:
    """Drop states another one with the same runs beats: no more jokers needed
    and at least as many placeable."""
    by_runs: dict = {}
    for r, n, x in states:
        by_runs.setdefault(r, []).append((n, x))
    if len(by_runs) == len(states):
        return states
    out = set()
    for r, nx in by_runs.items():
        if len(nx) == 1:
            out.add((r, *nx[0]))
            continue
        for n, x in nx:
            if not any((n2, x2) != (n, x) and n2 <= n and x2 >= x for n2, x2 in nx):
                out.add((r, n, x))
    return out


def _playable_bfs(memo: Memo, mandatory: Sequence[int], optional: Sequence[int]) -> set[int]:
    """:func:`rummy_env.cover.playable` from one forward and one backward pass over
    all the reachable states (the tests check the search against it)."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if not any(opt):
        return set()
    cap = jm + (1 if opt[JOKER] else 0)
    lo, hi = _natural_span(levels)
    fwd = [{(_EMPTY, 0, 0)}]
    level_edges = []
    for k in range(lo, hi + 1):
        m, o = levels[k]
        fin = k == hi
        new = set()
        add = new.add
        edges = []
        push = edges.append
        for s in fwd[-1]:
            runs, n, x = s
            for r2, dn, de, u in _sk_edges(memo, (runs, m, o, jt - n, fin)):
                x2 = x + dn + de
                s2 = (r2, n + dn, x2 if x2 < cap else cap)
                add(s2)
                push((s, s2, u))
        if not new:
            return set()
        fwd.append(new)
        level_edges.append(edges)
    out: set[int] = set()
    if opt[JOKER] and any(x >= jm + 1 for _r, _n, x in fwd[-1]):
        out.add(JOKER)
    good = {s for s in fwd[-1] if s[2] >= jm}
    for i in range(len(level_edges) - 1, -1, -1):
        k = lo + i
        m, o = levels[k]
        wants = [(c, c * NUM_RANKS + k, m[c] + 1) for c in range(NUM_SUITS) if o[c]]
        back = set()
        for s, s2, u in level_edges[i]:
            if s2 in good:
                back.add(s)
                for c, t, need in wants:
                    if u[c] >= need:
                        out.add(t)
        good = back
    return out
