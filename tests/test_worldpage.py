"""The simulated-world page reads its numbers from the simulator: a changed default changes the page."""

from __future__ import annotations

import pytest

from mmlu_audit.book.labels import label
from mmlu_audit.book.worldpage import WORLD_MARK, WORLD_PATH, world_values_markdown, write_world_values
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.worlds import simulated
from mmlu_audit.worlds.simulated import CALIBRATIONS, DEFAULT_CALIBRATION, DEFAULT_SLOPES, WorldSpec


def _row(text: str, field: str) -> list[str]:
    (line,) = [line for line in text.splitlines() if line.startswith(f"| `{field}`")]
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_every_value_is_the_simulators():
    text = world_values_markdown()
    spec, calibrated = WorldSpec(), CALIBRATIONS[DEFAULT_CALIBRATION]["values"]
    assert _row(text, "guessing")[1] == str(spec.guessing) and _row(text, "b_sd")[1] == str(spec.b_sd)
    assert _row(text, "a_median")[1] == str(calibrated["a_median"])
    assert _row(text, "rho")[3] == "yes" and _row(text, "stem_shift")[3] == ""
    for name, (stem, other) in DEFAULT_SLOPES.items():
        assert any(line.startswith(f"| {label(name)} ") and f"{stem:g}" in line and f"{other:g}" in line
                   for line in text.splitlines()), name
    assert text.startswith(WORLD_MARK) and "covariates=\"text\"" in text


def test_a_changed_default_changes_the_page(monkeypatch):
    before = world_values_markdown()
    monkeypatch.setitem(simulated.DEFAULT_SLOPES, "d_ner", (0.55, 0.0))
    after = world_values_markdown()
    assert before != after and "0.55" in after


def test_the_fragment_is_rewritten_only_when_it_changed_and_never_over_a_foreign_file(tmp_path):
    assert write_world_values(tmp_path) == tmp_path / WORLD_PATH
    assert write_world_values(tmp_path) is None  # unchanged: left alone (no rebuild triggered)
    (tmp_path / WORLD_PATH).write_text("my own notes")
    with pytest.raises(ParameterError, match="not replacing it"):
        write_world_values(tmp_path)
