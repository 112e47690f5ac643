"""The results chapters open with the real responses, then check the method under the page's banner."""

from __future__ import annotations

import re

import pytest
import yaml

from mmlu_audit.book.chapters import NOT_REAL_FIRST, REAL_FIRST, chapter_label, chapter_stem
from mmlu_audit.core.paths import project_root

#: The parts of the table of contents whose chapters are the paper's §3–§5 and appendices.
RESULT_PARTS = ("Measurement (§3)", "Structural homogeneity (§4)", "Model-side analyses (§5)", "Appendices")
SECTION = re.compile(r"^# \((sec-[a-z0-9-]+)\)=[ \t]*$", re.MULTILINE)
HEADING = re.compile(r"^# #{2,} (.+)$", re.MULTILINE)
BANNER = re.compile(r"^source_banner\((inputs\.matrix|matrix)\)$", re.MULTILINE)  # the page's own source


def _result_chapters() -> list[str]:
    toc = yaml.safe_load((project_root() / "_toc.yml").read_text())
    files = [entry["file"] for part in toc["parts"] if part["caption"] in RESULT_PARTS
             for entry in part["chapters"] if entry["file"].startswith("book/_executed/")]
    return [chapter_label(file.rsplit("/", 1)[-1]) for file in files]


def real_first_problems(source: str) -> list[str]:
    """What keeps a chapter source from opening with the real responses (empty when nothing)."""
    sections = [(match.start(), match.group(1)) for match in SECTION.finditer(source)]
    real = next((at for at, name in sections if name.endswith("-real")), None)
    check = next((at for at, name in sections if name.endswith("-check")), None)
    if real is None or check is None:
        return ["no (sec-…-real)= and (sec-…-check)= sections"]
    problems = [] if real < check else ["the real section comes after the method's check"]
    if BANNER.search(source[:real]):
        problems.append("the page's own source banner shows above the real section")
    problems += [f"a heading about the simulation before the check: {match.group(1)!r}"
                 for match in HEADING.finditer(source[:check])
                 if re.search(r"simulat|planted", match.group(1), re.IGNORECASE)]
    banner = BANNER.search(source, check)
    following = SECTION.search(source, check + 1)
    if banner is None or (following is not None and banner.start() > following.start()):
        problems.append("the method's check does not show the page's own source banner")
    return problems


def test_every_results_chapter_is_either_real_first_or_says_why_not():
    chapters = _result_chapters()
    assert sorted(chapters) == sorted(REAL_FIRST + tuple(NOT_REAL_FIRST))
    assert not set(REAL_FIRST) & set(NOT_REAL_FIRST)


@pytest.mark.parametrize("label", REAL_FIRST)
def test_the_chapter_opens_with_the_real_responses(label):
    source = (project_root() / "chapters" / f"{chapter_stem(label)}.py").read_text()
    assert real_first_problems(source) == []


def test_a_chapter_that_opens_with_the_simulation_is_caught():
    real = "# (sec-x-real)=\n# ## What the real responses say\n"
    check = ("# (sec-x-check)=\n# ## The method's check on this page's source\n\n# %%\n"
             "source_banner(inputs.matrix)\n")
    assert real_first_problems(real + check) == []
    assert real_first_problems(check + real) == ["the real section comes after the method's check",
                                                 "the page's own source banner shows above the real section"]
    planted = "# ## Planted truth (simulated sources only)\n" + real + check
    assert real_first_problems(planted) == ["a heading about the simulation before the check: "
                                            "'Planted truth (simulated sources only)'"]
    assert real_first_problems(real + check.replace("inputs.matrix", "real.matrix")) == [
        "the method's check does not show the page's own source banner"]
    assert real_first_problems(real) == ["no (sec-…-real)= and (sec-…-check)= sections"]
    banner_on_top = "# %%\nsource_banner(matrix)\n\n" + real + check
    assert real_first_problems(banner_on_top) == ["the page's own source banner shows above the real section"]
