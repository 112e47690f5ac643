"""The words a reader sees for the library's code names: one registry for axes, legends and tables.

Columns, calibrations and fits have short code names (``d_ner``, ``leaderboard-2026``) that suit
code and CSV headers but not a figure's axis. Chapters put every code name they draw through
:func:`label`, and the site check (:mod:`mmlu_audit.book.sitecheck`) fails a page whose figure
description still contains one (:func:`code_names_in`).
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["CODE_NAME", "code_names_in", "label", "labels"]

#: A token that reads as code rather than words: lower-case letters joined by underscores.
CODE_NAME = re.compile(r"(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/])")

#: Code names outside the indicator table, with their words.
_OTHER_LABELS = {
    "paper-2024": "simulated world on the paper's scales",
    "leaderboard-2026": "simulated world fitted to the leaderboard",
    "b_hat": "fitted difficulty b̂",
    "theta_hat": "fitted ability θ̂",
    "htz_p": "CR2-HTZ p",
    "wcb_p": "wild cluster bootstrap p",
    "holm_p": "Holm-adjusted p",
    # the contrast tables (chap-stratified, chap-option-set): a Holm-adjusted p names itself a p
    # (mmlu_audit.core.formatting.is_p_label), so a table never prints it as 0
    "estimate": "estimate",
    "t_HC3": "t, HC3",
    "t_CR1": "t, CR1",
    "t_CR2": "t, CR2",
    "df_CR2": "df, CR2",
    "p_boot": "bootstrap p",
    "holm_HC3": "Holm p, HC3",
    "holm_CR1": "Holm p, CR1",
    "holm_CR2": "Holm p, CR2",
    "holm_boot": "Holm p, bootstrap",
    "n_items": "items",
    "n_models": "models",
    # the replication tables (chap-real-verdicts)
    "in_pi": "within the paper's prediction interval",
    "smaller_than_d33": "smaller than d33 (small telescopes)",
    "fixed_low": "fixed effect: 95 % low",
    "fixed_high": "fixed effect: 95 % high",
    "q_p": "Q: p",
    "i2": "I²",
    "tau2": "τ²",
    "rs_r_all": "observed r(β, θ̂)",
    "null_r_all": "3PL null: mean r",
    "null_low_all": "3PL null: 2.5 %",
    "null_high_all": "3PL null: 97.5 %",
    "null_tail_p_all": "tail probability",
    "b_reliability_stem": "b̂ split-half reliability, STEM",
    "b_reliability_nonstem": "b̂ split-half reliability, non-STEM",
    "reliability_stem": "empirical-logit split-half reliability, STEM",
    "reliability_nonstem": "empirical-logit split-half reliability, non-STEM",
    "ratio_disattenuated": "ratio, disattenuated",
    "low_disattenuated": "disattenuated: 95 % low",
    "high_disattenuated": "disattenuated: 95 % high",
    "outcome_disattenuated": "outcome, disattenuated",
    "w9_cr2": "W(9), CR2",
    "w9_hc3": "W(9), HC3",
    "d_ner_holm_cr2": "D_ner contrast: Holm p, CR2",
    "w9_htz_p": "CR2-HTZ p",
    "t_cr2_d_ner": "D_ner contrast: CR2 t",
    "cv_r2_stem": "cross-validated R², STEM",
    "cv_r2_nonstem": "cross-validated R², non-STEM",
}


@cache
def labels() -> dict[str, str]:
    """Every registered code name with the words a reader sees for it.

    The nine indicators take their names from Table 1
    (:func:`mmlu_audit.features.indicators.indicator_table`), so a renamed indicator is renamed
    on every axis at once.
    """
    from mmlu_audit.features.indicators import indicator_table

    table = indicator_table()
    return dict(zip(table["column"], table["name"], strict=True)) | _OTHER_LABELS


def label(name: str) -> str:
    """The reader's words for ``name``; a name that is not a code name is returned unchanged.

    Raises
    ------
    KeyError
        If ``name`` looks like a code name (``snake_case``) but is not registered: a new column
        drawn on an axis must be given words here, not shown as code.
    """
    known = labels()
    if name in known:
        return known[name]
    if CODE_NAME.fullmatch(name):
        raise KeyError(f"no reader's label for the code name {name!r}: add it to mmlu_audit.book.labels")
    return name


def code_names_in(text: str) -> list[str]:
    """The code names in ``text``: registered ones and any other ``snake_case`` token, in order.

    The names of the response sources (``openllm_v1_mmlu102``) are not counted: a figure's source
    stamp names its data as the reader types it after ``--data-source``.
    """
    from mmlu_audit.worlds.sources import SOURCES

    # a registered plain word ("estimate") is a header's words, not code; only names with an
    # underscore, a hyphen or a digit read as code
    code_like = [name for name in labels() if re.search(r"[_\d-]", name)]
    registered = [name for name in code_like if re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/])", text)]
    return [name for name in dict.fromkeys(registered + CODE_NAME.findall(text)) if name not in SOURCES]
