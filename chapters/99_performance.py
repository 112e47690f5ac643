# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (chap-performance)=
# # Performance
#
# `make bench` runs the benchmarks in `bench/` and writes their results to `bench/results/`;
# this page reads those files, it measures nothing itself. Timings on the shared build machines move
# between runs: the wall time of one and the same fit {glue:text}`timing_repeat_spread`. Each
# benchmark therefore reports a **ratio against a peer measured in the same run**. Benchmarks run
# on simulated response matrices; they measure speed and accuracy of the code, not anything about
# MMLU.

# %% tags=["parameters"]
data_source = "simulated"  # unused: kept for a uniform chapter interface
seed = 20240601  # unused
fast = False  # unused
results_dir = "../bench/results"
executed_dir = "../book/_executed"  # where bookbuild wrote this build's chapters (it says so itself)

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from mmlu_audit.book.peers import (GIRTH_A_BOUNDS, engine_figure, engine_table, fit_load_text, peer_verdict_text,
                                   real_text)
from mmlu_audit.book.performance import (build_load_text, build_span_minutes, chapter_times, cold_build_table,
                                         cold_build_text, cost_curve_figure,
                                         encoder_batch_text, encoder_runtime_text, feature_stages, girth_table, multi_seed_text,
                                         not_recorded_text, numpyro_table, read_result, recorded_section,
                                         repeat_spread_text, repeated_fits, scaling_table, scaling_text, seed_table,
                                         single_seed_table, single_seed_text)
from mmlu_audit.book.performance import dask_timing_table, dask_timing_text
from mmlu_audit.book.plots import use_style
from mmlu_audit.book.report import glue_values

use_style()

results = Path(results_dir)

# %% [markdown]
# ## The same fit in different runs
#
# Our benchmark-rule fit of one world is deterministic: where two result files both hold it (the
# same world, rule, engine, backend and step count, and r(b̂, b) equal to every digit), the same
# computation was timed twice, and the difference in its wall time is the machine's doing. Each row
# is one record of such a fit, with the 1-minute load average at the start and end of its run.

# %%
repeats = repeated_fits(results)
glue_values({"timing_repeat_spread": repeat_spread_text(repeats)})
repeats.round(2)

# %% [markdown]
# ## IRT calibration: ours against py-irt, over several world seeds
#
# Each world seed gives one simulated 2PL matrix (its size and difficulty SD are stated with each
# result below). On it our 2PL (hand-written SVI in JAX) runs under the benchmark's stopping rule (the configuration the
# targets are about) and, on some seeds, under the chapters' rule; py-irt's Pyro 2PL runs in
# its best configuration here (hierarchical priors) until r(b̂, b) reaches the target or its
# time budget. The speed-up divides py-irt's time to the target r by our *whole* wall time
# (at a higher r), a comparison that favours py-irt. A result marked incomplete was written
# while the benchmark was still running.

# %%
for name in ("irt.json", "irt_gpu.json", "irt_seed0_2026-11-29.json"):
    result = read_result(results, name)
    if result is None:
        display(Markdown(not_recorded_text(name)))
    elif "runs" in result:
        world = result["runs"][0]["world"]
        display(Markdown(multi_seed_text(name, result)))
        display(Markdown(f"Each world: {world['n_models']:,} models × {world['n_items']:,} items, difficulty "
                         f"SD {world['b_sd']:.2f}."))
        display(seed_table(result).round(4))
    else:
        display(Markdown(single_seed_text(name, result)))
        display(single_seed_table(result).round(3))

# %% [markdown]
# `irt_seed0_2026-11-29.json` is the earlier single-world run, kept because it holds py-irt's
# *default* configuration (vague priors) at its 600 s budget, measured in the same run as our
# fit of that time (paper prior, the same stopping rule).

# %% [markdown]
# ## A marginal-maximum-likelihood peer: girth
#
# [girth](https://pypi.org/project/girth/)'s `twopl_mml` estimates the same 2PL by marginal
# maximum likelihood (fixed quadrature over θ ~ N(0, 1), item-by-item updates, discrimination
# bounded to [{glue:text}`girth_a_low`, {glue:text}`girth_a_high`]) — a different estimator, not another SVI — on the same simulated matrix,
# in the same run. It is single-threaded; a fit that runs past its time cap is recorded as such
# and refitted on a random subset of columns, which the table then says. r is given as
# Pearson / Spearman, against the planted truth and against our estimates. `irt_girth.json`, when
# present, is girth alone beside our fit (`bench_irt.py --skip-pyirt --skip-real`, a smaller column
# subset), recorded where the full run's girth ran past its cap on every subset it tried.

# %%
glue_values({"girth_a_low": GIRTH_A_BOUNDS[0], "girth_a_high": GIRTH_A_BOUNDS[1]})
IRT_FILES = ("irt.json", "irt_quick.json")
irt_peers, line = recorded_section(results, ("irt_girth.json", *IRT_FILES), "girth", "girth's MML 2PL")
display(Markdown(line))
if irt_peers is not None:
    display(Markdown(peer_verdict_text({"runs": [run for run in irt_peers["runs"] if "girth" in run]})))
    for run in irt_peers["runs"]:
        if "girth" in run:
            display(Markdown(f"World seed {run['world']['world_seed']}, {run['world']['n_models']:,} models × "
                             f"{run['world']['n_items']:,} items:"))
            display(girth_table(run))

# %% [markdown]
# ## The real leaderboard matrix
#
# The staged Open LLM Leaderboard v1 matrix (its size is stated below; MMLU items selected by
# metabench). There is no truth here: our 2PL and girth's are compared with each other and with
# metabench's mirt fit (a 3PL by EM; a = a1, b = −d/a1, so its guessing parameter is one
# difference, and some of its slopes are negative while both 2PLs keep a > 0: the count is below). The classical difficulty −logit(share
# correct) is a truth-free yardstick: an estimate far from it and from the other fits is the odd one.

# %%
irt_real, line = recorded_section(results, IRT_FILES, "real", "the real-matrix comparison")
display(Markdown(line))
if irt_real is not None:
    real_world = irt_real["real"]["world"]
    display(Markdown(f"{real_world['n_models']:,} models × {real_world['n_items']:,} items. "
                     + real_text(irt_real["real"])))
    display(girth_table(irt_real["real"]))

# %% [markdown]
# ## What the hand-written engine buys: `engine="numpyro"`
#
# The same model through NumPyro's own `SVI` (AutoNormal guide, `Trace_ELBO`), from the same start
# and for the same number of steps as our fast engine took on that matrix, in the same run: the
# wall-time ratio is the cost of the general-purpose path at equal work (it also has no early
# stopping, so a user of it would run all `max_steps`). `irt_numpyro.json`, when present, is this
# pair alone (`bench_irt.py --skip-pyirt --skip-girth --skip-real`), the two engines fitted within a
# minute of each other: a full run recorded before the benchmark fitted each seed's engines back to
# back fitted ours for every seed first and the peers up to an hour later, so on a shared machine its
# ratios can mix two loads (the sentence under the engines' table below says which kind of run it is).

# %%
irt_numpyro, line = recorded_section(results, ("irt_numpyro.json", *IRT_FILES), "ours_numpyro",
                                     "the numpyro engine's timing")
display(Markdown(line))
if irt_numpyro is not None:
    display(numpyro_table(irt_numpyro).round(3))

# %% [markdown]
# ## Every engine side by side
#
# Each fit of each world seed in one table and one figure: wall time (the fit, compilation
# included; process start-up and imports excluded for every engine), steps, r of the difficulties and of the discriminations against the planted
# truth, and peak resident memory. py-irt's line is its r every few steps on the way to the target
# (its checks' time left out, which favours it). A girth fit that ran past its cap has no point;
# its refit on a column subset is drawn hollow, beside ours restricted to the same columns. The
# paragraph reads every ratio and r from the same record. All fits of one result ran in one run,
# whose load average is stated at its start and end in the line above; between them other work on a
# shared machine may come and go, and a fit can meet another load than the peer it is divided by,
# which moves a ratio either way (the numpyro pair above shows by how much). The benchmark fits each
# seed's engines back to back, ours first, and records the load just before and after every fit; the
# sentence under the table says whether this record has them.

# %%
irt_engines, line = recorded_section(results, IRT_FILES, "ours_bench", "the engines side by side")
display(Markdown(line))
if irt_engines is not None:
    display(Markdown(peer_verdict_text(irt_engines)))
    engine_figure(irt_engines)
    plt.show()
    display(engine_table(irt_engines).round(4))
    display(Markdown(fit_load_text(irt_engines)))

# %% [markdown]
# ## Cost curves
#
# Fit time and peak resident memory (each fit in its own process) of our 2PL under the
# benchmark's rule, on simulated matrices from 10⁵ cells up to 10⁴ models × 14,042 items where
# memory allows (a size predicted over the limit is skipped, not tried), and cold feature builds
# (spaCy parse included) against the number of stems, each with its log-log least-squares line.

# %%
SCALING_FILES = ("scaling.json", "scaling_quick.json")
scaling, line = recorded_section(results, SCALING_FILES, "irt", "the cost curves")
display(Markdown(line))
if scaling is not None:
    display(Markdown(scaling_text(scaling)))
    cost_curve_figure(scaling)
    plt.show()
    display(scaling_table(scaling).round(3))
    if scaling.get("stems"):
        display(pd.DataFrame(scaling["stems"]["sizes"]).set_index("n_stems").round(2))

# %% [markdown]
# ## This build's chapters
#
# How long each chapter of this build took to execute, from papermill's record in the executed
# notebooks (cache hits included: a chapter whose fits and features were already cached runs
# faster than from a cold start). Rows run with `fast` set are the smoke build's settings. The
# chapters listed took {glue:text}`build_chapters_total_min:.1f` minutes in all, and
# {glue:text}`build_chapters_span_min:.1f` minutes of wall clock from the first one's start to the last
# one's end (less when chapters ran side by side: `at once`). Each row also gives the machine's CPU
# count and its 1-minute load average when the chapter started and ended (from the build runner's
# record); the sentence above the table says whether the machine was loaded.

# %%
times = chapter_times(executed_dir, exclude=("99_performance",))
glue_values({"build_chapters_total_min": times["seconds"].sum() / 60,
             "build_chapters_span_min": build_span_minutes(times)})
display(Markdown(build_load_text(times)))
times.round(1)

# %% [markdown]
# ## A cold `make book`, before and after
#
# What a user waits for on a fresh clone: `bench/bench_cold_build.py` clones each commit into an
# empty folder beside the staged data, runs `make book` and cuts its output into phases where make
# starts the next step (setup of the virtual environment; `make data`'s mirror, parses, embeddings and
# simulated worlds, each timed where the commit prints it; the chapters; the site). The commits ran
# one after the other on the same machine, idle but for the build. Minutes per phase:

# %%
cold = read_result(results, "cold_build.json")
if cold is None:
    display(Markdown(not_recorded_text("cold_build.json")))
else:
    display(Markdown(cold_build_text(cold)))
    display(cold_build_table(cold))

# %% [markdown]
# ## Complexity features
#
# All nine indicators, baselines and option covariates for the 14,042 real stems with the spaCy
# backend, cold (parsing included) and from cache; sentence-encoder embeddings separately.

# %%
features = read_result(results, "features.json")
if features is None:
    display(Markdown(not_recorded_text("features.json")))
else:
    if "previous_total_s" in features["encoder"]:
        display(Markdown(encoder_batch_text(features["encoder"])))
    glue_values({"features_cold_s": features["cold"]["total_s"], "features_cached_s": features["cached"]["total_s"]})
    display(feature_stages(features).round(2))
encoder_runtimes = read_result(results, "encoder_runtime.json")
display(Markdown(not_recorded_text("encoder_runtime.json") if encoder_runtimes is None
                 else encoder_runtime_text(encoder_runtimes)))

# %% [markdown]
# ## Cluster-robust inference
#
# CR2 covariance and the nine-restriction wild cluster bootstrap on a 14,042 × 20 design with
# 57 clusters, against statsmodels (CR1) and wildboottest (single-coefficient bootstrap).

# %%
inference = read_result(results, "inference.json")
if inference is None:
    display(Markdown(not_recorded_text("inference.json")))
else:
    timings = inference["timings"]
    display(pd.Series({
        "CR2 covariance (s)": timings["cr2_vcov_s"],
        "WCR, 9 restrictions, 9,999 draws, CR1 inside (s)": timings["wcr_q9_9999_CR1_s"],
        "WCR, 9 restrictions, 9,999 draws, CR2 inside (s)": timings["wcr_q9_9999_CR2_s"],
        "our fit + CR2 ÷ statsmodels fit + CR1": timings["ratio_ours_fit_cr2_over_statsmodels_fit_cr1"],
        "wildboottest ÷ ours, one coefficient": timings["ratio_wildboottest_over_ours_q1"],
        "subject-block permutation, 9,999 (s)": timings["block_permutation_9999_r2gap_s"],
    }, name="value").round(3).to_frame())

# %% [markdown]
# ## Size and power of the homogeneity test
#
# Rejection rates of W(9) at the 5 % level over simulated replicates with MMLU's 57 subject
# sizes (19 STEM): a null world with identical slopes, and a planted world with two STEM-only
# slope shifts.

# %%
size_power_path = results / "size_power.csv"
if size_power_path.exists():
    size_power = pd.read_csv(size_power_path, keep_default_na=False)  # "null" names a world
    display(size_power.pivot(index="method", columns="world", values="rejection_rate")
            .rename(columns={"null": "null world (size)", "planted": "planted world (power)"}))
else:
    display(Markdown(not_recorded_text("size_power.csv")))

# %% [markdown]
# ## A seed study serial and on Dask
#
# The many-seed studies hand each seed to a Dask worker ({ref}`scaling-past-one-machine`). `bench/bench_dask.py`
# runs the same seeds of the item-side seed study twice in one process, one run after the other:
# first serially in that process (`--scheduler serial`), then on a local cluster of
# single-threaded workers, whose start-up counts in its wall clock. The two runs must give
# identical tables.

# %%
dask_timing = read_result(results, "dask_timing.json")
if dask_timing is None:
    display(Markdown(not_recorded_text("dask_timing.json")))
else:
    display(Markdown(dask_timing_text(dask_timing)))
    display(dask_timing_table(dask_timing))

# %% [markdown]
# ## The MMLU-Pro chapters
#
# The two chapters, {ref}`chap-mmlu-pro` and {ref}`chap-answer-key-audit`, executed once each at
# full settings (real responses, 12,032 questions), and the stem features of all MMLU-Pro
# questions built twice: the rerun must come from the parse and feature caches. The load
# average at the start says how busy the shared machine was.

# %%
pro = read_result(results, "mmlu_pro.json")
if pro is None:
    display(Markdown(not_recorded_text("mmlu_pro.json")))
else:
    display(Markdown(f"Recorded {pro['created']} on {pro['machine']['cpus']} CPUs, 1-minute load "
                     f"average {pro['machine']['load_1min']} at the start."))
    display(pd.Series({
        **{f"chapter {stem}, full settings (s)": seconds for stem, seconds in pro["chapters_s"].items()},
        "MMLU-Pro stem features, first build (s)": pro["features"]["first"]["seconds"],
        "MMLU-Pro stem features, rerun (s)": pro["features"]["rerun"]["seconds"],
        "rerun came from the cache": pro["features"]["rerun"]["from_cache"],
    }, name="value").to_frame())

# %% [markdown]
# ## Model-side analyses (§5)
#
# The Reasoning Sensitivity Coefficient for a matrix of the paper's size (its number of models ×
# its number of STEM items, 5 % missing cells) by one batched Newton iteration, against
# statsmodels `Logit` fitted model by model in the same run (timed on a few models and scaled to
# all of them); target ≤ 5 s. With
# `bench_modelside.py --chapters`, also the wall time of {ref}`chap-reasoning-sensitivity` and
# {ref}`chap-rank-stability` at full settings (target ≤ 10 min together on 2 cores) and their
# CPU time, which depends far less on what else shares the machine (idle wall time lies between
# half the CPU time and the CPU time); the load average at the time is recorded, since the build
# machines are shared.

# %%
modelside = read_result(results, "modelside.json")
if modelside is None:
    display(Markdown(not_recorded_text("modelside.json")))
else:
    rows = {
        "β, 1,000 models (s)": modelside["beta_1000_s"],
        "statsmodels Logit, 1,000 models, extrapolated (s)": modelside["statsmodels_1000_s_extrapolated"],
        "speed-up over statsmodels": modelside["speedup_vs_statsmodels"],
        "1-min load average during the run": modelside["machine"]["load_1min"],
    }
    for chapter, seconds in modelside.get("chapters_full_s", {}).items():
        rows[f"chapter {chapter}, full settings, wall (s)"] = seconds
        rows[f"chapter {chapter}, full settings, CPU (s)"] = modelside["chapters_full_cpu_s"][chapter]
        rows[f"chapter {chapter}: 1-min load average at the end"] = modelside["chapters_load_1min"][chapter]
    glue_values({"modelside_beta_s": modelside["beta_1000_s"]})
    display(pd.Series(rows, name="value").round(2).to_frame())
