#!/usr/bin/python3
"""Turn the JSON reports of `strata demo` or the benchmarks into one self-contained HTML page.

    /usr/bin/python3 scripts/report/report.py DIR [--title TITLE] [--papers CSV] [--strict]

Reads every DIR/*.json written by src/host/report.c, draws each plot it declares (plots.py, the
kinds are described in docs/report.md) as an inline PNG, places the papers' figures from
bench/paper-figures.csv on the plots they belong to, adds the tables, and writes DIR/index.html:
no network, no JavaScript. Prints the page's path. Exit status 1 when a plot could not be drawn
(the page still lists it) or, with --strict, when a paper figure found no plot to go on.
"""
import argparse
import base64
import datetime
import glob
import html
import io
import json
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import papers  # noqa: E402
import plots  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_PAPERS = os.path.join(REPO, "bench", "paper-figures.csv")

STYLE = """
body { font-family: 'DejaVu Sans', Arial, sans-serif; margin: 0 auto; max-width: 1120px;
       padding: 0 16px 40px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; margin-top: 2em; }
figure { margin: 1.6em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.95em; margin-top: 0.3em; }
figcaption .what { font-weight: bold; }
.sources { font-size: 0.85em; color: #555; margin: 0.3em 0 0 1.2em; padding: 0; }
.error { color: #b00; font-weight: bold; }
.meta { color: #666; font-size: 0.9em; }
details { margin: 0.8em 0; }
summary { cursor: pointer; color: #246; }
table { border-collapse: collapse; font-size: 0.82em; margin: 0.6em 0 1.2em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
nav li { margin: 0.1em 0; }
"""


def png_of(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plots.plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def esc(text):
    return html.escape(str(text), quote=True)


def cell(value, text):
    if isinstance(value, (int, float)):
        return f'<td class="num">{esc(text)}</td>'
    return f"<td>{esc(value)}</td>"


def table_html(item):
    head = "".join(f"<th>{esc(c)}</th>" for c in item["columns"])
    rows = []
    for row in item["rows"]:
        rows.append("<tr>" + "".join(cell(v, v if not isinstance(v, float) else f"{v:.6g}")
                                     for v in row) + "</tr>")
    return (f"<p><b>{esc(item['table'])}</b></p><table><tr>{head}</tr>" + "".join(rows)
            + "</table>")


def figure_html(anchor, plot, figures, errors):
    """One plot as a <figure>; a plot that cannot be drawn is reported in place and in errors."""
    mine = papers.for_plot(figures, plot.get("key", ""))
    plots.new_plot()
    try:
        img = png_of(plots.render(plot, mine))
    except (plots.PlotError, KeyError, IndexError, TypeError, ValueError) as e:
        errors.append(f"{plot.get('key', '?')}: {e}")
        return (f'<figure id="{anchor}"><p class="error">Plot {esc(plot.get("key", "?"))} '
                f"could not be drawn: {esc(e)}</p></figure>")
    placed = [f for f in mine if f.placed]
    sources = ""
    if placed:
        items = "".join(f"<li>{esc(f.reference)}, {esc(f.series)}, {esc(f.group)}, "
                        f"{esc(f.metric)} = {f.value:g}: {esc(f.source)}</li>" for f in placed)
        sources = (f'<details><summary>Where the {len(placed)} reference figure(s) come from'
                   f'</summary><ul class="sources">{items}</ul></details>')
    return (f'<figure id="{anchor}"><img src="data:image/png;base64,{img}" '
            f'alt="{esc(plot["title"])}"><figcaption><span class="what">What to see:</span> '
            f"{esc(plot['caption'])}{sources}</figcaption></figure>")


def load_reports(directory):
    reports = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if isinstance(data, dict) and "items" in data:
            reports.append(data)
    return reports


def page(title, reports, figures, errors):
    nav, body = [], []
    for r in reports:
        section = esc(r["name"])
        plot_items = [it for it in r["items"] if "plot" in it]
        notes = [it["note"] for it in r["items"] if "note" in it]
        tables = [it for it in r["items"] if "table" in it]
        body.append(f'<h2 id="{section}">{esc(r["title"])}</h2>')
        nav.append(f'<li><a href="#{section}">{esc(r["title"])}</a><ul>')
        for n, plot in enumerate(plot_items):
            anchor = f"{section}-{n}"
            nav.append(f'<li><a href="#{anchor}">{esc(plot.get("title", "?"))}</a></li>')
            body.append(figure_html(anchor, plot, figures, errors))
        nav.append("</ul></li>")
        if notes or tables:
            body.append(f"<details><summary>All figures of {section} as tables, with the notes "
                        f"on how they were measured</summary>")
            body.extend(f"<p>{esc(n)}</p>" for n in notes)
            body.extend(table_html(t) for t in tables)
            body.append("</details>")
    missing = [f for f in figures if not f.placed and any(
        it.get("key") == f.plot for r in reports for it in r["items"] if "plot" in it)]
    if missing:
        body.append('<h2>Reference figures not shown</h2><p class="error">These rows of '
                    "bench/paper-figures.csv name a plot of this report but match none of its "
                    "bars or points (a renamed group, series or column?):</p><ul>"
                    + "".join(f"<li>{esc(f.where())}</li>" for f in missing) + "</ul>")
    if errors:
        body.insert(0, '<p class="error">Some plots could not be drawn: '
                    + esc("; ".join(errors)) + "</p>")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"meta\">Generated {when} by "
            f"scripts/report/report.py from the JSON the C programs wrote. Times and energy are "
            f"simulated device figures (the simulator's profiles of real parts). Reference "
            f"figures from papers and other systems (markers) come from "
            f"bench/paper-figures.csv, each with its source.</p>"
            f"<nav><ul>{''.join(nav)}</ul></nav>{''.join(body)}</body></html>\n"), missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="directory holding the *.json reports; index.html goes there")
    ap.add_argument("--title", default="Strata report")
    ap.add_argument("--papers", default=DEFAULT_PAPERS, help="the papers' figures (CSV)")
    ap.add_argument("--strict", action="store_true",
                    help="fail when a paper figure names a plot of the report but fits none of "
                         "its bars or points")
    args = ap.parse_args(argv)
    reports = load_reports(args.dir)
    if not reports:
        print(f"report: no JSON reports in {args.dir}", file=sys.stderr)
        return 1
    try:
        figures = papers.load(args.papers)
    except (OSError, ValueError) as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    errors = []
    text, missing = page(args.title, reports, figures, errors)
    out = os.path.join(args.dir, "index.html")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    for e in errors:
        print(f"report: plot {e}", file=sys.stderr)
    for f in missing:
        print(f"report: paper figure not placed (no such bar or point): {f.where()}",
              file=sys.stderr)
    print(f"report: {os.path.abspath(out)}")
    return 1 if errors or (args.strict and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
