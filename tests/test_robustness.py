"""Appendix A: the three conclusions, the batched WSCG re-scoring and the perturbation schemes.

References: :meth:`WSCG.depth` (the tested per-graph dynamic programme) for the
batched depths; :func:`~mmlu_audit.analyses.regression.cv_table`, :func:`homogeneity_test` and
:func:`contrast_tests` for the statistics; hand computations for the schemes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS, WSCG, GraphBatch, default_tiers
from mmlu_audit.inference import fit_ols, homogeneity_test
from mmlu_audit.analyses.regression import (Design, contrast_terms, contrast_tests, cv_table, design_arrays,
                                   interaction_fit)
from mmlu_audit.analyses.robustness import (CONCLUSIONS, REFITS, active_tiers, conclusion_shares,
                                            estimator_sensitivity, estimator_statistics,
                                            length_residualised, perturbation_study, primary_conclusions,
                                            refit_frames, refitted_frame, robustness_headline,
                                            robustness_headline_with_study,
                                            scheme_statistics, section4_statistics, share_statistics,
                                            tier_schemes, tier_statistics)

TIERS = tuple(f"T{k}" for k in range(1, 9))


def random_graph(rng, n_max=12) -> WSCG:
    """A random DAG: vertices in topological order 0..n-1, edges only forward."""
    n = int(rng.integers(0, n_max))
    edges = tuple((int(u), int(v), "dependency") for v in range(n) for u in range(v)
                  if rng.random() < 0.3)
    tiers = tuple(TIERS[int(rng.integers(0, 7))] for _ in range(n))
    return WSCG(tokens=tuple(range(n)), texts=("w",) * n, labels=("x",) * n, tiers=tiers, edges=edges,
                order=tuple(range(n)))


def test_batched_depths_equal_the_per_graph_programme():
    rng = np.random.default_rng(0)
    graphs = [random_graph(rng) for _ in range(300)]
    assert any(g.n_nodes == 0 for g in graphs) and any(len(g.edges) > 5 for g in graphs)
    tables = rng.uniform(0, 5, size=(6, len(TIERS)))
    depths = GraphBatch(graphs, TIERS).depths(tables)
    expected = np.array([[g.depth(dict(zip(TIERS, row, strict=True))) for g in graphs] for row in tables])
    np.testing.assert_allclose(depths, expected, rtol=0, atol=1e-12)


def test_batched_depth_by_hand():
    # 0 -> 1 -> 3 and 0 -> 2 -> 3: T1, T7, T2, T1; best path 0-1-3 = 0.5 + 4 + 0.5
    graph = WSCG(tokens=(0, 1, 2, 3), texts=("a",) * 4, labels=("x",) * 4, tiers=("T1", "T7", "T2", "T1"),
                 edges=((0, 1, "dependency"), (0, 2, "dependency"), (1, 3, "state"), (2, 3, "state")),
                 order=(0, 1, 2, 3))
    batch = GraphBatch([graph, random_graph(np.random.default_rng(1), 1)], TIERS)
    out = batch.depths([list(default_tiers().values()), [0.0] * 8])
    assert out[0, 0] == pytest.approx(5.0) and out[1, 0] == 0.0 and out[:, 1].tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="columns"):
        batch.depths([[1.0, 2.0]])


def test_tier_schemes_shift_one_tier_at_a_time():
    tiers = dict(default_tiers())
    schemes = tier_schemes(tiers, ["T1", "T7"], 50, seed=3, clamp_tier="T1")
    assert len(schemes) == 2 * 50 + 1
    shifts = schemes[schemes["kind"] == "tier shift"]
    assert shifts["delta"].between(-1, 1).all() and shifts["delta"].std() > 0.4
    for row in shifts.itertuples():
        changed = [t for t in tiers if getattr(row, t) != tiers[t]]
        assert changed == [row.tier]
        assert getattr(row, row.tier) == pytest.approx(max(0.0, tiers[row.tier] + row.delta))
    assert (shifts.loc[shifts["tier"] == "T1", "T1"] >= 0).all()
    assert (shifts.loc[shifts["tier"] == "T1", "T1"] == 0).any()  # 0.5 − 1 floors at 0
    clamp = schemes[schemes["kind"] == "clamp"].iloc[0]
    assert clamp["T1"] == 0 and clamp["T2"] == tiers["T2"]
    pd.testing.assert_frame_equal(schemes, tier_schemes(tiers, ["T1", "T7"], 50, seed=3, clamp_tier="T1"))
    assert not schemes.equals(tier_schemes(tiers, ["T1", "T7"], 50, seed=4, clamp_tier="T1"))


@pytest.mark.parametrize("bad", [None, -1, 1.5, True])
def test_tier_schemes_refuse_a_missing_seed(bad):
    with pytest.raises(ParameterError, match="seed"):
        tier_schemes(dict(default_tiers()), ["T1"], 3, seed=bad)


def test_tier_schemes_refuse_unknown_tiers():
    with pytest.raises(DataError, match="unknown tiers"):
        tier_schemes(dict(default_tiers()), ["T9"], 3, seed=0)


def test_active_tiers():
    rng = np.random.default_rng(2)
    graphs = [random_graph(rng) for _ in range(50)]
    assert active_tiers(graphs) == sorted({t for g in graphs for t in g.tiers})
    assert "T8" not in active_tiers(graphs)


def world_frame(seed: int, contrast: float = 0.8, n_subjects: int = 24,
                per_subject: int = 60) -> pd.DataFrame:
    """Items in subjects (half STEM) with a planted STEM-only slope on d_ner."""
    rng = np.random.default_rng(seed)
    subjects = np.repeat([f"s{k:02d}" for k in range(n_subjects)], per_subject)
    stem = np.repeat(np.arange(n_subjects) < n_subjects // 2, per_subject)
    X = pd.DataFrame(rng.normal(size=(len(subjects), len(INDICATORS))), columns=list(INDICATORS))
    subject_effect = np.repeat(rng.normal(scale=0.3, size=n_subjects), per_subject)
    b = 0.3 * X["c_bry"] + contrast * stem * X["d_ner"] + subject_effect + rng.normal(size=len(subjects))
    frame = X.assign(b_hat=b, stem=stem, subject=subjects,
                     n_tokens=np.round(20 + 5 * X["wscg_nodes"] + rng.normal(size=len(subjects))))
    frame.index = pd.Index([f"i{k}" for k in range(len(frame))], name="item_id")
    return frame


def test_section4_statistics_match_the_reference_functions():
    frame = world_frame(1)
    stats = section4_statistics(frame, seed=7, n_folds=5)
    X, y, stem, subjects = design_arrays(frame)
    hc3 = homogeneity_test(y, X, stem, kind="HC3").iloc[0]
    htz = homogeneity_test(y, X, stem, subjects, kind="CR2", forms=("HTZ",)).iloc[0]
    assert stats["w9_hc3"] == pytest.approx(hc3["wald"]) and stats["htz_p"] == pytest.approx(htz["p"])
    fit = interaction_fit(y, X, stem)
    contrasts = contrast_tests(fit, subjects, contrast_terms(X.columns), kinds=("CR2",))
    assert stats["d_ner_holm_cr2"] == pytest.approx(contrasts.loc["STEM:d_ner", "holm_CR2"])
    cv = cv_table(y, stem, subjects, [Design("nine indicators", X.to_numpy())], n_folds=5, seed=7)
    assert stats["cv_r2_stem"] == pytest.approx(cv.loc["nine indicators", ("item", "STEM")], abs=1e-10)
    assert stats["cv_r2_nonstem"] == pytest.approx(cv.loc["nine indicators", ("item", "non-STEM")], abs=1e-10)
    assert np.isnan(stats["wcr_p"])


def test_planted_world_makes_all_three_conclusions_true():
    frame = world_frame(2, contrast=0.8)
    stats = section4_statistics(frame, seed=1, n_folds=5, n_boot=199)
    X, y, stem, subjects = design_arrays(frame)
    boot = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns), kinds=("CR2",),
                          seed=1, n_boot=199, boot_kind="CR2")
    assert stats["d_ner_holm_boot"] == pytest.approx(boot.loc["STEM:d_ner", "holm_boot"])
    assert stats["r2_stem"] == pytest.approx(fit_ols(y[stem], X[stem], intercept=True).r2, abs=1e-10)
    assert primary_conclusions(stats) == {c: True for c in [*CONCLUSIONS, "homogeneity_rejected_wcr"]}


def test_null_world_rejects_at_about_the_nominal_rate():
    rejections = [primary_conclusions(section4_statistics(world_frame(100 + s, contrast=0.0), seed=s,
                                                          n_folds=5))["homogeneity_rejected"]
                  for s in range(20)]
    assert sum(rejections) <= 4  # size 5 %: P(≥ 5 of 20) < 0.003


def test_conclusion_thresholds_by_hand():
    base = {"htz_p": 0.04, "d_ner_contrast": 0.2, "d_ner_holm_cr2": 0.01, "cv_r2_stem": 0.07,
            "cv_r2_nonstem": 0.03, "wcr_p": np.nan}
    assert primary_conclusions(base) == dict.fromkeys(CONCLUSIONS, True)
    assert not primary_conclusions({**base, "htz_p": 0.06})["homogeneity_rejected"]
    assert not primary_conclusions({**base, "d_ner_contrast": -0.2})["d_ner_survives_holm"]
    assert not primary_conclusions({**base, "d_ner_holm_cr2": 0.05})["d_ner_survives_holm"]
    assert not primary_conclusions({**base, "cv_r2_stem": 0.02})["stem_r2_exceeds"]
    assert primary_conclusions({**base, "wcr_p": 0.06})["homogeneity_rejected_wcr"] is False
    assert primary_conclusions(base, alpha=0.01)["homogeneity_rejected"] is False
    with pytest.raises(ParameterError, match="alpha"):
        primary_conclusions(base, alpha=1.0)


def test_length_residualised_removes_the_length_component_only():
    frame = world_frame(3)
    out = length_residualised(frame)
    for column in ("wscg_nodes", "wscg_depth"):
        assert np.corrcoef(out[column], frame["n_tokens"])[0, 1] == pytest.approx(0, abs=1e-10)
        assert out[column].mean() == pytest.approx(frame[column].mean())
    assert abs(np.corrcoef(frame["wscg_nodes"], frame["n_tokens"])[0, 1]) > 0.9
    pd.testing.assert_frame_equal(out.drop(columns=["wscg_nodes", "wscg_depth"]),
                                  frame.drop(columns=["wscg_nodes", "wscg_depth"]))
    with pytest.raises(DataError, match="missing"):
        length_residualised(frame.drop(columns="n_tokens"))


def test_perturbation_study_rescores_depth_and_reports_every_scheme():
    rng = np.random.default_rng(4)
    frame = world_frame(5)
    graphs = [random_graph(rng) for _ in range(len(frame))]
    batch = GraphBatch(graphs, TIERS)
    tiers = dict(default_tiers())
    schemes = tier_schemes(tiers, ["T1", "T3"], 2, seed=0, clamp_tier="T1")
    study = perturbation_study(frame, batch, frame.index, schemes, seed=2, n_folds=5)
    assert len(study) == len(schemes) + 1 and study["scheme"].iloc[-1].startswith("length")
    assert set(CONCLUSIONS) <= set(study.columns)
    clamp = schemes[schemes["kind"] == "clamp"].iloc[0]
    depth = [g.depth({t: clamp[t] for t in TIERS}) for g in graphs]
    direct = section4_statistics(frame.assign(wscg_depth=depth), seed=2, n_folds=5)
    row = study[study["kind"] == "clamp"].iloc[0]
    assert row["w9_hc3"] == pytest.approx(direct["w9_hc3"]) and row["htz_p"] == pytest.approx(direct["htz_p"])
    with pytest.raises(DataError, match="ids"):
        perturbation_study(frame, batch, frame.index[:-1], schemes, seed=2)


def test_conclusion_shares_by_hand():
    study = pd.DataFrame({"kind": ["a", "a", "b"], "homogeneity_rejected": [True, False, True],
                          "d_ner_survives_holm": [True, True, True], "stem_r2_exceeds": [False, False, True]})
    overall = conclusion_shares(study).iloc[0]
    assert overall["homogeneity_rejected"] == pytest.approx(2 / 3) and overall["schemes"] == 3
    by_kind = conclusion_shares(study, by="kind")
    assert by_kind.loc["a", "stem_r2_exceeds"] == 0 and by_kind.loc["b", "schemes"] == 1
    with pytest.raises(DataError, match="missing"):
        conclusion_shares(study.drop(columns="stem_r2_exceeds"))


def test_refitted_frame_swaps_in_the_new_calibration_only():
    from types import SimpleNamespace

    from mmlu_audit.data.responses import MISSING, ResponseMatrix
    from mmlu_audit.irt import IRTSpec

    rng = np.random.default_rng(9)
    theta, b = rng.normal(size=80), rng.normal(size=25)
    responses = (rng.random((80, 25)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    responses[:, 3] = MISSING  # nobody answered item 3
    ids = np.array([f"i{k}" for k in range(25)])
    matrix = ResponseMatrix(responses, pd.DataFrame({"model_id": [f"m{j}" for j in range(80)]}), ids,
                            "test", simulated=True)
    frame = pd.DataFrame({"b_hat": 9.0, "a_hat": 9.0, "b_sd": 9.0, "d_ner": np.arange(25.0)},
                         index=pd.Index(ids, name="item_id"))
    spec = IRTSpec(model="rasch", max_steps=60, min_steps=10, seed=0)
    refit, fit = refitted_frame(SimpleNamespace(matrix=matrix, frame=frame), spec)
    answered = np.arange(25) != 3
    np.testing.assert_allclose(refit.loc[answered, "b_hat"], fit.b)
    assert np.isnan(refit.loc["i3", ["b_hat", "a_hat", "b_sd"]]).all()
    assert np.corrcoef(refit.loc[answered, "b_hat"], b[answered])[0, 1] > 0.8
    pd.testing.assert_series_equal(refit["d_ner"], frame["d_ner"])
    assert (frame["b_hat"] == 9.0).all()  # the input frame is not modified


def tiny_inputs():
    """80 models × 25 Rasch items, item 3 unanswered, with a frame of placeholder estimates."""
    from types import SimpleNamespace

    from mmlu_audit.data.responses import MISSING, ResponseMatrix

    rng = np.random.default_rng(9)
    theta, b = rng.normal(size=80), rng.normal(size=25)
    responses = (rng.random((80, 25)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    responses[:, 3] = MISSING
    ids = np.array([f"i{k}" for k in range(25)])
    matrix = ResponseMatrix(responses, pd.DataFrame({"model_id": [f"m{j}" for j in range(80)]}), ids,
                            "test", simulated=True)
    frame = pd.DataFrame({"b_hat": 9.0, "a_hat": 9.0, "b_sd": 9.0}, index=pd.Index(ids, name="item_id"))
    frame.loc["i3", "b_hat"] = np.nan
    return SimpleNamespace(matrix=matrix, frame=frame)


def test_refit_frames_puts_the_paper_first_and_refits_each_named_calibration():
    from mmlu_audit.analyses.pipeline import calibration_spec

    inputs = tiny_inputs()
    out = refit_frames(inputs, ["rasch"], fast=True, seed=0, max_steps=60)
    assert list(out) == ["paper", "rasch"] and out["rasch"][0] == REFITS["rasch"][0]
    assert (out["paper"][1]["b_hat"] == 9.0).all() and "i3" not in out["paper"][1].index
    direct, fit = refitted_frame(inputs, calibration_spec(True, 0, model="rasch", max_steps=60))
    pd.testing.assert_series_equal(out["rasch"][1]["b_hat"], direct["b_hat"].dropna())
    assert np.allclose(fit.a, 1.0)  # the Rasch refit really fixed the discriminations


def test_every_named_refit_fits_and_recovers_the_order_of_the_difficulties():
    inputs = tiny_inputs()
    out = refit_frames(inputs, list(REFITS), fast=True, seed=0, max_steps=80)
    assert list(out) == ["paper", *REFITS]
    answered = inputs.frame.index != "i3"
    rng = np.random.default_rng(9)
    rng.normal(size=80)
    b = rng.normal(size=25)[answered]  # the generating difficulties of tiny_inputs
    for name in REFITS:
        assert np.corrcoef(out[name][1]["b_hat"], b)[0, 1] > 0.8, name


@pytest.mark.parametrize("refits, steps, match", [(["2pl"], 0, "each once from"),
                                                  (["rasch", "rasch"], 0, "each once"),
                                                  (["rasch"], -1, "max_steps")])
def test_refit_frames_refuses_bad_choices(refits, steps, match):
    with pytest.raises(ParameterError, match=match):
        refit_frames(tiny_inputs(), refits, fast=True, seed=0, max_steps=steps)


def test_estimator_sensitivity_reruns_the_pipeline_on_each_frame_and_reuses_known_statistics():
    frame = world_frame(6)
    rng = np.random.default_rng(1)
    planted = frame.assign(b_true=frame["b_hat"],
                           b_hat=0.5 * frame["b_hat"] + rng.normal(0, 0.05, len(frame)))
    base = section4_statistics(frame, seed=3, n_folds=5)
    out = estimator_sensitivity({"paper": ("paper fit", frame), "other": ("other fit", planted)}, seed=3,
                                n_folds=5, known={"paper": {**base, "w9_hc3": -1.0}})
    assert list(out["estimators"].columns) == ["paper fit", "other fit"]
    assert out["estimators"].loc["w9_hc3", "paper fit"] == -1.0  # reused verbatim, not recomputed
    other = section4_statistics(planted, seed=3, n_folds=5)
    assert out["estimators"].loc["htz_p", "other fit"] == pytest.approx(other["htz_p"])
    conclusions = primary_conclusions(other)
    assert out["estimators"].loc["stem_r2_exceeds", "other fit"] == conclusions["stem_r2_exceeds"]
    X, y, stem, subjects = design_arrays(planted)
    holm = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns), kinds=("CR2",))
    pd.testing.assert_series_equal(out["holm"]["other fit"], holm["holm_CR2"], check_names=False)
    assert out["table3"][("other fit", "STEM")].loc["d_ner"] == pytest.approx(
        0.5 * out["table3"][("paper fit", "STEM")].loc["d_ner"], abs=0.02)
    assert np.isnan(out["recoveries"]["paper"]) and out["recoveries"]["other"] == pytest.approx(0.5, abs=0.01)


def test_estimator_statistics_by_hand():
    estimators = pd.DataFrame({"P": {"homogeneity_rejected": True, "d_ner_survives_holm": True,
                                     "stem_r2_exceeds": True, "homogeneity_rejected_wcr": False},
                               "R": {"homogeneity_rejected": True, "d_ner_survives_holm": False,
                                     "stem_r2_exceeds": True, "homogeneity_rejected_wcr": True}})
    out = estimator_statistics({"estimators": estimators, "recoveries": {"paper": 0.6, "rasch": 0.5},
                                "labels": {"paper": "P", "rasch": "R"}})
    assert out == {"recovery_paper": 0.6, "recovery_rasch": 0.5, "rasch_conclusions_intact": False,
                   "estimator_dependent": "the D_ner contrast surviving Holm; "
                                          "homogeneity rejected (wild cluster bootstrap)"}


def test_scheme_share_and_tier_statistics_by_hand():
    study = pd.DataFrame({"kind": ["tier shift", "tier shift", "clamp", "length-residualised"],
                          "w9_hc3": [1.0, 2.0, 3.0, 4.0], "homogeneity_rejected": [True, True, False, True],
                          "d_ner_survives_holm": [True, False, True, True], "stem_r2_exceeds": [True] * 4})
    shares = share_statistics(study)
    assert shares["share_schemes_homogeneity_rejected"] == 0.75 and shares["share_all_three"] == 0.5
    assert (shares["w9_clamped"], shares["w9_residualised_dim1"]) == (3.0, 4.0)
    counts = scheme_statistics(study)
    assert (counts["n_tier_schemes"], counts["n_schemes"]) == (2, 4)
    assert counts["count_matches_paper"] == "does not match"
    assert scheme_statistics(pd.concat([study] * 31).iloc[:123])["count_matches_paper"] == "matches"
    with pytest.raises(DataError, match="'clamp'"):
        share_statistics(study[study["kind"] != "clamp"])
    rng = np.random.default_rng(5)
    graphs = [random_graph(rng) for _ in range(40)]
    tiers = dict(default_tiers())
    out = tier_statistics(graphs, tiers)
    assert out["n_active"] == len(active_tiers(graphs))
    assert out["n_top_tier_vertices"] == 0  # random_graph never uses T8
    assert out["inert_names"].split(", ") == [t for t in tiers if t not in active_tiers(graphs)]


def test_robustness_headline_is_the_appendix_pipeline_in_one_call():
    from types import SimpleNamespace

    from mmlu_audit.analyses.pipeline import calibration_spec
    from mmlu_audit.data.responses import ResponseMatrix

    rng = np.random.default_rng(11)
    frame = world_frame(3, n_subjects=16, per_subject=25)
    graphs = [random_graph(rng) for _ in range(len(frame))]
    frame["wscg_depth"] = GraphBatch(graphs, TIERS).depths([list(default_tiers().values())])[0]
    theta = rng.normal(size=60)
    p = 1 / (1 + np.exp(-(theta[:, None] - frame["b_hat"].to_numpy())))
    models = pd.DataFrame({"model_id": [f"m{j}" for j in range(60)]})
    matrix = ResponseMatrix((rng.random(p.shape) < p).astype(np.int8), models, frame.index.to_numpy(), "test",
                            simulated=True)
    inputs = SimpleNamespace(matrix=matrix, frame=frame, items=pd.DataFrame({"item_id": frame.index}))
    batch = GraphBatch(graphs, TIERS)
    schemes = tier_schemes(dict(default_tiers()), ["T1", "T3"], 2, seed=0, clamp_tier="T1")
    out = robustness_headline(inputs, batch, schemes, seed=4, fast=True, n_folds=5, n_boot=49, max_steps=60)
    # the reference: the appendix's functions called one by one
    base = section4_statistics(frame, seed=4, n_folds=5, n_boot=49)
    assert {k: out[f"base_{k}"] for k in base} == pytest.approx(base, nan_ok=True)
    conclusions = primary_conclusions(base)
    assert {c: out[f"base_{c}"] for c in CONCLUSIONS} == {c: conclusions[c] for c in CONCLUSIONS}
    assert np.isfinite(out["base_wcr_p"]) and "base_homogeneity_rejected_wcr" in out
    study = perturbation_study(frame, batch, frame.index, schemes, seed=4, n_folds=5)
    assert {k: out[k] for k in share_statistics(study)} == pytest.approx(share_statistics(study))
    assert out["n_schemes"] == out["n_perturbation_schemes"] == len(schemes) + 1
    assert out["n_tier_schemes"] == 4
    refit, _ = refitted_frame(inputs, calibration_spec(True, 4, model="rasch", max_steps=60))
    rasch = primary_conclusions(section4_statistics(refit, seed=4, n_folds=5))
    assert out["rasch_conclusions_intact"] == all(rasch[c] for c in CONCLUSIONS)
    # the study a figure draws is the one the headline read, not a second scoring of the schemes
    again, drawn = robustness_headline_with_study(inputs, batch, schemes, seed=4, fast=True, n_folds=5,
                                                  n_boot=49, max_steps=60)
    assert again == pytest.approx(out, nan_ok=True)
    pd.testing.assert_frame_equal(drawn, study)
