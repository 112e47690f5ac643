"""Tests for the discussion's claims table, read from (synthetic) executed chapters."""

from __future__ import annotations

import pytest

from mmlu_audit.book.discussion import (
    CLAIMS,
    KINDS,
    EVIDENCE_OUTCOMES,
    SIMULATED,
    VERDICTS,
    Condition,
    Evidence,
    claim_chapters,
    claims_table,
    evidence_table,
    glue_names,
)
from mmlu_audit.book.chapters import reader_stems
from mmlu_audit.book.findings import read_build
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.book.results import REAL_RESULTS

from test_scorecard import write_chapter

EXPECT = {"data_source": "simulated", "seed": 1, "fast": True}
REAL = {"data_source": "helm20", "seed": 1, "fast": True}
#: The stratified chapter's (§4.2) values where the D_ner contrast survives every test.
D_NER_SURVIVES = {"t_cr2_d_ner": 3.41, "holm_p_cr2_d_ner": 0.011, "boot_p_d_ner": 0.014,
                  "found_cr2_names": "d_ner", "found_boot_names": "d_mdd, d_ner",
                  "cv_r2_stem": 0.0732, "cv_r2_nonstem": 0.0361, "logit2_ratio": 2.46,
                  "logit2_ratio_ci_low": 1.8, "logit2_ratio_ci_high": 3.36}


def _claims(folder, expect=EXPECT):
    return claims_table(read_build(folder, expect))


def test_an_empty_build_leaves_every_claim_not_testable_with_its_reason(tmp_path):
    table = _claims(tmp_path)
    assert list(table.index) == [claim.key for claim in CLAIMS]
    assert (table["verdict"] == "not estimable").all()
    assert table.loc["d_ner", "why"] == "chap-real-verdicts:outcome_d_ner is not in this build"
    assert table.loc["rank_stability", "why"].startswith("no replication estimand")
    assert table["power"].isna().all()
    assert set(table["simulated"]) == {SIMULATED[2], SIMULATED[3]}


def test_simulated_values_never_support_a_claim_but_show_the_planted_recovery(tmp_path):
    write_chapter(tmp_path, "06_stratified", D_NER_SURVIVES | {"planted_names": "d_mdd, c_bry, d_ner"})
    write_chapter(tmp_path, "05_pooled", {"true_r2_stem": 0.12, "true_r2_nonstem": 0.07})
    table = _claims(tmp_path)
    assert table.loc["d_ner", "verdict"] == "not estimable"
    assert table.loc["d_ner", "simulated"] == SIMULATED[0]
    assert table.loc["stem_r2", "simulated"] == SIMULATED[0] and table.loc["stem_r2", "real_evidence"] == 0


def test_a_planted_truth_the_pipeline_misses_is_not_recovered(tmp_path):
    write_chapter(tmp_path, "06_stratified", D_NER_SURVIVES | {"found_cr2_names": "d_mdd",
                                                               "planted_names": "d_ner"})
    table = _claims(tmp_path)
    assert table.loc["d_ner", "simulated"] == SIMULATED[1]
    assert table.loc["d_ner", "simulated_why"] == \
        "D_ner planted; CR2 and bootstrap Holm find it: does not recover the planted truth"
    evidence = evidence_table(read_build(tmp_path, EXPECT))
    planted = evidence[evidence["kind"] == "planted"].set_index("glue").loc["chap-stratified:found_cr2_names"]
    assert planted["why"] == "fails: found_cr2_names contains d_ner"


def test_real_tests_elsewhere_are_evidence_but_never_the_outcome(tmp_path):
    write_chapter(tmp_path, "06_stratified", D_NER_SURVIVES | {"logit2_ratio_ci_low": 0.9},
                  banner="real-banner", params=REAL)
    table = _claims(tmp_path, REAL)
    # the outcome is the replication chapter's alone; a significance test elsewhere only shows a value
    assert table.loc["d_ner", "verdict"] == "not estimable" and table.loc["d_ner", "real_evidence"] == 2
    assert table.loc["stem_r2", "verdict"] == "not estimable"
    evidence = evidence_table(read_build(tmp_path, REAL)).set_index("glue")
    assert evidence.loc["chap-stratified:logit2_ratio", "why"] == "fails: logit2_ratio_ci_low > 1.0"
    assert evidence.loc["chap-stratified:logit2_ratio", ["low", "high"]].tolist() == [0.9, 3.36]
    planted = evidence[evidence["kind"] == "planted"].loc["chap-stratified:found_cr2_names"]
    assert planted["outcome"] == "not applicable", "no planted truth on a real source"


def test_a_claim_without_an_estimand_is_not_estimable_whatever_its_tests(tmp_path):
    write_chapter(tmp_path, "11_rank_stability",
                  {"helm_displacement": 0.44, "helm_tau_stem": 0.81, "helm_tau_nonstem": 0.95,
                   "helm_null_blocks_p": 0.03, "h20_tau_stem": 0.90, "h20_tau_matched": 0.85,
                   "h20_tau_matched_p": 0.4})
    table = _claims(tmp_path)
    assert table.loc["rank_stability", "verdict"] == "not estimable"
    assert table.loc["rank_stability", "why"].startswith("no replication estimand")
    # the real HELM glues count as real whatever banner the chapter shows
    evidence = evidence_table(read_build(tmp_path, EXPECT)).set_index("glue")
    assert evidence.loc["chap-rank-stability:helm_displacement",
                        "population"] == "HELM per-subject table, 79 models"
    assert evidence.loc["chap-rank-stability:tau_stem", "outcome"] == "missing"


def test_p_at_the_threshold_does_not_support_and_nan_is_missing(tmp_path):
    write_chapter(tmp_path, "20_mmlu_pro",
                  {"pro_wcr_stat": 12.0, "pro_wcr_p": 0.05, "pro_b_sd": float("nan")})
    evidence = evidence_table(read_build(tmp_path, EXPECT)).set_index("glue")
    assert evidence.loc["chap-mmlu-pro:pro_wcr_stat", "outcome"] == "does not reject at 5 %"
    assert evidence.loc["chap-mmlu-pro:pro_b_sd", "outcome"] == "missing"
    assert _claims(tmp_path).loc["mmlu_pro", "verdict"] == "not estimable"


def test_stale_chapters_contribute_nothing(tmp_path):
    write_chapter(tmp_path, "20_mmlu_pro", {"pro_wcr_stat": 40.0, "pro_wcr_p": 0.001},
                  params={"data_source": "simulated", "seed": 2, "fast": True})
    assert _claims(tmp_path).loc["mmlu_pro", "verdict"] == "not estimable"


def test_registry_is_well_formed():
    assert "13_discussion" in reader_stems()
    assert {ev.kind for claim in CLAIMS for ev in claim.evidence} <= set(KINDS)
    assert len({claim.key for claim in CLAIMS}) == len(CLAIMS) == 6
    real_glues = {r.glue for r in REAL_RESULTS}
    context = [ev.glue for claim in CLAIMS for ev in claim.evidence if ev.kind == "context"]
    assert set(context) <= real_glues, "context evidence is a registered real-data result"
    assert all(claim.scope for claim in CLAIMS)
    assert set(claim_chapters()) == {"chap-pooled", "chap-stratified", "chap-homogeneity",
                                     "chap-reasoning-sensitivity", "chap-rank-stability", "chap-mmlu-pro",
                                     "chap-interaction-bootstrap", "chap-real-verdicts"}
    powered = {claim.key for claim in CLAIMS if claim.power}
    assert powered == {"homogeneity", "d_ner", "stem_r2", "guessing_floor"}
    assert all(claim.power in glue_names() for claim in CLAIMS if claim.power)
    assert set(EVIDENCE_OUTCOMES) >= {"rejects at 5 %", "missing"}
    assert not any("support" in word for word in set(EVIDENCE_OUTCOMES) | set(VERDICTS))


def test_bad_registry_entries_are_refused():
    with pytest.raises(ParameterError, match="op must be"):
        Condition("x", "<=", 1)
    with pytest.raises(ParameterError, match="context evidence"):
        Evidence("chap-stratified", "x", "label", kind="context", conditions=(Condition("x", "<", 1),))
    with pytest.raises(ParameterError, match="kind must be"):
        Evidence("chap-stratified", "x", "label", kind="guess", conditions=(Condition("x", "<", 1),))


def test_glue_names_cover_values_bounds_and_compared_glues():
    names = glue_names()
    assert {("chap-stratified", "logit2_ratio_ci_high"), ("chap-pooled", "true_r2_nonstem"),
            ("chap-rank-stability", "h20_tau_matched"),
            ("chap-mmlu-pro", "pro_wcr_p"), ("chap-stratified", "found_boot_names")} <= names
    assert not any(name == "d_ner" for _, name in names), "a term a list must contain is no glue name"


def test_a_null_world_plants_nothing_to_recover(tmp_path):
    write_chapter(tmp_path, "06_stratified", D_NER_SURVIVES | {"found_cr2_names": "none",
                                                               "planted_names": "none"},
                  params={"data_source": "simulated-null", "seed": 1, "fast": True})
    collection = read_build(tmp_path, {"data_source": "simulated-null", "seed": 1, "fast": True})
    evidence = evidence_table(collection)
    planted = evidence[evidence["kind"] == "planted"].set_index("glue").loc["chap-stratified:found_cr2_names"]
    assert planted["outcome"] == "not applicable"
    assert planted["why"] == "not planted in this world: planted_names contains d_ner"
    assert claims_table(collection).loc["d_ner", "simulated"] == SIMULATED[2]
    with pytest.raises(ParameterError, match="only a planted truth"):
        Evidence("chap-stratified", "x", "label", conditions=(Condition("x", "<", 1),),
                 given=(Condition("y", ">", 0),))


#: The real-verdicts chapter's pool values where homogeneity is not rejected.
POOL_NOT_REJECTED = {"pool_w9_cr2": 26.5, "pool_w9_htz_F": 1.9, "pool_w9_htz_p": 0.18, "pool_wcb_stat": 26.5,
                     "pool_wcb_p": 0.07}


@pytest.mark.parametrize("outcome", ["inconclusive", "replicated", "not replicated"])
def test_the_outcome_is_the_replication_chapters_whatever_the_p_values(tmp_path, outcome):
    sentence = "the real estimate, 0.005 [-0.01, 0.02], holds both no effect and the paper's 0.0092"
    write_chapter(tmp_path, "12_real_verdicts", POOL_NOT_REJECTED | {
        "power_homogeneity": 0.3, "outcome_homogeneity": outcome, "sentence_homogeneity": sentence},
        banner="real-banner")
    table = _claims(tmp_path)
    assert table.loc["homogeneity", "verdict"] == outcome
    assert table.loc["homogeneity", "power"] == 0.3 and sentence in table.loc["homogeneity", "why"]
    evidence = evidence_table(read_build(tmp_path, EXPECT)).set_index("glue")
    assert evidence.loc["chap-real-verdicts:pool_wcb_stat", "population"].startswith("pooled matrix")
    assert evidence.loc["chap-real-verdicts:pool_wcb_stat", "p"] == 0.07  # the p beside its statistic


def test_an_unknown_outcome_word_is_not_read_as_one(tmp_path):
    write_chapter(tmp_path, "12_real_verdicts", POOL_NOT_REJECTED | {"outcome_homogeneity": "supported"},
                  banner="real-banner")
    assert _claims(tmp_path).loc["homogeneity", "verdict"] == "not estimable"


def test_summary_intervals_are_the_ones_the_chapters_say_to_read(tmp_path):
    write_chapter(tmp_path, "11_rank_stability",
                  {"helm_displacement": 0.2, "helm_displacement_low": 0.1, "helm_displacement_high": 0.3025,
                   "helm_displacement_exact_low": 0.03, "helm_displacement_exact_high": 0.56,
                   "helm_displacement_interval": {"low": 0.03, "high": 0.56, "method": "exact"},
                   "helm_tau_stem": 0.81, "helm_tau_nonstem": 0.95, "helm_null_blocks_p": 0.03})
    write_chapter(tmp_path, "08_reasoning_sensitivity", {"helm_r_beta_acc": 0.5, "helm_r_low": 0.14,
                                                         "helm_r_high": 0.8})
    evidence = evidence_table(read_build(tmp_path, EXPECT)).set_index("glue")
    bounds = ["low", "high"]
    # Clopper–Pearson, then Fisher
    assert evidence.loc["chap-rank-stability:helm_displacement", bounds].tolist() == [0.03, 0.56]
    assert evidence.loc["chap-reasoning-sensitivity:helm_r_beta_acc", bounds].tolist() == [0.14, 0.8]
