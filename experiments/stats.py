"""Statistics of tournaments: confidence intervals, crosstables and ratings.

Pure functions on plain data (tested against hand-computed cases in
``tests/test_tournament.py``):

* :func:`ratio_ci`: the mean of ``sum(S) / sum(R)`` over independent clusters
  with a 95% normal interval (delta method). The tournament's clusters are
  the deals: the games of one deal (every seating of one table) share the
  cards and are not independent, so the interval is taken over deals. With
  one round per game and one value per cluster this is the usual
  ``mean +- 1.96 s / sqrt(n)``.
* :func:`wilson`: the Wilson score interval of a proportion (win rates).
* :func:`bradley_terry`: maximum-likelihood Bradley-Terry strengths from
  pairwise results, on the Elo scale, with standard errors from the Fisher
  information.
* :func:`openskill_ratings`: OpenSkill's Plackett-Luce model, games fed in a
  fixed order (so a resumed tournament rates identically).
* :func:`summarize`: all of it from game records.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

Z95 = 1.959963984540054
ELO_SCALE = 400.0 / math.log(10.0)
ELO_BASE = 1500.0


def ratio_ci(
    sums: Sequence[float], counts: Sequence[float], z: float = Z95
) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``sum(sums) / sum(counts)`` over independent clusters.

    The variance is the delta-method (ratio estimator) one,
    ``n / (n - 1) * sum((S_i - m R_i)^2) / (sum R)^2``; NaN bounds for fewer
    than two clusters.
    """
    S = np.asarray(sums, dtype=np.float64)
    R = np.asarray(counts, dtype=np.float64)
    n = len(S)
    tot = R.sum()
    if n == 0 or tot == 0:
        return (math.nan, math.nan, math.nan)
    m = S.sum() / tot
    if n < 2:
        return (m, math.nan, math.nan)
    var = n / (n - 1) * float(((S - m * R) ** 2).sum()) / tot**2
    h = z * math.sqrt(var)
    return (m, m - h, m + h)


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """``(p, low, high)``: the proportion ``k / n`` and its Wilson score interval."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (p, max(0.0, c - h), min(1.0, c + h))


def bradley_terry(
    wins: np.ndarray, prior: float = 0.0, iters: int = 10_000, tol: float = 1e-12
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry maximum likelihood on the Elo scale.

    Args:
        wins: ``wins[i, j]`` = games ``i`` won against ``j`` (a draw counts
            half to each).
        prior: virtual draws added between every pair (keeps ratings finite
            when someone won or lost every game; 0 = plain MLE).

    Returns:
        ``(elo, se)``: ratings with mean ``ELO_BASE`` (``400 log10`` of the
        strengths, so a 190.8 point gap is a 3:1 expected score) and their
        standard errors (Fisher information, under the mean-zero constraint).
    """
    W = np.asarray(wins, dtype=np.float64).copy()
    k = W.shape[0]
    if prior:
        W += prior / 2 * (1 - np.eye(k))
    N = W + W.T
    p = np.ones(k)
    w = W.sum(axis=1)
    for _ in range(iters):
        denom = (N / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, w / np.where(denom > 0, denom, 1), p)
        new = np.maximum(new, 1e-300)
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    theta -= theta.mean()
    P = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    info = -N * P * P.T
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return ELO_BASE + ELO_SCALE * theta, ELO_SCALE * se


def openskill_ratings(
    games: Iterable[tuple[Sequence[str], Sequence[int]]], names: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """OpenSkill Plackett-Luce ``{name: (mu, sigma)}`` after rating ``games`` in order.

    Each game is ``(agent per seat, rank per seat)`` (0 = first, ties share a
    rank). An agent sitting in several seats of one game is rated once per
    seat from the same prior and takes the mean of the updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for seats, ranks in games:
        teams = [[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in seats]
        new = model.rate(teams, ranks=list(ranks))
        upd: dict[str, list] = defaultdict(list)
        for a, t in zip(seats, new):
            upd[a].append(t[0])
        for a, rs in upd.items():
            ratings[a] = model.rating(
                mu=sum(r.mu for r in rs) / len(rs), sigma=sum(r.sigma for r in rs) / len(rs), name=a
            )
    return {n: (ratings[n].mu, ratings[n].sigma) for n in names}


# ------------------------------------------------------------------ summaries
@dataclass
class GameResult:
    """What the statistics need from one game record."""

    seed: int
    seats: tuple[str, ...]  # agent label per seat
    rewards: tuple[float, ...]  # per seat, summed over the game's rounds (higher is better)
    rounds: int
    winner: int | None  # seat, or None (void hand)

    @property
    def table(self) -> tuple[str, ...]:
        return tuple(sorted(self.seats))

    def ranks(self) -> list[int]:
        """Rank per seat: the winner first, the others by reward (ties share)."""
        n = len(self.seats)
        key = [(0 if s == self.winner else 1, -self.rewards[s]) for s in range(n)]
        return [sum(1 for q in range(n) if key[q] < key[s]) for s in range(n)]


@dataclass
class Summary:
    names: list[str]
    games: dict[str, int] = field(default_factory=dict)
    rounds: dict[str, int] = field(default_factory=dict)
    score: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # mean per round, CI
    win: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # rate, CI
    wins: dict[str, int] = field(default_factory=dict)
    openskill: dict[str, tuple[float, float]] = field(default_factory=dict)  # mu, sigma
    elo: dict[str, tuple[float, float]] = field(default_factory=dict)  # rating, se (2 players)
    cross: dict[tuple[str, str], tuple[float, float, float]] = field(default_factory=dict)
    cross_games: dict[tuple[str, str], int] = field(default_factory=dict)


def summarize(results: Sequence[GameResult], names: Sequence[str], players: int) -> Summary:
    """Per agent mean score per round (CI over deals), win rate (Wilson), OpenSkill
    and (2 players) Bradley-Terry/Elo ratings, and the crosstable of mean
    score differences per round (row minus column, CI over deals)."""
    names = list(names)
    summ = Summary(names)
    results = sorted(results, key=lambda g: (g.seed, g.seats))
    # --- per agent: clusters = (deal, table)
    S: dict[str, dict[tuple, float]] = {n: defaultdict(float) for n in names}
    R: dict[str, dict[tuple, float]] = {n: defaultdict(float) for n in names}
    for n in names:
        summ.games[n] = summ.rounds[n] = summ.wins[n] = 0
    for g in results:
        cl = (g.seed, g.table)
        for n in set(g.seats):
            seats = [s for s, a in enumerate(g.seats) if a == n]
            S[n][cl] += sum(g.rewards[s] for s in seats)
            R[n][cl] += g.rounds * len(seats)
            summ.games[n] += 1
            summ.rounds[n] += g.rounds
            summ.wins[n] += int(g.winner in seats)
    for n in names:
        keys = sorted(S[n])
        summ.score[n] = ratio_ci([S[n][k] for k in keys], [R[n][k] for k in keys])
        summ.win[n] = wilson(summ.wins[n], summ.games[n])
    # --- crosstable: row minus column, per round, over the games where both sit
    D: dict[tuple[str, str], dict[tuple, float]] = defaultdict(lambda: defaultdict(float))
    DR: dict[tuple[str, str], dict[tuple, float]] = defaultdict(lambda: defaultdict(float))
    for g in results:
        present = sorted(set(g.seats))
        mean_r = {
            n: np.mean([g.rewards[s] for s, a in enumerate(g.seats) if a == n]) for n in present
        }
        for a in present:
            for b in present:
                if a != b:
                    D[a, b][g.seed, g.table] += mean_r[a] - mean_r[b]
                    DR[a, b][g.seed, g.table] += g.rounds
    for (a, b), d in D.items():
        keys = sorted(d)
        summ.cross[a, b] = ratio_ci([d[k] for k in keys], [DR[a, b][k] for k in keys])
        summ.cross_games[a, b] = len(keys)
    # --- ratings
    summ.openskill = openskill_ratings(((g.seats, g.ranks()) for g in results), names)
    if players == 2:
        idx = {n: i for i, n in enumerate(names)}
        W = np.zeros((len(names), len(names)))
        for g in results:
            a, b = g.seats
            if a == b:
                continue
            if g.winner is None:
                W[idx[a], idx[b]] += 0.5
                W[idx[b], idx[a]] += 0.5
            else:
                w, lo = (a, b) if g.winner == 0 else (b, a)
                W[idx[w], idx[lo]] += 1
        elo, se = bradley_terry(W, prior=1.0)
        summ.elo = {n: (float(elo[i]), float(se[i])) for n, i in idx.items()}
    return summ
