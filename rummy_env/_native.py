"""The compiled modules (pyproject.toml's optional ext-modules), each loaded where it was
built from the current source, else None: its caller then runs its Python code, which gives
the same answers, slower. ``RUMMY_PURE_PYTHON=1`` asks for the Python code everywhere."""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType


def load(name: str, api: int, slower: str) -> ModuleType | None:
    """``rummy_env.<name>`` where it was built with the ``API`` number ``api`` (the form of
    the calls its caller makes); None without it (no C compiler at install, or
    ``RUMMY_PURE_PYTHON``), and None with a warning for a build of an older source.
    ``slower`` says what runs instead."""
    if os.environ.get("RUMMY_PURE_PYTHON"):
        return None
    try:
        module = importlib.import_module(f"rummy_env.{name}")
    except ImportError:
        return None
    if getattr(module, "API", None) != api:
        warnings.warn(
            f"rummy_env/{name} was built from an older rummy_env/{name}.c: "
            f"`pip install -e .` rebuilds it; until then {slower}",
            stacklevel=3,
        )
        return None
    return module
