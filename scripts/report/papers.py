"""The papers' figures the plots compare with: bench/paper-figures.csv, one row per figure.

Columns: plot (the plot's key), group (a bar group, or the x value on a lines plot), series (the
plotted series the figure compares with), metric (the plotted column, with its unit, exactly as
the benchmark names it), value, reference (the short name shown in the legend: which paper or
system), source (where exactly the figure comes from, and how it was derived when the paper
gives it indirectly). Lines starting with '#' are comments.
"""
import csv

COLUMNS = ["plot", "group", "series", "metric", "value", "reference", "source"]


class PaperFigure:
    def __init__(self, row, line):
        self.plot = row["plot"]
        self.group = row["group"]
        self.series = row["series"]
        self.metric = row["metric"]
        self.value = float(row["value"])
        self.reference = row["reference"]
        self.source = row["source"]
        self.line = line
        self.placed = False

    def where(self):
        return f"{self.plot} / {self.group} / {self.series} / {self.metric}"


def load(path):
    """The figures of the file, or raises ValueError naming the line that is wrong."""
    figures = []
    with open(path, newline="", encoding="utf-8") as f:
        lines = [l for l in f if not l.startswith("#")]
    reader = csv.DictReader(lines)
    if reader.fieldnames != COLUMNS:
        raise ValueError(f"{path}: the header must be {','.join(COLUMNS)}")
    for n, row in enumerate(reader, start=1):
        if None in row or any(row[c] is None for c in COLUMNS):
            raise ValueError(f"{path}: data row {n} does not have {len(COLUMNS)} fields")
        if not row["source"].strip():
            raise ValueError(f"{path}: data row {n} has no source note")
        if not row["reference"].strip():
            raise ValueError(f"{path}: data row {n} has no reference (the legend's name)")
        try:
            figures.append(PaperFigure(row, n))
        except ValueError:
            raise ValueError(f"{path}: data row {n}: value '{row['value']}' is not a number")
    return figures


def for_plot(figures, key):
    return [f for f in figures if f.plot == key]
