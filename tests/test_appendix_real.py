"""The rows of the real-pool figures of Appendices A and B.

References: :func:`mmlu_audit.analyses.replication.judge` and the paper's estimands for the claim
rows; :func:`mmlu_audit.analyses.option_set.option_set_headline` (the appendix's own figures) and a
t interval by hand for the D_ner contrast rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.analyses.appendix_real import claim_forest_rows, entity_contrast_rows
from mmlu_audit.analyses.option_set import controlled_contrasts, option_set_headline
from mmlu_audit.analyses.replication import ESTIMANDS, judge
from mmlu_audit.analyses.robustness import OUTCOME_ESTIMANDS
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS, OPTION_COVARIATES


def test_claim_rows_put_the_paper_first_and_judge_the_population_by_the_rule():
    values = {"base_interaction_share": 0.004, "base_interaction_share_low": 0.001,
              "base_interaction_share_high": 0.009, "base_d_ner_contrast": 0.05,
              "base_d_ner_contrast_low": -0.02, "base_d_ner_contrast_high": 0.20,
              "base_logit2_ratio": 2.0, "base_logit2_ratio_low": 1.3, "base_logit2_ratio_high": 3.1}
    rows = claim_forest_rows(values, "real pool (3 models)")
    assert list(rows["estimand"]) == [key for key in OUTCOME_ESTIMANDS.values() for _ in range(2)]
    assert list(rows["kind"]) == ["paper", "pool"] * 3
    papers, pools = rows[rows["kind"] == "paper"], rows[rows["kind"] == "pool"]
    assert papers["estimate"].tolist() == [ESTIMANDS[k].paper for k in OUTCOME_ESTIMANDS.values()]
    assert (papers["outcome"] == "").all()
    for row in pools.itertuples():
        expected = judge(row.estimand, values[f"base_{row.estimand}"], values[f"base_{row.estimand}_low"],
                         values[f"base_{row.estimand}_high"])["outcome"]
        assert row.outcome == expected and row.who == f"real pool (3 models)\n{expected}"
        bounds = (values[f"base_{row.estimand}_low"], values[f"base_{row.estimand}_high"])
        assert (row.low, row.high) == bounds
    # over zero and holding the paper's contrast: inconclusive; clear of 1 and holding 2.46: replicated
    assert pools.set_index("estimand").loc["d_ner_contrast", "outcome"] == "inconclusive"
    assert pools.set_index("estimand").loc["logit2_ratio", "outcome"] == "replicated"
    with pytest.raises(DataError, match="base_logit2_ratio_high"):
        claim_forest_rows({k: v for k, v in values.items() if k != "base_logit2_ratio_high"}, "pool")


def frame_with_options(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    subjects = np.repeat([f"s{k:02d}" for k in range(24)], 50)
    stem = np.repeat(np.arange(24) < 10, 50)
    X = pd.DataFrame(rng.normal(size=(len(subjects), len(INDICATORS))), columns=list(INDICATORS))
    options = pd.DataFrame(rng.normal(size=(len(subjects), len(OPTION_COVARIATES))),
                           columns=list(OPTION_COVARIATES))
    b = 0.6 * stem * X["d_ner"] + 0.4 * options["opt_len_mean"] + rng.normal(size=len(subjects))
    frame = pd.concat([X, options], axis=1).assign(b_hat=b, stem=stem, subject=subjects)
    frame.index = pd.Index([f"i{k}" for k in range(len(frame))], name="item_id")
    frame.loc["i0", "b_hat"] = np.nan  # an item nobody answered is left out
    return frame


def test_entity_rows_are_the_appendix_contrasts_with_t_intervals():
    frame = frame_with_options(3)
    rows = entity_contrast_rows(frame, seed=1, who="pool: ")
    assert rows["kind"].tolist() == ["paper", "pool", "pool", "pool"]
    assert rows["fit"].tolist() == ["", "all items", "all items + option set", "common support"]
    assert rows["who"].tolist()[1:] == [f"pool: {fit}" for fit in rows["fit"].iloc[1:]]
    paper = ESTIMANDS["d_ner_contrast"]
    assert rows.loc[0, "estimate"] == paper.paper
    assert (rows.loc[0, "low"], rows.loc[0, "high"]) == paper.paper_interval
    # the same figures as the appendix's one-call headline, on the same estimated items
    headline = option_set_headline(frame, seed=1)
    by_fit = rows.set_index("fit")
    assert by_fit.loc["all items", "t_CR2"] == pytest.approx(headline["plain_d_ner_t"])
    assert by_fit.loc["all items + option set", "holm_CR2"] == pytest.approx(headline["option_d_ner_holm"])
    assert by_fit.loc["common support", "holm_CR2"] == pytest.approx(headline["support_d_ner_holm"])
    assert by_fit.loc["common support", "n_items"] == headline["support_n"]
    assert by_fit.loc["all items", "n_items"] == len(frame) - 1
    # the interval by hand: estimate ± t(0.975, Bell–McCaffrey df) × CR2 SE, per SD of b̂
    estimated = frame.dropna(subset=["b_hat"])
    table, _ = controlled_contrasts(estimated, None, seed=1)
    entity = table.loc["STEM:d_ner"]
    half = stats.t.ppf(0.975, entity["df_CR2"]) * entity["se_CR2"]
    sd = np.std(estimated["b_hat"].to_numpy(float))
    assert (by_fit.loc["all items", "low"], by_fit.loc["all items", "high"]) == pytest.approx(
        ((entity["estimate"] - half) / sd, (entity["estimate"] + half) / sd))
    # the planted STEM-only slope is found in every fit
    assert (rows["low"].iloc[1:] > 0).all()
    with pytest.raises(ParameterError, match="level"):
        entity_contrast_rows(frame, seed=1, level=1.0)
