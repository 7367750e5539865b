"""PNG plots: speedup bars with CI whiskers per experiment (several runs: each run's
point and whisker side by side), from the comparison's
one estimate (document.Comparison.estimate; none for a ratio from fewer rounds than
the floor, rounds.py: it has no CI; its label says so and its marker is hollow), and
throughput against a
swept numeric parameter: of the cases (params.bytes, .size, ...; a line per variant)
or of the variants of a case (variants[].params.workers, .batch, ...; a line per case),
and per case with profiler breakdowns (why.py) where a profiled step's time goes.
Reference variants (role "reference": a data-only loop, training with no loader, a
copy or compute alone) bound the options and are none: their bars come last, hatched
grey, their lines dashed grey, and their labels say "(reference)".
matplotlib is imported lazily; without it plots are skipped with a message."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..explanation.why import CATEGORIES, IDLE, label, per_step, usable
from ..gpu.gpu_specs import match_gpu, peak_for
from ..load.document import VARIANT_KINDS, Case, Document, Experiment, Variant
from ..load.numbers import is_num
from ..statistics.measurement import PROCESS, Measurement
from ..statistics.rounds import floor_text, rounds_text
from .fmt import rate_scale, time_scale

PREFERRED_SWEEPS = ("bytes", "size", "workers", "batch", "batch_size", "threads", "prefetch", "seq", "n")
REFERENCE = " (reference)"  # what a reference variant's bar or line label ends with


class Label(str):
    """A bar's or line's label that carries whether it is a reference (bounds, not
    options), so the drawing code reads the flag, not the label's text."""

    reference: bool

    def __new__(cls, text: str, reference: bool = False) -> "Label":
        obj = super().__new__(cls, text + (REFERENCE if reference else ""))
        obj.reference = reference
        return obj


REFERENCE_COLOR = "#bdbdbd"


@dataclass
class Plot:
    experiment: str
    kind: str  # "speedup", "throughput" or "breakdown"
    title: str
    path: Path


def save_figure(plt, fig, path: Path, **kw) -> None:
    """Every report plot is laid out, written at one resolution and closed the same way."""
    fig.tight_layout()
    fig.savefig(path, dpi=110, **kw)
    plt.close(fig)


def _speedup_axis(ax, bottom: float, top: float) -> None:
    """A log axis where the speedups span more than 8x (a 6x fusion beside 1.05x), else linear."""
    if bottom > 0 and top / bottom > 8:
        ax.set_xscale("log")
        ax.set_xlim(bottom / 1.15, top * 1.15)
    else:
        pad = 0.08 * (top - bottom) or 0.05
        ax.set_xlim(max(0.0, bottom - pad), top + pad)


def matplotlib_or_none():
    """pyplot with the Agg backend, or None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _text(s: object) -> str:
    """A name from a results file as plot text: each $ escaped, so a "$...$" in it is drawn as
    itself, not as mathtext (a "$\\frac$" would fail the whole render). Only these strings:
    matplotlib's own log-axis ticks are mathtext."""
    return str(s).replace("$", r"\$")


def _speedup_items(experiment: Experiment) -> list[tuple[tuple, Label, Measurement]]:
    """(key (case, variant), label, its one estimate) per comparison, in file order."""
    out = []
    shared = common_basis(experiment)
    for c in experiment.cases:
        for cm in c.comparisons:
            est = cm.estimate
            if est is None:
                continue
            ref = cm.variant is not None and cm.variant.role == "reference"
            label = f"{c.name}: {cm.variant_name}"
            key = (str(c.name), str(cm.variant_name))
            if est.unit == PROCESS and shared is None:
                label += f" ({est.basis})"
            if est.unit != PROCESS and est.below_floor:
                label += f" ({rounds_text([est.rounds])}, no CI)"
            elif not est.has_ci:
                label += " (no CI)"
            out.append((key, Label(label, ref), est))
    return out


def speedup_points(experiment: Experiment) -> list[tuple[Label, Measurement]]:
    """(label, its one estimate) per comparison (cm.estimate: the tables' and the gate's
    figures), the references' last and labelled so; a label says an interval between
    processes ('3 processes') and a ratio without one (below the rounds floor: the rounds)."""
    out = [(label, m) for _, label, m in _speedup_items(experiment)]
    # The options first, the references (bounds, not options) after them.
    return [p for p in out if not p[0].reference] + [p for p in out if p[0].reference]


def common_basis(experiment: Experiment) -> str | None:
    """'3 processes' where every interval of the experiment is between that many
    processes (said once, in the title), else None (each label says its own)."""
    bases = {(e.unit, e.basis) for c in experiment.cases for cm in c.comparisons if (e := cm.estimate) is not None}
    if len(bases) == 1 and next(iter(bases))[0] == PROCESS:
        return next(iter(bases))[1]
    return None


def _points(ax, pts: list, y: list[int], lo_err: list[float], hi_err: list[float]) -> bool:
    """Markers with CI whiskers, and hollow markers without whiskers for ratios that
    have no CI (a zero-width whisker would read as certainty); True if any has none."""
    with_ci = [i for i, (_, m) in enumerate(pts) if m.has_ci]
    no_ci = [i for i in range(len(pts)) if i not in with_ci]
    if with_ci:
        ax.errorbar(
            [pts[i][1].speedup for i in with_ci],
            [y[i] for i in with_ci],
            xerr=[[lo_err[i] for i in with_ci], [hi_err[i] for i in with_ci]],
            fmt="o",
            color="black",
            markersize=3,
            capsize=3,
        )
    if no_ci:
        ax.plot(
            [pts[i][1].speedup for i in no_ci],
            [y[i] for i in no_ci],
            "o",
            markerfacecolor="white",
            markeredgecolor="black",
            markersize=4,
            linestyle="none",
        )
    return bool(no_ci)


def plot_speedups(plt, experiment: Experiment, path: Path) -> bool:
    pts = speedup_points(experiment)
    if not pts:
        return False
    refs = [label.reference for label, _ in pts]
    labels = [label for label, _ in pts]
    vals = [m.speedup for _, m in pts]
    lo_err = [m.speedup - m.ci_low if m.has_ci else 0.0 for _, m in pts]
    hi_err = [m.ci_high - m.speedup if m.has_ci else 0.0 for _, m in pts]
    colors = []
    for (_, m), ref in zip(pts, refs):
        if ref:
            colors.append(REFERENCE_COLOR)
        elif m.has_ci and m.ci_low > 1:
            colors.append("#2a9d5c")
        elif m.has_ci and m.ci_high < 1:
            colors.append("#c0392b")
        else:
            colors.append("#8c8c8c")
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.38 * len(pts)))
    y = list(range(len(pts)))[::-1]
    # Bars start at 1 (no change): right = faster, left = slower.
    for ref in (False, True):  # one call each: per-bar hatches need a newer matplotlib than Debian's
        idx = [i for i, r in enumerate(refs) if r == ref]
        if idx:
            ax.barh(
                [y[i] for i in idx],
                [vals[i] - 1.0 for i in idx],
                left=1.0,
                color=[colors[i] for i in idx],
                **({"hatch": "//", "edgecolor": "#7f7f7f"} if ref else {}),
            )
    if any(refs) and not all(refs):
        ax.axhline(y[refs.index(True)] + 0.5, color="#7f7f7f", linewidth=0.8)
    no_ci = _points(ax, pts, y, lo_err, hi_err)
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_yticks(y, [_text(lab) for lab in labels], fontsize=8)
    ax.set_xlabel(
        "speedup vs baseline (×; whiskers: CI; green/red: CI above/below 1)"
        + ("\nhatched grey, below the line: references (bounds, not options)" if any(refs) else "")
        + (f"\nhollow, no whisker: no CI (fewer than {_floors(experiment)} rounds, or none recorded)" if no_ci else "")
    )
    basis = common_basis(experiment)
    ax.set_title(_text(f"{experiment.name}: speedup" + (f" (CI between {basis})" if basis else "")), fontsize=10)
    top = max(v + h for v, h in zip(vals, hi_err))
    bottom = min(v - lw for v, lw in zip(vals, lo_err))
    top, bottom = max(top, 1.0), min(bottom, 1.0)
    _speedup_axis(ax, bottom, top)
    save_figure(plt, fig, path)
    return True


def _floors(experiment: Experiment) -> str:
    """The rounds floor its comparisons were held to (recorded per comparison)."""
    return floor_text([cm.floor for c in experiment.cases for cm in c.comparisons if cm.speedup is not None])


def find_sweeps(experiment: Experiment) -> list[tuple[str, dict]]:
    """[(param, {line label: [(x, throughput), ...]})] for each numeric case param that
    varies among cases whose other params are equal; a line per variant (and group of
    the other params, e.g. 'direction=h2d: pinned')."""
    kind = experiment.throughput_kind
    if not kind:
        return []
    cases = [c for c in experiment.cases if c.ran]
    keys = sorted(
        {k for c in cases for k, v in c.params.items() if is_num(v)},
        key=lambda k: (k not in PREFERRED_SWEEPS, k),
    )
    out = []
    for key in keys:
        groups: dict[str, tuple[dict, list]] = {}
        for c in cases:
            params = c.params
            if not is_num(params.get(key)):
                continue
            rest = {k: v for k, v in params.items() if k != key}
            _, pts = groups.setdefault(json.dumps(rest, sort_keys=True, default=str), (rest, []))
            for v in c.variants:
                thr = v.rate(kind)
                if is_num(thr) and v.ok:
                    pts.append((float(params[key]), (str(v.name), v.role == "reference"), float(thr)))
        # Label lines by the other params that differ between groups (e.g. direction=h2d).
        all_keys = {k for rest, _ in groups.values() for k in rest}
        varying = sorted(
            k for k in all_keys if len({json.dumps(r.get(k), default=str) for r, _ in groups.values()}) > 1
        )
        lines: dict[tuple[str, tuple[str, bool]], list] = {}  # (group label, (variant, reference))
        for rest, pts in groups.values():
            label = ", ".join(f"{k}={rest.get(k)}" for k in varying)
            for x, name, thr in pts:
                lines.setdefault((label, name), []).append((x, thr))
        lines = {k: sorted(v) for k, v in lines.items() if len({x for x, _ in v}) >= 2}
        # A sweep: in a group, at least two variants (baseline and another) were measured at
        # two or more values. (aligned_dims' odd sizes are not: each odd variant has one size.)
        per_label: dict[str, int] = {}
        for label, _ in lines:
            per_label[label] = per_label.get(label, 0) + 1
        lines = {k: v for k, v in lines.items() if per_label[k[0]] >= 2}
        distinct = len({x for v in lines.values() for x, _ in v})
        if lines and (key in PREFERRED_SWEEPS or distinct >= 3):
            out.append(
                (key, {Label(f"{lab}: {name}" if lab else name, ref): v for (lab, (name, ref)), v in lines.items()})
            )
    found = {k for k, _ in out}
    return out + [sw for sw in variant_sweeps(cases, kind) if sw[0] not in found]


def variant_sweeps(cases: list[Case], kind: str) -> list[tuple[str, dict]]:
    """Sweeps across the variants of one case (variants[].params, e.g. workers or
    batch): a line per case and text param (e.g. the loop kind), over the variants that ran.
    The params that say what a variant is (document.VARIANT_KINDS: its precision, the
    devices it spread over) are no setting swept: neither lines nor points."""
    per_key: dict[str, dict[str, list]] = {}
    for c in cases:
        variants = [v for v in c.variants if v.ok and is_num(v.rate(kind))]
        for v in variants:
            thr = v.rate(kind)
            params = {k: x for k, x in v.params.items() if k not in VARIANT_KINDS}
            # Text params tell lines apart within a case (the dataloader's train and data_only loops).
            tags = [str(x) for x in params.values() if isinstance(x, str)]
            # A line every variant of which is a reference (the data-only loops) is one.
            line = Label(
                str(c.name) + (f" ({', '.join(tags)})" if tags else ""),
                all(w.role == "reference" for w in variants if _same_line(w, params, tags)),
            )
            for k, x in params.items():
                if is_num(x):
                    per_key.setdefault(k, {}).setdefault(line, []).append((float(x), float(thr)))
    out = []
    for key in sorted(per_key, key=lambda k: (k not in PREFERRED_SWEEPS, k)):
        lines = {name: sorted(pts) for name, pts in per_key[key].items() if len({x for x, _ in pts}) >= 2}
        if lines and (key in PREFERRED_SWEEPS or max(len(p) for p in lines.values()) >= 3):
            out.append((key, lines))
    return out


def _same_line(v: Variant, params: dict, tags: list[str]) -> bool:
    """Whether variant v belongs to the line of a variant with these swept params and tags."""
    mine = {k: x for k, x in v.params.items() if k not in VARIANT_KINDS}
    return [str(x) for x in mine.values() if isinstance(x, str)] == tags and set(mine) == set(params)


def sweep_peak(experiment: Experiment, spec: dict | None) -> tuple[float, str] | None:
    """The peak shared by every case and variant of the experiment, if there is one."""
    kind = experiment.throughput_kind
    if kind not in ("bytes", "flops"):
        return None
    peaks = {peak_for(c, v, kind, spec) for c in experiment.cases for v in c.variants}
    return peaks.pop() if len(peaks) == 1 else None


def plot_sweep(plt, experiment: Experiment, key: str, lines: dict, path: Path, spec: dict | None = None) -> bool:
    kind = experiment.throughput_kind
    div, unit = rate_scale(kind, [y for pts in lines.values() for _, y in pts]) if kind != "items" else (1.0, "items/s")
    fig, ax = plt.subplots(figsize=(8, 4.5))

    def is_ref(label: str) -> bool:
        return getattr(label, "reference", False)

    for name, pts in sorted(lines.items(), key=lambda kv: (is_ref(kv[0]), kv[0])):
        style = {"color": REFERENCE_COLOR, "linestyle": "--", "markerfacecolor": "white"} if is_ref(name) else {}
        ax.plot([x for x, _ in pts], [y / div for _, y in pts], marker="o", label=_text(name), **style)
    peak = sweep_peak(experiment, spec)
    if peak:
        ax.axhline(peak[0] / div, color="black", linestyle="--", linewidth=0.8, label=f"peak: {peak[1]}")
    ax.set_ylim(bottom=0)
    xs = [x for pts in lines.values() for x, _ in pts]
    if min(xs) > 0 and max(xs) / min(xs) >= 16:
        ax.set_xscale("log", base=2 if key == "bytes" else 10)
    ax.set_xlabel(_text(key))
    ax.set_ylabel(f"throughput ({unit})")
    ax.set_title(_text(f"{experiment.name}: throughput vs {key}"), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(plt, fig, path)
    return True


def _category_color(plt, k: str):
    """A fixed colour per category across plots (tab20's dark shades first); idle grey."""
    if k == IDLE:
        return "#d9d9d9"
    i = CATEGORIES.index(k) if k in CATEGORIES else len(CATEGORIES)
    return plt.get_cmap("tab20")((2 * i) % 20 + (2 * i) // 20)


def plot_breakdown(plt, experiment: Experiment, case: Case, path: Path) -> bool:
    """One stacked bar per variant: a profiled step's time by category, then idle.
    A variant without a usable breakdown keeps its (empty) row; none at all, no plot.
    A reference variant's bar is faded and its label says so."""
    from matplotlib.colors import to_rgba

    refs = [v.role == "reference" for v in case.variants]
    bars = [(str(v.name) + (REFERENCE if ref else ""), v.breakdown) for v, ref in zip(case.variants, refs)]
    ok = [bd for _, bd in bars if usable(bd)]
    if not ok:
        return False
    device = ok[0].device
    steps = [per_step(bd) if usable(bd) else {} for _, bd in bars]
    seen = {k for st in steps for k in st}
    cats = [k for k in CATEGORIES if k in seen] + sorted(seen - {*CATEGORIES, IDLE}) + [IDLE] * (IDLE in seen)
    div, unit = time_scale([sum(st.values()) for st in steps])
    fig, ax = plt.subplots(figsize=(9, max(1.4 + 0.45 * len(bars), 1.0 + 0.17 * len(cats))))
    y = list(range(len(bars)))[::-1]
    left = [0.0] * len(bars)
    for k in cats:
        widths = [st.get(k, 0.0) / div for st in steps]
        # A reference variant's bar is faded: a bound beside the options, not one of them.
        colors = [to_rgba(_category_color(plt, k), 0.35 if r else 1.0) for r in refs]
        ax.barh(
            y,
            widths,
            left=left,
            color=colors,
            label=_text(label(k, device)),
            hatch="//" if k == IDLE else None,
            edgecolor="white",
            linewidth=0.5,
        )
        left = [a + b for a, b in zip(left, widths)]
    views = [bd for _, bd in bars]
    timed = [(yy, b.timed_step_s / div) for yy, b in zip(y, views) if b.usable and b.timed_step_s is not None]
    if timed:
        ax.plot(
            [t for _, t in timed],
            [yy for yy, _ in timed],
            "|",
            color="black",
            markersize=16,
            markeredgewidth=2,
            label="timed median step",
        )
    # On a GPU a copy overlapping a kernel counts in both categories: such a bar outgrows its window.
    overlap = any(sum(st.values()) > 1.01 * b.window_step_s for st, b in zip(steps, views) if b.usable)
    ax.set_yticks(y, [_text(name if usable(bd) else f"{name} (no breakdown)") for name, bd in bars], fontsize=8)
    ax.set_xlabel(
        f"{unit} per step (profiled window)"
        + ("\noverlapping copies and kernels count in each of their categories" if overlap else "")
    )
    ax.set_title(
        _text(f"{experiment.name} / {case.name}: where a step's time goes (profiled window, not timed)"), fontsize=10
    )
    handles, names = ax.get_legend_handles_labels()  # categories in stacking order, the timed tick last
    order = sorted(range(len(names)), key=lambda i: names[i] == "timed median step")
    ax.legend(
        [handles[i] for i in order],
        [names[i] for i in order],
        fontsize=7,
        loc="center left",
        bbox_to_anchor=(1.01, 0.5),
    )
    save_figure(plt, fig, path, bbox_inches="tight")
    return True


RUN_COLORS = ("#1f4e79", "#d35400", "#2a9d5c", "#8e44ad", "#7f6000", "#c0392b")
RUN_MARKERS = ("o", "s", "D", "^", "v", "P")


def plot_speedups_runs(plt, name: str, runs: list[tuple[str, Experiment]], path: Path) -> bool:
    """One experiment's speedups in several runs: per comparison a point and CI whisker
    for each run, side by side (hollow where a run has no CI), references last."""
    items = {lab: {it[0]: it for it in _speedup_items(e)} for lab, e in runs}
    keys = list(dict.fromkeys(k for per in items.values() for k in per))
    if not keys:
        return False
    refs = {k: any(per[k][1].reference for per in items.values() if k in per) for k in keys}
    keys = [k for k in keys if not refs[k]] + [k for k in keys if refs[k]]
    fig, ax = plt.subplots(figsize=(8, 1.4 + (0.22 + 0.16 * len(runs)) * len(keys)))
    y0 = list(range(len(keys)))[::-1]
    step = 0.7 / max(1, len(runs))
    lows, highs, no_ci = [1.0], [1.0], False
    for j, (lab, _) in enumerate(runs):
        color, marker = RUN_COLORS[j % len(RUN_COLORS)], RUN_MARKERS[j % len(RUN_MARKERS)]
        pts = [(y0[i] + 0.35 - step * (j + 0.5), items[lab][k][2]) for i, k in enumerate(keys) if k in items[lab]]
        with_ci = [(y, m) for y, m in pts if m.has_ci]
        without = [(y, m) for y, m in pts if not m.has_ci]
        if with_ci:
            ax.errorbar(
                [m.speedup for _, m in with_ci],
                [y for y, _ in with_ci],
                xerr=[[m.speedup - m.ci_low for _, m in with_ci], [m.ci_high - m.speedup for _, m in with_ci]],
                fmt=marker,
                color=color,
                markersize=4,
                capsize=2,
                label=_text(lab),
            )
        if without:
            no_ci = True
            ax.plot(
                [m.speedup for _, m in without],
                [y for y, _ in without],
                marker,
                markerfacecolor="white",
                markeredgecolor=color,
                markersize=5,
                linestyle="none",
                label=None if with_ci else _text(lab),
            )
        lows += [m.ci_low if m.has_ci else m.speedup for _, m in pts]
        highs += [m.ci_high if m.has_ci else m.speedup for _, m in pts]
    if any(refs.values()) and not all(refs.values()):
        ax.axhline(y0[[refs[k] for k in keys].index(True)] + 0.5, color="#7f7f7f", linewidth=0.8)
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_yticks(y0, [_text(f"{c}: {v}" + (REFERENCE if refs[(c, v)] else "")) for c, v in keys], fontsize=8)
    ax.set_xlabel(
        "speedup vs baseline (×; whiskers: CI)"
        + ("\nbelow the line: references (bounds, not options)" if any(refs.values()) else "")
        + ("\nhollow: no CI" if no_ci else "")
    )
    ax.set_title(_text(f"{name}: speedup in each run"), fontsize=10)
    bottom, top = min(lows), max(highs)
    _speedup_axis(ax, bottom, top)
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, axis="x", alpha=0.3)
    save_figure(plt, fig, path)
    return True


def make_plots(
    runs: list[tuple[str, Document]], out_dir: Path, every: bool = False
) -> tuple[list[Plot], dict[str, list[Plot]]]:
    """The report's plots under out_dir: per experiment one, its speedups (every run's in
    one plot); with every=True, each run's throughput sweeps and profiler breakdowns as
    well, by run label. ([], {}) without matplotlib."""
    plt = matplotlib_or_none()
    if plt is None:
        return [], {}
    out_dir.mkdir(parents=True, exist_ok=True)
    main: list[Plot] = []
    names = list(dict.fromkeys(e.name for _, d in runs for e in d.experiments))
    for name in names:
        per_run = [(lab, e) for lab, d in runs for e in d.experiments if e.name == name]
        path = out_dir / f"{_safe(str(name))}_speedup.png"
        drawn = (
            plot_speedups(plt, per_run[0][1], path)
            if len(runs) == 1
            else plot_speedups_runs(plt, str(name), per_run, path)
        )
        if drawn:
            main.append(Plot(str(name), "speedup", f"{name}: speedup with CI", path))
    extra: dict[str, list[Plot]] = {}
    if every:
        for i, (lab, d) in enumerate(runs, start=1):
            extra[lab] = _run_plots(plt, d, out_dir, f"{i}_" if len(runs) > 1 else "")
    return main, extra


def _run_plots(plt, d: Document, out_dir: Path, prefix: str) -> list[Plot]:
    """One run's throughput sweeps and profiler breakdowns."""
    spec = match_gpu(d.gpu_name) if d.device == "cuda" else None
    plots = []
    for e in d.experiments:
        name = str(e.name)
        for key, lines in find_sweeps(e):
            path = out_dir / f"{prefix}{_safe(name)}_{_safe(key)}_throughput.png"
            if plot_sweep(plt, e, key, lines, path, spec):
                plots.append(Plot(name, "throughput", f"{name}: throughput vs {key}", path))
        for c in e.cases:
            cname = str(c.name)
            path = out_dir / f"{prefix}{_safe(name)}_{_safe(cname)}_breakdown.png"
            if plot_breakdown(plt, e, c, path):
                plots.append(Plot(name, "breakdown", f"{name} / {cname}: where a step's time goes", path))
    return plots
