"""`ppo:<model>`: a trained MaskablePPO policy (offline, CPU).

```python
import agents, rummy_env
rules = rummy_env.make_rules("basic", num_players=2)
bot = agents.make("ppo:basic-2p", rules, seat=0)      # agents/trained/basic-2p.npz
bot = agents.make("ppo:runs/x/final_model.zip", rules)  # any model file
action = bot.act(obs["observation"], obs["action_mask"])
```

Strategy: whatever the network learned (``experiments/train_ppo.py``; the model
card is ``agents/trained/README.md``). By default it plays the most probable
legal move, ``MaskablePPO.predict(obs, action_masks=mask, deterministic=True)``;
``deterministic=False`` samples from the masked policy with the agent's own
seeded RNG.

Model files (:mod:`agents.model_io`; loading one never runs code): the shipped
models are ``.npz`` policies (numpy weights plus JSON metadata, read with
``allow_pickle=False``), played in numpy without torch. A ``.zip`` written by
the trainer (``runs/<run>/final_model.zip``, a checkpoint) loads through
:func:`agents.model_io.load_ppo`, which refuses every pickle in it.

Backends: ``"numpy"`` (default; the only one for ``.npz``) runs the policy
network in numpy on the sparse observation (several times faster per decision
than torch, which tournaments and the self-play pool use). ``"torch"`` (a
``.zip`` only) calls sb3-contrib's ``predict``: the same moves. Self-play
snapshots are ``.npz`` files (:func:`save_numpy_policy`, :class:`PolicySnapshot`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, check_flag, split_obs
from agents.features import make_features
from agents.model_io import ModelFile, sparse_layer
from rummy_env.moves import Layout
from rummy_env.observation import ObsLayout
from rummy_env.rules import RuleSet

TRAINED_DIR = Path(__file__).resolve().parent / "trained"


def model_path(model: str | Path) -> Path:
    """The file of a model name (``"basic-2p"`` -> ``agents/trained/basic-2p.npz``) or path."""
    p = Path(model)
    if p.suffix in (".zip", ".npz") or len(p.parts) > 1:
        return p
    return TRAINED_DIR / f"{model}.npz"


def trained_models() -> list[str]:
    """Names of the shipped models (``agents/trained/*.npz``)."""
    return sorted(p.stem for p in TRAINED_DIR.glob("*.npz"))


def read_card(path: str | Path) -> dict[str, Any]:
    """The JSON card beside a model file (``x.npz`` -> ``x.json``); ``{}`` when there is none.

    Raises:
        ValueError: the card is not a JSON object, or its ``preset`` / ``num_players`` are malformed.
    """
    from agents.model_io import open_model

    card = Path(path).with_suffix(".json")
    if not card.exists():
        return {}
    try:
        data = json.loads(open_model(card, "model card", 1 << 20).data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"model card {str(card)!r} is not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(
            f"model card {str(card)!r} must be a JSON object, not {type(data).__name__}"
        )
    if not isinstance(data.get("preset", ""), str):
        raise ValueError(f"model card {str(card)!r}: 'preset' must be a string (a preset name)")
    if not isinstance(data.get("num_players", 2), int) or isinstance(data.get("num_players"), bool):
        raise ValueError(f"model card {str(card)!r}: 'num_players' must be an integer")
    return data


# --------------------------------------------------------------- numpy policy
class NumpyPolicy:
    """The policy half of a trained actor-critic, in numpy.

    Holds ``RummyFeatures`` (:mod:`agents.ppo_net`) or a plain flatten extractor,
    the policy MLP and the action head; :meth:`logits` runs them on one
    observation, using only its non-zero entries in the first layer.
    """

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]):
        self.meta = meta
        self.obs_size = int(meta["obs_size"])
        self.num_actions = int(meta["num_actions"])
        self.activation = meta.get("activation", "tanh")
        self.compressed = bool(meta.get("compressed", False))
        if self.compressed:
            self.d0, self.rows = int(meta["discard"][0]), int(meta["discard"][1])
            self.scale = arrays["scale"].astype(np.float32)
        self.w0t = np.ascontiguousarray(arrays["w0"].T.astype(np.float32))  # (n_in, h0)
        self.b0 = arrays["b0"].astype(np.float32)
        self.first_act = bool(meta.get("first_act", False))
        # RummyFeatures' shared layer is always ReLU, whatever the MLP's activation
        self.first_activation = meta.get("first_activation", self.activation)
        self.prior_actions = int(meta.get("prior_actions", 0))
        self.prior_scale = float(meta.get("prior_scale", 0.0))
        n_layers = int(meta["n_layers"])
        self.layers = [
            (arrays[f"w{i}"].astype(np.float32), arrays[f"b{i}"].astype(np.float32))
            for i in range(1, n_layers)
        ]

    def _act(self, x: np.ndarray, activation: str | None = None) -> np.ndarray:
        return np.maximum(x, 0) if (activation or self.activation) == "relu" else np.tanh(x)

    def features(self, obs: np.ndarray) -> np.ndarray:
        """The input of the first linear layer (the compressed observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        if self.prior_actions:
            obs = obs[: -self.prior_actions]  # the expert's move bypasses the first layer
        if not self.compressed:
            return obs
        x = obs * self.scale
        d1 = self.d0 + self.rows * 53
        pile = x[self.d0 : d1]
        return np.concatenate([x[: self.d0], x[d1:], pile[:53], pile.reshape(self.rows, 53).sum(0)])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = self.features(obs)
        h = sparse_layer(x, self.w0t, self.b0)
        if self.first_act:
            h = self._act(h, self.first_activation)
        for i, (w, b) in enumerate(self.layers):
            h = w @ h + b
            if i < len(self.layers) - 1:
                h = self._act(h)
        if self.prior_actions:
            h = h + self.prior_scale * np.asarray(obs, dtype=np.float32)[-self.prior_actions :]
        return h

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.logits(obs).astype(np.float64)
        legal = np.asarray(mask) != 0
        if not np.all(np.isfinite(z[legal])):
            raise ValueError(
                "the policy's outputs are not finite for this observation (NaN or inf): "
                "no move can be chosen"
            )
        z[~legal] = -np.inf
        z -= z[legal].max()
        p = np.exp(z)
        return p / p.sum()

    def check(self, source: Any = "?") -> None:
        """The layers' shapes chain from the observation to the actions, and the weights are
        finite and bounded (:func:`agents.model_io.check_weights`): a ValueError otherwise."""
        from agents.model_io import check_weights

        if self.obs_size < 1 or self.num_actions < 1:
            raise ValueError("obs_size and num_actions must be 1 or more")
        if self.prior_actions not in (0, self.num_actions):
            raise ValueError(
                f"prior_actions={self.prior_actions} (0 or num_actions={self.num_actions})"
            )
        n_in = self.obs_size - self.prior_actions
        if self.compressed:
            if self.scale.shape != (n_in,):
                raise ValueError(f"scale has shape {self.scale.shape}, not ({n_in},)")
            if self.d0 < 0 or self.rows < 0 or self.d0 + self.rows * 53 > n_in:
                raise ValueError(f"discard slice {self.d0}+{self.rows}x53 is outside {n_in}")
            n_in = n_in - self.rows * 53 + 106
        shapes = [(self.w0t.T.shape, self.b0.shape)] + [(w.shape, b.shape) for w, b in self.layers]
        for i, (w, b) in enumerate(shapes):
            if len(w) != 2 or w[1] != n_in or b != (w[0],):
                raise ValueError(
                    f"layer {i}: weights {w} and bias {b} do not take an input of {n_in}"
                )
            n_in = w[0]
        if n_in != self.num_actions:
            raise ValueError(f"the last layer gives {n_in} outputs, not {self.num_actions}")
        weights = {"w0": self.w0t, "b0": self.b0, "prior_scale": np.float32(self.prior_scale)}
        for i, (w, b) in enumerate(self.layers, 1):
            weights[f"w{i}"], weights[f"b{i}"] = w, b
        if self.compressed:
            weights["scale"] = self.scale
        check_weights(weights, source)
        for probe in (np.zeros(self.obs_size, np.float32), np.ones(self.obs_size, np.float32)):
            if not np.all(np.isfinite(self.logits(probe))):
                raise ValueError("the network's outputs overflow to inf/NaN")

    @classmethod
    def load(cls, path: Any) -> NumpyPolicy:
        """Read a ``.npz`` policy (a path or an :class:`agents.model_io.ModelFile`): arrays
        and a JSON ``meta`` string, no pickles; shapes and weights checked (:meth:`check`).

        Raises:
            ValueError: not such a file (unreadable, pickled objects, missing or bad entries,
                shapes that do not chain, weights not finite).
        """
        from agents.model_io import open_model, read_npz

        model = open_model(path)
        try:
            arrays = read_npz(model)
            meta = json.loads(str(arrays.pop("meta")))
            if not isinstance(meta, dict):
                raise ValueError("'meta' is not a JSON object")
            policy = cls(arrays, meta)
            policy.check(model)
            return policy
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            msg = str(e)
            if msg.startswith("model file "):
                raise ValueError(f"{msg} (not a valid .npz policy)") from None
            raise ValueError(
                f"model file {str(model)!r} is not a valid .npz policy ({type(e).__name__}: {e})"
            ) from None

    @classmethod
    def from_torch(cls, policy: Any) -> NumpyPolicy:
        arrays, meta = torch_policy_arrays(policy)
        return cls(arrays, meta)


def torch_policy_arrays(policy: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Weights of the policy half of a ``MaskableActorCriticPolicy`` as numpy arrays + metadata.

    Supports ``RummyFeatures`` or ``FlattenExtractor``, an MLP of ``Linear`` +
    ``ReLU``/``Tanh`` layers and the action head.
    """
    import torch as th  # noqa: F401  (torch is already loaded by the caller's policy)

    from agents.ppo_net import RummyFeatures

    sd = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    fe = policy.pi_features_extractor
    act_name = type(policy.activation_fn()).__name__.lower()
    meta: dict[str, Any] = {
        "obs_size": int(policy.observation_space.shape[0]),
        "num_actions": int(policy.action_space.n),
        "activation": act_name,
    }
    arrays: dict[str, np.ndarray] = {}
    linears: list[tuple[np.ndarray, np.ndarray]] = []
    prefix = (
        "pi_features_extractor."
        if any(k.startswith("pi_features_extractor.") for k in sd)
        else "features_extractor."
    )
    if isinstance(fe, RummyFeatures):
        meta.update(
            compressed=not fe.keep_pile,
            discard=[fe.d0, fe.rows],
            first_act=True,
            first_activation="relu",  # RummyFeatures.forward
            features=getattr(fe, "hand_features", None),
        )
        if fe.keep_pile:  # scale only
            meta["compressed"] = False
        arrays["scale"] = sd[prefix + "scale"]
        linears.append((sd[prefix + "linear.weight"], sd[prefix + "linear.bias"]))
        if fe.keep_pile:
            # fold the scale into the first layer: W (x * s) = (W * s) x
            w, b = linears[0]
            linears[0] = (w * arrays["scale"][None, :], b)
    elif type(fe).__name__ != "FlattenExtractor":
        raise ValueError(f"cannot convert features extractor {type(fe).__name__} to numpy")
    pn = policy.mlp_extractor.policy_net
    for i, layer in enumerate(pn):
        if hasattr(layer, "weight"):
            linears.append(
                (
                    sd[f"mlp_extractor.policy_net.{i}.weight"],
                    sd[f"mlp_extractor.policy_net.{i}.bias"],
                )
            )
    if "action_net.alpha" in sd:  # ResidualPolicy: logits + alpha * the expert-move one-hot
        linears.append((sd["action_net.linear.weight"], sd["action_net.linear.bias"]))
        meta["prior_actions"] = int(fe.prior_actions)
        meta["prior_scale"] = float(sd["action_net.alpha"])
    else:
        linears.append((sd["action_net.weight"], sd["action_net.bias"]))
    if not isinstance(fe, RummyFeatures):
        meta["first_act"] = len(linears) > 1  # the first MLP layer's activation
    for i, (w, b) in enumerate(linears):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    meta["n_layers"] = len(linears)
    return arrays, meta


def save_numpy_policy(policy: Any, path: str | Path) -> Path:
    """Write the policy half of a torch policy to ``path`` (``.npz``, loadable without torch)."""
    arrays, meta = torch_policy_arrays(policy)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)
    return path


# ---------------------------------------------------------------------- agent
class PPOAgent(Agent):
    """A trained policy (see the module docs).

    Args:
        rules: the rule set; its observation and action sizes must be the model's.
        seat: the seat played.
        model: a shipped model name (``"basic-2p"``), a path to a ``.npz``/``.zip``, or
            the :class:`~agents.model_io.ModelFile` of one (the bytes read once).
        deterministic: play the most probable legal move (True) or sample.
        backend: ``"numpy"`` or ``"torch"`` (sb3-contrib ``predict``; ``.zip`` files only).
    """

    name = "ppo"

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        model: str | Path | ModelFile = "basic-2p",
        deterministic: bool = True,
        backend: str = "numpy",
        **kwargs: Any,
    ):
        super().__init__(rules, seat, **kwargs)
        from agents.model_io import open_model

        if backend not in ("torch", "numpy"):
            raise ValueError(f"backend={backend!r} is not allowed (allowed: 'torch', 'numpy')")
        self.deterministic = check_flag("deterministic", deterministic)
        path = model.path if isinstance(model, ModelFile) else model_path(model)
        if not isinstance(model, ModelFile) and not path.exists():
            shipped = ", ".join(trained_models()) or "none"
            raise ValueError(f"no model file {str(path)!r} (shipped models: {shipped})")
        self.path = path
        data = open_model(model if isinstance(model, ModelFile) else path)
        self.model = None
        if path.suffix == ".npz":
            if backend != "numpy":
                raise ValueError(
                    f"backend={backend!r}: a .npz policy plays in numpy only (backend='numpy')"
                )
            self.np_policy = NumpyPolicy.load(data)
        else:
            from agents.model_io import load_ppo  # lazily: torch only when a .zip is loaded

            self.model = load_ppo(data)
            self.np_policy = (
                NumpyPolicy.from_torch(self.model.policy) if backend == "numpy" else None
            )
        self.backend = backend
        kind = (
            getattr(self.model.policy.features_extractor, "hand_features", None)
            if self.model is not None
            else self.np_policy.meta.get("features")
        )
        self.features = make_features(kind, rules)
        obs_size, n_actions = ObsLayout(rules).size, Layout(rules).size
        if self.features is not None:
            obs_size += self.features.size
        m_obs, m_act = self._sizes()
        if (m_obs, m_act) != (obs_size, n_actions):
            raise ValueError(
                f"model {str(path)!r} was trained for observations of {m_obs} and {m_act} actions, "
                f"but these rules ({rules.name!r}, {rules.num_players} players) have {obs_size} and {n_actions}"
            )
        trained = read_card(path).get("preset")
        if trained and trained != rules.name:
            raise ValueError(
                f"model {str(path)!r} was trained for preset {trained!r}, not {rules.name!r}"
            )

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("model", "deterministic", "backend")

    @classmethod
    def model_file(cls, **options: Any) -> Path | None:
        return model_path(options.get("model", "basic-2p"))

    def _sizes(self) -> tuple[int, int]:
        if self.model is not None:
            return int(self.model.observation_space.shape[0]), int(self.model.action_space.n)
        return self.np_policy.obs_size, self.np_policy.num_actions

    def _input(
        self, observation: np.ndarray, action_mask: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The model's input (the observation, with the hand features if it was trained with them)."""
        observation, action_mask = split_obs(observation, action_mask)
        if self.features is not None:
            observation = self.features.augment(observation, action_mask)
        return observation, action_mask

    def action_probs(
        self, observation: np.ndarray, action_mask: np.ndarray | None = None
    ) -> np.ndarray:
        observation, action_mask = self._input(observation, action_mask)
        if self.backend == "numpy":
            return self.np_policy.probs(observation, action_mask)
        import torch as th

        policy = self.model.policy
        with th.no_grad():
            obs_t, _ = policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
            dist = policy.get_distribution(
                obs_t, action_masks=np.asarray(action_mask, dtype=bool)[None]
            )
            return dist.distribution.probs[0].cpu().numpy().astype(np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        if not np.any(split_obs(observation, action_mask)[1]):
            raise ValueError("act() called with an empty action mask (this seat is not to act)")
        if self.deterministic:
            observation, action_mask = self._input(observation, action_mask)
            if self.backend == "torch":
                a, _ = self.model.predict(
                    np.asarray(observation, dtype=np.float32),
                    action_masks=np.asarray(action_mask, dtype=bool),
                    deterministic=True,
                )
                return int(a)
            return int(np.argmax(self.np_policy.probs(observation, action_mask)))
        p = self.action_probs(observation, action_mask)
        return int(np.searchsorted(np.cumsum(p), self.rng.random() * p.sum()).clip(0, len(p) - 1))


class PolicySnapshot:
    """A picklable factory ``(rules, seat) -> agent`` for a frozen ``.npz`` policy.

    Used for the self-play pool: :class:`rummy_env.wrappers.OpponentPool`
    builds one agent per snapshot and seat, in each env process, without torch.
    """

    def __init__(self, path: str | Path, name: str | None = None, deterministic: bool = False):
        self.path = str(path)
        self.name = name or Path(path).stem
        self.deterministic = deterministic

    def __call__(self, rules: RuleSet, seat: int) -> PPOAgent:
        return PPOAgent(
            rules, seat, model=self.path, deterministic=self.deterministic, backend="numpy"
        )

    def __repr__(self) -> str:
        return f"PolicySnapshot({self.path!r})"
