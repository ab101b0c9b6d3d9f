"""Model files, and why loading one runs no code.

A model file is data, and a file from somebody else must not be able to run
code on the machine that plays it. Two formats load here, and neither unpickles:

``.npz`` (the shipped models, :func:`agents.ppo_agent.save_numpy_policy`)
    The policy network's weights as numpy arrays plus one ``meta`` entry, a JSON
    string (sizes, activation, input compression, hand features). Read with
    ``numpy.load(allow_pickle=False)``: an array of Python objects is refused.
    Plays without torch.

``.zip`` (what stable-baselines3 / sb3-contrib ``MaskablePPO.save`` writes: the
    trainer's checkpoints, ``best_model.zip``, ``final_model.zip``)
    The weights (``policy.pth``, ``policy.optimizer.pth``) are read by SB3 with
    ``torch.load(weights_only=True)``, which refuses pickled code. The ``data``
    entry is JSON, but SB3 stores some of its values (the policy class, its
    keyword arguments, the spaces, the schedules, the last observation) as
    base64 cloudpickle, which ``MaskablePPO.load`` would unpickle: a crafted file
    runs code there. :func:`load_ppo` never lets it: every pickled value is
    replaced before SB3 sees it (SB3's ``custom_objects``), rebuilt from the
    readable copy SB3 writes beside it and checked against a short allow-list
    (the maskable actor-critic policy or :class:`agents.ppo_net.ResidualPolicy`,
    :class:`agents.ppo_net.RummyFeatures` or
    SB3's flatten extractor, ReLU or Tanh, constant schedules, Box and Discrete
    spaces). A pickled value under any other key is refused with an error
    naming it. So ``ppo:<file>.zip``, ``experiments/eval_ppo.py`` and
    ``rummy-train --resume`` load such files safely, and there is no "trust"
    switch to forget.

A broken file (not a zip, no ``data``, bad JSON, wrong sizes) raises
``ValueError`` naming the file and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import Path
from typing import Any

#: readable class names SB3 writes (``str(cls)``) -> (module, attribute) allowed to stand for them
_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
_BUFFER_MODULE = "sb3_contrib.common.maskable.buffers"
_ACTIVATIONS = {
    "<class 'torch.nn.modules.activation.ReLU'>": "ReLU",
    "<class 'torch.nn.modules.activation.Tanh'>": "Tanh",
}
_EXTRACTORS = {
    "<class 'agents.ppo_net.RummyFeatures'>",
    "<class 'stable_baselines3.common.torch_layers.FlattenExtractor'>",
}
#: values SB3 rebuilds by itself when they are None (the rollout state of the last run)
_RESET = (
    "_last_obs",
    "_last_episode_starts",
    "_last_original_obs",
    "ep_info_buffer",
    "ep_success_buffer",
)
_CONSTANT = re.compile(r"^ConstantSchedule\(val=([-+0-9.eE]+|inf|nan)\)$")


def file_digest(path: str | Path) -> str:
    """``sha256:`` and the first 16 hex digits of the file's SHA-256 (a model file's
    ``content_id``: a tournament store never reuses games of other weights at one path);
    ``""`` when there is no such file (the agent's constructor reports it)."""
    path = Path(path)
    if not path.is_file():
        return ""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()[:16]


def read_sb3_data(path: str | Path) -> dict[str, Any]:
    """The ``data`` entry of an SB3 model zip as plain JSON (nothing unpickled).

    Raises:
        ValueError: the file is missing, not a zip, or not an SB3 model.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"model file {str(path)!r} does not exist or is not a file")
    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"model file {str(path)!r} is not a zip archive (an SB3 model .zip, "
            f"or a .npz policy, is expected)"
        )
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            missing = {"data", "policy.pth"} - names
            if missing:
                raise ValueError(
                    f"model file {str(path)!r} is not a stable-baselines3 model: "
                    f"it lacks {', '.join(sorted(missing))}"
                )
            raw = z.read("data")
    except zipfile.BadZipFile as e:
        raise ValueError(f"model file {str(path)!r} is a broken zip archive: {e}") from None
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"model file {str(path)!r}: its 'data' entry is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"model file {str(path)!r}: its 'data' entry is not a JSON object")
    return data


def _pickled(value: Any) -> bool:
    return isinstance(value, dict) and ":serialized:" in value


def model_sizes(data: dict[str, Any], path: str | Path = "?") -> tuple[int, int]:
    """(observation size, number of actions) from the readable part of ``data``."""
    try:
        obs = data["observation_space"]
        act = data["action_space"]
        shape = obs["_shape"] if isinstance(obs, dict) else None
        if (
            obs.get(":type:") != "<class 'gymnasium.spaces.box.Box'>"
            or not isinstance(shape, list)
            or len(shape) != 1
        ):
            raise ValueError("the observation space is not a flat Box")
        if act.get(":type:") != "<class 'gymnasium.spaces.discrete.Discrete'>":
            raise ValueError("the action space is not Discrete")
        return int(shape[0]), int(act["n"])
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise ValueError(f"model file {str(path)!r}: cannot read its spaces ({e})") from None


def _schedule(readable: dict[str, Any]):
    from stable_baselines3.common.utils import ConstantSchedule, FloatSchedule

    m = _CONSTANT.match(str(readable.get("value_schedule", "")))
    if (
        m is None
    ):  # an annealed schedule (a function): only its current value is known; 0 is safe for play
        return FloatSchedule(ConstantSchedule(0.0))
    return FloatSchedule(ConstantSchedule(float(m.group(1))))


def _policy_kwargs(readable: dict[str, Any], path: str | Path) -> dict[str, Any]:
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    from agents.ppo_net import RummyFeatures

    out: dict[str, Any] = {}
    for k, v in readable.items():
        if k in (":type:", ":serialized:"):
            continue
        if k == "activation_fn":
            if v not in _ACTIVATIONS:
                raise ValueError(
                    f"model file {str(path)!r}: activation {v!r} is not allowed "
                    f"(allowed: {', '.join(_ACTIVATIONS)})"
                )
            out[k] = getattr(nn, _ACTIVATIONS[v])
        elif k == "features_extractor_class":
            if v not in _EXTRACTORS:
                raise ValueError(
                    f"model file {str(path)!r}: features extractor {v!r} is not allowed "
                    f"(allowed: {', '.join(sorted(_EXTRACTORS))})"
                )
            out[k] = RummyFeatures if "RummyFeatures" in v else FlattenExtractor
        elif isinstance(v, (dict, list, int, float, bool)) or v is None:
            out[k] = v  # plain JSON (net_arch, features_extractor_kwargs, ...)
        else:
            raise ValueError(
                f"model file {str(path)!r}: policy option {k!r} = {v!r} is not plain data"
            )
    return out


def safe_custom_objects(
    data: dict[str, Any],
    path: str | Path = "?",
    observation_space: Any = None,
    action_space: Any = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """SB3 ``custom_objects`` that replace every pickled value of ``data`` (module docs).

    ``observation_space``/``action_space``: the spaces to use (an env's, so that
    SB3's space check passes); by default rebuilt from the readable shapes.
    ``overrides`` come first (a trainer's own schedules, say).

    Raises:
        ValueError: a pickled value under a key not on the allow-list, or one whose
            readable copy names a class not allowed.
    """
    import numpy as np
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    custom: dict[str, Any] = dict(overrides or {})
    n_obs, n_act = model_sizes(data, path)
    for key, value in data.items():
        if key in custom or not _pickled(value):
            continue
        if key == "observation_space":
            custom[key] = (
                observation_space
                if observation_space is not None
                else spaces.Box(-np.inf, np.inf, (n_obs,), np.float32)
            )
        elif key == "action_space":
            custom[key] = action_space if action_space is not None else spaces.Discrete(n_act)
        elif key == "policy_class":
            module = value.get("__module__")
            if module == _POLICY_MODULE:
                custom[key] = MaskableActorCriticPolicy
            elif module == "agents.ppo_net":
                from agents.ppo_net import ResidualPolicy

                custom[key] = ResidualPolicy
            else:
                raise ValueError(
                    f"model file {str(path)!r}: policy class from {module!r} is not allowed "
                    f"(allowed: MaskableActorCriticPolicy of {_POLICY_MODULE}, "
                    f"agents.ppo_net.ResidualPolicy)"
                )
        elif key == "rollout_buffer_class":
            if value.get("__module__") != _BUFFER_MODULE:
                raise ValueError(
                    f"model file {str(path)!r}: rollout buffer from {value.get('__module__')!r} "
                    f"is not allowed (allowed: {_BUFFER_MODULE})"
                )
            custom[key] = MaskableRolloutBuffer
        elif key == "policy_kwargs":
            custom[key] = _policy_kwargs(value, path)
        elif key in ("lr_schedule", "clip_range", "clip_range_vf"):
            custom[key] = _schedule(value)
        elif key == "learning_rate":
            custom[key] = 0.0
        elif key in _RESET:
            custom[key] = None
        else:
            raise ValueError(
                f"model file {str(path)!r}: entry {key!r} holds a pickled object "
                f"({value.get(':type:', '?')}), which is refused: pickles can run code"
            )
    return custom


def load_ppo(
    path: str | Path, env: Any = None, device: str = "cpu", overrides: dict[str, Any] | None = None
):
    """``MaskablePPO.load`` with nothing unpickled (module docs); ``env`` as SB3's.

    Raises:
        ValueError: a broken or refused file, or one whose spaces do not fit ``env``.
    """
    from sb3_contrib import MaskablePPO

    data = read_sb3_data(path)
    if env is not None:
        n_obs, n_act = model_sizes(data, path)
        e_obs, e_act = int(env.observation_space.shape[0]), int(env.action_space.n)
        if (n_obs, n_act) != (e_obs, e_act):
            raise ValueError(
                f"model file {str(path)!r} was trained for observations of {n_obs} and "
                f"{n_act} actions, but the env has {e_obs} and {e_act}"
            )
    custom = safe_custom_objects(
        data,
        path,
        observation_space=getattr(env, "observation_space", None),
        action_space=getattr(env, "action_space", None),
        overrides=overrides,
    )
    try:
        return MaskablePPO.load(path, env=env, device=device, custom_objects=custom)
    except ValueError:
        raise
    except Exception as e:  # a corrupt weight file, mismatched tensors, ...
        raise ValueError(
            f"model file {str(path)!r} could not be loaded: {type(e).__name__}: {e}"
        ) from None
