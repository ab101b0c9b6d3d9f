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

ROOT = Path(__file__).resolve().parents[1]


class Payload:
    """Unpickling this writes ``marker`` (what a malicious model file would do)."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "code ran"))


def payload_b64(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(Payload(marker))).decode()


@pytest.fixture(scope="module")
def clean_zip(tmp_path_factory) -> Path:
    """A genuine (untrained, tiny) MaskablePPO model of the basic 2-player wrapper env."""
    from sb3_contrib import MaskablePPO

    from rummy_env.wrappers import RummySingleAgentEnv

    path = tmp_path_factory.mktemp("models") / "clean.zip"
    model = MaskablePPO(
        "MlpPolicy",
        RummySingleAgentEnv(opponents="random"),
        n_steps=8,
        batch_size=8,
        policy_kwargs={"net_arch": [8]},
        device="cpu",
    )
    model.save(path)
    return path


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
    for f in trained.glob("*.npz"):
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
