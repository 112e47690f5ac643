"""The IRT benchmark's peers side by side: one table, one figure and the sentences that judge them.

``bench/bench_irt.py`` records, per world seed, our fit (``ours_bench``, and on some seeds
``ours_chapters``), ``engine="numpyro"`` at our step count (``ours_numpyro``), py-irt
(``pyirt_best``, ``pyirt_default``) and girth's MML fit (``girth``: the full matrix, or past
its time cap a random column subset), and the real leaderboard matrix (``real``). This module
reads that record for the Performance page; every figure it states comes from the record.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ENGINES", "GIRTH_A_BOUNDS", "engine_figure", "engine_table", "fit_load_text", "girth_a_at_bound",
           "girth_rows", "peer_ratios", "peer_verdict_text", "real_text"]

#: The interval girth's ``twopl_mml`` confines each discrimination to: girth 0.8.0 (the version
#: ``bench/requirements-girth.txt`` pins) hard-codes it in its item-by-item search and exposes no
#: option for it, so this is our one copy of it, for the page and the benchmark's at-bound count.
GIRTH_A_BOUNDS = (0.2, 5.0)

#: The fits of one seed that ran on the whole matrix, in the order shown, with their labels.
ENGINES = {"ours_bench": "ours (benchmark rule)", "ours_chapters": "ours (chapters' rule)",
           "ours_numpyro": "engine='numpyro', same steps", "pyirt_best": "py-irt best (hierarchical)",
           "pyirt_default": "py-irt default (vague)"}
_COLORS = {"ours_bench": "#2a9d8f", "ours_chapters": "#8ab17d", "ours_numpyro": "#e9c46a",
           "pyirt_best": "#d1495b", "pyirt_default": "#edae49", "girth": "#1b6ca8"}
_MARKERS = ("o", "s", "^", "D", "v")
_MARKER_GLYPHS = {"o": "●", "s": "■", "^": "▲", "D": "◆", "v": "▼"}


def _r(compared: dict, param: str, who: str, other: str = "truth") -> float:
    """Pearson r of ``param`` between two named estimate sets of a ``compared`` record (NaN if absent)."""
    for key in (f"{param}: {who} ~ {other}", f"{param}: {other} ~ {who}"):
        if key in compared:
            return float(compared[key]["pearson"])
    return float("nan")


def girth_a_at_bound(a, tolerance: float = 1e-6) -> int:
    """How many of girth's discrimination estimates ``a`` sit on an end of :data:`GIRTH_A_BOUNDS`.

    An estimate there was stopped by the bound, not by the likelihood; ``tolerance`` absorbs the
    bounded search's last step.
    """
    a, (low, high) = np.asarray(a, float), GIRTH_A_BOUNDS
    return int(np.sum((a <= low + tolerance) | (a >= high - tolerance)))


def girth_rows(run: dict) -> list[dict]:
    """Girth's rows for :func:`engine_table`: the full-matrix fit (or that it hit its cap) and,
    after a cap, the column-subset refit with r on those columns only."""
    girth = run.get("girth")
    if girth is None:
        return []
    full, compared = girth["full"], girth.get("compared", {})
    rows = [_girth_row(full, "girth MML, full matrix", run["world"]["n_items"], compared)]
    subset = girth.get("subset")
    if subset is not None:
        rows.append(_girth_row(subset, f"girth MML, {subset['n_items']:,}-column subset", subset["n_items"],
                               compared)
                    | {"ours r(b̂, b), same columns": _r(compared, "b", "ours"),
                       "ours r(â, a), same columns": _r(compared, "a", "ours")})
    return rows


def _girth_row(fit: dict, engine: str, n_items: int, compared: dict) -> dict:
    """One girth fit's row: its time, or the cap it hit (then no time and no r)."""
    capped = fit["hit_cap"]
    return {"engine": engine, "items fitted": n_items,
            "wall (s)": np.nan if capped else fit["wall_s"],
            "hit time cap (s)": fit["cap_s"] if capped else np.nan,
            "r(b̂, b)": np.nan if capped else _r(compared, "b", "girth"),
            "r(â, a)": np.nan if capped else _r(compared, "a", "girth"),
            "peak RSS (MB)": fit.get("peak_rss_mb", np.nan)} | _fit_load(fit)


def _fit_load(fit: dict) -> dict:
    """The 1-minute load average just before and after one fit; NaN where its record has none
    (a result made before the benchmark recorded it, or a system that does not report it)."""
    loads = {when: fit.get(f"load_1min_{when}") for when in ("before", "after")}
    return {f"load {when}": np.nan if load is None else float(load) for when, load in loads.items()}


def engine_table(result: dict) -> pd.DataFrame:
    """Every fit of every seed of ``irt.json``: wall time, steps, r of b and of a against the
    planted truth, peak memory, and whether py-irt reached the target r.

    Returns
    -------
    DataFrame
        Indexed by (seed, engine). r(â, a) is missing for a record made before the benchmark kept
        it, and so are ``load before`` and ``load after`` (the 1-minute load average around each
        fit, :func:`fit_load_text`); a girth subset row gives r on its own columns, beside ours on
        the same columns.
    """
    rows = []
    for run in result["runs"]:
        seed = run["world"]["world_seed"]
        for key, label in ENGINES.items():
            if key in run:
                fit = run[key]
                rows.append({"seed": seed, "engine": label, "items fitted": run["world"]["n_items"],
                             "wall (s)": fit["wall_s"], "steps": fit["steps"], "ms/step": fit["per_step_ms"],
                             "r(b̂, b)": fit["r"], "r(â, a)": fit.get("r_a", np.nan),
                             "peak RSS (MB)": fit["peak_rss_mb"],
                             "reached target r": fit.get("reached", np.nan)} | _fit_load(fit))
        rows += [{"seed": seed, **row} for row in girth_rows(run)]
    return pd.DataFrame(rows).set_index(["seed", "engine"])


def fit_load_text(result: dict) -> str:
    """How the fits of ``result`` were ordered and how loaded the machine was around each.

    Parameters
    ----------
    result : dict
        A multi-seed ``irt.json``.

    Returns
    -------
    str
        With a per-fit load in the record (``load_1min_before`` / ``_after``, written since the
        benchmark fits each seed's engines back to back): the range of those loads against the
        CPU count. Without one (an older record): that it was not recorded, and that such a run
        fitted ours for every seed before any peer.
    """
    loads = engine_table(result)[["load before", "load after"]].to_numpy(float).ravel()
    loads = loads[~np.isnan(loads)]
    if loads.size == 0:
        return ("The load around each fit is not recorded in this result: it was made before the "
                "benchmark recorded it, by a run that fitted ours for every seed first and the peers "
                "after, so ours and a peer of the same seed may have met different loads.")
    cpus = result.get("machine", {}).get("cpus", "an unrecorded number of")
    return (f"Each seed's fits ran back to back, ours first; the 1-minute load average just before "
            f"and just after each fit (the table's `load before` and `load after`) ranged from "
            f"{loads.min():.1f} to {loads.max():.1f} on {cpus} CPUs.")


def peer_ratios(result: dict) -> dict:
    """The same-run ratios of each peer to our benchmark-rule fit, per seed.

    Returns
    -------
    dict
        Lists over the seeds where each peer ran: ``pyirt`` (py-irt best's time ÷ ours, whether
        it reached the target r, both r of b and of a), ``numpyro`` (wall ratio at equal steps,
        both r), ``girth`` (its cap ÷ our time — a lower bound of the ratio when it hit the cap —
        and its subset time ÷ ours, with both r on the subset's columns).
    """
    out = {"pyirt": [], "numpyro": [], "girth": []}
    for run in result["runs"]:
        ours, seed = run["ours_bench"], run["world"]["world_seed"]
        mine = {"seed": seed, "ours_r": ours["r"], "ours_r_a": ours.get("r_a", np.nan)}
        if "pyirt_best" in run:
            peer = run["pyirt_best"]
            out["pyirt"].append(mine | {"ratio": peer["wall_s"] / ours["wall_s"], "reached": peer["reached"],
                                        "peer_r": peer["r"], "peer_r_a": peer.get("r_a", np.nan)})
        if "ours_numpyro" in run:
            peer = run["ours_numpyro"]
            out["numpyro"].append(mine | {"ratio": peer["wall_s"] / ours["wall_s"], "steps": peer["steps"],
                                          "peer_r": peer["r"], "peer_r_a": peer.get("r_a", np.nan)})
        if "girth" in run:
            full, subset = run["girth"]["full"], run["girth"].get("subset")
            compared = run["girth"].get("compared", {})
            record = mine | {"hit_cap": full["hit_cap"], "cap_s": full.get("cap_s"),
                             "ratio": (full["cap_s"] if full["hit_cap"] else full["wall_s"]) / ours["wall_s"]}
            if subset is not None:
                record |= {"subset_items": subset["n_items"], "subset_hit_cap": subset["hit_cap"]}
            if subset is not None and not subset["hit_cap"]:
                record |= {"subset_s": subset["wall_s"], "subset_ratio": subset["wall_s"] / ours["wall_s"]}
            record |= {f"{who}_{param}_cols": _r(compared, param, who)
                       for who in ("girth", "ours") for param in ("b", "a")}
            out["girth"].append(record)
    return out


def _span(values, fmt: str) -> str:
    values = [v for v in values if not np.isnan(v)]
    if not values:
        return "not recorded"
    low, high = min(values), max(values)
    return fmt.format(low) if fmt.format(low) == fmt.format(high) else f"{fmt.format(low)}–{fmt.format(high)}"


def _better(ours: float, peer: float) -> str:
    if np.isnan(ours) or np.isnan(peer):
        return "not recorded"
    return "higher" if ours > peer else ("equal" if ours == peer else "**lower**")


def _same_accuracy(rows: list[dict], tolerance: float = 1e-3) -> str:
    """Whether two engines' r agree within ``tolerance`` on every seed, in words."""
    gaps = [abs(row[f"ours_{k}"] - row[f"peer_{k}"]) for row in rows for k in ("r", "r_a")]
    gaps = [gap for gap in gaps if not np.isnan(gap)]
    if gaps and max(gaps) <= tolerance:
        return f"the same r to within {tolerance:g} on every seed: what the hand-written engine buys is time"
    return f"r differs by up to {max(gaps):.4f}" if gaps else "r not comparable"


def _col(rows: list[dict], key: str, fmt: str) -> str:
    """:func:`_span` of one field over the seeds' rows."""
    return _span([row[key] for row in rows], fmt)


def _pyirt_text(rows: list[dict]) -> str:
    reached = sum(row["reached"] for row in rows)
    by_seed = ", ".join(f"{_better(r['ours_r'], r['peer_r'])} / {_better(r['ours_r_a'], r['peer_r_a'])}"
                        for r in rows)
    return (f"**py-irt's best** took {_col(rows, 'ratio', '{:.0f}')}× our wall time ({reached} of "
            f"{len(rows)} seeds reaching the target r; one that did not gives a lower bound) at r(b̂, b) "
            f"{_col(rows, 'peer_r', '{:.4f}')} against our {_col(rows, 'ours_r', '{:.4f}')}, r(â, a) "
            f"{_col(rows, 'peer_r_a', '{:.3f}')} against our {_col(rows, 'ours_r_a', '{:.3f}')}: ours "
            f"{by_seed} (b / a, by seed).")


def _numpyro_text(rows: list[dict]) -> str:
    return (f"**`engine=\"numpyro\"`**, at the same {_col(rows, 'steps', '{:.0f}')} steps, took "
            f"{_col(rows, 'ratio', '{:.1f}')}× our wall time (compilation included in both) at r(b̂, b) "
            f"{_col(rows, 'peer_r', '{:.4f}')} and r(â, a) {_col(rows, 'peer_r_a', '{:.3f}')}, against our "
            f"{_col(rows, 'ours_r', '{:.4f}')} and {_col(rows, 'ours_r_a', '{:.3f}')} "
            f"({_same_accuracy(rows)}).")


def _floor1(bound: float) -> str:
    """A lower bound to one decimal, rounded down so that it stays a lower bound."""
    return f"{np.floor(bound * 10) / 10:.1f}"


def _girth_text(row: dict) -> str:
    if row["hit_cap"]:
        full = (f"did not finish the full matrix within its cap of {row['cap_s']:.0f} s "
                f"(≥ {_floor1(row['ratio'])}× our wall time)")
    else:
        full = f"took {row['ratio']:.0f}× our wall time on the full matrix"
    text = f"**girth's MML** on seed {row['seed']} {full}"
    if "subset_ratio" in row:
        text += (f"; on {row['subset_items']:,} random columns alone it took {row['subset_s']:.0f} s "
                 f"({row['subset_ratio']:.0f}× our whole-matrix fit)")
    elif row.get("subset_hit_cap"):
        return text + (f", nor {row['subset_items']:,} random columns of it within the same cap: no "
                       "recovery to compare on this world.")
    if np.isnan(row["girth_b_cols"]):
        return text + "."
    return text + (
        f", at r(b̂, b) {row['girth_b_cols']:.4f} and r(â, a) {row['girth_a_cols']:.3f} on the columns it "
        f"fitted, against our {row['ours_b_cols']:.4f} and {row['ours_a_cols']:.3f} on the same columns: "
        f"ours {_better(row['ours_b_cols'], row['girth_b_cols'])} / "
        f"{_better(row['ours_a_cols'], row['girth_a_cols'])} (b / a).")


def peer_verdict_text(result: dict) -> str:
    """Each peer against our benchmark-rule fit, in one paragraph: the same-run time ratio and
    whether our r of b and of a is equal or better, seed by seed, all read from ``result``."""
    ratios = peer_ratios(result)
    parts = ([_pyirt_text(ratios["pyirt"])] if ratios["pyirt"] else []) + (
        [_numpyro_text(ratios["numpyro"])] if ratios["numpyro"] else []) + [
        _girth_text(row) for row in ratios["girth"]]
    return " ".join(parts) if parts else "*No peer ran in this result.*"


def real_text(real: dict) -> str:
    """The real-matrix comparison in one sentence: times, and how the fits agree with each
    other, with mirt's and with the classical difficulty (no truth there)."""
    ours, girth = real["ours_bench"], real.get("girth", {}).get("full")
    compared = real.get("ours_vs_mirt", {}) | real.get("girth", {}).get("compared", {})
    classical = real.get("b_vs_classical", {})
    text = f"On the real matrix our fit took {ours['wall_s']:.1f} s ({ours['steps']} steps)"
    if girth is not None and not girth["hit_cap"]:
        text += (f" and girth's {girth['wall_s']:.1f} s ({girth['wall_s'] / ours['wall_s']:.1f}× ours); "
                 f"the two 2PLs agree at r(b) {_r(compared, 'b', 'girth', 'ours'):.3f} and r(a) "
                 f"{_r(compared, 'a', 'girth', 'ours'):.3f}")
    text += (f". Against mirt's 3PL, r(b) is {_r(compared, 'b', 'ours', 'mirt'):.3f} for ours"
             + (f" and {_r(compared, 'b', 'girth', 'mirt'):.3f} for girth" if girth is not None else "")
             + f", r(a) {_r(compared, 'a', 'ours', 'mirt'):.3f}"
             + (f" and {_r(compared, 'a', 'girth', 'mirt'):.3f}" if girth is not None else "")
             + "; against the classical difficulty −logit(share correct), Spearman's ρ is "
             + ", ".join(f"{key.split(':')[1].split('~')[0].strip()} {value['spearman']:.3f}"
                         for key, value in classical.items())
             + f" ({real['world'].get('reference_negative_a', 0)} of mirt's slopes are negative).")
    return text


def engine_figure(result: dict):
    """r(b̂, b) and r(â, a) against wall time (log scale) for every fit of every seed; py-irt's
    path to the target drawn from its record of r every few steps, the target r as a line."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    from mmlu_audit.book.plots import legend_outside

    fig, (left, right) = plt.subplots(1, 2, figsize=(6.5, 3.8), sharex=True)
    for index, run in enumerate(result["runs"]):
        marker = _MARKERS[index % len(_MARKERS)]
        for key, label in ENGINES.items():
            if key not in run:
                continue
            fit, color = run[key], _COLORS[key]
            name = label if index == 0 else None
            if key.startswith("pyirt") and fit.get("trace"):
                trace = pd.DataFrame(fit["trace"])
                left.plot(fit["setup_s"] + trace["train_s"], trace["r"], "-", color=color, alpha=0.5, lw=1)
            left.plot(fit["wall_s"], fit["r"], marker, color=color, label=name)
            if fit.get("r_a") is not None:
                right.plot(fit["wall_s"], fit["r_a"], marker, color=color, label=name)
        for row in girth_rows(run):
            if not np.isnan(row["wall (s)"]):
                hollow = {"markerfacecolor": "none", "color": _COLORS["girth"]}
                name = (row["engine"] + (" (r on its columns)" if "subset" in row["engine"] else "")
                        if index == 0 else None)
                left.plot(row["wall (s)"], row["r(b̂, b)"], marker, label=name, **hollow)
                right.plot(row["wall (s)"], row["r(â, a)"], marker, label=name, **hollow)
            if not np.isnan(row.get("ours r(b̂, b), same columns", np.nan)):  # ours on girth's columns
                mine = {"markerfacecolor": "none", "color": _COLORS["ours_bench"]}
                name = "ours (benchmark rule) on girth's columns" if index == 0 else None
                wall = run["ours_bench"]["wall_s"]
                left.plot(wall, row["ours r(b̂, b), same columns"], marker, label=name, **mine)
                right.plot(wall, row["ours r(â, a), same columns"], marker, label=name, **mine)
    target = result["targets"]["r"]
    left.axhline(target, color="#6c757d", ls="--", lw=1, label=f"target r {target}")
    left.set_ylim(max(left.get_ylim()[0], 0.9), 1.0)
    for ax, ylabel in ((left, "r(b̂, b), difficulty"), (right, "r(â, a), discrimination")):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels of a narrow range overlap
        ax.set_xlabel("wall time (s, log scale)")
        ax.set_ylabel(ylabel)
    handles, labels = left.get_legend_handles_labels()
    legend_outside(right, handles=handles, labels=labels, fontsize=9)
    if len(result["runs"]) > 1:
        seeds = ", ".join(f"{_MARKER_GLYPHS[_MARKERS[i % len(_MARKERS)]]} seed {run['world']['world_seed']}"
                          for i, run in enumerate(result["runs"]))
        fig.suptitle(f"markers by world seed: {seeds}", fontsize=9)
    if result.get("quick"):
        fig.suptitle("QUICK (smoke-size) run — not the full benchmark", color="#d1495b")
    fig.tight_layout()
    return fig
