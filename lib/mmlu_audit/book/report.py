"""Small helpers that chapters use to show provenance and computed values."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.irt.backend import backend_name

__all__ = ["FEW_MODELS", "banner_html", "glue_figure", "glue_values", "population_note",
           "simulation_banner", "source_banner", "text_banner", "write_download"]

_STYLE = {
    True: ("sim-banner", "Simulated responses — not a finding about MMLU"),
    False: ("real-banner", "Real responses"),
}


def banner_html(matrix: ResponseMatrix) -> str:
    """HTML for the real/simulated banner shown at the top of every chapter."""
    css, title = _STYLE[matrix.simulated]
    j, i = matrix.shape
    body = (f"Source <code>{html.escape(matrix.source)}</code>: {j:,} models × {i:,} items. "
            f"{html.escape(matrix.description)}")
    if matrix.simulated:
        body += (" Every number and figure on this page that is computed from responses "
                 "describes the simulated world and its planted truth.")
    return _banner(css, title, body)


def _banner(css: str, title: str, body_html: str) -> str:
    computed_on = (f'<p class="data-banner-device">Computed on JAX backend '
                   f"<code>{html.escape(backend_name())}</code>.</p>")
    return (f'<div class="data-banner {css}"><p class="data-banner-title">{html.escape(title)}</p>'
            f"<p>{body_html}</p>{computed_on}</div>")


def text_banner(title: str, body_html: str):
    """Display the provenance banner of a page that uses real item texts but no responses."""
    from IPython.display import HTML, display

    display(HTML(_banner("real-banner", title, body_html)))


def simulation_banner(body_html: str):
    """Display the simulated-source banner of a page built only from simulation results."""
    from IPython.display import HTML, display

    display(HTML(_banner(_STYLE[True][0], _STYLE[True][1], body_html)))


def source_banner(matrix: ResponseMatrix):
    """Display the real/simulated banner in a notebook."""
    from IPython.display import HTML, display

    display(HTML(banner_html(matrix)))


def glue_values(values: dict) -> None:
    """Glue each value for use in prose as ``{glue:text}`name```.

    NumPy scalars are converted to Python numbers first, because MyST-NB formats
    glued text from the value's ``repr``.
    """
    from myst_nb import glue

    for name, value in values.items():
        glue(name, value.item() if hasattr(value, "item") else value, display=False)


#: Below this many models a chapter says the source cannot test the paper's claims.
FEW_MODELS = 200


def population_note(matrix: ResponseMatrix) -> str:
    """One plain sentence on what the model population of ``matrix`` can support."""
    n_models = matrix.shape[0]
    observed = matrix.observed
    correct = (matrix.responses == 1) & observed
    n_obs = observed.sum(axis=0)
    seen = n_obs > 0
    hits = correct.sum(axis=0)[seen]
    extreme = np.mean((hits == n_obs[seen]) | (hits == 0))
    unseen = "" if seen.all() else (f" {int((~seen).sum())} items have no observed response at all "
                                    "and are left out.")
    if matrix.simulated:
        return (f"Simulated source with {n_models:,} models, sized like the paper's leaderboard; "
                "every estimate below describes the simulated world and is checked against its "
                "planted truth.")
    if n_models >= FEW_MODELS:
        return (f"Real responses from {n_models:,} models; {extreme:.1%} of items are answered "
                f"correctly by all of them or by none.{unseen}")
    return (f"Real responses from only {n_models:,} models (at most {int(n_obs.max())} per item). "
            f"{extreme:.1%} of items are answered correctly by every model or by none, so their "
            "difficulty is pinned only by the prior, and every b̂ rests on a handful of binary "
            f"responses.{unseen} The regressions below run and their tests are valid for this noisy "
            "outcome, but they describe these models' difficulty ordering, not MMLU's: effects "
            "of the size the paper reports are mostly below what this population can detect, "
            "so a null result here is not evidence against the paper.")


def glue_figure(name: str, fig) -> None:
    """Glue a matplotlib figure for a ``{glue:figure}`` block, and keep it out of the cell output.

    The page shows the figure once, where the chapter's markdown places it with a
    caption and a ``:name:`` that ``{numref}`` can refer to.
    """
    import matplotlib.pyplot as plt
    from myst_nb import glue

    glue(name, fig, display=False)
    plt.close(fig)


def write_download(table, name: str, folder) -> Path:
    """Write ``table`` as CSV beside the executed page, for a MyST ``{download}`` link.

    Parameters
    ----------
    table : DataFrame
    name : str
        File name; the page links it as ``{download}`text <name>```.
    folder : str or Path
        The folder the page is executed into: a chapter declares ``executed_dir`` in its
        parameters cell and :func:`mmlu_audit.book.build.execute_chapter` fills it in.

    The file is written under a temporary name and renamed, so a reader never finds half a file.
    """
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f".{name}.partial"
    table.to_csv(partial, index=False)
    return partial.replace(target / name)
