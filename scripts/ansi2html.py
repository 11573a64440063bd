#!/usr/bin/env python3
"""Render one `tmux capture-pane -e -p` screen as an HTML page of W x H cells.

Prints the page's width and height in pixels (for the browser window).

Used by scripts/screenshots.sh (then headless Chromium takes the PNG).  aha
was tried first: it drops SGR 2 (dim, which every pyrt theme uses for its
labels), renders bright colours through a CSS filter on the whole span and
knows no per-theme palette, so the screens did not look like the terminal.
This knows exactly what tmux writes: SGR 0/1/2/4/7 and their resets, the 8
basic and 8 bright colours, 256-colour and RGB colours, 39/49.

Rows have a fixed height, so box-drawing lines join from row to row; a
glyph that may come from a fallback font (the spinner's braille) sits in a
box exactly one cell wide, so it cannot shift the columns; a full block
(the progress bar) is a cell painted with its colour, without seams.  When
most cells share one background (a theme that paints its own), the page and
the cells tmux left at the default colour take it too.
"""

import argparse
import collections
import html
import math
import re

# The 16 basic colours (VS Code's dark terminal palette: readable on dark).
BASIC = [
    "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
]
DEFAULT_FG = "#cccccc"
DEFAULT_BG = "#1e1e1e"

FULL_BLOCK = "\u2588"
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESC = re.compile(r"\x1b[\[\]()][0-9;?]*[A-Za-z@`]?")


def xterm256(n):
    """The xterm 256-colour palette as #rrggbb."""
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        r, g, b = steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
        return "#%02x%02x%02x" % (r, g, b)
    v = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (v, v, v)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None  # None: the terminal's default
        self.bg = None
        self.bold = self.dim = self.under = self.rev = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.under, self.rev)

    def apply(self, params):
        ps = [int(p) if p else 0 for p in re.split("[;:]", params)] if params else [0]
        i = 0
        while i < len(ps):
            p = ps[i]
            if p == 0:
                self.reset()
            elif p == 1:
                self.bold = True
            elif p == 2:
                self.dim = True
            elif p == 4:
                self.under = True
            elif p == 7:
                self.rev = True
            elif p == 22:
                self.bold = self.dim = False
            elif p == 24:
                self.under = False
            elif p == 27:
                self.rev = False
            elif 30 <= p <= 37:
                self.fg = BASIC[p - 30]
            elif 90 <= p <= 97:
                self.fg = BASIC[p - 90 + 8]
            elif 40 <= p <= 47:
                self.bg = BASIC[p - 40]
            elif 100 <= p <= 107:
                self.bg = BASIC[p - 100 + 8]
            elif p == 39:
                self.fg = None
            elif p == 49:
                self.bg = None
            elif p in (38, 48) and i + 1 < len(ps):
                if ps[i + 1] == 5 and i + 2 < len(ps):
                    colour = xterm256(ps[i + 2])
                    i += 2
                elif ps[i + 1] == 2 and i + 4 < len(ps):
                    colour = "#%02x%02x%02x" % tuple(ps[i + 2:i + 5])
                    i += 4
                else:
                    colour = None
                if p == 38:
                    self.fg = colour
                else:
                    self.bg = colour
            i += 1


def parse(text, width, height):
    """Rows of (char, style key) cells, padded to width x height."""
    rows = []
    for line in text.split("\n")[:height]:
        style = Style()
        cells = []
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                style.apply(m.group(1))
                pos = m.end()
                continue
            m = OTHER_ESC.match(line, pos) if line[pos] == "\x1b" else None
            if m:
                pos = m.end()
                continue
            key = style.key()
            if line[pos] == FULL_BLOCK and not style.rev:
                # A cell painted with its background: a row of glyphs
                # shows hairline seams between them in the browser.
                cells.append((" ", (key[0], key[0] or DEFAULT_FG) + key[2:]))
            else:
                cells.append((line[pos], key))
            pos += 1
        rows.append(cells[:width])
    blank = Style().key()
    while len(rows) < height:
        rows.append([])
    return [r + [(" ", blank)] * (width - len(r)) for r in rows]


def mix(a, b, t):
    """a blended toward b by t (dim text)."""
    ca = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#%02x%02x%02x" % tuple(round(x + (y - x) * t) for x, y in zip(ca, cb))


def css(key, page_bg):
    fg, bg, bold, dim, under, rev = key
    fg = fg or DEFAULT_FG
    bg = bg or page_bg
    if rev:
        fg, bg = bg, fg
    if dim:
        fg = mix(fg, bg, 0.4)
    out = ["color:%s" % fg, "background:%s" % bg]
    if bold:
        out.append("font-weight:bold")
    if under:
        out.append("text-decoration:underline")
    return ";".join(out)


def cell(ch):
    """ASCII, box drawing and block elements come from DejaVu Sans Mono and
    flow as text (a run of bar blocks stays seamless); anything else may
    come from a fallback font, so it gets a box exactly one cell wide."""
    if ord(ch) < 0x80 or 0x2500 <= ord(ch) <= 0x259F:
        return html.escape(ch)
    return "<i>%s</i>" % html.escape(ch)


def render(rows, font_px, title):
    # A theme that paints its own background paints most cells with it;
    # cells tmux left at the default colour get it too.
    bgs = collections.Counter(key[1] for row in rows for _, key in row
                              if key[1] and not key[5])
    total = sum(len(row) for row in rows)
    page_bg = DEFAULT_BG
    if bgs and bgs.most_common(1)[0][1] * 4 > total:
        page_bg = bgs.most_common(1)[0][0]
    classes = {}
    body = []
    for row in rows:
        out = []
        run_key, run = None, []

        def flush():
            if run:
                cls = classes.setdefault(run_key, "s%d" % len(classes))
                out.append('<span class="%s">%s</span>' % (cls, "".join(run)))

        for ch, key in row:
            if key != run_key:
                flush()
                run_key, run = key, []
            run.append(cell(ch))
        flush()
        body.append('<div class="r">%s</div>' % "".join(out))
    rules = "\n".join(".%s{%s}" % (cls, css(key, page_bg)) for key, cls in classes.items())
    line_px = round(font_px * 1.17)
    return """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>%s</title><style>
html,body{margin:0;background:%s}
.t{display:inline-block;padding:14px 16px;font-family:"DejaVu Sans Mono",monospace;
   font-size:%dpx;line-height:%dpx;font-variant-ligatures:none}
.r{height:%dpx;white-space:pre}
.r i{display:inline-block;width:1ch;height:%dpx;font-style:normal;text-align:center;
     overflow:visible;vertical-align:top}
%s
</style></head><body><div class="t">
%s
</div></body></html>
""" % (html.escape(title), page_bg, font_px, line_px, line_px, line_px, rules,
       "\n".join(body))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture", help="capture-pane -e -p output")
    ap.add_argument("html", help="page to write")
    ap.add_argument("--width", type=int, default=100)
    ap.add_argument("--height", type=int, default=30)
    ap.add_argument("--font-px", type=int, default=15)
    ap.add_argument("--title", default="pyrt")
    args = ap.parse_args()
    with open(args.capture, encoding="utf-8", errors="replace") as f:
        rows = parse(f.read(), args.width, args.height)
    with open(args.html, "w", encoding="utf-8") as f:
        f.write(render(rows, args.font_px, args.title))
    # The page's size for the browser window: DejaVu Sans Mono's cell is
    # 0.602 em wide; the padding is 16 px a side and 14 px top and bottom.
    print(math.ceil(args.width * args.font_px * 0.6021) + 34,
          args.height * round(args.font_px * 1.17) + 28)


if __name__ == "__main__":
    main()
