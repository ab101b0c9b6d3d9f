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

Every loader reads a model file through :func:`open_model`, once: only a regular
file is opened (a FIFO or a device under a model's name is refused before
anything is read, so it cannot block the reader), at most
:data:`MAX_FILE_BYTES`, and what is loaded is exactly the bytes that
:attr:`ModelFile.digest` names. A ``.npz`` is read by :func:`read_npz`, which
checks the size every array declares in its header against the bytes the
archive holds for it and against :data:`MAX_ARRAY_BYTES` before reading any
array. Loaded weights must be finite and at most :data:`MAX_WEIGHT` in
magnitude (:func:`check_weights`): a network with NaN, infinite or huge
weights would give NaN outputs and no move.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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


#: the largest model file read (bytes on disk)
MAX_FILE_BYTES = 1 << 30
#: the most bytes the arrays of one model file may declare (checked before any is read)
MAX_ARRAY_BYTES = 512 << 20
#: the largest weight magnitude loaded: trained weights are far smaller, and larger ones
#: overflow float32 activations to inf/NaN within a few layers
MAX_WEIGHT = 1e6
#: the entries an SB3 model zip may hold (``MaskablePPO.save``); any other is refused
SB3_ENTRIES = frozenset(
    {
        "data",
        "policy.pth",
        "policy.optimizer.pth",
        "pytorch_variables.pth",
        "_stable_baselines3_version",
        "system_info.txt",
    }
)


@dataclass(frozen=True)
class ModelFile:
    """A model file read once: the path it was read from and its bytes."""

    path: Path
    data: bytes = field(repr=False)

    @property
    def digest(self) -> str:
        """``sha256:`` and the first 16 hex digits of the bytes' SHA-256."""
        return "sha256:" + hashlib.sha256(self.data).hexdigest()[:16]

    def stream(self) -> io.BytesIO:
        return io.BytesIO(self.data)

    def __str__(self) -> str:
        return str(self.path)


def open_model(
    model: str | Path | ModelFile, what: str = "model file", max_bytes: int = MAX_FILE_BYTES
) -> ModelFile:
    """Read a model file once (a :class:`ModelFile` is returned as it is).

    The file is opened without blocking and must be a regular file: a FIFO, a
    device or a directory is refused before anything is read from it.

    Raises:
        ValueError: no such file, not a regular file, unreadable, or over ``max_bytes``.
    """
    if isinstance(model, ModelFile):
        return model
    path = Path(model)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ValueError(f"{what} {str(path)!r} does not exist") from None
    except OSError as e:
        raise ValueError(f"{what} {str(path)!r} cannot be opened ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise ValueError(f"{what} {str(path)!r} is {kind}; a model file is expected")
        if st.st_size > max_bytes:
            raise ValueError(
                f"{what} {str(path)!r} has {st.st_size} bytes, more than the {max_bytes} allowed"
            )
        chunks, size = [], 0
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                break
            size += len(block)
            if size > max_bytes:
                raise ValueError(f"{what} {str(path)!r} grew past the {max_bytes} bytes allowed")
            chunks.append(block)
    except OSError as e:
        raise ValueError(f"{what} {str(path)!r} cannot be read ({e.strerror})") from None
    finally:
        os.close(fd)
    return ModelFile(path, b"".join(chunks))


def file_digest(path: str | Path) -> str:
    """``sha256:`` and the first 16 hex digits of the file's SHA-256 (a model file's
    ``content_id``: a tournament store never reuses games of other weights at one path);
    ``""`` when there is no such regular file (the agent's constructor reports it)."""
    try:
        return open_model(path).digest
    except ValueError:
        return ""


def _zip_of(model: ModelFile, kind: str) -> zipfile.ZipFile:
    """The archive of ``model``, its members' declared sizes within :data:`MAX_ARRAY_BYTES`."""
    if model.data.startswith(b"\x93NUMPY"):
        raise ValueError(f"model file {str(model)!r} is a single .npy array, not a {kind}")
    try:
        z = zipfile.ZipFile(model.stream())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        raise ValueError(f"model file {str(model)!r} is not a zip archive (a {kind})") from None
    infos = z.infolist()
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise ValueError(f"model file {str(model)!r} names an entry twice")
    total = sum(i.file_size for i in infos)
    if total > MAX_ARRAY_BYTES:
        raise ValueError(
            f"model file {str(model)!r} declares {total} bytes of content, more than the "
            f"{MAX_ARRAY_BYTES} allowed"
        )
    return z


def _npy_header(fh: Any) -> tuple[tuple[int, ...], np.dtype, int]:
    """(shape, dtype, header length) of a ``.npy`` stream, reading the header only."""
    fmt = np.lib.format
    version = fmt.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = fmt.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, _, dtype = fmt.read_array_header_2_0(fh)
    else:
        raise ValueError(f"npy format version {version} is not supported")
    return shape, dtype, fh.tell()


def read_npz(model: str | Path | ModelFile) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` model file, by name: no pickles, and every array's declared
    size checked before it is read (module docs).

    Raises:
        ValueError: naming the file and the problem.
    """
    model = open_model(model)
    z = _zip_of(model, ".npz archive of arrays")
    out: dict[str, np.ndarray] = {}
    with z:
        try:
            for info in z.infolist():
                name = info.filename
                if not name.endswith(".npy"):
                    raise ValueError(f"entry {name!r} is not a .npy array")
                with z.open(info) as fh:
                    shape, dtype, header = _npy_header(fh)
                    if dtype.hasobject:
                        raise ValueError(
                            f"array {name[:-4]!r} holds Python objects (pickles), which are refused"
                        )
                    declared = math.prod(shape) * dtype.itemsize
                    if declared != info.file_size - header:
                        raise ValueError(
                            f"array {name[:-4]!r} declares shape {shape} of {dtype} "
                            f"({declared} bytes) but the archive holds {info.file_size - header}"
                        )
                with z.open(info) as fh:
                    out[name[:-4]] = np.lib.format.read_array(fh, allow_pickle=False)
        except ValueError as e:
            raise ValueError(f"model file {str(model)!r}: {e}") from None
        except (OSError, EOFError, zipfile.BadZipFile, RuntimeError) as e:
            raise ValueError(
                f"model file {str(model)!r} is a broken archive ({type(e).__name__}: {e})"
            ) from None
    return out


def sparse_layer(x: np.ndarray, w_t: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ w_t + b`` (``w_t``: a row per input) over ``x``'s non-zero entries only: a
    network's input of one-hot cards is mostly zeros, and gathering the rows of the few
    that are not costs a fraction of the whole product."""
    on = np.flatnonzero(x)
    return x[on] @ w_t[on] + b


def check_weights(arrays: dict[str, Any], model: Any) -> None:
    """Every floating-point array of ``arrays`` finite and at most :data:`MAX_WEIGHT` in
    magnitude.

    Raises:
        ValueError: naming ``model`` (the file), the array and what is wrong with it.
    """
    for name, a in arrays.items():
        a = np.asarray(a)
        if a.dtype.kind not in "fc" or not a.size:
            continue
        if not np.all(np.isfinite(a)):
            bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
            raise ValueError(
                f"model file {str(model)!r}: weights {name!r} hold {bad} value(s) that are NaN "
                f"or infinite; a model's weights must be finite"
            )
        top = float(np.max(np.abs(a)))
        if top > MAX_WEIGHT:
            raise ValueError(
                f"model file {str(model)!r}: weights {name!r} reach magnitude {top:.3g}, more "
                f"than the {MAX_WEIGHT:g} allowed (outputs would overflow to inf/NaN)"
            )


def read_sb3_data(path: str | Path | ModelFile) -> dict[str, Any]:
    """The ``data`` entry of an SB3 model zip as plain JSON (nothing unpickled).

    Raises:
        ValueError: the file is missing, not a zip, not an SB3 model, or holds an entry
            other than :data:`SB3_ENTRIES`.
    """
    model = open_model(path)
    try:
        with _zip_of(model, "an SB3 model .zip, or a .npz policy") as z:
            names = set(z.namelist())
            missing = {"data", "policy.pth"} - names
            if missing:
                raise ValueError(
                    f"model file {str(model)!r} is not a stable-baselines3 model: "
                    f"it lacks {', '.join(sorted(missing))}"
                )
            extra = names - SB3_ENTRIES
            if extra:
                raise ValueError(
                    f"model file {str(model)!r} holds unexpected entries "
                    f"{', '.join(map(repr, sorted(extra)))}, which are refused "
                    f"(allowed: {', '.join(sorted(SB3_ENTRIES))})"
                )
            raw = z.read("data")
    except zipfile.BadZipFile as e:
        raise ValueError(f"model file {str(model)!r} is a broken zip archive: {e}") from None
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"model file {str(model)!r}: its 'data' entry is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"model file {str(model)!r}: its 'data' entry is not a JSON object")
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
    path: str | Path | ModelFile,
    env: Any = None,
    device: str = "cpu",
    overrides: dict[str, Any] | None = None,
):
    """``MaskablePPO.load`` with nothing unpickled (module docs); ``env`` as SB3's. The
    model is loaded from the bytes :func:`open_model` read; its weights are checked
    (:func:`check_weights`).

    Raises:
        ValueError: a broken or refused file, or one whose spaces do not fit ``env``.
    """
    from sb3_contrib import MaskablePPO

    model = open_model(path)
    data = read_sb3_data(model)
    if env is not None:
        n_obs, n_act = model_sizes(data, model)
        e_obs, e_act = int(env.observation_space.shape[0]), int(env.action_space.n)
        if (n_obs, n_act) != (e_obs, e_act):
            raise ValueError(
                f"model file {str(model)!r} was trained for observations of {n_obs} and "
                f"{n_act} actions, but the env has {e_obs} and {e_act}"
            )
    custom = safe_custom_objects(
        data,
        model,
        observation_space=getattr(env, "observation_space", None),
        action_space=getattr(env, "action_space", None),
        overrides=overrides,
    )
    try:
        ppo = MaskablePPO.load(model.stream(), env=env, device=device, custom_objects=custom)
    except ValueError:
        raise
    except Exception as e:  # a corrupt weight file, mismatched tensors, ...
        first = (str(e).strip().splitlines() or [""])[0]  # torch's messages run to many lines
        raise ValueError(
            f"model file {str(model)!r} could not be loaded: {type(e).__name__}: {first}"
        ) from None
    check_weights({k: v.detach().cpu().numpy() for k, v in ppo.policy.state_dict().items()}, model)
    return ppo
