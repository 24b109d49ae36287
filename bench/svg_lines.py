"""A line chart as SVG, with no plotting library: the charts in docs/ come from here.

line_chart(path, title, series, x_label, y_label): series is a list of
(name, [(x, y), ...], marker) where marker, if not None, is one (x, y) point
drawn as a dot at the end of the line (e.g. a final, separately measured score).
"""

COLOURS = ["#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#d62728"]
W, H, LEFT, TOP, RIGHT, BOTTOM = 720, 360, 70, 40, 190, 50


def nice_step(span, ticks=6):
    """A round tick spacing (1, 2 or 5 times a power of ten) giving about `ticks` ticks."""
    raw = span / ticks if span > 0 else 1
    power = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 10 ** -len(str(int(1 / raw)))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power


def ticks(lo, hi):
    step = nice_step(hi - lo)
    first = (lo // step) * step
    out, v = [], first
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            out.append(v)
        v += step
    return out


def label(v):
    return f"{v:g}"


def line_chart(path, title, series, x_label, y_label, x_range=None, y_range=None, legend=lambda name, pts: name):
    xs = [p[0] for _, pts, m in series for p in pts + ([m] if m else [])]
    ys = [p[1] for _, pts, m in series for p in pts + ([m] if m else [])]
    x_lo, x_hi = x_range or (0, max(xs, default=1) or 1)
    y_lo, y_hi = y_range or (0, max(ys, default=1) * 1.1 or 1)
    x = lambda v: LEFT + (W - LEFT - RIGHT) * (v - x_lo) / (x_hi - x_lo)
    y = lambda v: TOP + (H - TOP - BOTTOM) * (1 - (v - y_lo) / (y_hi - y_lo))
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="100%" height="100%" fill="white"/><text x="{LEFT}" y="22" font-weight="bold">{title}</text>',
           f'<clipPath id="plot"><rect x="{LEFT}" y="{TOP - 6}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM + 6}"/></clipPath>']
    for v in ticks(y_lo, y_hi):
        svg.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>'
                   f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{label(v)}</text>')
    for v in ticks(x_lo, x_hi):
        svg.append(f'<text x="{x(v):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{label(v)}</text>')
    svg.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 12}" text-anchor="middle">{x_label}</text>'
               f'<text x="16" y="{(TOP + H - BOTTOM) / 2}" transform="rotate(-90 16 {(TOP + H - BOTTOM) / 2})" '
               f'text-anchor="middle">{y_label}</text>')
    for i, (name, pts, marker) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        points = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in pts)
        svg.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" clip-path="url(#plot)" points="{points}"/>')
        if marker:
            svg.append(f'<circle cx="{x(marker[0]):.1f}" cy="{y(marker[1]):.1f}" r="4" fill="{colour}"/>')
        svg.append(f'<text x="{W - RIGHT + 10}" y="{TOP + 18 * i + 10}" fill="{colour}">{legend(name, pts)}</text>')
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")
