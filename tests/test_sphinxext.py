"""Each page loads each script once: the duplicate sphinx-thebe registers is dropped."""

from __future__ import annotations

import html

import pytest

from sphinx.builders.html._assets import _JavaScript

from mmlu_audit.book.sphinxext import unique_scripts

BODY = 'const THEBE_JS_URL = "x"'


def test_inline_duplicate_registered_with_none_and_empty_filename_is_dropped():
    first, second = _JavaScript(None, body=BODY), _JavaScript("", body=BODY)
    assert first != second  # Sphinx itself tells them apart, so the page lists both
    scripts = [_JavaScript("a.js"), first, _JavaScript("b.js", **{"async": "async"}), second]
    assert unique_scripts(scripts) == scripts[:3]


def test_different_scripts_and_order_are_kept():
    scripts = [_JavaScript("b.js"), _JavaScript("a.js"), _JavaScript("a.js", priority=200),
               _JavaScript(None, body="let x = 1;"), _JavaScript(None, body="let y = 2;"), "plain.js"]
    assert unique_scripts(scripts) == scripts
    assert unique_scripts(["plain.js", "plain.js"]) == ["plain.js"]


def test_chapter_settings_read_what_the_build_injected_and_the_declared_names():
    from mmlu_audit.book.sphinxext import chapter_settings

    notebook = {"metadata": {"papermill": {"parameters": {"data_source": "helm20", "seed": 7, "fast": True}}},
                "cells": [{"metadata": {}, "source": "x = 1"},
                          {"metadata": {"tags": ["parameters"]},
                           "source": ["data_source = 'simulated'  # where\n", "# a comment = no\n",
                                      "seed = 1\n", "n_boot = 9999  # draws\n"]}]}
    settings, names = chapter_settings(notebook)
    assert settings == {"data_source": "helm20", "seed": 7, "fast": True}
    assert names == ["data_source", "seed", "n_boot"]
    assert chapter_settings({}) == ({}, [])


def test_the_reuse_box_gives_the_command_that_reruns_the_page_as_built():
    from mmlu_audit.book.sphinxext import reuse_box

    box = reuse_box("07_homogeneity", {"data_source": "helm20", "seed": 7, "fast": True},
                    ["data_source", "seed", "fast", "n_boot", "n_perm"], "../../_sources/x.ipynb",
                    "../../y.py", "https://example.org/team/mmlu-audit.git")
    assert "python -m mmlu_audit.book.build 07 --data-source helm20 --seed 7 --fast -p n_boot VALUE" in box
    assert '<a href="../../_sources/x.ipynb" download>' in box and '<a href="../../y.py" download>' in box
    assert "<code>n_perm</code>" in box and "<code>seed</code>" not in box
    assert ("<pre>git clone https://example.org/team/mmlu-audit.git &amp;&amp; cd mmlu-audit &amp;&amp; "
            "make book</pre>") in box
    assert '<a href="https://example.org/team/mmlu-audit.git">its repository</a>' in box
    plain = reuse_box("20_mmlu_pro", {"seed": 0, "fast": False}, ["seed", "pro_panel"], "a", "b", "u")
    assert "python -m mmlu_audit.book.build 20 --seed 0 -p pro_panel VALUE" in plain  # seed 0 is a seed


def test_the_reuse_box_of_a_chapter_without_parameters_of_its_own_says_so_in_a_sentence():
    from mmlu_audit.book.sphinxext import reuse_box

    box = reuse_box("01_data", {"seed": 1, "fast": False}, ["seed", "fast"], "a", "b", "u")
    assert "It has no parameters of its own" in box and "Rerun it:</p><pre>" in box
    assert "Its parameters:" not in box and "-p " not in box


def test_the_stamp_names_the_build_and_escapes_what_it_prints():
    from mmlu_audit.book.sphinxext import build_stamp

    stamp = build_stamp("abc123", "mmlu-audit 0.1.0 · jax 0.4", "2026-12-04",
                        {"data_source": "<sim>", "seed": 1, "fast": False})
    assert stamp.startswith('<p class="build-stamp">') and "&lt;sim&gt;" in stamp and "full run" in stamp
    assert "data source" not in build_stamp("abc", "v", "d")


def test_the_cite_box_is_built_from_the_citation_file():
    import yaml

    from mmlu_audit.book.sphinxext import cite_box
    from mmlu_audit.core.paths import project_root

    citation = yaml.safe_load((project_root() / "CITATION.cff").read_text())
    box = cite_box(citation, "abc123", "2026-12-05", "../_static/CITATION.cff", "https://example.org/x")
    assert box.startswith('<details class="cite-box"><summary>Cite this book</summary>')
    assert "@software{mmlu_audit_2026," in box and "(commit abc123)" in box and "license = {MIT}" in box
    assert "url = {https://example.org/x}," in box
    for reference in citation["references"]:  # every cited work is listed, escaped
        assert html.escape(reference["title"]) in box
    assert 'href="../_static/CITATION.cff" download' in box


def test_the_citation_file_and_the_package_agree():
    import tomllib

    import yaml

    from mmlu_audit.core.paths import project_root

    citation = yaml.safe_load((project_root() / "CITATION.cff").read_text())
    project = tomllib.loads((project_root() / "pyproject.toml").read_text())["project"]
    assert (citation["version"], citation["license"]) == (project["version"], project["license"])
    assert (project_root() / "LICENSE").read_text().startswith(f"{project['license']} License")


def test_the_config_the_citation_file_and_the_bibtex_name_one_repository_url():
    import yaml

    from mmlu_audit.book.sphinxext import cite_box, repository_url
    from mmlu_audit.core.paths import project_root

    config = yaml.safe_load((project_root() / "_config.yml").read_text())["sphinx"]["config"]
    url = repository_url(config)
    assert url.startswith("https://") and config["html_theme_options"]["use_repository_button"] is True
    citation = yaml.safe_load((project_root() / "CITATION.cff").read_text())
    assert citation["repository-code"] == url
    assert f"url = {{{url}}}," in cite_box(citation, "abc", "2026-12-05", "c.cff", url)
    with pytest.raises(ValueError, match="repository_url"):
        repository_url({"html_theme_options": {}})


def test_the_install_line_clones_into_the_folder_git_makes():
    from mmlu_audit.book.sphinxext import install_command

    assert install_command("https://x.org/a/b") == "git clone https://x.org/a/b && cd b && make book"
    assert install_command("https://x.org/a/b.git/").endswith(" && cd b && make book")


def test_a_rerun_placeholder_becomes_the_exact_command_of_its_page(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    from mmlu_audit.book.report import rerun_box
    from mmlu_audit.book.sphinxext import fill_rerun_boxes

    shell = InteractiveShell.instance()
    outputs = []
    shell.display_pub.publish = lambda data, **kw: outputs.append(data["text/html"])
    try:
        rerun_box("n_boot", 999, "Fewer draws <fast>: does the p move?")
    finally:
        InteractiveShell.clear_instance()
    (placeholder,) = outputs
    page = f"<p>W(9) = 31.2</p><div class='output'>{placeholder}</div>"
    filled = fill_rerun_boxes(page, "07_homogeneity", {"data_source": "helm20", "seed": 7, "fast": True})
    assert ('<pre>python -m mmlu_audit.book.build 07 --data-source helm20 --seed 7 --fast -p n_boot 999</pre>'
            in filled)
    assert "Rerun this check" in filled and "Fewer draws &lt;fast&gt;: does the p move?" in filled
    assert "CHAPTER" not in filled and filled.startswith("<p>W(9) = 31.2</p>")


def test_a_rerun_box_refuses_a_name_that_is_not_a_parameter():
    from mmlu_audit.book.report import rerun_box

    with pytest.raises(ValueError, match="not a parameter name"):
        rerun_box("n boot", 1, "x")


def test_the_served_files_are_copied_into_the_build_and_rewritten_only_when_changed(tmp_path):
    from mmlu_audit.book.sphinxext import SERVED, copy_served

    root, srcdir = tmp_path / "project", tmp_path / "site"
    for source in SERVED:
        (root / source).parent.mkdir(parents=True, exist_ok=True)
        (root / source).write_text(f"content of {source.name}\n")
    assert copy_served(srcdir, root) == []
    copies = [srcdir / copy for copy in SERVED.values()]
    assert [c.read_text() for c in copies] == [f"content of {s.name}\n" for s in SERVED]
    stamps = [c.stat().st_mtime_ns for c in copies]
    assert copy_served(srcdir, root) == [] and [c.stat().st_mtime_ns for c in copies] == stamps
    first = next(iter(SERVED))
    (root / first).write_text("changed\n")
    (root / list(SERVED)[1]).unlink()
    assert copy_served(srcdir, root) == [root / list(SERVED)[1]]
    assert copies[0].read_text() == "changed\n"



def test_the_glossary_gets_every_outcome_word_from_the_replication_module():
    from mmlu_audit.analyses.replication import OUTCOMES
    from mmlu_audit.book.sphinxext import OUTCOME_TERMS_PLACEHOLDER, insert_outcome_terms
    from mmlu_audit.core.paths import project_root

    source = (project_root() / "book" / "glossary.md").read_text()
    assert source.count(OUTCOME_TERMS_PLACEHOLDER) == 1
    text = insert_outcome_terms(source)
    assert OUTCOME_TERMS_PLACEHOLDER not in text
    assert all(f"\n{word}\n  " in text for word in OUTCOMES)
