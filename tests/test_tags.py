"""The display conventions of the rendered book, on a small hand-made notebook."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from mmlu_audit.book.tags import cell_display_tag, tag_notebook, tag_notebook_file


def _chapter():
    """A chapter as papermill leaves it: parameters, injected values, setup, body, opt-outs."""
    return new_notebook(cells=[
        new_markdown_cell("# A chapter"),
        new_code_cell('data_source = "simulated"\nseed = 1', metadata={"tags": ["parameters"]}),
        new_code_cell('# Parameters\ndata_source = "helm20"\nseed = 7\n',
                      metadata={"tags": ["injected-parameters"]}),
        new_code_cell("import numpy as np\nfrom mmlu_audit import load_items\nitems = load_items()"),
        new_code_cell("table = items.groupby('subject').size()\ntable"),
        new_code_cell("x = 1", metadata={"tags": ["show-input"]}),
        new_code_cell("y = 2", metadata={"tags": ["remove-cell", "other"]}),
        new_code_cell("%timeit 1 + 1"),
    ])


def _tags(notebook):
    return [c.metadata.get("tags", []) for c in notebook.cells]


def test_rules_per_cell():
    tag_notebook(nb := _chapter())
    assert _tags(nb) == [
        [],                                   # markdown untouched
        ["parameters"],                       # parameters stay visible
        ["injected-parameters", "remove-cell"],
        ["remove-input"],                     # setup: code gone, outputs (banner) kept
        ["hide-input"],                       # ordinary code folded
        ["show-input"],                       # explicit opt-out left alone
        ["remove-cell", "other"],             # explicit tag left alone
        ["hide-input"],                       # magics are not setup cells
    ]


def test_injected_values_are_folded_into_the_parameters_cell():
    tag_notebook(nb := _chapter())
    source = nb.cells[1].source
    assert source.startswith('data_source = "simulated"\nseed = 1')
    assert source.endswith('data_source = "helm20"\nseed = 7')
    assert "# Parameters" not in source  # papermill's own comment is not copied
    namespace = {}
    exec(source, namespace)  # the folded cell still runs, and the run's values win
    assert (namespace["data_source"], namespace["seed"]) == ("helm20", 7)


def test_tagging_twice_changes_nothing():
    tag_notebook(once := _chapter())
    twice = nbformat.from_dict(once)
    tag_notebook(twice)
    assert _tags(twice) == _tags(once)
    assert twice.cells[1].source == once.cells[1].source


def test_without_injected_cell_parameters_are_unchanged():
    nb = _chapter()
    del nb.cells[2]
    tag_notebook(nb)
    assert nb.cells[1].source == 'data_source = "simulated"\nseed = 1'


def test_markdown_and_parameters_get_no_tag():
    assert cell_display_tag(new_markdown_cell("text")) is None
    assert cell_display_tag(new_code_cell("a = 1", metadata={"tags": ["parameters"]})) is None


def test_file_is_rewritten_in_place(tmp_path):
    path = tmp_path / "chapter.ipynb"
    nbformat.write(_chapter(), path)
    tag_notebook_file(path)
    assert _tags(nbformat.read(path, as_version=4))[4] == ["hide-input"]
    assert [p.name for p in tmp_path.iterdir()] == ["chapter.ipynb"]  # no staging file left


def test_a_machine_path_is_named_not_shown_in_the_parameters_cell():
    nb = _chapter()
    nb.cells[2].source += ('executed_dir = "/tmp/pytest-of-root/site/book/_executed"\n'
                           'results = "bench/results"\n')
    tag_notebook(nb)
    source = nb.cells[1].source
    assert "/tmp/" not in source
    assert "# executed_dir: a folder on the machine that built this page" in source
    assert 'results = "bench/results"' in source  # a relative path is a reader's choice: shown
