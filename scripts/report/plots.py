"""The plot kinds of the HTML report, one renderer each (docs/report.md describes the JSON).

A renderer takes a plot (the dict the C program wrote: kind, key, title, caption, attrs, series)
and the papers' figures for its key, and returns a matplotlib figure. It marks every paper figure
it placed; the page lists the ones no renderer could place.
"""
import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
    "savefig.dpi": 100,
})

WIDTH = 11.0  # inches: 1100 px at 100 dpi

# One colour per series name across the whole page: RB is the same blue in every plot.
_palette = plt.get_cmap("tab10").colors
_colors = {}
# Marker per reference (paper or quoted system), in order of first use.
_ref_markers = ["D", "s", "^", "v", "P"]
_refs = {}


def new_plot():
    """Colours and markers go to series and references in the order a plot names them: the
    benchmarks list their series in the same order in every plot (RB, WAL, COW), so RB is the
    same blue everywhere."""
    _colors.clear()
    _refs.clear()


def color_for(name):
    if name not in _colors:
        _colors[name] = _palette[len(_colors) % len(_palette)]
    return _colors[name]




def marker_for(reference):
    if reference not in _refs:
        _refs[reference] = _ref_markers[len(_refs) % len(_ref_markers)]
    return _refs[reference]


class PlotError(Exception):
    pass


def _title(fig, plot):
    fig.suptitle(textwrap.fill(plot["title"], 110), fontsize=11, fontweight="bold", x=0.01,
                 ha="left")


def _legend(fig, handles):
    """The legend in one row under the title."""
    top = 1 - 0.42 / fig.get_figheight()
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.01, top),
               ncol=len(handles), fontsize=8, frameon=False)


def _top(fig):
    """Where the panels may start: under the title and the legend."""
    return 1 - 0.8 / fig.get_figheight()


def _log_axis(axis):
    """Log scale with plain numbers: at 1, 2, 5 x 10^n over a narrow range, powers of ten over a
    wide one. Call once the data is drawn."""
    axis.axes.autoscale_view()
    lo, hi = sorted(axis.get_view_interval())
    decades = math.log10(hi / lo) if lo > 0 else 99
    subs = (1.0, 2.0, 5.0) if decades <= 2.2 else (1.0,)
    axis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: _fmt(v)))
    axis.set_minor_formatter(ticker.NullFormatter())


def _column(series, index):
    return [row[index] for row in series["rows"]]


def _label(plot, axis, series, index):
    return plot["attrs"].get(axis) or series["columns"][index]


def _fmt(v):
    if v is None:
        return "failed"
    if v == 0:
        return "0"
    if abs(v) >= 100 or v == int(v):
        return f"{v:,.0f}"
    return f"{v:.3g}"


def _reference_handles(placed):
    refs = []
    for f in placed:
        if f.reference not in refs:
            refs.append(f.reference)
    return [Line2D([], [], color="black", marker=marker_for(r), linestyle="none", markersize=6,
                   label=r) for r in refs]


# ---- timeline: capacitor voltage with events ------------------------------------------------

EVENT_STYLE = {
    "failure": dict(marker="x", color="#d62728", markersize=7, mew=2, label="power failure"),
    "restore": dict(marker="v", color="#ff7f0e", markersize=5, label="restore finished"),
    "checkpoint": dict(marker="|", color="0.15", markersize=7, mew=1,
                       label="checkpoint committed"),
}


def _hlines(attrs):
    """attrs["hlines"] = "3.3:label|2.3:label" -> [(3.3, "label"), ...]"""
    out = []
    for part in filter(None, attrs.get("hlines", "").split("|")):
        value, _, text = part.partition(":")
        out.append((float(value), text))
    return out


def timeline(plot, figures):
    series = plot["series"]
    if not series:
        raise PlotError("a timeline needs at least one series")
    hlines = _hlines(plot["attrs"])
    n = len(series)
    panel = max(1.75, 2.6 / n)  # inches per series
    fig, axes = plt.subplots(n, 1, sharex=True, figsize=(WIDTH, 1.3 + panel * n), squeeze=False)
    _title(fig, plot)
    axes = axes[:, 0]
    tmax = max(row[0] for s in series for row in s["rows"])
    lows = [v for v, _ in hlines]
    for ax, s in zip(axes, series):
        event = s["columns"].index("event") if "event" in s["columns"] else None
        t, v = _column(s, 0), _column(s, 1)
        ax.plot(t, v, color=color_for(s["name"]), linewidth=1.0, label="capacitor voltage")
        events = {}
        for row in s["rows"]:
            if event is not None and row[event]:
                events.setdefault(row[event], []).append(row)
        # off periods: from each failure to the recharge that follows it
        fails = events.get("failure", [])
        charged = [r[0] for r in events.get("charged", [])]
        for f in fails:
            later = [c for c in charged if c >= f[0]]
            if later:
                ax.axvspan(f[0], later[0], color="0.6", alpha=0.3, linewidth=0)
        ylo = min(lows + v) - 0.25 if lows else min(v)
        yhi = max([x for x, _ in hlines] + v) + 0.15
        for name, style in EVENT_STYLE.items():
            rows = events.get(name, [])
            if not rows:
                continue
            ts = [r[0] for r in rows]
            if name == "checkpoint":
                ys = [ylo + 0.08] * len(ts)
            elif name == "restore":
                ys = [yhi - 0.05] * len(ts)
            else:
                ys = [r[1] for r in rows]
            ax.plot(ts, ys, linestyle="none", **style)
        for value, text in hlines:
            ax.axhline(value, color="0.4", linestyle="--", linewidth=0.7)
            ax.text(tmax * 1.005, value, text, va="center", ha="left", fontsize=7.5, color="0.3")
        ax.set_ylim(ylo, yhi)
        end = t[-1]
        ax.axvline(end, color=color_for(s["name"]), linestyle=":", linewidth=1)
        ax.set_title(f"{s['name']}: done at {end:.0f} s, {len(fails)} power failures, "
                     f"{len(events.get('restore', []))} restores", loc="left",
                     color=color_for(s["name"]), fontweight="bold")
        ax.set_ylabel(_label(plot, "y", s, 1))
    axes[-1].set_xlabel(_label(plot, "x", series[0], 0))
    axes[-1].set_xlim(0, tmax * 1.0)
    handles = [Line2D([], [], color="0.2", linewidth=1, label="capacitor voltage"),
               Patch(color="0.6", alpha=0.3, label="off: waiting for charge")]
    handles += [Line2D([], [], linestyle="none", **style) for style in EVENT_STYLE.values()]
    _legend(fig, handles)
    fig.tight_layout(rect=(0, 0, 0.93, _top(fig)))
    return fig


# ---- lines: y over x per series -------------------------------------------------------------

def lines(plot, figures):
    attrs = plot["attrs"]
    fig, ax = plt.subplots(figsize=(WIDTH, 4.2))
    step = attrs.get("step") == "yes"
    dashed = set(filter(None, attrs.get("dashed", "").split("|")))
    for s in plot["series"]:
        ax.plot(_column(s, 0), _column(s, 1), label=s["name"], color=color_for(s["name"]),
                drawstyle="steps-post" if step else "default", linewidth=1.2,
                linestyle="--" if s["name"] in dashed else "-",
                marker=None if step or len(s["rows"]) > 30 else "o", markersize=3)
    placed = []
    names = {s["name"]: s for s in plot["series"]}
    for f in figures:
        s = names.get(f.series)
        if s is None or f.metric != s["columns"][1]:
            continue
        try:
            x = float(f.group)
        except ValueError:
            continue
        ax.plot([x], [f.value], linestyle="none", marker=marker_for(f.reference),
                color=color_for(f.series), markeredgecolor="black", markersize=7)
        f.placed = True
        placed.append(f)
    if attrs.get("xscale"):
        ax.set_xscale(attrs["xscale"])
        if attrs["xscale"] == "log":
            _log_axis(ax.xaxis)
    if attrs.get("yscale"):
        ax.set_yscale(attrs["yscale"])
        if attrs["yscale"] == "log":
            _log_axis(ax.yaxis)
    first = plot["series"][0]
    ax.set_xlabel(_label(plot, "x", first, 0))
    ax.set_ylabel(_label(plot, "y", first, 1))
    ax.grid(True, color="0.9")
    handles = [Line2D([], [], color=color_for(s["name"]), label=s["name"],
                      linestyle="--" if s["name"] in dashed else "-") for s in plot["series"]]
    _title(fig, plot)
    _legend(fig, handles + _reference_handles(placed))
    fig.tight_layout(rect=(0, 0, 1, _top(fig)))
    return fig


# ---- heatmap: erase count per unit ----------------------------------------------------------

def _plural(word):
    return word if word.endswith("s") else word + "s"


def _rows_of(series, columns, unit):
    """Lay units out in rows: a row never mixes regions and holds at most `columns` units.
    Returns [(label, [(unit, erases), ...])]."""
    runs = []  # [region, [(unit, erases)]]
    for u, erases, *rest in series["rows"]:
        region = rest[0] if rest else ""
        if runs and runs[-1][0] == region and runs[-1][1][-1][0] == u - 1:
            runs[-1][1].append((u, erases))
        else:
            runs.append([region, [(u, erases)]])
    out = []
    for region, cells in runs:
        for i in range(0, len(cells), columns):
            part = cells[i:i + columns]
            span = f"{_plural(unit)} {part[0][0]}–{part[-1][0]}" if len(part) > 1 \
                else f"{unit} {part[0][0]}"
            out.append((f"{region}: {span}" if region else span, part))
    return out


def heatmap(plot, figures):
    attrs = plot["attrs"]
    columns = int(attrs.get("columns", "16"))
    unit = attrs.get("unit", "unit")
    shared = attrs.get("scale", "own") == "shared"
    layouts = [_rows_of(s, columns, unit) for s in plot["series"]]
    if not layouts or not all(layouts):
        raise PlotError("a heatmap needs a non-empty series per panel")
    vmax_all = max(e for lay in layouts for _, cells in lay for _, e in cells)
    row_in, gap_in, top_in, bottom_in = 0.24, 0.75, 0.75, 0.45
    rows = [max(2, len(lay)) for lay in layouts]  # room for a colour bar beside one row
    height = top_in + bottom_in + row_in * sum(rows) + gap_in * (len(rows) - 1)
    fig = plt.figure(figsize=(WIDTH, height))
    grid = fig.add_gridspec(len(layouts), 2, height_ratios=rows, width_ratios=[60, 1],
                            hspace=gap_in / (row_in * sum(rows) / len(rows)), wspace=0.02,
                            left=0.25, right=0.94, top=1 - top_in / height,
                            bottom=bottom_in / height)
    annotate = columns <= 48
    cmap = plt.get_cmap("YlOrRd")
    for i, (s, lay) in enumerate(zip(plot["series"], layouts)):
        ax = fig.add_subplot(grid[i, 0])
        cax = fig.add_subplot(grid[i, 1])
        data = np.full((len(lay), columns), np.nan)
        for r, (_, cells) in enumerate(lay):
            for c, (_, e) in enumerate(cells):
                data[r, c] = e
        vmax = max(1, vmax_all if shared else np.nanmax(data))
        im = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap, vmin=0, vmax=vmax,
                       interpolation="nearest")
        ax.set_yticks(range(len(lay)))
        ax.set_yticklabels([label for label, _ in lay], fontsize=7.5)
        ax.set_xticks(range(0, columns, 4 if columns > 16 else 1))
        ax.tick_params(axis="x", labelsize=7)
        if i == len(layouts) - 1:
            ax.set_xlabel(f"position in the row: the row's first {unit} + this offset",
                          fontsize=7.5)
        for spine in ax.spines.values():
            spine.set_visible(False)
        total = sum(e for _, cells in lay for _, e in cells)
        peak = max(e for _, cells in lay for _, e in cells)
        ax.set_title(f"{s['name']}: {total:,} erases in all, at most {peak:,} per {unit}",
                     loc="left", fontweight="bold", fontsize=9)
        if annotate:
            for r, (_, cells) in enumerate(lay):
                for c, (_, e) in enumerate(cells):
                    ax.text(c, r, f"{e}", ha="center", va="center", fontsize=6,
                            color="white" if e > 0.6 * vmax else "black")
        cb = fig.colorbar(im, cax=cax)
        cb.set_label("erases", fontsize=7.5)
        cb.ax.tick_params(labelsize=7)
    _title(fig, plot)
    return fig


# ---- bars: values per group and series, one panel per measured column -----------------------

def _log_metrics(attrs, metrics):
    value = attrs.get("log", "")
    if value == "all":
        return set(metrics)
    return set(filter(None, value.split("|")))


def _metric_labels(attrs):
    """attrs["labels"] = "column=label|..." -> {column: label}: titles for the value columns."""
    out = {}
    for part in filter(None, attrs.get("labels", "").split("|")):
        column, _, label = part.partition("=")
        out[column] = label
    return out


def bars(plot, figures):
    attrs = plot["attrs"]
    titles = _metric_labels(attrs)
    series = plot["series"]
    if not series:
        raise PlotError("a bar plot needs at least one series")
    metrics = series[0]["columns"][1:]
    for s in series:
        if s["columns"][1:] != metrics:
            raise PlotError(f"series {s['name']} has other columns than {series[0]['name']}")
    groups = []
    for s in series:
        for row in s["rows"]:
            if row[0] not in groups:
                groups.append(row[0])
    horizontal = attrs.get("horizontal") == "yes"
    logs = _log_metrics(attrs, metrics)
    ns, ng, nm = len(series), len(groups), len(metrics)
    if horizontal:
        height = max(3.0, 0.9 + ng * (0.22 * ns + 0.25))
        fig, axes = plt.subplots(1, nm, sharey=True, figsize=(WIDTH, height), squeeze=False)
    else:
        fig, axes = plt.subplots(1, nm, figsize=(WIDTH, 3.9), squeeze=False)
    axes = axes[0]
    width = 0.8 / ns
    placed = []
    for m, (ax, metric) in enumerate(zip(axes, metrics)):
        labels = []  # (position, value) of every bar, written once the scale is set
        for k, s in enumerate(series):
            values = {row[0]: row[1 + m] for row in s["rows"]}
            pos = np.arange(ng) + (k - (ns - 1) / 2) * width
            heights = [values.get(g) for g in groups]
            drawn = [h if h is not None else 0 for h in heights]
            if horizontal:
                ax.barh(pos, drawn, height=width * 0.92, color=color_for(s["name"]),
                        label=s["name"])
            else:
                ax.bar(pos, drawn, width=width * 0.92, color=color_for(s["name"]),
                       label=s["name"])
            labels.extend((p, h) for p, h, g in zip(pos, heights, groups) if g in values)
            for f in figures:
                # a figure for one series sits on its bar; one without a series on the group
                if f.series not in (s["name"], "") or f.metric != metric or f.group not in groups:
                    continue
                if f.series == "" and k != ns // 2:
                    continue
                p = pos[groups.index(f.group)] if f.series else groups.index(f.group)
                xy = ([f.value], [p]) if horizontal else ([p], [f.value])
                ax.plot(*xy, linestyle="none", marker=marker_for(f.reference), color="black",
                        markerfacecolor="white", markeredgewidth=1.3, markersize=6, zorder=5)
                f.placed = True
                placed.append(f)
        title = titles.get(metric, metric)
        ax.set_title(title, loc="left")
        if metric in logs:
            (ax.set_xscale if horizontal else ax.set_yscale)("log")
            _log_axis(ax.xaxis if horizontal else ax.yaxis)
        base = (ax.get_xlim() if horizontal else ax.get_ylim())[0] if metric in logs else 0
        for p, h in labels:
            at = h if h else base  # zero or failed: at the axis, where the bar would start
            ax.annotate(_fmt(h), (at, p) if horizontal else (p, at),
                        xytext=(3, 0) if horizontal else (0, 2), textcoords="offset points",
                        fontsize=6.5, ha="left" if horizontal else "center",
                        va="center" if horizontal else "bottom",
                        color="#d62728" if h is None else "0.15")
        (ax.xaxis if horizontal else ax.yaxis).grid(True, color="0.9")
        ax.set_axisbelow(True)
        if horizontal:
            ax.set_yticks(range(ng))
            ax.set_yticklabels([textwrap.fill(str(g), 38) for g in groups], fontsize=7.5)
            ax.invert_yaxis()
            ax.set_xlabel(title + (" (log scale)" if metric in logs else ""))
            ax.margins(x=0.18)
        else:
            ax.set_xticks(range(ng))
            ax.set_xticklabels([textwrap.fill(str(g), 14) for g in groups], fontsize=8)
            ax.set_ylabel(title + (" (log scale)" if metric in logs else ""))
            ax.margins(y=0.12)
    handles = [Patch(color=color_for(s["name"]), label=s["name"]) for s in series]
    _title(fig, plot)
    _legend(fig, handles + _reference_handles(placed))
    fig.tight_layout(rect=(0, 0, 1, _top(fig)))
    return fig


KINDS = {"timeline": timeline, "lines": lines, "heatmap": heatmap, "bars": bars}


def render(plot, figures):
    """The figure for a plot; PlotError when the plot cannot be drawn as declared."""
    kind = KINDS.get(plot.get("plot"))
    if kind is None:
        raise PlotError(f"unknown plot kind '{plot.get('plot')}' (known: {', '.join(KINDS)})")
    if not plot.get("title"):
        raise PlotError("the plot has no title")
    if not plot.get("caption"):
        raise PlotError("the plot has no caption (strata_report_caption)")
    for s in plot.get("series", []):
        if len(s["columns"]) < 2:
            raise PlotError(f"series {s['name']} needs at least two columns")
    fig = kind(plot, figures)
    if not math.isfinite(fig.get_figheight()):
        raise PlotError("the figure has no size")
    return fig
