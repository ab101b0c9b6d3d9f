"""Model files for the tests of loading them: a genuine tiny SB3 model, and a pickle that runs
code when unpickled (what a malicious model or checkpoint file carries; tests plant it where
a loader might unpickle it and check that its ``marker`` file never appears)."""

from __future__ import annotations

import base64
import pickle
from pathlib import Path


class Payload:
    """Unpickling this writes ``marker`` (what a malicious model file would do)."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "code ran"))


def payload_b64(marker: Path) -> str:
    """The pickled :class:`Payload`, base64 (as SB3 stores its pickled values)."""
    return base64.b64encode(pickle.dumps(Payload(marker))).decode()


def tiny_sb3_model(path: Path) -> Path:
    """Save a genuine (untrained, tiny) MaskablePPO model of the basic 2-player wrapper env."""
    from sb3_contrib import MaskablePPO

    from rummy_env.wrappers import RummySingleAgentEnv

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
