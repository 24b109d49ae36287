#!/usr/bin/env python3
"""Resident memory over time as an SVG line chart, one line per sample file.

Each file holds "SECONDS KIB" lines, as bench/rss_sample.sh writes them.

    bench/rss_plot.py OUT.svg "TITLE" NAME=FILE [NAME=FILE ...]
"""
import sys

from svg_lines import line_chart


def read(path):
    points = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                points.append((float(parts[0]) / 60, float(parts[1]) / 1024))  # minutes, MiB
    return points


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, title = sys.argv[1], sys.argv[2]
    series = [(name, read(path), None) for name, path in (arg.split("=", 1) for arg in sys.argv[3:])]
    line_chart(out, title, series, "minutes", "resident MiB",
               legend=lambda name, pts: f"{name} (peak {max((m for _, m in pts), default=0):.0f})")


if __name__ == "__main__":
    main()
