"""The web app (issue 14): leaderboard, game browser, replays and play, through Flask's test
client on a small tournament store; bad input is a 4xx with a clear message, and no hidden
card reaches the client while a round is played."""

from __future__ import annotations

import html as html_lib
import io
import json
import os
import re
import shutil
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flask")

from experiments import replay as R  # noqa: E402
from experiments import tournament as T  # noqa: E402
from experiments import web as W  # noqa: E402
from rummy_env.cards import card_str  # noqa: E402
from rummy_env.engine import from_dict  # noqa: E402
from rummy_env.picture import draw_table  # noqa: E402


def small_store(folder: Path, deals: int = 2) -> tuple[Path, T.Summary]:
    """A tournament of random and greedy at basic, ``deals`` deals (2: 4 games): its store and
    summary."""
    db = folder / "t.sqlite"
    summary = T.run(
        T.Args(
            preset="basic",
            players=2,
            agents="random,greedy",
            deals=deals,
            workers=1,
            db=str(db),
            out=str(folder / "out"),
            quiet=True,
            plots=False,
        )
    )
    return db, summary


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, T.Summary]:
    return small_store(tmp_path_factory.mktemp("web"))


@pytest.fixture()
def client(store, tmp_path):
    app = W.create_app(store[0], cache_dir=tmp_path / "cache")
    return app.test_client()


def text(resp) -> str:
    """The page's text, HTML entities decoded."""
    return html_lib.unescape(resp.get_data(as_text=True))


def pixels(data: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def game_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'href="/games/(\d+)"', html)]


# ------------------------------------------------------------------ leaderboard
def test_leaderboard_lists_agents_ratings_and_plots(client, store):
    _, summary = store
    r = client.get("/")
    assert r.status_code == 200
    html = text(r)
    assert "basic, 2 players, rounds" in html
    assert "4 games over 2 duplicate deals" in html
    for row in T.summary_rows(summary):  # the numbers rummy-tournament printed
        assert f">{row['agent']}</a>" in html
        assert f"{row['score_mean']:.2f} [{row['score_lo']:.2f}, {row['score_hi']:.2f}]" in html
        assert f"{row['elo']:.0f} ± {1.96 * row['elo_se']:.0f}" in html
        assert f"{row['win_rate']:.3f} [" in html
    m = summary.cross["greedy", "random"][0]
    assert f"{m:.2f} [" in html and f"{-m:.2f} [" in html  # the crosstable, both ways
    plots = re.findall(r'src="(/results/\w+/basic_2p_(?:ratings|crosstable)\.png)"', html)
    assert len(plots) == 2
    for url in plots:
        got = client.get(url)
        assert got.status_code == 200 and got.mimetype == "image/png"
        assert got.data[:8] == b"\x89PNG\r\n\x1a\n"
    csv = client.get(plots[0].replace("_ratings.png", "_summary.csv"))
    assert csv.status_code == 200 and text(csv).startswith("agent,games,rounds")
    assert client.get(plots[0].replace("_ratings.png", "_secret.txt")).status_code == 404
    assert client.get("/results/nope/basic_2p.md").status_code == 404


def test_summary_of_matches_the_tournament(store):
    db, summary = store
    con = T.open_db(db)
    (config,) = con.execute("SELECT config FROM configs").fetchone()
    got, rules, n = T.summary_of(con, config)
    assert (rules.name, rules.num_players, n) == ("basic", 2, 4)
    assert got.score == summary.score and got.cross == summary.cross
    for name, (elo, se) in summary.elo.items():  # the same up to the order of the sums
        assert got.elo[name] == pytest.approx((elo, se))
    assert T.summary_of(con, "no-such-config") is None
    con.close()


def test_without_a_store(tmp_path):
    missing = tmp_path / "none.sqlite"
    c = W.create_app(missing).test_client()
    r = c.get("/")
    assert r.status_code == 200 and "No tournament store" in text(r)
    r = c.get("/games")
    assert r.status_code == 404 and "no tournament store" in text(r)
    assert c.get("/play").status_code == 200  # playing needs no store
    assert not missing.exists()  # the app does not create it


def test_leaderboard_names_a_configuration_it_cannot_read(store, tmp_path):
    db = tmp_path / "later.sqlite"
    shutil.copy(store[0], db)
    with sqlite3.connect(db) as con:  # rules written by a later engine, with a field unknown here
        con.execute(
            "INSERT INTO configs VALUES ('later', 'basic', 2, ?)", ('{"name": "basic", "x": 1}',)
        )
        con.execute(
            "INSERT INTO games SELECT 'later', seed, seating, preset, rules, agents, round_scores,"
            " round_rewards, rewards, rounds, winner, reasons, decisions, decisions_per_seat,"
            " seconds, finished, moves FROM games"
        )
    r = W.create_app(db, cache_dir=tmp_path / "cache").test_client().get("/")
    assert r.status_code == 200
    words = re.sub(r"<[^>]+>", "", text(r))
    assert "Configuration later cannot be read" in words and "basic, 2 players" in words


# ------------------------------------------------------------------ game browser
def test_game_browser_filters(client):
    all_ids = game_ids(text(client.get("/games")))
    assert sorted(all_ids) == [1, 2, 3, 4]
    assert sorted(game_ids(text(client.get("/games?agent=random")))) == [1, 2, 3, 4]
    assert sorted(game_ids(text(client.get("/games?agent=nobody")))) == []
    assert "No stored game matches" in text(client.get("/games?preset=gin"))
    seed1 = game_ids(text(client.get("/games?seed=1&preset=basic&agent=greedy")))
    assert len(seed1) == 2
    con = T.open_db(client.application.extensions["rummy_web"].db_path)
    assert {R.load_game(con, i).seed for i in seed1} == {1}
    con.close()
    r = client.get("/games?seed=one")
    assert r.status_code == 400 and "the deal seed must be a whole number" in text(r)
    assert client.get("/games?page=2").status_code == 200


def test_game_page_steps_forwards_and_back(client, store):
    con = T.open_db(store[0])
    game = R.load_game(con, 1)
    con.close()
    steps = R.replay(game)
    n = len(steps)
    html = text(client.get("/games/1"))
    assert "the deal (before move 1 of" in html and 'href="?step=1"' in html
    for k in (1, 2, n // 2, n):  # the move, the links around it, the picture of every hand
        html = text(client.get(f"/games/1?step={k}"))
        s = steps[k - 1]
        assert f"move {k} of {n}:" in html
        assert f'player_{s.seat} ({s.agent}) <b id="move">{s.move}</b>' in html
        assert f'href="?step={max(k - 1, 0)}"' in html and f'href="?step={min(k + 1, n)}"' in html
        frame = client.get(f"/games/1/frame/{k}.png")
        assert frame.status_code == 200 and frame.mimetype == "image/png"
        if k < n:
            want = draw_table(from_dict(s.state, game.rules), omniscient=True)
            assert np.array_equal(pixels(frame.data), want)
    assert 'id="scoring"' in html and "round 1 over" in html  # the last step: the scoring
    assert client.get("/games/1/frame/0.png").status_code == 200  # the deal
    r = client.get(f"/games/1/frame/{n + 1}.png")
    assert r.status_code == 404 and f"frames 0..{n}" in text(r)
    r = client.get(f"/games/1?step={n + 1}")
    assert r.status_code == 400 and f"the step must be in 0..{n}" in text(r)


def test_unknown_game_is_404(client):
    r = client.get("/games/999")
    assert r.status_code == 404 and "no game 999 in the store" in text(r)
    assert client.get("/games/999/frame/0.png").status_code == 404
    assert client.get("/games/abc").status_code == 404
    assert client.get("/").status_code == 200  # and the server keeps serving


def test_game_without_moves_cannot_be_replayed(store, tmp_path):
    db = tmp_path / "old.sqlite"
    shutil.copy(store[0], db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET moves = NULL WHERE rowid = 2")
    c = W.create_app(db, cache_dir=tmp_path / "cache").test_client()
    r = c.get("/games/2")
    assert r.status_code == 200 and "cannot be replayed" in text(r)
    assert "not stored" in text(c.get("/games"))
    assert c.get("/games/2/frame/0.png").status_code == 404
    assert c.get("/games/1").status_code == 200


# ------------------------------------------------------------------ play
def start(client, **form) -> str:
    r = client.post("/play", data={k: str(v) for k, v in form.items()})
    assert r.status_code == 303, text(r)
    return r.headers["Location"]


def play_game(client, url: str) -> W.PlayGame:
    return client.application.extensions["rummy_web"].play.get(url.rsplit("/", 1)[1])


def first_move(html: str) -> str | None:
    m = re.search(r'name="action" value="(\d+)"', html)
    return m.group(1) if m else None


def hidden_cards(game: W.PlayGame) -> set[str]:
    """The cards of the other hands that the person cannot know: not known to be held (taken
    from the pile) and never named in a public move."""
    s = game.state
    public = " ".join(t for _, t in game.log).split()
    out = set()
    for p in range(s.rules.num_players):
        if p != game.seat:
            known = set(s.to_dict()["known"][p])
            out |= {card_str(f) for f in s.hand_cards(p)} - known - set(public)
    return out


def visible_text(html: str, game=None) -> str:
    """The page without its inline scripts and styles, and without the random tokens a
    card's name could stand inside (the per-request nonces, the game's own token): what a
    hidden card is searched for."""
    html = re.sub(r"<(style|script)>.*?</\1>", "", html, flags=re.S)
    html = re.sub(r'nonce="[^"]*"', 'nonce=""', html)
    return html.replace(game.token, "") if game is not None else html


def test_a_card_name_inside_a_random_token_is_not_a_leak():
    """The nonces and the game's token are random text: a card's name can stand in one
    (``-6D-``) without any card reaching the page, so the leak checks leave them out."""
    page = '<script nonce="ab-6D-cd" src="/static/play.js"></script><a href="/play/x-6D-y">'
    game = type("G", (), {"token": "x-6D-y"})()
    assert re.search(r"\b6D\b", page)
    assert not re.search(r"\b6D\b", visible_text(page, game))


def test_play_a_round_against_random(client):
    url = start(client, preset="basic", players=2, seat=0, opp1="random")
    game = play_game(client, url)
    moves = 0
    while True:
        html = text(client.get(url))
        if game.over:
            break
        assert "Your turn" in html
        # no hidden card, and not the deal seed, reaches the client before the end
        page = visible_text(html, game)
        hidden = hidden_cards(game)
        assert hidden or moves > 0  # (the check checks something: at the deal, the whole hand)
        for card in hidden:
            assert not re.search(rf"\b{card}\b", page), f"{card} of a hidden hand is in the page"
        assert str(game.seed) not in html
        if moves % 10 == 0:  # the picture is exactly the seat's view
            frame = client.get(f"{url}/table.png")
            assert frame.headers["Cache-Control"] == "no-store"
            assert np.array_equal(pixels(frame.data), draw_table(game.state, viewer=0))
        r = client.post(f"{url}/move", data={"action": first_move(html)})
        assert r.status_code == 303, text(r)
        moves += 1
    assert moves > 5
    assert 'id="scoring"' in html and "round 1 over" in html and "player_1:" in html
    assert 'name="action"' not in html  # no move is offered any more
    assert f"seed {game.seed}" in html
    frame = client.get(f"{url}/table.png")
    assert np.array_equal(pixels(frame.data), draw_table(game.state, omniscient=True))
    r = client.post(f"{url}/move", data={"action": "0"})
    assert r.status_code == 400 and "the game is over" in text(r)
    again = client.post("/play", data=game.form)
    assert again.status_code == 303 and again.headers["Location"] != url


@pytest.mark.parametrize(
    ("preset", "players", "seat"),
    [("gin", 2, 1), ("rummy500", 3, 2), ("deuces", 2, 0), ("indian", 3, 1), ("contract", 3, 0)]
    + [("rummikub", 2, 1), ("canasta", 2, 1), ("canasta", 3, 0)],
)
def test_play_other_presets_and_seats(client, preset, players, seat):
    url = start(client, preset=preset, players=players, seat=seat, opp0="random", opp1="greedy")
    game = play_game(client, url)
    assert game.names[seat] == "you" and len(game.bots) == players - 1
    for _ in range(2000):
        html = text(client.get(url))
        if game.over:
            break
        client.post(f"{url}/move", data={"action": first_move(html)})
    assert 'id="scoring"' in html


def test_play_a_match_goes_on_after_a_round(client):
    url = start(client, preset="basic", players=2, seat=1, opp0="greedy", match=1)
    game = play_game(client, url)
    assert game.env.rules.match
    while not game.results:
        client.post(f"{url}/move", data={"action": first_move(text(client.get(url)))})
    html = text(client.get(url))
    assert "round 1 over" in html and "match totals" in html
    if not game.over:  # the next round is dealt: the other hand is hidden again
        assert game.state.round == 1 and "Your turn" in html
        assert not np.array_equal(
            draw_table(game.state, viewer=1), draw_table(game.state, omniscient=True)
        )


def test_play_form_offers_presets_and_agents(client):
    html = text(client.get("/play"))
    options = set(re.findall(r"<option[^>]*>([^<]+)</option>", html))
    assert {"basic", "gin", "rummy500", "random", "greedy", "search", "variant"} <= options


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"preset": "poker"}, "unknown preset 'poker'"),
        ({"preset": "basic", "opp1": "nobody"}, "unknown agent 'nobody'"),
        ({"preset": "gin", "players": "3"}, "num_players=3 is not allowed for 'gin' (allowed: 2)"),
        ({"preset": "basic", "players": "two"}, "the number of players must be a whole number"),
        ({"preset": "basic", "seat": "5"}, "your seat must be in 0..1"),
        ({"preset": "basic", "opp1": "search:nonsense=1"}, "the agent at seat 1"),
    ],
)
def test_bad_play_settings_are_400(client, form, message):
    r = client.post("/play", data=form)
    assert r.status_code == 400
    assert message in text(r)
    assert client.get("/play").status_code == 200  # the server keeps serving


def test_bad_moves_are_400_and_change_nothing(client):
    url = start(client, preset="basic", players=2, seat=0, opp1="random")
    game = play_game(client, url)
    legal = [a for a, _ in game.legal()]
    illegal = next(a for a in range(game.env.codec.num_actions) if a not in legal)
    before = game.state.to_dict()
    for value, message in [
        (str(illegal), f"move {illegal} is not legal now"),
        ("draw", "the move (an action id) must be a whole number"),
        ("1.5", "must be a whole number"),
        ("-1", "is not legal now"),
    ]:
        r = client.post(f"{url}/move", data={"action": value})
        assert r.status_code == 400 and message in text(r)
        assert game.state.to_dict() == before and game.log == []
    r = client.post(f"{url}/move")
    assert r.status_code == 400 and "no move" in text(r)
    assert client.post(f"{url}/move", data={"action": str(legal[0])}).status_code == 303


def test_unknown_play_token_is_404(client):
    for r in (client.get("/play/nope"), client.post("/play/nope/move", data={"action": "0"})):
        assert r.status_code == 404 and "no game 'nope' in play" in text(r)
    assert client.get("/play/nope/table.png").status_code == 404


def test_play_games_are_bounded():
    games = W.PlayGames(limit=2)
    for t in "abc":
        games.add(W.PlayGame(t, None, 0, {}, [], 0, {}))
    assert len(games) == 2 and games.get("a") is None and games.get("c") is not None


def test_cli_rejects_a_bad_store(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        W.main(["--db", str(tmp_path)])
    assert e.value.code == 2
    assert "is a directory" in capsys.readouterr().err


# ------------------------------------------------------------------ a server that trusts no client
ROOT = Path(__file__).resolve().parents[1]


def start_as(client, addr: str, **form):
    return client.post(
        "/play", data={k: str(v) for k, v in form.items()}, environ_base={"REMOTE_ADDR": addr}
    )


@pytest.fixture()
def no_model_loads(monkeypatch):
    """Records every model an agent is made with; the play form's offers are computed first."""
    import agents

    W.offered("basic", 2)
    loads: list[object] = []
    real = agents.make

    def make(name, rules, seat=0, **kw):
        if kw.get("model") is not None or ":" in name:
            loads.append((name, kw.get("model")))
        return real(name, rules, seat, **kw)

    monkeypatch.setattr(agents, "make", make)
    return loads


def test_model_paths_from_clients_get_one_answer(client, tmp_path, no_model_loads):
    real = tmp_path / "real.npz"
    real.write_bytes(b"not a model")
    answers = {}
    for kind in ("ppo", "es", "rllib"):
        for path in (str(real), str(tmp_path / "missing.npz"), "/etc/passwd", "/etc/nonexist.npz"):
            r = client.post("/play", data={"preset": "basic", "opp1": f"{kind}:{path}"})
            assert r.status_code == 400, path
            page = re.sub(r"not '[^']*'", "not PATH", text(r))  # the echo, paths cut
            answers.setdefault(kind, set()).add(page.split('id="error">')[1].split("<")[0])
            assert str(tmp_path) not in text(r).replace(path, "")
        assert len(answers[kind]) == 1, answers[kind]  # whether or not the file exists
        assert "takes a shipped model by name" in answers[kind].pop()
    r = client.post("/play", data={"preset": "basic", "opp1": "ppo:model=../../etc/passwd"})
    assert r.status_code == 400 and "takes a shipped model by name" in text(r)
    assert no_model_loads == []  # no file a client named was read
    r = client.post("/play", data={"preset": "basic", "opp1": "rllib"})
    assert r.status_code == 400  # rllib needs a file, and clients name none
    assert "rllib" not in re.findall(r"<option[^>]*>([^<]+)</option>", text(client.get("/play")))
    assert start(client, preset="basic", opp1="ppo:basic-2p").startswith("/play/")
    assert start(client, preset="basic", opp1="trained:basic").startswith("/play/")


def test_network_paths_from_clients_are_refused_where_a_network_is_offered(
    client, tmp_path, no_model_loads
):
    """Rummy 500's form offers its shipped network (``neural:rummy500-2p``); a client may
    pick it by name, never make the server read another file as a network."""
    real = tmp_path / "real.npz"
    real.write_bytes(b"not a model")
    assert "neural:rummy500-2p" in W.offered("rummy500", 2)
    no_model_loads.clear()  # (the offers make the shipped models once)
    for path in (str(real), "/etc/passwd", "../../etc/passwd", "gin-2p"):
        for spec in (f"neural:{path}", f"neural:model={path}"):
            r = client.post("/play", data={"preset": "rummy500", "opp1": spec})
            assert r.status_code == 400, spec
            assert "takes a shipped model by name" in text(r), spec
    assert no_model_loads == []  # no file a client named was read
    for spec in ("neural:rummy500-2p", "neural:rummy500"):  # (the preset names its network)
        assert start(client, preset="rummy500", opp1=spec).startswith("/play/")
    assert start(client, preset="rummy500", opp1="trained:rummy500").startswith("/play/")


def test_model_files_only_from_allowed_folders(store, tmp_path):
    import agents

    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(Path(agents.__file__).parent / "trained" / "basic-2p.npz", models / "mine.npz")
    shutil.copy(models / "mine.npz", tmp_path / "outside.npz")
    (models / "link.npz").symlink_to(tmp_path / "outside.npz")
    c = W.create_app(store[0], tmp_path / "cache", model_dirs=(models,)).test_client()
    for spec in ("ppo:mine.npz", f"ppo:{models / 'mine.npz'}"):
        r = c.post("/play", data={"preset": "basic", "opp1": spec})
        assert r.status_code == 303, text(r)
    outside = ("ppo:../outside.npz", f"ppo:{tmp_path / 'outside.npz'}", "ppo:link.npz")
    for spec in (*outside, "ppo:mine\x00.npz", "ppo:.", "ppo:models/../../outside.npz"):
        r = c.post("/play", data={"preset": "basic", "opp1": spec})
        assert r.status_code == 400 and "takes a shipped model by name" in text(r), spec
    r = c.post("/play", data={"preset": "basic", "opp1": "ppo:nope.npz"})  # inside, missing
    assert r.status_code == 400 and str(models) not in text(r)


def test_cli_allow_model_must_be_a_folder(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        W.main(["--db", str(tmp_path / "x.sqlite"), "--allow-model", str(tmp_path / "nope")])
    assert e.value.code == 2 and "is not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("preset", "spec", "message"),
    [
        ("basic", "search:time_budget=30", "search's time_budget must be in 0..2 here, got 30"),
        ("basic", "search:simulations=100000", "search's simulations must be in 1..64"),
        ("basic", "search:candidates=1e999", "search's candidates must be in 1..8"),
        ("basic", "search:max_rollout_steps=10000000", "max_rollout_steps must be in 1..600"),
        ("basic", "search:guide=ppo", "the guide must be one of"),
        ("basic", "search:objective=" + "x" * 60, "search's objective is too long"),
        ("basic", "basic-expert:potential_weight=1e300", "must be in -1000..1000"),
        ("basic", "search:" + "x" * 300, "the spec is too long"),
        ("rummikub", "rummikub-expert:simulations=5000", "simulations must be in 1..32"),
    ],
)
def test_agent_options_beyond_the_caps_are_400(client, preset, spec, message):
    r = client.post("/play", data={"preset": preset, "opp1": spec})
    assert r.status_code == 400 and message in text(r), text(r)


def test_agent_options_within_the_caps_play(client):
    url = start(client, preset="basic", opp1="search:simulations=2:time_budget=0.5:candidates=2")
    assert play_game(client, url).names[1] == "search:simulations=2:time_budget=0.5:candidates=2"


def test_request_bodies_beyond_the_limit_are_413(client):
    r = client.post("/play", data={"preset": "basic", "pad": "x" * (W.MAX_BODY + 1)})
    assert r.status_code == 413
    r = client.post(
        "/play",
        data=b"preset=basic&pad=" + b"x" * 2_000_000,
        content_type="application/x-www-form-urlencoded",
    )
    assert r.status_code == 413
    parts = {f"f{k}": "1" for k in range(100)}  # a multipart form of many small parts
    r = client.post("/play", data={**parts, "x": (io.BytesIO(b"1"), "x.txt")})
    assert r.status_code == 413
    assert client.get("/play").status_code == 200


def test_new_games_beyond_the_limits_are_429_and_none_is_evicted(store, tmp_path):
    app = W.create_app(store[0], tmp_path / "cache", max_games=4, max_client_games=2)
    c = app.test_client()
    mine = start_as(c, "10.0.0.1", preset="basic", opp1="random")
    assert mine.status_code == 303
    url = mine.headers["Location"]
    got = [start_as(c, "10.0.0.2", preset="basic", opp1="random").status_code for _ in range(30)]
    assert got[:2] == [303, 303] and set(got[2:]) == {429}
    r = start_as(c, "10.0.0.2", preset="basic")
    assert "you have 2 games in play" in text(r) and r.headers["Retry-After"] == "60"
    assert start_as(c, "10.0.0.3", preset="basic").status_code == 303
    r = start_as(c, "10.0.0.4", preset="basic")  # the server holds 4 games in progress
    assert r.status_code == 429 and "the server has 4 games in play" in text(r)
    page = c.get(url, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert page.status_code == 200 and "Your turn" in text(page)  # still there
    play = app.extensions["rummy_web"].play
    clock = play.clock
    play.clock = lambda: clock() + W.IDLE_SECONDS + 1  # every game abandoned: room again
    assert start_as(c, "10.0.0.4", preset="basic").status_code == 303


def test_finished_games_make_room():
    games = W.PlayGames(limit=1, per_client=1)
    done = W.PlayGame("a", None, 0, {}, [], 0, {}, client="x")  # no env: nothing in progress
    games.add(done)
    games.add(W.PlayGame("b", None, 0, {}, [], 0, {}, client="x"))
    assert games.get("a") is None and games.get("b") is not None


def sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def journal_mode(path: Path) -> str:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        con.close()


def test_the_viewer_never_writes_a_store(store, tmp_path, capsys):
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE notes (x TEXT)")
        con.execute("INSERT INTO notes VALUES ('mine')")
    con.close()
    before = sha(other)
    with pytest.raises(SystemExit) as e:
        W.main(["--db", str(other)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "is not a tournament store" in err and len(err.strip().splitlines()) == 1
    r = W.create_app(other, tmp_path / "cache").test_client().get("/")
    assert r.status_code == 503 and "is not a tournament store" in text(r)
    assert sha(other) == before and journal_mode(other) == "delete"
    assert not Path(f"{other}-wal").exists()

    mine = tmp_path / "copy.sqlite"  # a tournament store in rollback-journal mode
    shutil.copy(store[0], mine)
    with sqlite3.connect(mine) as con:
        con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    before = sha(mine)
    c = W.create_app(mine, tmp_path / "cache2").test_client()
    for url in ("/", "/games", "/games/1", "/games/1?step=3", "/games/1/frame/2.png"):
        assert c.get(url).status_code == 200, url
    assert sha(mine) == before and journal_mode(mine) == "delete"
    assert not Path(f"{mine}-wal").exists()

    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    r = W.create_app(empty, tmp_path / "cache3").test_client().get("/")
    assert r.status_code == 200 and "No tournament store" in text(r)
    assert empty.read_bytes() == b""


def test_a_store_on_read_only_media_is_read(store, tmp_path, monkeypatch):
    media = tmp_path / "media"
    media.mkdir()
    db = media / "t.sqlite"
    shutil.copy(store[0], db)  # a WAL store, as rummy-tournament writes it
    real = sqlite3.connect

    def connect(database, *a, **kw):  # what SQLite answers where the -shm file cannot be made
        if "immutable=1" not in str(database):
            raise sqlite3.OperationalError("unable to open database file")
        return real(database, *a, **kw)

    monkeypatch.setattr(W.sqlite3, "connect", connect)
    c = W.create_app(db, tmp_path / "cache").test_client()
    r = c.get("/")
    assert r.status_code == 200 and "basic, 2 players, rounds" in text(r)
    assert c.get("/games/1").status_code == 200
    monkeypatch.setattr(W.sqlite3, "connect", real)
    if os.geteuid() != 0:  # (root writes anywhere: the permissions test nothing there)
        db.chmod(0o444)
        media.chmod(0o555)
        try:
            r = W.create_app(db, tmp_path / "cache2").test_client().get("/")
            assert r.status_code == 200 and "basic, 2 players, rounds" in text(r)
        finally:
            media.chmod(0o755)


@pytest.mark.parametrize("port", ["-1", "99999", "65536", "abc", "", "8000x"])
def test_cli_rejects_a_bad_port(tmp_path, capsys, port):
    with pytest.raises(SystemExit) as e:
        W.main(["--db", str(tmp_path / "x.sqlite"), f"--port={port}"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy-web: --port must be a whole number in 1..65535")
    assert len(err.strip().splitlines()) == 1


def test_ids_and_seeds_out_of_range(client):
    huge = "99999999999999999999999"
    for url in (f"/games/{huge}", f"/games/{huge}/frame/0.png", f"/games/1/frame/{huge}.png"):
        r = client.get(url)
        assert r.status_code == 404, url
    for url, message in [
        (f"/games?seed={huge}", "the deal seed must be in 0.."),
        ("/games?seed=-1", "the deal seed must be in 0.."),
        (f"/games?page={huge}", "the page must be in 1.."),
        (f"/games/1?step={huge}", "the step must be in 0.."),
        ("/games?seed=" + "9" * 5000, "the deal seed must be a whole number"),
    ]:
        r = client.get(url)
        assert r.status_code == 400 and message in text(r), url
    r = client.post("/play", data={"preset": "basic", "players": huge})
    assert r.status_code == 400


def security_headers_ok(r) -> None:
    h = r.headers
    assert h["X-Frame-Options"] == "DENY" and h["X-Content-Type-Options"] == "nosniff"
    assert h["Referrer-Policy"] == "same-origin"
    csp = h["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    if r.mimetype == "text/html":
        nonce = re.search(r"'nonce-([\w-]+)'", csp).group(1)
        html = r.get_data(as_text=True)
        for tag in re.findall(r"<(?:script|style)\b[^>]*>", html):
            assert f'nonce="{nonce}"' in tag or 'type="application/json"' in tag, tag
        assert not re.search(r"\sstyle=|\son\w+=", html)  # no inline styles or handlers


def test_security_headers_on_every_response(client):
    urls = ["/", "/games", "/games/1", "/games/1?step=2", "/games/1/frame/1.png", "/play"]
    urls += ["/play?preset=gin", "/games/999", "/nope", "/games?seed=x"]
    html = text(client.get("/"))
    urls += re.findall(r'href="(/results/[^"]+)"', html)
    for url in urls:
        security_headers_ok(client.get(url))
    play = start(client, preset="basic", opp1="random")
    for r in (client.get(play), client.get(f"{play}/table.png"), client.post("/play", data={})):
        security_headers_ok(r)
    r1, r2 = client.get("/"), client.get("/")
    assert r1.headers["Content-Security-Policy"] != r2.headers["Content-Security-Policy"]


def test_error_pages_show_no_paths(store, tmp_path, monkeypatch):
    c = W.create_app(store[0], tmp_path / "cache").test_client()

    def boom(*a, **kw):
        raise RuntimeError(f"failed in {ROOT}/experiments/replay.py and {tmp_path}/t.sqlite")

    monkeypatch.setattr(W, "list_rows", boom)
    pages = [c.get("/games"), c.get("/games/999"), c.get("/nope")]
    pages.append(c.post("/play", data={"preset": "rummy500", "opp1": "ppo:basic-2p"}))
    pages.append(c.post("/play", data={"preset": "basic", "opp1": "ppo:/etc/passwd"}))
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not sqlite at all" * 100)
    pages.append(W.create_app(broken, tmp_path / "c2").test_client().get("/"))
    assert pages[0].status_code == 500
    for r in pages:
        body = r.get_data(as_text=True)
        assert "Traceback" not in body and 'File "' not in body
        for path in (str(ROOT), str(tmp_path), sys.prefix, str(Path.home())):
            assert path not in body, (r.request.path, path)
    assert W.scrub("model '/usr/lib/python3/dist-packages/agents/x.npz' bad") == "model 'x.npz' bad"
    assert W.scrub("see /games/1 and 2/3") == "see /games/1 and 2/3"


def option_values(html: str, select: str) -> list[str]:
    m = re.search(rf'<select name="{select}"[^>]*>(.*?)</select>', html, re.S)
    return re.findall(r"<option[^>]*>([^<]+)</option>", m.group(1))


def test_play_form_offers_only_what_plays_the_preset(client):
    basic = text(client.get("/play?preset=basic"))
    offers = option_values(basic, "opp1")
    assert {"random", "greedy", "search", "variant", "basic-expert", "ppo:basic-2p"} <= set(offers)
    assert not {"indian-expert", "gin-expert", "rummikub-expert", "rllib", "ppo", "es"} & set(
        offers
    )
    assert option_values(basic, "players") == ["2", "3", "4", "5", "6"]
    gin = text(client.get("/play?preset=gin&players=5&opp1=indian-expert"))
    assert option_values(gin, "players") == ["2"]
    assert "gin-simple" in option_values(gin, "opp1") and "indian-expert" not in gin
    assert "basic-expert" not in option_values(gin, "opp1")
    for form, message in [
        ({"preset": "basic", "opp1": "indian-expert"}, "does not play basic with 2 players"),
        ({"preset": "basic", "opp1": "gin-simple"}, "does not play basic"),
        ({"preset": "rummy51", "players": "3", "opp1": "contract-expert"}, "does not play"),
        ({"preset": "gin", "players": "5"}, "num_players=5 is not allowed for 'gin'"),
        ({"preset": "basic", "players": "3", "opp1": "ppo:basic-2p"}, "takes a shipped model"),
    ]:
        r = client.post("/play", data=form)
        assert r.status_code == 400 and message in text(r), (form, text(r))


def test_the_server_takes_every_agent_the_form_offers():
    import rummy_env

    for preset in rummy_env.PRESETS:
        for players in W.player_counts(preset)[:2]:
            rules = rummy_env.make_rules(preset, num_players=players)
            for spec in W.offered(preset, players):
                bot, got = W.client_agent(spec, rules, 1)
                assert got == spec and bot is not None


# ------------------------------------------------------------------ leaderboard and games list
def test_leaderboard_order_is_stated_and_deterministic(client, store):
    rows = [
        {"agent": "b", "score_mean": 1.0, "score_lo": 0.0, "win_rate": 0.5},
        {"agent": "a", "score_mean": 1.0, "score_lo": 0.0, "win_rate": 0.5},
        {"agent": "c", "score_mean": 1.0, "score_lo": 0.5, "win_rate": 0.1},
        {"agent": "d", "score_mean": 1.0, "score_lo": 0.0, "win_rate": 0.9},
        {"agent": "e", "score_mean": float("nan"), "score_lo": float("nan"), "win_rate": 1.0},
        {"agent": "f", "score_mean": 2.0, "score_lo": -9.0, "win_rate": 0.0},
    ]
    for perm in (rows, rows[::-1], rows[2:] + rows[:2]):
        assert [r["agent"] for r in W.board_order(perm)] == ["f", "c", "d", "a", "b", "e"]
    html = text(client.get("/"))
    assert W.ORDER_RULE in html
    want = [r["agent"] for r in W.board_order(T.summary_rows(store[1]))]
    got = re.findall(r'<td class="num">\d+</td>\n<td><a href="[^"]+">([^<]+)</a>', html)
    assert got == want


def test_one_deal_leaderboard_shows_no_nan(tmp_path):
    db, _ = small_store(tmp_path, deals=1)
    r = W.create_app(db, tmp_path / "cache").test_client().get("/")
    assert r.status_code == 200
    html = text(r)
    assert "nan" not in html.lower() and "[-]" in html
    assert W.interval(1.0, float("nan"), 2.0) == "1.00 [-]" and W.fmt(None) == "-"
    assert W.plus_minus(1500.4, float("nan"), 0) == "1500" and W.interval(None, 0, 1) == "-"


def test_games_list_has_players_and_winner_columns(client, store):
    html = text(client.get("/games"))
    assert "<th>players</th>" in html and "<th>winner</th>" in html
    con = sqlite3.connect(store[0])
    rows = con.execute("SELECT rowid, agents, winner FROM games ORDER BY rowid").fetchall()
    con.close()
    winners = re.findall(r'<td class="winner">([^<]*)</td>', html)
    assert winners == [f"player_{w} ({json.loads(a)[w]})" for _, a, w in rows]
    assert re.findall(r'</a></td>\n<td>basic</td><td class="num">(\d+)</td>', html) == ["2"] * 4
    assert game_ids(text(client.get("/games?agent=greedy&page=1"))) == [1, 2, 3, 4]


def test_corrupt_rows_give_a_clear_page(store, tmp_path):
    db = tmp_path / "crafted.sqlite"
    shutil.copy(store[0], db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET moves = X'00ff00' WHERE rowid = 1")  # not zlib
        con.execute("""UPDATE games SET rules = '{"name": "basic", "x": 1}' WHERE rowid = 2""")
        con.execute("UPDATE games SET agents = 'not json', winner = 7 WHERE rowid = 3")
        con.execute("UPDATE games SET round_scores = '{', rewards = 'x' WHERE rowid = 4")
    con.close()
    c = W.create_app(db, tmp_path / "cache").test_client()
    for url, message in [
        ("/games/1", "game 1 cannot be read by this version (error:"),
        ("/games/1/frame/0.png", "game 1 cannot be read"),
        ("/games/2", "game 2 cannot be read by this version (TypeError:"),
        ("/games/3", "game 3 cannot be read by this version"),
    ]:
        r = c.get(url)
        assert r.status_code == 422 and message in text(r), (url, text(r))
    r = c.get("/games")
    assert r.status_code == 200 and game_ids(text(r)) == [1, 2, 3, 4]
    assert '<td class="winner">?</td>' in text(r)
    r = c.get("/")
    assert r.status_code == 200 and "cannot be read by this version" in text(r)
    (config,) = sqlite3.connect(db).execute("SELECT config FROM configs").fetchone()
    r = c.get(f"/results/{config}/basic_2p.md")
    assert r.status_code == 422 and "cannot be read by this version" in text(r)
    assert c.get("/games?agent=random").status_code == 200


def test_a_changed_leaderboard_is_served_while_a_fresh_one_is_computed(store, tmp_path):
    import time

    db = tmp_path / "growing.sqlite"
    shutil.copy(store[0], db)
    app = W.create_app(db, tmp_path / "cache")
    c, web = app.test_client(), app.extensions["rummy_web"]
    assert "4 games over 2 duplicate deals" in text(c.get("/"))
    with sqlite3.connect(db) as con:  # a tournament goes on: two more games of a new deal
        con.execute(
            "INSERT INTO games SELECT config, seed + 10, seating, preset, rules, agents, "
            "round_scores, round_rewards, rewards, rounds, winner, reasons, decisions, "
            "decisions_per_seat, seconds, finished, moves FROM games WHERE seed = 0"
        )
    con.close()
    assert c.get("/").status_code == 200  # the last board, at once
    for _ in range(200):
        if not web._computing:
            break
        time.sleep(0.05)
    assert "6 games over 3 duplicate deals" in text(c.get("/"))


def test_games_list_filters_by_players_winner_and_tournament(client, store):
    con = sqlite3.connect(store[0])
    rows = con.execute("SELECT rowid, agents, winner FROM games ORDER BY rowid").fetchall()
    (config,) = con.execute("SELECT config FROM configs").fetchone()
    con.close()
    ids = lambda q: game_ids(text(client.get("/games?" + q)))  # noqa: E731
    assert ids("players=2") == [1, 2, 3, 4] and ids("players=3") == []
    for agent in ("greedy", "random"):
        want = [i for i, a, w in rows if w is not None and json.loads(a)[w] == agent]
        assert ids(f"winner={agent}") == want
    assert ids(f"config={config}") == [1, 2, 3, 4] and ids("config=nope") == []
    assert ids(f"config={config}&winner=greedy&players=2&preset=basic&agent=random") == [
        i for i, a, w in rows if w is not None and json.loads(a)[w] == "greedy"
    ]
    r = client.get("/games?players=two")
    assert r.status_code == 400 and "the number of players must be a whole number" in text(r)
    html = text(client.get("/"))
    assert f'href="/games?config={config}"' in html  # the leaderboard links its own games


def test_tournaments_under_other_overrides_are_kept_apart(store, tmp_path):
    db = tmp_path / "two.sqlite"
    shutil.copy(store[0], db)
    T.run(
        T.Args(
            preset="basic",
            players=2,
            agents="random,greedy",
            deals=1,
            workers=1,
            db=str(db),
            out=str(tmp_path / "out"),
            quiet=True,
            plots=False,
            set=("jokers=2",),
        )
    )
    c = W.create_app(db, tmp_path / "cache").test_client()
    html = text(c.get("/"))
    assert "<h2>basic, 2 players, rounds</h2>" in html
    assert "<h2>basic, 2 players, rounds, jokers=2</h2>" in html
    games = text(c.get("/games"))
    assert ">basic, 2 players, rounds, jokers=2</option>" in games


# ------------------------------------------------------------------ the card table
def page_json(html: str, element: str):
    m = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_legal_moves_map_to_the_cards_they_use():
    """Every legal action of the mask, as the table offers it: its words, and the cards of
    the mover's hand it uses (a wild card where it reads JK), for every kind of move."""
    from collections import Counter

    import rummy_env

    kinds = set()
    for preset, players in [("basic", 2), ("gin", 2), ("rummikub", 2), ("contract", 3)]:
        env = rummy_env.raw_env(preset, num_players=players)
        env.reset(seed=5)
        rng = np.random.default_rng(0)
        for _ in range(400):
            if env.state.phase.name == "GAME_OVER":
                break
            seat = env.agent_name_mapping[env.agent_selection]
            hand = Counter(card_str(f) for f in env.state.hand_cards(seat))
            wild = W.table_view(env.state, [], viewer=seat)["wild"]
            got = W.legal_view(env)
            mask = env.observe(env.agent_selection)["action_mask"]
            assert [m["id"] for m in got] == list(np.flatnonzero(mask))
            for m in got:
                kinds.add(m["kind"])
                assert ":" not in m["words"] and m["words"][0].islower()
                need = Counter(c for c in m["cards"] if c != "JK")
                assert not need - hand, (m, hand)  # only cards of the hand
                jokers = m["cards"].count("JK")
                assert sum(hand[c] for c in wild) >= jokers
                if m["kind"] == "PlayTile":
                    assert m["words"] == f"play tile {m['cards'][0]}"
                if m["kind"] in ("LayOff", "SwapJoker"):
                    assert m["meld"] is not None and len(m["cards"]) == 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert {"DrawStock", "DrawDiscard", "Meld", "LayOff", "Discard", "PlayTile", "Commit"} <= kinds


def test_play_page_holds_the_seats_view_only(client):
    url = start(client, preset="contract", players=3, seat=1, opp0="random", opp2="random")
    game = play_game(client, url)
    for _ in range(60):
        html = text(client.get(url))
        if game.over:
            break
        view = page_json(html, "view")
        assert view["contract"] == "deal 1 of 7: 2 sets of 3+"
        me, *others = [view["seats"][1]] + [s for s in view["seats"] if s["seat"] != 1]
        assert me["you"] and me["hand"] == [card_str(f) for f in game.state.hand_cards(1)]
        for s in others:  # only counts and the cards known to be held
            assert s["hand"] is None and s["count"] == game.state.nhand[s["seat"]]
            assert s["known"] == list(W.counts_str(game.state.known[s["seat"]]))
        legal = page_json(html, "legal")
        assert {m["id"] for m in legal} == {a for a, _ in game.legal()}
        assert 'id="sort-suit"' in html and 'id="sort-rank"' in html
        client.post(f"{url}/move", data={"action": first_move(html)})


def test_the_end_of_a_round_is_summed_up_and_a_match_goes_on(client):
    url = start(client, preset="basic", players=2, seat=0, opp1="greedy", match=1)
    game = play_game(client, url)
    while not game.results:
        client.post(f"{url}/move", data={"action": first_move(text(client.get(url)))})
    html = text(client.get(url))
    summary = game.summaries[0]
    res = summary["text"]
    assert 'id="summary"' in html and "Round 1 is over: " + summary["outcome"] in html
    assert summary["outcome"] in res
    assert summary["scores"] == [int(x) for x in re.findall(r"player_\d+: +(-?\d+)", res)]
    assert summary["reason"] and len(summary["laid"]) == 2
    winner = summary["winner"]
    if winner is not None:  # the winner laid his cards down (or went out by discarding)
        assert f"player_{winner} ({game.names[winner]}) · winner" in html
    for melds in summary["laid"]:
        for m in melds:
            assert " ".join(m) in html
    if not game.over:  # the next round: the button, and the summary shown once
        assert 'id="next-round"' in html and "round 2 is dealt" in html
        assert 'id="summary"' not in text(client.get(url))


def test_replay_frames_as_json(client, store):
    con = T.open_db(store[0])
    game = R.load_game(con, 1)
    con.close()
    states, steps = R.replay_states(game)
    n = len(steps)
    r = client.get("/games/1/frames.json?start=0&count=200")
    assert r.status_code == 200 and r.mimetype == "application/json"
    security_headers_ok(r)
    data = r.get_json()
    assert data["n"] == n and [f["k"] for f in data["frames"]] == list(range(n + 1))
    for f in data["frames"]:
        st = states[f["k"]]
        for s in f["view"]["seats"]:  # every hand, as the replay's pictures show them
            assert s["hand"] == [card_str(x) for x in st.hand_cards(s["seat"])]
        if f["k"] == 0:
            assert f["decision"] is None
            continue
        d, step = f["decision"], steps[f["k"] - 1]
        assert (d["seat"], d["agent"], d["move"]) == (step.seat, step.agent, step.move)
        assert d["legal"] >= 1
        if d["agent"] == "random" and d["legal"] > 1:  # the random agent's probabilities
            assert [p["chosen"] for p in d["probs"]].count(True) == 1
            assert all(p["p"] == pytest.approx(1 / d["legal"], abs=1e-4) for p in d["probs"])
            assert len(d["probs"]) <= W.TOP_ALTERNATIVES + 1
        else:
            assert d["probs"] is None  # greedy gives none
    assert data["frames"][-1]["result"].startswith("round 1 over")
    chunk = client.get("/games/1/frames.json?start=10&count=5").get_json()["frames"]
    assert [f["k"] for f in chunk] == [10, 11, 12, 13, 14]
    for url, code in [
        ("/games/1/frames.json?start=-1", 400),
        (f"/games/1/frames.json?start={n + 1}", 400),
        ("/games/1/frames.json?count=100000", 400),
        ("/games/999/frames.json", 404),
        ("/games/99999999999999999999999/frames.json", 404),
    ]:
        assert client.get(url).status_code == code, url
    html = text(client.get("/games/1?step=5"))
    assert page_json(html, "replay")["step"] == 5 and 'id="play"' in html and 'id="speed"' in html
    assert '<option value="0">round 1 (move 1)</option>' in html


def test_replay_alternatives_only_from_agents_the_form_offers(store, tmp_path):
    db = tmp_path / "labels.sqlite"
    shutil.copy(store[0], db)
    with sqlite3.connect(db) as con:  # a store that names a file: never read
        con.execute("""UPDATE games SET agents = '["ppo:/etc/passwd", "random"]' WHERE rowid = 1""")
        con.execute("""UPDATE games SET agents = '["ppo:basic-2p", "greedy"]' WHERE rowid = 2""")
    con.close()
    c = W.create_app(db, tmp_path / "cache").test_client()
    frames = c.get("/games/1/frames.json?count=40").get_json()["frames"][1:]
    by = {f["decision"]["agent"]: f["decision"] for f in frames if f["decision"]["legal"] > 1}
    assert by["ppo:/etc/passwd"]["probs"] is None and by["random"]["probs"]
    # a shipped network: its probabilities of its most likely moves, the move played among them
    frames = c.get("/games/2/frames.json?count=60").get_json()["frames"][1:]
    net = [f["decision"] for f in frames if f["decision"]["agent"] == "ppo:basic-2p"]
    net = [d for d in net if d["legal"] > 1]
    assert net
    for d in net:
        ps = [p["p"] for p in d["probs"]]
        assert 0 < sum(ps) <= 1 + 1e-3 and [p["chosen"] for p in d["probs"]].count(True) == 1
        top = ps[: W.TOP_ALTERNATIVES] if len(ps) > W.TOP_ALTERNATIVES else ps
        assert top == sorted(top, reverse=True)


def test_the_table_scripts_and_styles_are_the_apps_own(client):
    html = text(client.get("/play?preset=basic"))
    url = start(client, preset="basic", opp1="random")
    page = client.get(url)
    nonce = re.search(r"'nonce-([\w-]+)'", page.headers["Content-Security-Policy"]).group(1)
    srcs = re.findall(
        r'<script nonce="([^"]+)" src="(/static/[\w.]+)"', page.get_data(as_text=True)
    )
    assert {s for _, s in srcs} == {"/static/table.js", "/static/play.js"} and html
    assert all(n == nonce for n, _ in srcs)
    for name in ("table.js", "play.js", "replay.js", "table.css"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and r.headers["X-Content-Type-Options"] == "nosniff"
        assert (W.STATIC / name).is_file()
    assert client.get("/static/../web.py").status_code == 404
    package_data = (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.package-data]")[1]
    assert 'experiments = ["web_static/*.js", "web_static/*.css"]' in package_data  # installed too
    css = (W.STATIC / "table.css").read_text()
    assert "flex-wrap: wrap" in css and not re.search(r"(?<![-\w])width:\s*\d+px", css)


def test_the_status_line_says_what_may_be_done(client):
    url = start(client, preset="rummikub", players=2, seat=0, opp1="random")
    tiles = {m["kind"] for m in W.legal_view(play_game(client, url).env)} != {"DrawStock"}
    want = "select a tile of your rack to play it" if tiles else "draw from the pool"
    assert want in text(client.get(url))
    legal = lambda *kinds: [{"kind": k} for k in kinds]  # noqa: E731
    assert W.play_hint(legal("DrawStock", "DrawDiscard")).startswith("draw by clicking the stock")
    assert W.play_hint(legal("DrawDiscard", "Pass")).endswith("(or pass)")
    assert W.play_hint(legal("Buy", "Pass")).startswith("buy the discard")
    assert W.play_hint(legal("Discard", "Meld")).startswith("select cards of your hand")


def test_a_replay_jumps_to_each_round():
    from types import SimpleNamespace

    states = [SimpleNamespace(round=r) for r in (0, 0, 0, 1, 1, 2, 2)]  # the last: game over
    assert W._rounds(states) == [(1, 0), (2, 3), (3, 5)]


# ------------------------------------------------------------------ Canasta
def canasta_hidden(game: W.PlayGame) -> set[str]:
    """The faces held only in hands the person cannot see (his partner's among them): not
    known to be held, and no copy in his hand, on the table, among the red 3s, in the pile
    (all of it was face up), among the pending cards, known to be in any hand (two decks: a
    copy known in one hand while the other is hidden in another) or named in a public
    move."""
    s = game.state
    d = s.to_dict()
    public = {c for known in d["known"] for c in known}
    public |= set(" ".join(t for _, t in game.log).split())
    public |= {card_str(f) for f in s.hand_cards(game.seat)}
    public |= {c for m in d["table"] for c in m["cards"]} | set(d["discard"])
    public |= {c for reds in d["red_threes"] for c in reds} | set(d["pending"])
    out = set()
    for p in range(s.rules.num_players):
        if p != game.seat:
            out |= {card_str(f) for f in s.hand_cards(p)} - set(d["known"][p])
    return out - public


def test_play_a_round_of_canasta_with_a_partner(client):
    """Four players: the person at seat 0 (his moves greedy's choice) with canasta-expert as
    partner at seat 2 against two greedy agents, through the routes to the end of the round:
    the partner is labelled, the table holds both sides, the pile's size, top and frozen
    state, the pending cards; no card of the hidden hands (the partner's included) reaches
    the page or its JSON; the summary gives each side's score part by part."""
    import agents

    url = start(
        client,
        preset="canasta",
        players=4,
        seat=0,
        opp1="greedy",
        opp2="canasta-expert",
        opp3="greedy",
    )
    game = play_game(client, url)
    assert game.names == ["you", "greedy", "canasta-expert", "greedy"]
    me = agents.make("greedy", game.env.rules, 0)
    me.reset(seed=1)
    seen_hidden = kinds = 0
    offered = set()
    for moves in range(3000):
        html = text(client.get(url))
        if game.over:
            break
        s = game.state
        assert "Your turn" in html and str(game.seed) not in html
        assert "(partner)" in html and "(opponent)" in html and 'id="partnership"' in html
        view = page_json(html, "view")
        seats = view["seats"]
        assert [x["side"] for x in seats] == [0, 1, 0, 1]
        assert [x["partner"] for x in seats] == [False, False, True, False]
        assert seats[0]["hand"] == [card_str(f) for f in s.hand_cards(0)]
        for x in seats[1:]:  # the partner's hand too: only its count and the cards known
            assert x["hand"] is None and x["count"] == s.nhand[x["seat"]]
            assert x["known"] == list(W.counts_str(s.known[x["seat"]]))
        c = view["canasta"]
        assert [sd["seats"] for sd in c["sides"]] == [[0, 2], [1, 3]]
        assert [sd["yours"] for sd in c["sides"]] == [True, False] and c["partner"] == 2
        for sd in c["sides"]:
            assert sd["opened"] == bool(s.opened[sd["side"]]) and sd["minimum"] == 50
            assert sd["red_threes"] == [card_str(f) for f in s.red_threes[sd["side"]]]
        assert view["discard"]["count"] == len(s.discard) and c["frozen"] == bool(s.frozen)
        assert c["top"] == (card_str(s.discard[-1]) if s.discard else None)
        assert c["pending"] == list(W.counts_str(s.pending))
        assert [m["side"] for m in view["melds"]] == [m.side for m in s.table]
        for m in view["melds"]:
            n, wild = len(m["cards"]), sum(x == "JK" or x[0] == "2" for x in m["cards"])
            assert m["canasta"] == (None if n < 7 else "mixed" if wild else "natural")
        hidden = canasta_hidden(game)
        seen_hidden += bool(hidden)
        assert '"wild": ["JK"]' in html  # (the same in every game: not counted)
        page = visible_text(html, game).replace('"wild": ["JK"]', "")
        for card in hidden:
            hit = re.search(rf"\b{card}\b", page)
            near = page[hit.start() - 80 : hit.end() + 40] if hit else ""
            assert not hit, f"{card} of a hidden hand is in the page: {near!r}"
        legal = page_json(html, "legal")
        assert {m["id"] for m in legal} == {a for a, _ in game.legal()}
        for m in legal:
            offered.add(m["kind"])
            if m["kind"] == "LayOff":  # onto a meld of the person's side, by its table index
                assert s.table[m["meld"]].side == 0
            if m["kind"] == "TakePile":
                assert m["group"] == "take the pile" and m["words"].startswith(
                    "take the discard pile"
                )
        if moves % 25 == 0:  # the picture: the seat's view
            frame = client.get(f"{url}/table.png")
            assert np.array_equal(pixels(frame.data), draw_table(s, viewer=0))
        obs = game.env.observe(game.env.agent_selection)
        a = int(me.act(obs["observation"], obs["action_mask"]))
        r = client.post(f"{url}/move", data={"action": str(a)})
        assert r.status_code == 303, text(r)
        kinds += 1
    assert game.over and kinds > 5 and seen_hidden > 0
    assert {"DrawStock", "Discard"} <= offered
    summary = game.summaries[-1]
    info = game.state.last_result["info"]
    assert [sd["score"] for sd in summary["sides"]] == info["side_scores"]
    for sd, parts in zip(summary["sides"], info["breakdown"]):
        assert sum(v for _, v in sd["parts"]) == sd["score"] == sum(parts.values())
    assert 'id="side-scores"' in html and "cards left in hand" in html
    for sd in summary["sides"]:
        assert f"<b>{sd['score']}</b>" in html
    assert "side 0: player_0 (you) & player_2 (canasta-expert)" in html
    assert "side 1: player_1 (greedy) & player_3 (greedy)" in html
    assert f"seed {game.seed}" in html  # and now every hand
    assert all(x["hand"] is not None for x in page_json(html, "view")["seats"])


def test_canasta_moves_and_melds_as_the_table_shows_them():
    """Random Canasta games of 2-4 players: every legal action with the hand cards it uses
    (taking the pile with the cards that meld its top card), lay-offs onto the mover's
    side's melds, and the table's melds with their side and canastas."""
    from collections import Counter

    import rummy_env

    kinds = set()
    canastas = set()
    pending = 0
    for players in (2, 3, 4):
        env = rummy_env.raw_env("canasta", num_players=players)
        env.reset(seed=players)
        rng = np.random.default_rng(players)
        for _ in range(1500):
            s = env.state
            if s.phase.name == "GAME_OVER":
                break
            seat = env.agent_name_mapping[env.agent_selection]
            hand = Counter(card_str(f) for f in s.hand_cards(seat))
            got = W.legal_view(env)
            mask = env.observe(env.agent_selection)["action_mask"]
            assert [m["id"] for m in got] == list(np.flatnonzero(mask))
            for m in got:
                kinds.add(m["kind"])
                assert not Counter(m["cards"]) - hand, (m, hand)
                if m["kind"] == "LayOff":
                    assert s.table[m["meld"]].side == W.side_of(s.rules, seat)
            view = W.table_view(s, [], viewer=seat)
            assert view["wild"] == ["JK"]
            assert len(view["canasta"]["sides"]) == (2 if players == 4 else players)
            assert view["canasta"]["pending"] == list(W.counts_str(s.pending))
            pending += any(s.pending)
            for m, tm in zip(view["melds"], s.table):
                assert m["side"] == tm.side and m["cards"] == [card_str(f) for f in tm.cards]
                canastas.add(m["canasta"])
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert {"DrawStock", "TakePile", "Meld", "LayOff", "Discard"} <= kinds
    assert {None, "mixed"} <= canastas and pending > 0


def test_the_play_form_names_the_partner(client):
    html = text(client.get("/play?preset=canasta&players=4"))
    assert page_json(html, "partners") == [4]
    assert option_values(html, "players") == ["2", "3", "4"]
    assert "you play with the agent across the table as your partner" in html
    assert "canasta-expert" in option_values(html, "opp2")
    assert page_json(text(client.get("/play?preset=basic")), "partners") == []
    hint = W.play_hint([{"kind": "DrawStock"}, {"kind": "TakePile"}])
    assert hint.startswith("draw by clicking the stock, or take the whole discard pile")
    assert W.play_hint([{"kind": "TakePile"}, {"kind": "EndRound"}]).endswith(", or end the round")
