"""The discussion (§6): the paper's main claims, each with its evidence and a verdict.

Like the scorecard, this reads the executed chapters' glued values back
(:func:`mmlu_audit.book.findings.read_build`) and recomputes nothing. :data:`CLAIMS` says, for
each claim, which glued values carry its evidence and the conditions under which they support
it. Each piece of evidence is one of three kinds:

- ``"test"``: the claim's own test, on whatever responses the chapter ran with. On real
  responses it is evidence about MMLU (or MMLU-Pro); on simulated responses it only shows what
  the pipeline reports on the simulated world.
- ``"planted"``: a comparison with the simulated world's planted truth; read only on simulated
  responses (the pipeline :data:`~mmlu_audit.core.paper.RECOVERS`, or not).
- ``"context"``: a real-data value shown beside the claim that does not test it.

:func:`verdict` reads a claim's replication outcome (one of :data:`VERDICTS`, the words of
:mod:`mmlu_audit.analyses.replication`) as the real-verdicts chapter glued it: judged there, once,
by interval against the paper's estimate across the disjoint real populations. A claim without a
registered estimand is "not estimable" with the reason. Evidence rows only show values: a test
"rejects at 5 %" or not, which is never by itself an outcome. Simulation never decides a claim
about MMLU.

An evidence's p-value is the p of the test its value belongs to (:func:`mmlu_audit.book.results.paired`;
:class:`Evidence` refuses any other pairing), and its interval is the one its chapter declares
the one to read (:func:`mmlu_audit.book.results.interval_to_read`) where it declares one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from mmlu_audit.book.report import format_p
from mmlu_audit.book.scorecard import Collection, declared_interval, lookup
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.book.results import REAL_RESULTS, paired, registered_test
from mmlu_audit.analyses.replication import OUTCOMES as REPLICATION_OUTCOMES
from mmlu_audit.core.paper import RECOVERS

__all__ = ["CLAIMS", "KINDS", "EVIDENCE_OUTCOMES", "SIMULATED", "VERDICTS", "Claim", "Condition",
           "Evidence", "claim_chapters", "claim_power", "claims_table", "evidence_display",
           "evidence_summary", "evidence_table", "glue_names", "verdict"]

#: A claim's outcome on real data: the replication outcomes of :mod:`mmlu_audit.analyses.replication`.
VERDICTS = REPLICATION_OUTCOMES
#: What the simulated world says about a claim.
SIMULATED = (RECOVERS, "does not recover the planted truth", "no planted truth", "not in this build")
#: Kinds of evidence (see the module docstring).
KINDS = ("test", "planted", "context")
#: Outcome of one piece of evidence.
EVIDENCE_OUTCOMES = ("rejects at 5 %", "does not reject at 5 %", RECOVERS,
                     "does not recover the planted truth", "shown", "missing", "not applicable")
_ALPHA = 0.05
_OPS = ("<", ">", "contains")
_REAL_POPULATION = {result.glue: result.population for result in REAL_RESULTS}
_BANNER_PROVENANCE = {"real": "real responses", "simulated": "simulated responses",
                      "not stated": "not stated"}


@dataclass(frozen=True)
class Condition:
    """``glue op than``, read from the executed chapters.

    Parameters
    ----------
    glue : str
        Glue name of the value tested.
    op : {"<", ">", "contains"}
        ``"contains"``: the value is a comma-separated list of names (``"d_mdd, d_ner"``) that
        must include ``than``.
    than : float or str
        A number, or (for ``"<"``/``">"``) the glue name of the value compared with.
    chapter : str, optional
        Label of the chapter that glues ``glue`` (and ``than``); default that of
        the evidence.
    """

    glue: str
    op: str
    than: float | str
    chapter: str | None = None

    def __post_init__(self):
        if self.op not in _OPS:
            raise ParameterError("Condition", f"op must be one of {_OPS}, got {self.op!r}")

    @property
    def label(self) -> str:
        """``"holm_p_cr2_d_ner < 0.05"``, as the evidence table states it."""
        where = f"{self.chapter}:" if self.chapter else ""
        return f"{where}{self.glue} {self.op} {self.than}"


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence for a claim.

    Parameters
    ----------
    chapter, glue : str
        Where its value (the estimate shown) is glued.
    label : str
        What it is, in a few words.
    kind : str
        One of :data:`KINDS`.
    conditions : tuple of Condition
        All must hold for it to support the claim (for ``"planted"``: for the truth to be
        recovered); empty for ``"context"``.
    low, high, p : str, optional
        Glue names (same chapter) of its interval's bounds (unused where the chapter declares the
        interval to read) and p-value (the p of a registered test ``glue`` belongs to).
    given : tuple of Condition
        For ``"planted"`` only: what the simulated world must have planted for the comparison
        to apply (a null world plants nothing to recover).
    """

    chapter: str
    glue: str
    label: str
    kind: str = "test"
    conditions: tuple = ()
    low: str | None = None
    high: str | None = None
    p: str | None = None
    given: tuple = ()

    def __post_init__(self):
        if self.given and self.kind != "planted":
            raise ParameterError("Evidence", "only a planted truth has preconditions (given)")
        if self.kind not in KINDS:
            raise ParameterError("Evidence", f"kind must be one of {KINDS}, got {self.kind!r}")
        if (self.kind == "context") != (not self.conditions):
            raise ParameterError("Evidence",
                                 "context evidence has no conditions; tests and planted truths do")
        if self.p is not None and not paired(self.chapter, self.glue, self.p):
            test = registered_test(self.chapter, self.p)
            raise ParameterError("Evidence", f"{self.chapter}:{self.p} is not the p of a test of "
                                 f"{self.glue} ({'no registered test' if test is None else test.name}); "
                                 "see mmlu_audit.book.results.TESTS")


@dataclass(frozen=True)
class Claim:
    """One of the paper's main claims.

    Parameters
    ----------
    key : str
        Short name (``"homogeneity"``).
    text : str
        The claim, as the paper makes it.
    section : str
        Where the paper makes it.
    evidence : tuple of Evidence
    scope : str
        What the data staged here can and cannot say about it (stated with a "not testable").
    power : tuple of (str, str), optional
        ``(chapter, glue)`` of the combined real populations' simulated power at the paper's estimates.
    outcome : tuple of (str, str, str), optional
        ``(chapter, outcome glue, sentence glue)`` of the claim's replication outcome.
    """

    key: str
    text: str
    section: str
    evidence: tuple
    scope: str
    power: tuple | None = None
    outcome: tuple | None = None


def _p_below(glue: str, chapter: str | None = None) -> Condition:
    return Condition(glue, "<", _ALPHA, chapter)


#: The paper's main claims (§6 summarises them), each with the glued values that test it.
CLAIMS: tuple[Claim, ...] = (
    Claim("homogeneity", "Structural homogeneity is rejected: the nine indicators map onto "
          "difficulty differently in STEM and non-STEM (joint Wald W(9), cluster-robust).", "§4.3",
          (Evidence("chap-real-verdicts", "pool_interaction_share",
                    "share of variance the nine interactions add, pooled real matrix (subject bootstrap)",
                    kind="context", low="pool_interaction_share_low", high="pool_interaction_share_high"),
           Evidence("chap-real-verdicts", "pool_wcb_stat",
                    "W(9) under CR2, pooled real matrix, wild cluster bootstrap (p; grows with the sample)",
                    kind="context", p="pool_wcb_p"),
           Evidence("chap-homogeneity", "w9_htz_F", "W(9) under CR2 in its HTZ F form (HTZ p)",
                    conditions=(_p_below("w9_htz_p"),), p="w9_htz_p"),
           Evidence("chap-homogeneity", "wcb_stat", "W(9) under CR2, wild cluster bootstrap (p)",
                    conditions=(_p_below("wcb_p"),), p="wcb_p"),
           Evidence("chap-homogeneity", "w9_cr2", "slopes planted unequal; CR2 Wald rejects (χ² p)",
                    kind="planted",
                    given=(Condition("n_planted", ">", 0),), conditions=(_p_below("w9_cr2_p"),),
                    p="w9_cr2_p")),
          "tested on the real MMLU pool by the real-verdicts chapter in every build, and by §4.3's "
          "chapter when it runs on a real source", power=("chap-real-verdicts", "power_homogeneity"),
          outcome=("chap-real-verdicts", "outcome_homogeneity", "sentence_homogeneity")),
    Claim("d_ner", "The STEM × entity-density (D_ner) contrast survives CR2, Holm over the nine "
          "contrasts, and the wild cluster bootstrap.", "§4.2",
          (Evidence("chap-real-verdicts", "pool_d_ner_per_sd",
                    "D_ner contrast per SD of b̂, pooled real matrix, CR2 95 % interval (Holm p)",
                    kind="context", low="pool_d_ner_per_sd_low", high="pool_d_ner_per_sd_high",
                    p="pool_holm_p_cr2_d_ner"),
           Evidence("chap-stratified", "t_cr2_d_ner", "D_ner contrast, CR2 t (Holm p; bootstrap p)",
                    conditions=(_p_below("holm_p_cr2_d_ner"), _p_below("boot_p_d_ner")),
                    p="holm_p_cr2_d_ner"),
           Evidence("chap-stratified", "found_cr2_names", "Holm survivors under CR2 include D_ner",
                    conditions=(Condition("found_cr2_names", "contains", "d_ner"),
                                Condition("found_boot_names", "contains", "d_ner"))),
           Evidence("chap-stratified", "found_cr2_names", "D_ner planted; CR2 and bootstrap Holm find it",
                    kind="planted", given=(Condition("planted_names", "contains", "d_ner"),),
                    conditions=(Condition("found_cr2_names", "contains", "d_ner"),
                                                Condition("found_boot_names", "contains", "d_ner")))),
          "tested on the real MMLU pool by the real-verdicts chapter in every build, and by §4.2's "
          "chapter when it runs on a real source", power=("chap-real-verdicts", "power_d_ner"),
          outcome=("chap-real-verdicts", "outcome_d_ner", "sentence_d_ner")),
    Claim("stem_r2", "The indicators explain more of difficulty in STEM than in non-STEM "
          "(cross-validated R², and the ratio of logit R² with its bootstrap interval above 1).", "§4.2",
          (Evidence("chap-real-verdicts", "pool_logit2_ratio",
                    "logit² ratio, pooled real matrix, STEM over non-STEM (subject bootstrap interval)",
                    kind="context", low="pool_logit2_ratio_ci_low", high="pool_logit2_ratio_ci_high"),
           Evidence("chap-stratified", "logit2_ratio", "logit R² ratio, STEM over non-STEM",
                    conditions=(Condition("cv_r2_stem", ">", "cv_r2_nonstem"),
                                Condition("logit2_ratio_ci_low", ">", 1.0)),
                    low="logit2_ratio_ci_low", high="logit2_ratio_ci_high"),
           Evidence("chap-stratified", "cv_r2_stem", "true R² planted higher in STEM; CV R² orders them so",
                    kind="planted", given=(Condition("true_r2_stem", ">", "true_r2_nonstem", "chap-pooled"),),
                    conditions=(Condition("cv_r2_stem", ">", "cv_r2_nonstem"),))),
          "tested on the real MMLU pool by the real-verdicts chapter in every build, and by §4.2's "
          "chapter when it runs on a real source", power=("chap-real-verdicts", "power_stem_r2"),
          outcome=("chap-real-verdicts", "outcome_stem_r2", "sentence_stem_r2")),
    Claim("guessing_floor", "The apparent reasoning sensitivity (r(β, θ̂) < 0) is confounded by the "
          "guessing floor: a 3PL null with no ability × depth term reproduces most of it.", "§5.1",
          (Evidence("chap-real-verdicts", "pool_null_r_all",
                    "pooled real matrix: the 3PL null's mean r(β, θ̂) and its 95 % predictive band",
                    kind="context", low="pool_null_low_all", high="pool_null_high_all"),
           Evidence("chap-real-verdicts", "pool_rs_r_all",
                    "pooled real matrix: r(β, θ̂), Fisher 95 % interval", kind="context",
                    low="pool_rs_r_low", high="pool_rs_r_high"),
           Evidence("chap-reasoning-sensitivity", "null_tail_p_all",
                    "the observed r(β, θ̂) inside the guessing-floor null's 95 % band (its two-sided tail "
                    "probability above 0.05)", conditions=(Condition("null_tail_p_all", ">", 0.05),)),
           Evidence("chap-reasoning-sensitivity", "helm_r_beta_acc",
                    "r(β, STEM accuracy logit), HELM-20, Fisher 95 % interval; "
                    "no null fitted", kind="context", low="helm_r_low", high="helm_r_high"),
           Evidence("chap-reasoning-sensitivity", "null_tail_p_all",
                    "no interaction planted; the observed r lies inside the null's 95 % band",
                    kind="planted", conditions=(Condition("null_tail_p_all", ">", 0.05),)),
           Evidence("chap-interaction-bootstrap", "gamma1_working",
                    "no interaction planted; γ1 above the floor: its bootstrap interval covers 0",
                    kind="planted", conditions=(Condition("gamma1_boot_low", "<", 0.0),
                                                Condition("gamma1_boot_high", ">", 0.0)),
                    low="gamma1_boot_low", high="gamma1_boot_high")),
          "the guessing-floor null is fitted to the real MMLU pool by the real-verdicts chapter in every "
          "build; §5.1's interaction model only to the matrix it runs on",
          power=("chap-real-verdicts", "power_guessing_floor"),
          outcome=("chap-real-verdicts", "outcome_guessing_floor", "sentence_guessing_floor")),
    Claim("rank_stability", "STEM subscore rankings are less stable than non-STEM ones, beyond what "
          "a length-matched non-STEM subsample or subject blocks give.", "§5.2",
          (Evidence("chap-rank-stability", "tau_stem", "τ_w STEM vs aggregate, below length-matched non-STEM",
                    conditions=(Condition("tau_stem", "<", "tau_nonstem"), _p_below("tau_matched_p")),
                    p="tau_matched_p"),
           Evidence("chap-rank-stability", "helm_displacement",
                    "Top-k displacement beyond subject-block null (interval: "
                    "the chapter's; p conditional on the top-k models selected)",
                    conditions=(Condition("helm_tau_stem", "<", "helm_tau_nonstem"),
                                _p_below("helm_null_blocks_p")),
                    p="helm_null_blocks_p"),
           Evidence("chap-rank-stability", "h20_tau_stem", "τ_w STEM below length-matched non-STEM",
                    conditions=(Condition("h20_tau_stem", "<", "h20_tau_matched"),
                                _p_below("h20_tau_matched_p")),
                    p="h20_tau_matched_p")),
          "§5.2's chapter tests it on the real HELM tables whatever its data_source"),
    Claim("mmlu_pro", "Proposed next test, not a claim: the paper proposes auditing MMLU-Pro (more "
          "options, harder items) for the same structural heterogeneity; is homogeneity rejected there?",
          "§6",
          (Evidence("chap-mmlu-pro", "pro_wcr_stat", "W(9) under CR2 on MMLU-Pro (wild cluster bootstrap p)",
                    conditions=(_p_below("pro_wcr_p"),), p="pro_wcr_p"),
           Evidence("chap-mmlu-pro", "pro_b_sd", "SD of b̂ on MMLU-Pro", kind="context")),
          "the MMLU-Pro chapter tests it on the real MMLU-Pro responses (TIGER-Lab's models) whatever its "
          "data_source"),
)


def glue_names() -> set[tuple[str, str]]:
    """Every ``(chapter label, glue name)`` :data:`CLAIMS` reads (the smoke build checks them)."""
    names = {claim.power for claim in CLAIMS if claim.power is not None}
    for evidence in (ev for claim in CLAIMS for ev in claim.evidence):
        own = (evidence.glue, evidence.low, evidence.high, evidence.p)
        names |= {(evidence.chapter, name) for name in own if name}
        for cond in evidence.given + evidence.conditions:
            chapter = cond.chapter or evidence.chapter
            names.add((chapter, cond.glue))
            if isinstance(cond.than, str) and cond.op != "contains":
                names.add((chapter, cond.than))
    return names


def claim_chapters() -> tuple[str, ...]:
    """Labels of every chapter :data:`CLAIMS` reads, in book order."""
    return tuple(sorted({chapter for chapter, _ in glue_names()}))


def _glued(collection: Collection, chapter: str, name: str | None):
    """The glued value, or None when missing or not a usable value (NaN)."""
    if name is None:
        return None
    found = lookup(collection, chapter, name)
    if found is None or (isinstance(found.value, float) and math.isnan(found.value)):
        return None
    return found


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _holds(collection: Collection, evidence: Evidence, condition: Condition):
    """True/False, or the missing glue names."""
    chapter = condition.chapter or evidence.chapter
    left = _glued(collection, chapter, condition.glue)
    if condition.op == "contains":
        if left is None or not isinstance(left.value, str):
            return [f"{chapter}:{condition.glue}"]
        return condition.than in [name.strip() for name in left.value.split(",")]
    right = condition.than if not isinstance(condition.than, str) else \
        getattr(_glued(collection, chapter, condition.than), "value", None)
    missing = [f"{chapter}:{g}" for g, v in ((condition.glue, None if left is None else _number(left.value)),
                                             (condition.than, _number(right))) if v is None]
    if missing:
        return missing
    value, reference = _number(left.value), _number(right)
    return value < reference if condition.op == "<" else value > reference


def _provenance(glued) -> str:
    if glued.name in _REAL_POPULATION:
        return "real responses"
    return _BANNER_PROVENANCE[glued.source]


def _population(collection: Collection, glued) -> str:
    if glued.name in _REAL_POPULATION:
        return _REAL_POPULATION[glued.name]
    record = next(r for r in collection.chapters if r.chapter == glued.chapter)
    return f"data_source {record.parameters.get('data_source', 'not stated')}"


def _outcome(collection: Collection, evidence: Evidence, provenance: str | None) -> tuple[str, str]:
    given = [_holds(collection, evidence, c) for c in evidence.given]
    results = [_holds(collection, evidence, c) for c in evidence.conditions]
    missing = [f"{evidence.chapter}:{evidence.glue}"] if provenance is None else []
    missing += [name for r in given + results if isinstance(r, list) for name in r]
    if evidence.kind == "context":
        return ("shown", "a real-data value beside the claim; it does not test it") if provenance \
            else ("missing", f"{evidence.chapter}:{evidence.glue} not in this build")
    if evidence.kind == "planted" and provenance not in (None, "simulated responses"):
        return "not applicable", "no planted truth on a real source"
    if missing:
        return "missing", "not in this build: " + ", ".join(dict.fromkeys(missing))
    absent = [c.label for c, r in zip(evidence.given, given, strict=True) if r is False]
    if absent:
        return "not applicable", "not planted in this world: " + " and ".join(absent)
    failed = [c.label for c, r in zip(evidence.conditions, results, strict=True) if r is False]
    good, bad = EVIDENCE_OUTCOMES[2:4] if evidence.kind == "planted" else EVIDENCE_OUTCOMES[:2]
    rule = " and ".join(c.label for c in evidence.conditions)
    return (good, rule) if not failed else (bad, "fails: " + " and ".join(failed))


def _bounds(collection: Collection, evidence: Evidence) -> dict:
    """``low``, ``high``, ``interval``, ``p`` and ``test`` of one piece of evidence."""
    declared = declared_interval(collection, evidence.chapter, evidence.glue)
    if declared is not None:
        out = {"low": declared["low"], "high": declared["high"], "interval": declared["method"]}
    else:
        out = {bound: getattr(_glued(collection, evidence.chapter, name), "value", None)
               for bound, name in (("low", evidence.low), ("high", evidence.high))} | {"interval": None}
    test = registered_test(evidence.chapter, evidence.p) if evidence.p else None
    return out | {"p": getattr(_glued(collection, evidence.chapter, evidence.p), "value", None),
                  "test": getattr(test, "name", None)}


def evidence_display(evidence: pd.DataFrame) -> pd.DataFrame:
    """The evidence table as the page shows it: p printed by :func:`~mmlu_audit.book.report.format_p`."""
    return evidence.assign(p=[None if v is None or (isinstance(v, float) and math.isnan(v)) else format_p(v)
                              for v in evidence["p"]])


def evidence_summary(evidence: pd.DataFrame) -> pd.DataFrame:
    """The evidence table narrowed to what a reader weighs, so it fits the page's column of text.

    Parameters
    ----------
    evidence : DataFrame
        :func:`evidence_table`.

    Returns
    -------
    DataFrame
        ``claim``, ``kind``, ``evidence`` (the label), ``responses`` (real and the population, or
        simulated), ``estimate`` with its interval and the interval's method, ``p`` with the test it
        is the p of, ``outcome`` and ``why`` (breakable after its underscores); the glued names stay
        in :func:`evidence_table`.
    """
    from mmlu_audit.book.report import format_number

    def responses(row) -> str:
        if row["provenance"] is None:
            return "missing"
        return "simulated" if row["provenance"] == "simulated responses" else f"real: {row['population']}"

    def estimate(row) -> str:
        shown = format_number(row["estimate"])
        if row["low"] is None or pd.isna(row["low"]):
            return shown
        method = f", {row['interval']}" if isinstance(row["interval"], str) and row["interval"] else ""
        return f"{shown} [{format_number(row['low'])}, {format_number(row['high'])}{method}]"

    shown_p = evidence_display(evidence)["p"]
    return pd.DataFrame({
        "claim": evidence["claim"], "kind": evidence["kind"], "evidence": evidence["label"],
        "responses": evidence.apply(responses, axis=1), "estimate": evidence.apply(estimate, axis=1),
        "p": [None if not isinstance(v, str) else (f"{v} ({t})" if isinstance(t, str) and t else v)
              for v, t in zip(shown_p, evidence["test"], strict=True)],
        "outcome": evidence["outcome"],
        # a zero-width space after each underscore lets a rule's glued names wrap inside the column
        "why": evidence["why"].str.replace("_", "_\u200b", regex=False)})


def evidence_table(collection: Collection) -> pd.DataFrame:
    """One row per piece of evidence of every claim.

    Parameters
    ----------
    collection : Collection
        From :func:`mmlu_audit.book.findings.read_build`.

    Returns
    -------
    DataFrame
        Columns ``claim``, ``kind``, ``label``, ``glue`` (``chapter:name``), ``chapter`` (the
        stem read, or None), ``provenance`` (real / simulated responses, None when missing),
        ``population``, ``estimate``, ``low``, ``high`` (the interval the chapter declares the one
        to read, else the named bounds), ``interval`` (the declared interval's method, or None),
        ``p``, ``test`` (the registered test the p is from), ``outcome`` (one of
        :data:`EVIDENCE_OUTCOMES`) and ``why`` (the rule applied, or what is missing); in
        :data:`CLAIMS` order.
    """
    rows = []
    for claim in CLAIMS:
        for evidence in claim.evidence:
            glued = _glued(collection, evidence.chapter, evidence.glue)
            provenance = None if glued is None else _provenance(glued)
            outcome, why = _outcome(collection, evidence, provenance)
            extra = _bounds(collection, evidence)
            rows.append({"claim": claim.key, "kind": evidence.kind, "label": evidence.label,
                         "glue": f"{evidence.chapter}:{evidence.glue}",
                         "chapter": None if glued is None else glued.chapter, "provenance": provenance,
                         "population": None if glued is None else _population(collection, glued),
                         "estimate": None if glued is None else glued.value, **extra,
                         "outcome": outcome, "why": why})
    return pd.DataFrame(rows)


def verdict(claim: Claim, collection: Collection) -> tuple[str, str]:
    """The claim's replication outcome (one of :data:`VERDICTS`) and why, as its chapter glued it.

    The outcome is judged once, in :mod:`mmlu_audit.analyses.replication`, by the chapter that
    computes it; this page only reads it. A claim with no registered estimand, or whose chapter is
    not in the build, is "not estimable" with the reason.
    """
    if claim.outcome is None:
        return VERDICTS[6], (f"no replication estimand with the paper's interval is registered for it; "
                             f"{claim.scope}")
    chapter, outcome_glue, sentence_glue = claim.outcome
    outcome, sentence = (_glued(collection, chapter, name) for name in (outcome_glue, sentence_glue))
    if outcome is None or outcome.value not in VERDICTS:
        return VERDICTS[6], f"{chapter}:{outcome_glue} is not in this build"
    why = sentence.value if sentence is not None else outcome.value
    return outcome.value, f"across the disjoint real populations combined, {why}"


def _simulated(claim: Claim, evidence: pd.DataFrame) -> tuple[str, str]:
    planted = evidence[(evidence["claim"] == claim.key) & (evidence["kind"] == "planted")]
    if planted.empty:
        return SIMULATED[2], "the simulated world plants nothing this claim could be checked against"
    read = planted[planted["outcome"].isin(EVIDENCE_OUTCOMES[2:4])]
    if read.empty:
        why = "; ".join(f"{row.label}: {row.why}" for row in planted.itertuples())
        return (SIMULATED[3] if (planted["outcome"] == "missing").any() else SIMULATED[2]), why
    listing = "; ".join(f"{row.label}: {row.outcome}" for row in read.itertuples())
    return (SIMULATED[0] if (read["outcome"] == EVIDENCE_OUTCOMES[2]).all() else SIMULATED[1]), listing


def claim_power(collection: Collection, claim: Claim) -> float | None:
    """The simulated power of ``claim``'s combined estimand at the paper's estimates; None if not read."""
    if claim.power is None:
        return None
    found = _glued(collection, *claim.power)
    return None if found is None else _number(found.value)


def claims_table(collection: Collection) -> pd.DataFrame:
    """One row per claim of :data:`CLAIMS`: its real-data verdict and what the simulation says.

    Returns
    -------
    DataFrame
        Indexed by claim key; columns ``claim`` (the text), ``section``, ``verdict`` (one of
        :data:`VERDICTS`), ``why``, ``real_evidence`` (how many real-data tests were read), ``power``
        (of the claim's real test at the paper's effect, None when not read),
        ``simulated`` (one of :data:`SIMULATED`) and ``simulated_why``.
    """
    evidence = evidence_table(collection)
    rows = []
    for claim in CLAIMS:
        power = claim_power(collection, claim)
        outcome, why = verdict(claim, collection)
        sim, sim_why = _simulated(claim, evidence)
        mine = evidence[(evidence["claim"] == claim.key) & (evidence["kind"] == "test")]
        rows.append({"key": claim.key, "claim": claim.text, "section": claim.section, "verdict": outcome,
                     "why": why, "real_evidence": int(((mine["provenance"] == "real responses")
                                                       & mine["outcome"].isin(EVIDENCE_OUTCOMES[:2])).sum()),
                     "power": power, "simulated": sim, "simulated_why": sim_why})
    return pd.DataFrame(rows).set_index("key")
