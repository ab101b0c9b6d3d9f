"""The notebooks run top to bottom (tiny budgets: they read RUMMY_NOTEBOOK_SMOKE=1), and
are committed with the outputs of a full run, so the repository page shows them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("pandas", "matplotlib", "sb3_contrib", "openskill", "tqdm"):
        pytest.importorskip(
            module, reason="needs the notebooks extra (pip install -e '.[notebooks]')"
        )
    monkeypatch.setenv("RUMMY_NOTEBOOK_SMOKE", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.parent)}},
    )
    client.execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_with_its_outputs(path: Path) -> None:
    """Every code cell ran, in order, in one session (re-execute after editing one:
    jupyter nbconvert --to notebook --execute --inplace notebooks/X.ipynb), no cell
    failed, and the file stays small (outputs cut short, images at modest dpi)."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.get("execution_count") for c in code] == list(range(1, len(code) + 1)), (
        f"{path.name} is not committed as run top to bottom"
    )
    assert sum(bool(c.get("outputs")) for c in code) >= len(code) // 2, (
        f"{path.name} has few outputs"
    )
    assert not [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert path.stat().st_size < 1_000_000, f"{path.name}: {path.stat().st_size:,} bytes"


def test_there_are_notebooks() -> None:
    assert {p.stem for p in NOTEBOOKS} >= {"01_quickstart"}, os.listdir(NOTEBOOKS[0].parent)


def test_the_quickstart_is_committed_with_every_preset() -> None:
    """The committed outputs follow the code: the quickstart's first cell prints the
    presets (re-execute with ``python -m experiments.notebooks`` when one is added)."""
    import rummy_env

    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    text = "".join(o.get("text", "") for o in first.outputs)
    assert str(sorted(rummy_env.PRESETS)) in text, text[:300]


def test_the_notebook_command_names_what_it_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from experiments import notebooks

    with pytest.raises(SystemExit) as e:
        notebooks.main(["no_such_notebook"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unknown notebook(s) no_such_notebook" in err and "01_quickstart" in err
