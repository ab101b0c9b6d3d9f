"""experiments/benchmark.py runs (what it measures, not how fast: timing belongs in the benchmark)."""

from __future__ import annotations

import sys

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


def test_agents_are_timed_at_the_table_asked_for(monkeypatch):
    """--players 4: four seats, A at the even ones and B at the odd ones (Canasta: a side
    each), swapped every deal."""
    import agents

    seated: dict[int, dict[int, str]] = {}  # deal -> seat -> spec
    make = agents.make

    def recording(spec, rules, seat=0):
        assert rules.num_players == 4
        bot = make(spec, rules, seat)
        reset = bot.reset

        def noted(seed=None):
            seated.setdefault(seed // 1009, {})[seat] = spec
            return reset(seed=seed)

        bot.reset = noted
        return bot

    monkeypatch.setattr(agents, "make", recording)
    rows = benchmark.bench_agents(
        "canasta", {}, ["greedy", "random"], seconds=0.5, repeats=1, seed=0, players=4
    )
    assert rows[0]["greedy"] > 0 and rows[0]["random"] > 0
    assert len(seated) >= 2
    for deal, seats in seated.items():
        a, b = ("greedy", "random") if deal % 2 == 0 else ("random", "greedy")
        assert seats == {0: a, 1: b, 2: a, 3: b}, deal


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "-1"], "--seconds must be more than 0, got -1"),
        (["--seconds", "0"], "--seconds must be more than 0, got 0"),
        (["--repeats", "0"], "--repeats must be 1 or more, got 0"),
        (["--num-envs", "0"], "--num-envs must be 1 or more, got 0"),
        (["--preset", "nosuch"], "--preset 'nosuch' is not a preset (allowed: all, basic,"),
    ],
)
def test_a_run_of_no_time_exits_2_with_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        benchmark.main([*argv, "--cpu", "-1"])
    assert e.value.code == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"rummy-benchmark: error: {message}") and out == ""
    assert len(err.splitlines()) == 1


def test_a_missing_peer_is_named_with_its_path_not_a_zero(tmp_path, capsys, monkeypatch):
    def no_openspiel(*a, **kw):
        raise ImportError("pyspiel")

    monkeypatch.setattr(benchmark, "interleaved_openspiel", no_openspiel)
    argv = ["--preset", "gin", "--modes", "engine", "--seconds", "0.02", "--repeats", "1"]
    argv += ["--cpu", "-1", "--peers", "--peers-dir", str(tmp_path / "peers")]
    # a peer venv that exists, scripts that do not
    benchmark.main([*argv, "--peers-python", sys.executable])
    out = capsys.readouterr().out
    table = out.split("same run:", 1)[1].strip().splitlines()[1:]
    assert len(table) == len(benchmark.PEER_PAIRS)
    scripts = {name: argv[0] for name, argv in benchmark.PEER_SCRIPTS}
    for line, (_, peer, _) in zip(table, benchmark.PEER_PAIRS):
        assert f"not measured: no script {tmp_path / 'peers' / scripts[peer]}" in line
        assert int(line.split()[2].replace(",", "")) > 0  # ours (gin env()) measured, not 0
    # no peer venv: its path is named
    benchmark.main([*argv, "--peers-python", str(tmp_path / "venv" / "python")])
    assert f"no peers venv at {tmp_path / 'venv' / 'python'}" in capsys.readouterr().out
