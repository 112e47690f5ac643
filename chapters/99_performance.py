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
# this page reads those files, it measures nothing itself. Timings vary by ±25 % between
# identical runs on the 2-core build machines (and more when other work shares them), so
# each benchmark reports a **ratio against a peer measured in the same run**. Benchmarks run
# on simulated response matrices; they measure speed and accuracy of the code, not anything
# about MMLU.

# %% tags=["parameters"]
data_source = "simulated"  # unused: kept for a uniform chapter interface
seed = 20240601  # unused
fast = False  # unused
results_dir = "../bench/results"

# %%
import json
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from mmlu_audit.report import glue_values

results = Path(results_dir)


def read_result(name):
    """The parsed JSON of one benchmark, or None (shown as 'not recorded') when absent."""
    path = results / name
    return json.loads(path.read_text()) if path.exists() else None


def not_recorded(name):
    display(Markdown(f"*`bench/results/{name}` is not recorded yet: run `make bench`.*"))


# %% [markdown]
# ## IRT calibration: ours against py-irt
#
# The same simulated matrix is calibrated by our 2PL (hand-written SVI in JAX) and by py-irt's Pyro 2PL, each
# until it reaches the target recovery r(b̂, b) or its step budget. Targets: our fit within the
# wall-time target at r ≥ the target, and at least the target speed-up over py-irt.

# %%
def irt_rows(result):
    """Wall time, steps, per-step time, accuracy and memory of each fit in one run."""
    fields = ["wall_s", "steps", "per_step_ms", "r", "peak_rss_mb"]
    columns = {"ours (JAX SVI)": [result["ours"][f] for f in fields]}
    if "pyirt" in result:  # a GPU run may skip the CPU-only peer (--skip-pyirt)
        columns["py-irt (Pyro)"] = [result["pyirt"][f] for f in fields]
    return pd.DataFrame(columns, index=["wall time (s)", "SVI steps", "ms per step", "r(b̂, b)", "peak RSS (MB)"])


for name in ("irt.json", "irt_gpu.json"):
    result = read_result(name)
    if result is None:
        not_recorded(name)
        continue
    world = result["world"]
    summary = result["summary"]
    versus = (f" Speed-up over py-irt: **{summary['speedup_vs_pyirt']:.1f}×**"
              + (" (a lower bound: py-irt never reached our r)" if summary["speedup_is_lower_bound"] else "")
              + f"; per-step ratio {summary['per_step_ratio']:.1f}×." if "pyirt" in result else "")
    display(Markdown(
        f"**`{name}`** — {world['n_models']:,} models × {world['n_items']:,} items "
        f"({world['response_model'].upper()}, b SD {world['b_sd']}), backend "
        f"`{result['ours']['backend']}`, recorded {result['created']}.{versus} "
        f"Targets: {result['targets']}."))
    display(irt_rows(result).round(3))

# %% [markdown]
# ## Complexity features
#
# All nine indicators, baselines and option covariates for the 14,042 real stems with the spaCy
# backend, cold (parsing included) and from cache; sentence-encoder embeddings separately.

# %%
features = read_result("features.json")
if features is None:
    not_recorded("features.json")
else:
    stages = pd.DataFrame({
        "seconds": [features["cold"]["total_s"], features["cold"]["parse_s"], features["cold"]["indicators_s"],
                    features["cached"]["total_s"], features["encoder"]["total_s"]],
        "items per second": [features["cold"]["items_per_s"], features["cold"]["parse_items_per_s"],
                             features["cold"]["indicators_items_per_s"], features["cached"]["items_per_s"],
                             features["encoder"]["items_per_s"]],
    }, index=["cold, all features", "parse (spaCy)", "indicators", "from cache", "encoder (MiniLM)"])
    glue_values({"features_cold_s": features["cold"]["total_s"], "features_cached_s": features["cached"]["total_s"]})
    display(stages.round(2))

# %% [markdown]
# ## Cluster-robust inference
#
# CR2 covariance and the nine-restriction wild cluster bootstrap on a 14,042 × 20 design with
# 57 clusters, against statsmodels (CR1) and wildboottest (single-coefficient bootstrap).

# %%
inference = read_result("inference.json")
if inference is None:
    not_recorded("inference.json")
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
    not_recorded("size_power.csv")

# %% [markdown]
# ## Model-side analyses (§5)
#
# The Reasoning Sensitivity Coefficient for 1,000 models × 3,153 STEM-sized items (5 % missing
# cells) by one batched Newton iteration, against statsmodels `Logit` fitted model by model in
# the same run (timed on a few models and scaled to 1,000); target ≤ 5 s. With
# `bench_modelside.py --chapters`, also the wall time of chapters 07 and 08 at full settings
# (target ≤ 10 min together on 2 cores) and their CPU time, which depends far less on what else
# shares the machine (idle wall time lies between half the CPU time and the CPU time); the load
# average at the time is recorded, since the build machines are shared.

# %%
modelside = read_result("modelside.json")
if modelside is None:
    not_recorded("modelside.json")
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
