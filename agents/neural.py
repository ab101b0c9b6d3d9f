"""Networks trained by self-play (``rummy-selfplay``), played in numpy: ``neural:<model>``.

```python
import agents, rummy_env
rules = rummy_env.make_rules("gin", num_players=2)
bot = agents.make("neural:experiments/selfplay/gin-2p-ctx/net.npz", rules, seat=0)
```

A model file is a ``.npz`` of plain arrays (no pickles; read through
:mod:`agents.model_io`, which checks every array's declared size before reading it and
that the weights are finite): the MLP's layers ``w0, b0, w1, b1`` (ReLU) and the policy
head ``w_pi, b_pi``, and a ``meta`` JSON string naming the game (``preset``,
``num_players``, ``overrides``) and the input (``pile_rows``). ``rummy-selfplay export``
writes it from a training checkpoint. The agent plays the most probable legal move
(``deterministic=False``: samples the masked policy). No torch is needed to play.

:class:`Compress` is the network's view of an observation, shared with the trainer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import DISCARD, KNOCK, LogitsAgent, MoveTable
from agents.meld_features import KINDS, SIZE, MeldFeatures, TableFits
from agents.model_io import ModelFile, check_weights, open_model, read_npz, sparse_layer
from rummy_env.cards import NUM_FACES
from rummy_env.observation import ObsLayout
from rummy_env.rules import RuleSet

#: where ``neural:<name>`` finds its file
NEURAL_DIR = Path(__file__).resolve().parent / "trained" / "neural"


class Compress:
    """The network's input from a batch of observations ``(B, size)``: every slice but the
    discard pile, count fields divided by the layout's ``count_scales``, the
    pile's top ``pile_rows`` rows one by one and its per-face counts (the pile is most of
    the observation, and below its top only which cards are gone matters); with
    ``features="melds"``, then the :class:`agents.meld_features.MeldFeatures` of the hand;
    with ``"melds+table"`` also the faces that fit the table's melds
    (:class:`agents.meld_features.TableFits`) and whether the top discard does."""

    def __init__(self, rules: RuleSet, pile_rows: int, features: str = ""):
        if features not in KINDS:
            raise ValueError(f"features={features!r}: allowed are {', '.join(map(repr, KINDS))}")
        L = ObsLayout(rules)
        d = L.slices["discard"]
        F = NUM_FACES
        self.d0, self.D, self.rows = d.start, L.D, min(pile_rows, L.D)
        keep = np.r_[0 : d.start, d.start : d.start + self.rows * F, d.stop : L.size]
        self.keep = keep.astype(np.intp)
        scale = np.ones(L.size, np.float32)
        for sl, v in L.count_scales:
            scale[sl] = 1.0 / v
        self.scale = scale[self.keep]
        self.melds = MeldFeatures(rules) if features.startswith("melds") else None
        self.fits = TableFits(rules) if features == "melds+table" else None
        self.top = slice(d.start, d.start + F)
        self.size = len(self.keep) + (F if self.D else 0) + (SIZE if self.melds else 0)
        self.size += F + 1 if self.fits else 0
        #: where each per-face block of the input starts (:func:`face_actions`): the hand,
        #: the first opponent's known cards, the top discard, the pile's counts, and with
        #: the meld features the deadwood without the face and its meld flag (and the
        #: table's fit)
        self.face_offsets: list[int] = []
        if self.melds is not None and self.D:
            pile = len(self.keep)
            self.face_offsets = [0, F, d.start, pile, pile + F, pile + 2 * F]
            if self.fits is not None:
                self.face_offsets.append(pile + F + SIZE)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        parts = [obs[:, self.keep] * self.scale]
        if self.D:
            F = NUM_FACES
            parts.append(obs[:, self.d0 : self.d0 + self.D * F].reshape(len(obs), self.D, F).sum(1))
        if self.melds is not None:
            parts.append(self.melds(obs))
        if self.fits is not None:
            fits = self.fits(obs)
            # the top discard's fit (its row is one-hot, or empty)
            parts += [fits, (obs[:, self.top] * fits).sum(1, keepdims=True)]
        return np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]


def _context() -> np.ndarray:
    """``(3, F, F)``: for a face, the other suits of its rank, and the cards of its suit one
    and two ranks away (ranks wrap for neither: ace-king is two apart only where runs turn
    the corner, which the network can learn from the ranks)."""
    m = np.zeros((3, NUM_FACES, NUM_FACES), np.float32)
    for f in range(52):
        for g in range(52):
            if f != g and f % 13 == g % 13:
                m[0, f, g] = 1.0
            elif f // 13 == g // 13 and abs(f % 13 - g % 13) in (1, 2):
                m[abs(f % 13 - g % 13), f, g] = 1.0
    return m


#: face context (``face_context``): each of these per-face blocks (indices into
#: :attr:`Compress.face_offsets`: the hand, the opponent's known cards, the pile's counts)
#: summed over each face's neighbours in :data:`CONTEXT` (same rank; same suit one and two
#: ranks away): 9 more features of a face, what makes a discard safe or a draw useful
CONTEXT = _context()
CONTEXT_BLOCKS = (0, 1, 3)


def face_context(x: np.ndarray, offsets: list[int]) -> np.ndarray:
    """``(B, F, 9)`` context features of every face from a batch of inputs ``x``."""
    blocks = np.stack([x[:, offsets[j] : offsets[j] + NUM_FACES] for j in CONTEXT_BLOCKS], 1)
    return np.einsum("bjg,mfg->bfjm", blocks, CONTEXT).reshape(len(x), NUM_FACES, -1)


#: the move kinds whose logit the face head adds to (agents.base kinds)
FACE_KINDS = (DISCARD, KNOCK)


def face_actions(rules: RuleSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The actions the face head scores, their face and their kind's index in
    :data:`FACE_KINDS`: a discard, or a knock with that discard."""
    table = MoveTable.of(rules)
    ids, faces, kinds = [], [], []
    for a in range(table.num_actions):
        kind, face, _ = table[a]
        if kind in FACE_KINDS and face >= 0:
            ids.append(a)
            faces.append(face)
            kinds.append(FACE_KINDS.index(kind))
    return np.array(ids, np.int64), np.array(faces, np.int64), np.array(kinds, np.int64)


def action_kinds(rules: RuleSet) -> np.ndarray:
    """Each action's kind (agents.base: draw, meld, lay-off, discard, knock, ...), the
    index the kind head (``kind_head``) adds its per-kind logit by."""
    table = MoveTable.of(rules)
    return np.array([table[a][0] for a in range(table.num_actions)], np.int64)


def model_path(model: str | Path) -> Path:
    """The file of a model name (``"gin-2p"`` -> ``agents/trained/neural/gin-2p.npz``) or path."""
    p = Path(model)
    if p.suffix == ".npz" or len(p.parts) > 1:
        return p
    return NEURAL_DIR / f"{model}.npz"


class NeuralAgent(LogitsAgent):
    """A self-play network (module docs).

    Args:
        rules: the rule set; its preset, players and overrides must be the model's.
        seat: the seat it plays.
        model: a shipped model's name or a ``.npz`` path.
        deterministic: play the most probable legal move (else sample).
    """

    name = "neural"
    model_hint = "<name> or neural:<path>.npz"

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        model: str | Path | ModelFile = "",
        deterministic: bool = True,
    ):
        super().__init__(rules, seat, model, deterministic)
        model = self.for_rules({"model": model}, rules)["model"]
        path = model.path if isinstance(model, ModelFile) else model_path(model)
        self.path = path
        z = read_npz(open_model(model if isinstance(model, ModelFile) else path))
        try:
            self.meta = json.loads(str(z["meta"]))
            names = ("w0", "b0", "w1", "b1", "w_pi", "b_pi")
            self.w = [np.asarray(z[k], np.float32) for k in names]
            pile_rows = int(self.meta["pile_rows"])
            features = str(self.meta.get("features", ""))
        except (KeyError, ValueError, TypeError) as e:
            raise ValueError(f"{path}: not a rummy-selfplay network ({e})") from None
        want = (rules.name, rules.num_players)
        if (self.meta.get("preset"), self.meta.get("num_players")) != want:
            raise ValueError(
                f"{path} plays {self.meta.get('preset')} with {self.meta.get('num_players')} "
                f"players, not {rules.name} with {rules.num_players}"
            )
        self.compress = Compress(rules, pile_rows, features)
        n_in = self.compress.size
        for i in range(0, 6, 2):
            w, b = self.w[i], self.w[i + 1]
            if w.ndim != 2 or w.shape[1] != n_in or b.shape != (w.shape[0],):
                raise ValueError(
                    f"{path}: layer {i // 2} has weights {w.shape} and bias {b.shape}, which do "
                    f"not take an input of {n_in} (what {rules.name!r} with {rules.num_players} "
                    "players gives the network, then the layer before)"
                )
            n_in = w.shape[0]
        if n_in != self.moves.num_actions:
            raise ValueError(
                f"{path}: the policy gives {n_in} outputs, but {rules.name!r} with "
                f"{rules.num_players} players has {self.moves.num_actions} actions"
            )
        check_weights(dict(zip(names, self.w)), path)
        self.w0t = np.ascontiguousarray(self.w[0].T)  # (inputs, hidden): a row per input
        self.w[0] = self.w0t.T  # (a view: the first layer is held once)
        self.kind = None
        if self.meta.get("kind_head"):
            try:
                wk, bk = (np.asarray(z[k], np.float32) for k in ("w_kh", "b_kh"))
            except KeyError as e:
                raise ValueError(f"{path}: the kind head lacks {e}") from None
            kinds = action_kinds(rules)
            if wk.shape != (len(bk), self.w[2].shape[0]) or len(bk) <= kinds.max():
                raise ValueError(f"{path}: the kind head's layer does not fit this game")
            check_weights({"w_kh": wk, "b_kh": bk}, path)
            self.kind = (wk, bk, kinds)
        self.face = None
        if self.meta.get("face_head"):
            fnames = ("w_fz", "b_fz", "w_f1", "b_f1", "w_f2", "b_f2")
            try:
                fw = [np.asarray(z[k], np.float32) for k in fnames]
            except KeyError as e:
                raise ValueError(f"{path}: the face head lacks {e}") from None
            ids, face, kind = face_actions(rules)
            offs = self.compress.face_offsets
            context = bool(self.meta.get("face_context"))
            k, nk, hid = len(offs), int(kind.max()) + 1, self.w[2].shape[0]
            k += len(CONTEXT_BLOCKS) * len(CONTEXT) if context else 0
            wz, bz, w1, b1, w2, b2 = fw
            if (
                wz.shape[1] != hid
                or w1.shape[1] != k + nk + wz.shape[0]
                or w2.shape[1] != w1.shape[0]
            ):
                raise ValueError(f"{path}: the face head's layers do not fit this game's input")
            check_weights(dict(zip(fnames, fw)), path)
            self.face_context = face if context else None
            #: each action's row among the face head's (-1: not a discard or knock)
            self.face_row = np.full(self.moves.num_actions, -1, np.intp)
            self.face_row[ids] = np.arange(len(ids))
            self.face = (
                ids,
                np.asarray(offs)[None, :] + face[:, None],
                (np.eye(nk, dtype=np.float32)[kind] @ w1[:, k : k + nk].T + b1),
                wz,
                bz,
                w1[:, :k],
                w1[:, k + nk :],
                w2[0],
                float(b2[0]),
            )

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("model", "deterministic")

    @classmethod
    def for_rules(cls, options: dict[str, Any], rules: RuleSet) -> dict[str, Any]:
        """``model=<preset>`` (``neural:<preset>``) is the preset's shipped model for the
        rules' player count, ``<preset>-<n>p``; a ValueError when none is shipped."""
        if options.get("model") != rules.name:
            return options
        model = f"{rules.name}-{rules.num_players}p"
        if not model_path(model).exists():
            shipped = sorted(p.stem for p in NEURAL_DIR.glob("*.npz"))
            raise ValueError(
                f"no shipped neural model for {rules.name!r} with {rules.num_players} "
                f"players (shipped: {', '.join(shipped) or 'none'}; a network that does "
                "not beat its preset's variant is not shipped; play a file with "
                "neural:<path>.npz)"
            )
        return {**options, "model": model}

    @classmethod
    def model_file(cls, **options: Any) -> Path | None:
        return model_path(options["model"]) if options.get("model") else None

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The policy's logits over every action (before the mask)."""
        return self.legal_logits(observation, None)

    def legal_logits(self, observation: np.ndarray, legal: np.ndarray | None) -> np.ndarray:
        """The logits of the actions ``legal`` (None: every action). Only those rows of the
        policy layer and of the face head are computed: a move is a choice among a few
        legal actions of hundreds or thousands."""
        _, b0, w1, b1, wp, bp = self.w
        x = self.compress(np.asarray(observation, np.float32)[None])[0]
        h = np.maximum(sparse_layer(x, self.w0t, b0), 0.0)
        h = np.maximum(w1 @ h + b1, 0.0)
        if legal is None:
            out = wp @ h + bp
        else:
            out = wp[legal] @ h + bp[legal]
        if self.kind is not None:
            wk, bk, kinds = self.kind
            out += (wk @ h + bk)[kinds if legal is None else kinds[legal]]
        if self.face is not None:
            ids, cols, kind, wz, bz, w_phi, w_z, w2, b2 = self.face
            if legal is None:
                at, rows = ids, slice(None)
            else:
                rows = self.face_row[legal]
                at = np.flatnonzero(rows >= 0)
                rows = rows[at]
            zs = w_z @ np.maximum(wz @ h + bz, 0.0)
            phi = x[cols[rows]]
            if self.face_context is not None:
                ctx = face_context(x[None], self.compress.face_offsets)[0]
                phi = np.concatenate([phi, ctx[self.face_context[rows]]], 1)
            u = np.maximum(phi @ w_phi.T + kind[rows] + zs, 0.0)
            out[at] += u @ w2 + b2
        return out
