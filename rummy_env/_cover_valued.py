"""The valued programme of :mod:`rummy_env.cover` (:func:`rummy_env.cover.best_cover`,
:func:`rummy_env.cover.playable_values`): every joker placed as the tile it stands for,
the best value of each state kept. Its tables are kept in the caller's memo object
(:class:`rummy_env.cover.CoverMemo`), which also says whether the compiled passes serve.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

from rummy_env._cover_tables import _EMPTY, _first_level, _last_level, _levels, _store
from rummy_env.cards import JOKER, NUM_RANKS, NUM_SUITS

Memo = Any  # a rummy_env.cover.CoverMemo


def _best_value(memo: Memo, levels: list[tuple], jm: int, jt: int) -> int | None:
    """The greatest value of a split of the position ``levels`` (``jm`` mandatory
    jokers of ``jt``; see :func:`rummy_env.cover.best_cover`), or None."""
    lo, hi = _first_level(levels, jt), _last_level(levels, jt)
    states = {(_EMPTY, 0): 0}
    for k in range(lo, hi + 1):
        m, o = levels[k]
        rem = min(hi - k, 2)
        num = k + 1
        new: dict = {}
        get = new.get
        for (runs, ju), v in states.items():
            for r2, dj, n in _succ_best(memo, (runs, m, o, jt - ju, rem)):
                s2 = (r2, ju + dj)
                val = v + num * n
                if get(s2, -1) < val:
                    new[s2] = val
        if not new:
            return None
        states = new
    vals = [v for (_r, ju), v in states.items() if ju >= jm]
    return max(vals) if vals else None


# ----------------- valued DP (best_cover, playable_values): every joker placed

# An open run is summarised by what it still needs; the numbers are ordered so
# that a larger state dominates a smaller one (every continuation of the
# smaller one is also a continuation of the larger one, with the same tiles).
_D = 0  # started by joker(s), no natural yet: needs 2 more naturals
_A = 1  # one natural, no joker: needs 2 more tiles, one of them natural
_C = 2  # one natural and 1 or 2 jokers: needs 1 more natural
_B = 3  # two naturals, no joker: needs 1 more tile
_V = 4  # valid (>= 2 naturals, length >= 3, jokers <= naturals): may close
_EXT_NAT = (_C, _B, _V, _V, _V)  # the state after a natural extends the run
_EXT_JK = (_D, _C, _C, _V, _V)  # the state after a joker extends the run
_NEEDS = (2, 2, 1, 1, 0)  # tiles still needed before the run may close


def _group_partition(memo: Memo, g: tuple[int, ...], jg: int) -> tuple | None:
    """Groups (colours, jokers) that use exactly ``g[c]`` naturals of colour c and
    ``jg`` jokers, all of one number; None if there is no such partition."""
    key = (g, jg)
    hit = memo.partition.get(key, 0)
    if hit != 0:
        return hit
    res = None
    if not any(g):
        res = () if jg == 0 else None
    else:
        c0 = next(c for c in range(NUM_SUITS) if g[c])
        others = [c for c in range(c0 + 1, NUM_SUITS) if g[c]]
        found = False
        for size in range(1, len(others) + 1):
            for pick in combinations(others, size):
                nat = 1 + len(pick)
                for j in range(0, min(jg, nat) + 1):
                    if not 3 <= nat + j <= 4:
                        continue
                    g2 = list(g)
                    g2[c0] -= 1
                    for c in pick:
                        g2[c] -= 1
                    rest = _group_partition(memo, tuple(g2), jg - j)
                    if rest is not None:
                        res = (((c0, *pick), j), *rest)
                        found = True
                        break
                if found:
                    break
            if found:
                break
    memo.partition[key] = res
    return res


def _group_choices(memo: Memo, caps: tuple[int, ...], jl: int) -> tuple:
    """Every ``(g, jg)`` with ``g[c] <= caps[c]``, ``jg <= jl`` that splits into
    groups (``g`` all zero and ``jg == 0`` included)."""
    key = (caps, jl)
    res = memo.group_choices.get(key)
    if res is None:
        out = []
        for g in product(*(range(c + 1) for c in caps)):
            for jg in range(jl + 1):
                if _group_partition(memo, g, jg) is not None:
                    out.append((g, jg))
        res = memo.group_choices[key] = tuple(out)
    return res


def _colour_opts(memo: Memo, runs: tuple[int, ...], nmax: int, jmax: int, rem: int) -> tuple:
    """The ways one colour's open runs ``runs`` (sorted states) go through one
    number with at most ``nmax`` naturals and ``jmax`` jokers put into runs.

    Each option is ``(runs2, nr, jr, acts, sn, sj)``: the sorted states after
    the number, the naturals and jokers put into runs, one action per input run
    (0 natural extends it, 1 a joker extends it, 2 it closes) and the runs
    started by a natural (``sn``) and by a joker (``sj``). ``rem`` = numbers left
    after this one (capped at 2): with 0 every run must be valid and closes
    (``runs2`` is ``()``), with 1 no run may need two more tiles. Options with
    the same ``(nr, jr)`` whose states another one dominates are left out.
    """
    key = (runs, nmax, jmax, rem)
    res = memo.colour_opts.get(key)
    if res is not None:
        return res
    distinct = sorted(set(runs))
    per_state = []  # for each distinct state: list of (aN, aJ, aX)
    for s in distinct:
        cnt = runs.count(s)
        choices = []
        for a_n in range(cnt + 1):
            for a_j in range(cnt - a_n + 1):
                a_x = cnt - a_n - a_j
                if a_x and s != _V:
                    continue
                choices.append((a_n, a_j, a_x))
        per_state.append(choices)
    best: dict = {}  # (nr, jr) -> {runs2: (acts, sn, sj)}
    for combo in product(*per_state):
        nr = sum(a[0] for a in combo)
        jr = sum(a[1] for a in combo)
        if nr > nmax or jr > jmax:
            continue
        kept: list[int] = []
        acts: list[int] = []
        for s, (a_n, a_j, a_x) in zip(distinct, combo):
            kept.extend([_EXT_NAT[s]] * a_n)
            kept.extend([_EXT_JK[s]] * a_j)
            acts.extend([0] * a_n + [1] * a_j + [2] * a_x)
        for sn in range(nmax - nr + 1):
            for sj in range(jmax - jr + 1):
                states = sorted(kept + [_A] * sn + [_D] * sj)
                if rem == 0:
                    if any(s != _V for s in states):
                        continue
                    states = []
                elif rem == 1 and any(_NEEDS[s] > 1 for s in states):
                    continue
                bucket = best.setdefault((nr + sn, jr + sj), {})
                t = tuple(states)
                if t not in bucket:
                    bucket[t] = (tuple(acts), sn, sj)
    out = []
    for (nr, jr), bucket in best.items():
        cands = list(bucket)
        for t in cands:
            dominated = any(
                u != t and all(a >= b for a, b in zip(u, t)) for u in cands if len(u) == len(t)
            )
            if not dominated:
                acts, sn, sj = bucket[t]
                out.append((t, nr, jr, acts, sn, sj))
    res = memo.colour_opts[key] = tuple(out)
    return res


def _transitions(memo: Memo, key: tuple) -> dict:
    """All ways through one number: ``{(runs2, dj, u): recipe}`` for the state
    ``runs`` (4 sorted tuples), mandatory and optional naturals ``m``, ``o``
    (per colour) of this number, ``jl`` jokers left and ``rem`` numbers left
    after this one (capped at 2). ``dj``: jokers placed at this number; ``u``:
    naturals used per colour; recipe ``(g, jg, colour options)``."""
    res = memo.trans.get(key)
    if res is not None:
        return res
    runs, m, o, jl, rem = key
    caps = tuple(a + b for a, b in zip(m, o))
    opts = [_colour_opts(memo, runs[c], caps[c], jl, rem) for c in range(NUM_SUITS)]
    out: dict = {}
    for g, jg in _group_choices(memo, caps, jl):
        jrest = jl - jg
        lists = []
        for c in range(NUM_SUITS):
            lo = m[c] - g[c]
            hi = caps[c] - g[c]
            lst = [op for op in opts[c] if lo <= op[1] <= hi and op[2] <= jrest]
            if not lst:
                break
            lists.append(lst)
        else:
            for combo in product(*lists):
                jr = combo[0][2] + combo[1][2] + combo[2][2] + combo[3][2]
                if jr > jrest:
                    continue
                k2 = (
                    (combo[0][0], combo[1][0], combo[2][0], combo[3][0]),
                    jr + jg,
                    (
                        combo[0][1] + g[0],
                        combo[1][1] + g[1],
                        combo[2][1] + g[2],
                        combo[3][1] + g[3],
                    ),
                )
                if k2 not in out:
                    out[k2] = (g, jg, combo)
    return _store(memo.trans, key, out)


def _succ_best(memo: Memo, key: tuple) -> tuple:
    """``(runs2, dj, tiles)`` with the most tiles placed at this number (naturals
    plus jokers) for each reachable ``(runs2, dj)``."""
    res = memo.succ_best.get(key)
    if res is None:
        best: dict = {}
        for r, dj, u in _transitions(memo, key):
            n = u[0] + u[1] + u[2] + u[3] + dj
            if best.get((r, dj), -1) < n:
                best[(r, dj)] = n
        res = _store(memo.succ_best, key, tuple((r, dj, n) for (r, dj), n in best.items()))
    return res


def _edges(memo: Memo, key: tuple) -> tuple:
    """``(runs2, dj, tiles, u)`` for every way through one number."""
    res = memo.edges.get(key)
    if res is None:
        res = _store(
            memo.edges,
            key,
            tuple(
                (r, dj, u[0] + u[1] + u[2] + u[3] + dj, u) for (r, dj, u) in _transitions(memo, key)
            ),
        )
    return res


def _values(memo: Memo, mand: list[int], opt: list[int]) -> dict[int, int]:
    """:func:`rummy_env.cover.playable_values` without its pre-check (count vectors
    as lists)."""
    levels, jm, jt = _levels(mand, opt)
    if not any(opt):
        return {}
    lo, hi = _first_level(levels, jt), _last_level(levels, jt)
    if memo.compiled is not None and lo <= hi:  # the same passes, compiled (_cover_c.c)
        args = (lo, hi, jt, jm, opt[JOKER], JOKER, memo.edges, memo.edges_of, (_EMPTY, 0))
        return memo.compiled.valued(levels, *args)
    # forward: best prefix value of every reachable state, and the edges
    fwd = [{(_EMPTY, 0): 0}]
    level_edges = []
    for k in range(lo, hi + 1):
        m, o = levels[k]
        rem = min(hi - k, 2)
        num = k + 1
        new: dict = {}
        get = new.get
        edges = []
        for s, v in fwd[-1].items():
            runs, ju = s
            for r2, dj, n, u in _edges(memo, (runs, m, o, jt - ju, rem)):
                s2 = (r2, ju + dj)
                val = v + num * n
                edges.append((s, s2, num * n, u))
                if get(s2, -1) < val:
                    new[s2] = val
        fwd.append(new)
        level_edges.append(edges)
        if not new:
            return {}
    out: dict[int, int] = {}
    if opt[JOKER]:
        vals = [v for (_r, ju), v in fwd[-1].items() if ju >= jm + 1]
        if vals:
            out[JOKER] = max(vals)
    # backward: best suffix value of every state that completes
    bwd = {s: 0 for s in fwd[-1] if s[1] >= jm}
    for i in range(len(level_edges) - 1, -1, -1):
        k = lo + i
        m, o = levels[k]
        pre = fwd[i]
        wants = [(c, c * NUM_RANKS + k, m[c] + 1) for c in range(NUM_SUITS) if o[c]]
        back: dict = {}
        bget = back.get
        for s, s2, add, u in level_edges[i]:
            tail = bwd.get(s2)
            if tail is None:
                continue
            val = add + tail
            if bget(s, -1) < val:
                back[s] = val
            for c, t, need in wants:
                if u[c] >= need:
                    tot = pre[s] + val
                    if out.get(t, -1) < tot:
                        out[t] = tot
        bwd = back
    return out
