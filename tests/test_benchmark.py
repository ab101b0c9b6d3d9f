"""experiments/benchmark.py runs (what it measures, not how fast: timing belongs in the benchmark)."""

from __future__ import annotations

import pytest

from experiments import benchmark


def test_modes_count_decisions_of_whole_games():
    r = benchmark.run_mode("raw", "gin", 2, {}, seconds=0.05, repeats=1, seed=0)
    assert r["decisions_per_s"] > 0 and r["decisions_per_game"] > 1


def test_repeats_play_new_games_and_versus_pairs_each_run(capsys, monkeypatch):
    # Every repeat plays games of its own (a replay would find memo tables filled), and
    # --versus runs the reference preset just before each run and reports the ratios.
    seeds = []
    real = benchmark.bench_aec

    def spy(make, seconds, seed):
        seeds.append((make().rules.name, seed))
        return real(make, seconds, seed)

    monkeypatch.setattr(benchmark, "bench_aec", spy)
    r = benchmark.run_mode("raw", "indian", 2, {}, seconds=0.02, repeats=3, seed=5, versus="basic")
    assert seeds == [(p, s) for s in (6, 7, 8) for p in ("basic", "indian")]
    assert len(r["ratios"]) == 3 and min(r["ratios"]) <= r["ratio_median"] <= max(r["ratios"])
    benchmark.main(
        ["--preset", "indian", "--modes", "raw", "--versus", "basic", "--seconds", "0.02"]
        + ["--repeats", "1", "--cpu", "-1"]
    )
    assert "x basic" in capsys.readouterr().out


def test_openspiel_is_measured_in_process_interleaved_with_ours():
    pytest.importorskip("pyspiel")
    rows = benchmark.interleaved_openspiel(seconds=0.05, repeats=2, seed=0)
    assert [r["ours"] for r in rows] == ["raw", "engine"]
    for r in rows:
        assert len(r["ratios"]) == 2 and r["ours_per_s"] > 0 and r["peer_per_s"] > 0
        assert min(r["ratios"]) <= r["ratio_median"] <= max(r["ratios"])


def test_agents_are_timed_side_by_side(capsys):
    rows = benchmark.bench_agents(
        "basic", {}, ["greedy", "variant"], seconds=0.05, repeats=2, seed=0
    )
    assert len(rows) == 2 and all(r["greedy"] > 0 and r["variant"] > 0 for r in rows)
    benchmark.main(
        ["--agents", "greedy,random", "--seconds", "0.05", "--repeats", "1", "--cpu", "-1"]
    )
    assert "greedy / random: median ratio" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        benchmark.main(["--agents", "greedy", "--cpu", "-1"])
    with pytest.raises(SystemExit):
        benchmark.main(["--agents", "greedy,nope", "--seconds", "0.01", "--cpu", "-1"])
