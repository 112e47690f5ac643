"""Small helpers that chapters use to show provenance and computed values."""

from __future__ import annotations

import html

from .data.responses import ResponseMatrix

__all__ = ["source_banner", "banner_html", "glue_values", "text_banner"]

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
    return (f'<div class="data-banner {css}"><p class="data-banner-title">{html.escape(title)}</p>'
            f"<p>{body_html}</p></div>")


def text_banner(title: str, body_html: str):
    """Display the provenance banner of a page that uses real item texts but no responses."""
    from IPython.display import HTML, display

    display(HTML(_banner("real-banner", title, body_html)))


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
