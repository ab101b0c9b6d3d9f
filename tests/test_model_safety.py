"""Loading a model file runs no code (issue 16.1; agents/model_io.py).

Each attack file carries a pickle whose ``__reduce__`` writes a marker file when
unpickled. Before agents.model_io, ``agents.make("ppo:evil.zip")`` (through
``MaskablePPO.load``) ran it; now every way of loading a model either ignores
the pickle or refuses the file, and the marker never appears.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
import rummy_env  # noqa: E402
from agents.model_io import load_ppo  # noqa: E402
from tests.model_files import Payload, payload_b64, tiny_sb3_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def clean_zip(tmp_path_factory) -> Path:
    """A genuine (untrained, tiny) MaskablePPO model of the basic 2-player wrapper env."""
    return tiny_sb3_model(tmp_path_factory.mktemp("models") / "clean.zip")


def rewrite(src: Path, dst: Path, edit_data=None, replace: dict[str, bytes] | None = None) -> Path:
    """Copy the zip ``src`` to ``dst``, editing the JSON ``data`` entry and replacing entries."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            raw = zin.read(name)
            if name == "data" and edit_data is not None:
                d = json.loads(raw)
                edit_data(d)
                raw = json.dumps(d).encode()
            if replace and name in replace:
                raw = replace[name]
            zout.writestr(name, raw)
    return dst


def test_the_payload_runs_under_plain_unpickling(tmp_path):
    """The attack is real: unpickled the ordinary way, it writes the marker."""
    marker = tmp_path / "pwned"
    pickle.loads(base64.b64decode(payload_b64(marker)))
    assert marker.exists()


@pytest.mark.parametrize(
    "key",
    [
        "policy_class",
        "policy_kwargs",
        "observation_space",
        "lr_schedule",
        "_last_obs",
        "ep_info_buffer",
    ],
)
def test_a_payload_in_a_known_entry_is_never_unpickled(clean_zip, tmp_path, key):
    marker = tmp_path / "pwned"

    def edit(d):
        entry = d[key] if isinstance(d[key], dict) else {":type:": "<class 'numpy.ndarray'>"}
        entry[":serialized:"] = payload_b64(marker)
        d[key] = entry

    evil = rewrite(clean_zip, tmp_path / "evil.zip", edit)
    rules = rummy_env.make_rules("basic", 2)
    bot = agents.make(f"ppo:{evil}", rules, 0)  # plays: the pickle was replaced, not run
    env = rummy_env.raw_env("basic", 2)
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["action_mask"][bot.act(obs["observation"], obs["action_mask"])]
    assert not marker.exists()


def test_a_payload_under_an_unknown_key_is_refused(clean_zip, tmp_path):
    marker = tmp_path / "pwned"

    def edit(d):
        d["backdoor"] = {":type:": "<class 'builtins.object'>", ":serialized:": payload_b64(marker)}

    evil = rewrite(clean_zip, tmp_path / "evil.zip", edit)
    with pytest.raises(ValueError, match="'backdoor' holds a pickled object"):
        agents.make(f"ppo:{evil}", rummy_env.make_rules("basic", 2))
    with pytest.raises(ValueError, match="backdoor"):
        load_ppo(evil)
    from experiments.eval_ppo import load_player

    with pytest.raises(ValueError, match="backdoor"):
        load_player(evil)
    assert not marker.exists()


def test_a_disallowed_class_name_is_refused(clean_zip, tmp_path):
    def edit(d):
        d["policy_kwargs"] = {
            ":type:": "<class 'dict'>",
            ":serialized:": payload_b64(tmp_path / "pwned"),
            "net_arch": [8],
            "activation_fn": "<class 'os.system'>",
        }

    evil = rewrite(clean_zip, tmp_path / "evil.zip", edit)
    with pytest.raises(ValueError, match="activation .* is not allowed"):
        load_ppo(evil)


def test_a_pickle_in_the_weights_is_refused(clean_zip, tmp_path):
    """``policy.pth`` is a torch pickle: SB3 reads it with ``weights_only=True``, which refuses code."""
    marker = tmp_path / "pwned"
    buf = io.BytesIO()
    import torch

    torch.save({"x": Payload(marker)}, buf)
    evil = rewrite(clean_zip, tmp_path / "evil.zip", replace={"policy.pth": buf.getvalue()})
    with pytest.raises(ValueError, match="could not be loaded"):
        agents.make(f"ppo:{evil}", rummy_env.make_rules("basic", 2))
    assert not marker.exists()


def test_an_npz_with_pickled_objects_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.npz"
    np.savez(
        evil,
        meta=np.array(json.dumps({"obs_size": 1})),
        w0=np.array([Payload(marker)], dtype=object),
    )
    with pytest.raises(ValueError, match="not a valid .npz policy"):
        agents.make(f"ppo:{evil}", rummy_env.make_rules("basic", 2))
    assert not marker.exists()


@pytest.mark.parametrize("content", [b"", b"not a zip at all", b"PK\x03\x04broken"])
def test_empty_or_broken_model_files_give_clear_errors(tmp_path, content):
    rules = rummy_env.make_rules("basic", 2)
    for suffix, msg in ((".zip", "model file"), (".npz", "not a valid .npz policy")):
        path = tmp_path / f"m{suffix}"
        path.write_bytes(content)
        with pytest.raises(ValueError, match=msg):
            agents.make(f"ppo:{path}", rules)


def test_a_zip_that_is_not_a_model(tmp_path):
    path = tmp_path / "m.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(ValueError, match="not a stable-baselines3 model"):
        agents.make(f"ppo:{path}", rummy_env.make_rules("basic", 2))


@pytest.mark.parametrize("card", ["{not json", "[1, 2]", '{"preset": 3}'])
def test_a_malformed_model_card_gives_a_clear_error(tmp_path, card):
    model = tmp_path / "m.npz"
    model.write_bytes((ROOT / "agents" / "trained" / "basic-2p.npz").read_bytes())
    model.with_suffix(".json").write_text(card)
    with pytest.raises(ValueError, match="model card"):
        agents.make(f"ppo:{model}", rummy_env.make_rules("basic", 2))


def test_shipped_models_are_npz_policies():
    """The package ships weights and JSON only: no SB3 zip (with its pickles) in agents/trained."""
    trained = ROOT / "agents" / "trained"
    assert not list(trained.glob("*.zip"))
    for f in trained.rglob("*.npz"):  # ppo, es and neural models
        with np.load(f, allow_pickle=False) as z:
            assert "meta" in z.files
            json.loads(str(z["meta"]))


@pytest.mark.slow
def test_tournament_with_an_evil_model_runs_no_code(clean_zip, tmp_path):
    """``rummy-tournament --agents ppo:evil.zip``: the parent and every worker load it safely."""
    marker = tmp_path / "pwned"

    def edit(d):
        d["policy_class"][":serialized:"] = payload_b64(marker)

    evil = rewrite(clean_zip, tmp_path / "evil.zip", edit)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.tournament",
            "--preset",
            "basic",
            "--players",
            "2",
            "--agents",
            f"random,ppo:{evil}",
            "--deals",
            "2",
            "--workers",
            "2",
            "--db",
            str(tmp_path / "t.sqlite"),
            "--out",
            str(tmp_path / "out"),
            "--no-plots",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert not marker.exists()


# ------------------------------------------------------------------ weights, shapes, files
SHIPPED = ROOT / "agents" / "trained" / "basic-2p.npz"
BASIC2 = rummy_env.make_rules("basic", 2)


def shipped_arrays() -> dict[str, np.ndarray]:
    with np.load(SHIPPED, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    np.savez(path, **arrays)
    return path


def _nan_w0(a):
    a["w0"] = np.full_like(a["w0"], np.nan)


def _inf_bias(a):
    a["b2"] = a["b2"].copy()
    a["b2"][0] = np.inf


def _times_1e30(a):
    for k in a:
        if k.startswith(("w", "b")):
            a[k] = a[k] * np.float32(1e30)


@pytest.mark.parametrize(
    "edit, problem",
    [(_nan_w0, "NaN or infinite"), (_inf_bias, "NaN or infinite"), (_times_1e30, "magnitude")],
    ids=["all-nan-weights", "inf-bias", "weights-x1e30"],
)
def test_npz_policies_with_weights_that_give_no_move_are_refused(tmp_path, edit, problem):
    arrays = shipped_arrays()
    edit(arrays)
    bad = save_npz(tmp_path / "bad.npz", arrays)
    with pytest.raises(ValueError, match=f"bad.npz.*{problem}"):
        agents.make(f"ppo:{bad}", BASIC2)


def test_an_sb3_zip_with_nan_weights_is_refused(clean_zip, tmp_path):
    import torch

    with zipfile.ZipFile(clean_zip) as z:
        sd = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    key = next(k for k in sd if k.endswith("weight"))
    sd[key] = torch.full_like(sd[key], float("nan"))
    buf = io.BytesIO()
    torch.save(sd, buf)
    bad = rewrite(clean_zip, tmp_path / "nan.zip", replace={"policy.pth": buf.getvalue()})
    with pytest.raises(ValueError, match="nan.zip.*NaN or infinite"):
        agents.make(f"ppo:{bad}", BASIC2)


@pytest.mark.parametrize("entry", ["policy.pt", "evil.pkl"])
def test_an_sb3_zip_with_an_unexpected_entry_is_refused(clean_zip, tmp_path, entry):
    marker = tmp_path / "pwned"
    with zipfile.ZipFile(tmp_path / "evil.zip", "w") as zout, zipfile.ZipFile(clean_zip) as zin:
        for name in zin.namelist():
            zout.writestr(name, zin.read(name))
        zout.writestr(entry, pickle.dumps(Payload(marker)))
    with pytest.raises(ValueError, match=f"unexpected entries '{entry}'"):
        load_ppo(tmp_path / "evil.zip")
    assert not marker.exists()


def test_layers_that_do_not_chain_are_refused_at_load(tmp_path):
    arrays = shipped_arrays()
    arrays["w1"] = arrays["w1"][:, :100]
    bad = save_npz(tmp_path / "chain.npz", arrays)
    with pytest.raises(ValueError, match=r"chain.npz.*layer 1: weights \(256, 100\)"):
        agents.make(f"ppo:{bad}", BASIC2)
    arrays = shipped_arrays()
    arrays["w2"], arrays["b2"] = arrays["w2"][:10], arrays["b2"][:10]
    bad = save_npz(tmp_path / "out.npz", arrays)
    with pytest.raises(ValueError, match="out.npz.*gives 10 outputs, not 1267"):
        agents.make(f"ppo:{bad}", BASIC2)


def _npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def test_an_npz_declaring_a_huge_array_is_refused_before_reading(tmp_path):
    """An 11 MB file declaring a 6 GiB array: refused from its header, nothing allocated."""
    bad = tmp_path / "huge.npz"
    with zipfile.ZipFile(bad, "w") as z:
        buf = io.BytesIO()
        np.save(buf, np.array(json.dumps({"obs_size": 4284})))
        z.writestr("meta.npy", buf.getvalue())
        z.writestr("w0.npy", _npy_header(((6 << 30) // 4,)) + bytes(11 << 20))
    with pytest.raises(ValueError, match=r"huge.npz.*'w0' declares shape \(1610612736,\)"):
        agents.make(f"ppo:{bad}", BASIC2)
    with pytest.raises(ValueError, match="huge.npz.*'w0' declares"):
        agents.make(f"rllib:{bad}", BASIC2)


def test_an_npz_over_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    from agents import model_io

    monkeypatch.setattr(model_io, "MAX_ARRAY_BYTES", 1 << 20)
    big = save_npz(tmp_path / "big.npz", {"w0": np.zeros(1 << 19, np.float32)})
    with pytest.raises(ValueError, match="big.npz.*declares 2097.* bytes of content, more than"):
        model_io.read_npz(big)


def test_a_fifo_named_like_a_model_is_refused_without_blocking(tmp_path):
    """Opening a FIFO for reading blocks until a writer comes: each loader refuses it first."""
    code = (
        "import os, sys, agents, rummy_env\n"
        "rules = rummy_env.make_rules('basic', 2)\n"
        "d = sys.argv[1]\n"
        "for spec in ('ppo:x.npz', 'ppo:x.zip', 'es:x.npz', 'rllib:x.npz'):\n"
        "    name = spec.split(':')[1]\n"
        "    os.mkfifo(os.path.join(d, name)) if not os.path.exists(os.path.join(d, name)) else None\n"
        "    try:\n"
        "        agents.make(spec.replace(name, os.path.join(d, name)), rules)\n"
        "    except ValueError as e:\n"
        "        print(spec, e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4 and all("is not a regular file" in line for line in lines), lines


def test_a_fifo_beside_a_model_as_its_card_is_refused(tmp_path):
    model = tmp_path / "m.npz"
    model.write_bytes(SHIPPED.read_bytes())
    os.mkfifo(tmp_path / "m.json")
    with pytest.raises(ValueError, match="model card .*m.json.* is not a regular file"):
        agents.make(f"ppo:{model}", BASIC2)


@pytest.mark.parametrize("kind", ["ppo", "es", "rllib"])
def test_an_npy_saved_as_npz_and_a_missing_file_give_value_errors(tmp_path, kind):
    npy = tmp_path / "a.npz"
    with open(npy, "wb") as fh:
        np.save(fh, np.zeros(3))
    with pytest.raises(ValueError, match="a.npz.* is a single .npy array, not a .npz"):
        agents.make(f"{kind}:{npy}", BASIC2)
    with pytest.raises(ValueError, match="none.npz.* does not exist|no model file .*none.npz"):
        agents.make(f"{kind}:{tmp_path / 'none.npz'}", BASIC2)


def test_rllib_policies_must_fit_the_preset(tmp_path):
    meta = np.array(json.dumps({"preset": "basic", "num_players": 2, "layers": 2}))
    n_obs = rummy_env.raw_env("basic", 2).observation_space("player_0")["observation"].shape[0]
    good = {"w0": np.zeros((4, n_obs), np.float32), "b0": np.zeros(4, np.float32)}
    wrong_in = {**good, "w0": np.zeros((4, 7), np.float32)}
    for arrays, msg in [
        ({**good, "w1": np.zeros((5, 4), np.float32), "b1": np.zeros(5, np.float32)}, "5 outputs"),
        (
            {**wrong_in, "w1": np.zeros((5, 4), np.float32), "b1": np.zeros(5, np.float32)},
            r"layer 0 has weights \(4, 7\)",
        ),
        (
            {
                **good,
                "w1": np.full((1267, 4), np.nan, np.float32),
                "b1": np.zeros(1267, np.float32),
            },
            "NaN or infinite",
        ),
    ]:
        bad = save_npz(tmp_path / "p.npz", {"meta": meta, **arrays})
        with pytest.raises(ValueError, match=msg):
            agents.make(f"rllib:{bad}", BASIC2)


@pytest.mark.parametrize("spec", ["ppo:basic-2p", "rllib:{p}"])
def test_deterministic_takes_true_or_false_only(tmp_path, spec):
    with pytest.raises(ValueError, match="deterministic='maybe' is not allowed .*true, false"):
        agents.make(f"{spec.format(p=tmp_path / 'x.npz')}:deterministic=maybe", BASIC2)
