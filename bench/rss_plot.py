#!/usr/bin/env python3
"""Resident memory over time as an SVG line chart, one line per sample file.

Each file holds "SECONDS KIB" lines, as bench/rss_sample.sh writes them.

    bench/rss_plot.py OUT.svg "TITLE" NAME=FILE [NAME=FILE ...]
"""
import sys

COLOURS = ["#3182bd", "#e6550d", "#31a354", "#756bb1"]
W, H, LEFT, TOP, RIGHT, BOTTOM = 720, 360, 70, 40, 150, 50


def read(path):
    points = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                points.append((float(parts[0]), float(parts[1]) / 1024))  # seconds, MiB
    return points


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, title, series = sys.argv[1], sys.argv[2], []
    for arg in sys.argv[3:]:
        name, path = arg.split("=", 1)
        series.append((name, read(path)))
    t_max = max((p[0] for _, pts in series for p in pts), default=1) or 1
    m_max = max((p[1] for _, pts in series for p in pts), default=1) * 1.1 or 1
    step = 500 if m_max > 2000 else 250 if m_max > 800 else 100
    x = lambda t: LEFT + (W - LEFT - RIGHT) * t / t_max
    y = lambda m: TOP + (H - TOP - BOTTOM) * (1 - m / m_max)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="100%" height="100%" fill="white"/><text x="{LEFT}" y="22" font-weight="bold">{title}</text>']
    for m in range(0, int(m_max) + 1, step):
        svg.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(m):.1f}" y2="{y(m):.1f}" stroke="#eee"/>'
                   f'<text x="{LEFT - 6}" y="{y(m) + 4:.1f}" text-anchor="end">{m}</text>')
    minutes = max(1, int(t_max // 60))
    for k in range(0, minutes + 1, max(1, minutes // 10)):
        svg.append(f'<text x="{x(60 * k):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{k}</text>')
    svg.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 12}" text-anchor="middle">minutes</text>'
               f'<text x="16" y="{(TOP + H - BOTTOM) / 2}" transform="rotate(-90 16 {(TOP + H - BOTTOM) / 2})" '
               f'text-anchor="middle">resident MiB</text>')
    for i, (name, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{x(t):.1f},{y(m):.1f}" for t, m in pts)
        svg.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{path}"/>')
        peak = max((m for _, m in pts), default=0)
        svg.append(f'<text x="{W - RIGHT + 10}" y="{TOP + 18 * i + 10}" fill="{colour}">{name} (peak {peak:.0f})</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
