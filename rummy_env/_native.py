"""The compiled modules (pyproject.toml's optional ext-modules), each used where it was
built from the current source; else its caller runs its Python code, which gives the same
answers, slower. ``RUMMY_PURE_PYTHON=1`` asks for the Python code everywhere."""

from __future__ import annotations

import os
import warnings
from types import ModuleType


def checked(module: ModuleType | None, api: int, slower: str) -> ModuleType | None:
    """``module`` (a compiled module its caller imported, or None where it was not built)
    where it serves: built with the ``API`` number ``api`` (the form of the calls its
    caller makes) and ``RUMMY_PURE_PYTHON`` not set; else None, with a warning for a
    build of an older source. ``slower`` says what runs instead."""
    if module is None or os.environ.get("RUMMY_PURE_PYTHON"):
        return None
    if getattr(module, "API", None) != api:
        name = module.__name__.rpartition(".")[2]
        warnings.warn(
            f"rummy_env/{name} was built from an older rummy_env/{name}.c: "
            f"`pip install -e .` rebuilds it; until then {slower}",
            stacklevel=3,
        )
        return None
    return module
