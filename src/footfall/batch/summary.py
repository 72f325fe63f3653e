"""The batch's summary: ``summary.csv`` and ``summary.json`` (with mean ± std per metric)
streamed as rows arrive, and ``summary.png`` (histograms over the library, before vs after) at
the end.

Both tables are rewritten whole, atomically, at most once a second while the batch runs and
once at the end (rows then sorted by input), so they are always complete files that trail the
work by a second at most. Columns are the base ones, then every metric in the order the rows
first name them: the summary knows no metric names.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from pathlib import Path
from typing import Any

from footfall.batch.atomic import write_atomic
from footfall.batch.jobs import BASE_COLUMNS

#: Least seconds between two rewrites of the tables while a batch runs (and at least ten times
#: what the last rewrite took, so a huge library's tables never take more than a tenth of the
#: client's time).
REWRITE_INTERVAL_S = 1.0
_WARNING_SEPARATOR = " | "


def _cell(value: Any) -> Any:
    if isinstance(value, list):
        return _WARNING_SEPARATOR.join(str(v) for v in value)
    return "" if value is None else value


class Summary:
    """Collects the rows of one batch and keeps the summary files up to date."""

    def __init__(self, folder: Path, header: dict[str, Any]) -> None:
        self.folder = folder
        self.header = header
        self.rows: list[dict[str, Any]] = []
        self.columns: list[str] = list(BASE_COLUMNS)
        self._written = 0.0
        self._interval = REWRITE_INTERVAL_S

    def add(self, row: dict[str, Any]) -> None:
        """Add one finished file's row; the tables are rewritten if a second has passed."""
        self.rows.append(row)
        self.columns += [key for key in row if key not in self.columns]
        if time.monotonic() - self._written >= self._interval:
            self.write_tables()

    @property
    def failed(self) -> int:
        """How many rows are errors."""
        return sum(row.get("status") == "error" for row in self.rows)

    def write_tables(self) -> None:
        """Rewrite ``summary.csv`` and ``summary.json`` from the rows so far."""
        start = time.monotonic()
        text = io.StringIO()
        writer = csv.DictWriter(text, self.columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in self.rows:
            writer.writerow({key: _cell(row.get(key)) for key in self.columns})
        write_atomic(self.folder / "summary.csv", text.getvalue())
        document = {**self.header, "files": len(self.rows), "failed": self.failed,
                    "stats": metric_stats(self.rows, self.columns), "rows": self.rows}
        write_atomic(self.folder / "summary.json", json.dumps(document, indent=1) + "\n")
        self._written = time.monotonic()
        self._interval = max(REWRITE_INTERVAL_S, 10 * (self._written - start))

    def finish(self) -> None:
        """Sort the rows by input, write the tables and ``summary.png``."""
        self.rows.sort(key=lambda row: str(row.get("input")))
        self.write_tables()
        write_atomic(self.folder / "summary.png", histogram_png(self.rows, self.columns))


def metric_stats(rows: list[dict[str, Any]], columns: list[str]) -> dict[str, dict[str, float]]:
    """``{column: {"mean", "std", "n"}}`` over the successful rows, for every numeric column
    that is no base column (a paper's table: mean ± standard deviation per metric; std is the
    population's, ``ddof=0``)."""
    good = [row for row in rows if row.get("status") == "ok"]
    stats: dict[str, dict[str, float]] = {}
    for column in columns:
        if column in BASE_COLUMNS:
            continue
        values = [float(row[column]) for row in good
                  if isinstance(row.get(column), (int, float)) and not isinstance(row[column], bool)
                  and math.isfinite(row[column])]
        if values:
            mean = sum(values) / len(values)
            spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
            stats[column] = {"mean": mean, "std": spread, "n": len(values)}
    return stats


def stats_table(stats: dict[str, dict[str, float]]) -> str:
    """:func:`metric_stats` as text: one line per metric, ``mean ± std (n)``."""
    width = max((len(name) for name in stats), default=6)
    lines = [f"{'metric':<{width}}  {'mean':>12} ± {'std':<12} n"]
    for name, value in stats.items():
        lines.append(f"{name:<{width}}  {value['mean']:>12.5g} ± {value['std']:<12.5g} "
                     f"{int(value['n'])}")
    return "\n".join(lines)


def _metric_pairs(columns: list[str]) -> list[tuple[str, str | None, str | None]]:
    """(metric, before column, after column) for each metric the rows carry."""
    pairs: dict[str, list[str | None]] = {}
    for column in columns:
        if column in BASE_COLUMNS and column not in ("frames", "seconds", "cpu_seconds"):
            continue
        stage, _, metric = column.partition(".")
        if stage in ("before", "after") and metric:
            pairs.setdefault(metric, [None, None])[stage == "after"] = column
        elif "." not in column:
            pairs.setdefault(column, [None, None])[1] = column
    return [(metric, cols[0], cols[1]) for metric, cols in pairs.items()]


def histogram_png(rows: list[dict[str, Any]], columns: list[str]) -> bytes:
    """PNG bytes: one histogram per metric over the successful rows, before and after."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    good = [row for row in rows if row.get("status") == "ok"]

    def values(column: str | None) -> np.ndarray:
        if column is None:
            return np.zeros(0)
        found = [row.get(column) for row in good]
        return np.array([v for v in found if isinstance(v, (int, float))], dtype=float)

    panels = [(m, values(b), values(a)) for m, b, a in _metric_pairs(columns)]
    panels = [p for p in panels if p[1].size or p[2].size]
    count = max(1, len(panels))
    width = min(4, count)
    height = -(-count // width)
    figure, axes = plt.subplots(height, width, figsize=(3.6 * width, 2.8 * height),
                                squeeze=False)
    for axis in axes.flat[max(1, len(panels)):]:
        axis.set_visible(False)
    if not panels:
        axes.flat[0].text(0.5, 0.5, "no successful file", ha="center", va="center")
        axes.flat[0].set_axis_off()
    for axis, (metric, before, after) in zip(axes.flat, panels, strict=False):
        both = np.concatenate([before, after])
        both = both[np.isfinite(both)]
        low, high = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
        bins = np.linspace(low, high if high > low else low + 1e-9, 21)
        for data, label, colour in ((before, "before", "tab:red"),
                                    (after, "after" if before.size else None, "tab:blue")):
            if data.size:  # stairs: one artist per histogram, much faster than bars
                counts, _ = np.histogram(data[np.isfinite(data)], bins=bins)
                axis.stairs(counts, bins, fill=True, alpha=0.55, label=label, color=colour)
        axis.set_title(metric, fontsize=9)
        axis.tick_params(labelsize=7)
        axis.locator_params(axis="x", nbins=4)  # ticks are most of the drawing time
        axis.locator_params(axis="y", nbins=3, integer=True)
        if before.size:
            axis.legend(fontsize=7)
    figure.suptitle(f"{len(good)} of {len(rows)} files succeeded", fontsize=10)
    figure.subplots_adjust(left=0.05, right=0.98, bottom=0.06, top=0.92, wspace=0.3, hspace=0.55)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return buffer.getvalue()
