"""§4.2's glue values, read from small hand-made tables."""

from __future__ import annotations

import pandas as pd
import pytest

from mmlu_audit.analyses.regression.stratified import (contrast_statistics, effect_statistics,
                                                       standardised_statistics)
from mmlu_audit.core.errors import DataError


def contrasts_table(**columns) -> pd.DataFrame:
    return pd.DataFrame(columns, index=["STEM:a", "STEM:b", "STEM:c"])


def test_effect_statistics_read_the_first_design_and_both_effects():
    cv = pd.DataFrame([[0.1, 0.2, 0.05, 0.15], [9, 9, 9, 9]], index=["nine", "other"],
                      columns=pd.MultiIndex.from_product([["item", "subject"], ["STEM", "non-STEM"]]))
    effects = pd.DataFrame({"estimate": [2.0, 0.1], "ci_low": [1.5, 0.0], "ci_high": [2.5, 0.2]},
                           index=pd.Index(["explained_var_ratio", "cohens_q"], name="effect"))
    out = effect_statistics(cv, effects)
    keys = ["cv_r2_stem", "cv_r2_nonstem", "cv_r2_stem_subject", "cv_r2_nonstem_subject"]
    assert [out[k] for k in keys] == [0.1, 0.2, 0.05, 0.15]
    assert (out["logit2_ratio"], out["logit2_ratio_ci_low"], out["cohens_q_ci_high"]) == (2.0, 1.5, 0.2)
    with pytest.raises(DataError, match="cohens_q"):
        effect_statistics(cv, effects.drop(index="cohens_q"))


def test_contrast_statistics_count_survivors_and_pick_the_largest_absolute_t():
    table = contrasts_table(t_CR2=[1.0, -4.0, 3.0], holm_CR2=[0.5, 0.001, 0.04],
                            holm_HC3=[0.01, 0.01, 0.2], holm_boot=[0.6, 0.03, 0.2])
    out = contrast_statistics(table)
    assert (out["holm_survivors_cr2"], out["holm_survivors_hc3"], out["holm_survivors_boot"]) == (2, 2, 1)
    assert (out["top_term"], out["top_t"], out["top_holm"], out["top_boot_holm"]) == ("b", -4.0, 0.001, 0.03)
    with pytest.raises(DataError, match="t_CR2"):
        contrast_statistics(table.drop(columns="holm_boot"))


def test_standardised_statistics_compare_the_surviving_sets():
    before = contrasts_table(holm_HC3=[0.01, 0.01, 0.5], holm_CR2=[0.01, 0.5, 0.5])
    after = contrasts_table(holm_HC3=[0.01, 0.5, 0.01], holm_CR2=[0.04, 0.06, 0.5])
    out = standardised_statistics(before, after)
    assert out == {"std_holm_hc3": 2, "std_same_hc3": "no", "std_holm_cr2": 1, "std_same_cr2": "yes"}
