#!/usr/bin/python3
"""check_layout.py LAYOUT.json [options]: checks what attention-lab --layout-json wrote.

Always: every heatmap's cells square and drawn where laid out; every text on screen inside the
window and apart from every other; the colour bar's texts, where their rows are on screen, not
scrolled sideways out of the plot's visible part (a picture wider than its panel scrolls); a
map with cells under 12 px only when its title calls it an overview ("overview" / "概览"); every
control's text uncut (not clipped sideways by the panel it sits in, and as wide as its one-line
text needs).

Options:
  --labels N        at least N query labels (and N key labels) on the first map
  --share F         the heads area takes at least F (0..1) of the window
  --min-thumb PX    a model view's thumbnails at least PX px (or as wide as the panel allows)
  --view NAME       the plot or panel NAME (its objectName in "views") on screen: at least a third
                    of the window's width and half its height shown (a lesson step's own view)
  --no-scroll NAME  the panel NAME (a lesson's text) shows all of its text without scrolling
  --min-cell PX     every map's cells at least PX px (a projector's readable default)
  --min-label-pt PT every token label (query and key) at least PT points

Prints one line per heatmap (cell size, labels, share); exits 1 naming the first problem."""
import argparse
import json
import sys

READABLE_CELL_PX = 12
OVERVIEW_WORDS = ("overview", "概览")


def overlaps(a, b):
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return w > 0.5 and h > 0.5


def inside(a, r, slack=1):
    return (a["x"] >= r["x"] - slack and a["y"] >= r["y"] - slack and
            a["x"] + a["width"] <= r["x"] + r["width"] + slack and
            a["y"] + a["height"] <= r["y"] + r["height"] + slack)


def check_heatmap(heatmap, window, args, problems):
    maps = heatmap["maps"]
    if not maps:
        problems.append("%s: no maps" % heatmap["plot"])
        return
    for m in maps:
        if m["cell_width"] != m["cell_height"]:
            problems.append("cells not square: %s x %s" % (m["cell_width"], m["cell_height"]))
        if any(m["drawn"][k] != m[k] for k in ("x", "y", "width", "height")):
            problems.append("map drawn at %s, laid out at %s" % (m["drawn"], m))
    screen = heatmap.get("on_screen", {"x": 0, "y": 0, **window})
    # Texts on screen (a model view scrolls: the texts below its panel are further down the page,
    # those of a picture wider than its panel further right).
    texts = [t for t in heatmap["texts"] if t["y"] < screen["y"] + screen["height"] and
             t["y"] + t["height"] > screen["y"] and t["x"] < screen["x"] + screen["width"] and
             t["x"] + t["width"] > screen["x"]]
    # The colour bar is read beside the maps: where the panel shows its height (not scrolled down
    # past it, as to a head role's top head), never sideways out of the panel.
    for t in heatmap["texts"]:
        shown_rows = t["y"] < screen["y"] + screen["height"] and t["y"] + t["height"] > screen["y"]
        if t["role"] in ("bar_tick", "bar_title") and shown_rows and (
                t["x"] < screen["x"] - 1 or t["x"] + t["width"] > screen["x"] + screen["width"] + 1):
            problems.append("colour bar out of view: %r" % t["text"])
    for i, a in enumerate(texts):
        if a["x"] < -1 or a["x"] + a["width"] > window["width"] + 1:
            problems.append("outside the window: %r" % a["text"])
        for b in texts[i + 1:]:
            if overlaps(a, b):
                problems.append("%r overlaps %r" % (a["text"], b["text"]))
    title = " ".join(t["text"] for t in heatmap["texts"] if t["role"] == "title")
    model_view = any(t["role"] == "row_header" for t in heatmap["texts"])  # layer titles
    cell = min(m["cell_width"] for m in maps)
    if not model_view and cell < READABLE_CELL_PX and not any(w in title for w in OVERVIEW_WORDS):
        problems.append("%s: %.1f-px cells but the title %r does not call it an overview" %
                        (heatmap["plot"], cell, title))
    if model_view and args.min_thumb:
        thumb = min(m["width"] for m in maps)
        # Smaller thumbnails only where the width is the limit: the grid then spans most of the
        # panel (the layers scroll downward), and never under 32 px.
        spread = max(m["x"] + m["width"] for m in maps) - min(m["x"] for m in maps)
        width_bound = spread >= 0.55 * screen["width"]
        if thumb < 32 or (thumb < args.min_thumb - 1 and not width_bound):
            problems.append("model view thumbnails of %d px (want %d)" % (thumb, args.min_thumb))
        if maps[0]["n_q"] <= 32 and maps[0]["block"] != 1:
            problems.append("model view pooled %d tokens into blocks of %d" % (maps[0]["n_q"], maps[0]["block"]))
    if args.min_cell and cell < args.min_cell:
        problems.append("%s: %.1f-px cells (want %g)" % (heatmap["plot"], cell, args.min_cell))
    points = [t["font_points"] for t in heatmap["texts"] if t["role"] in ("query_label", "key_label")]
    if args.min_label_pt and (not points or min(points) < args.min_label_pt):
        problems.append("%s: token labels of %s pt (want %g)" %
                        (heatmap["plot"], min(points) if points else "no", args.min_label_pt))
    q = [t for t in heatmap["texts"] if t["role"] == "query_label" and t.get("map", 0) == 0]
    k = [t for t in heatmap["texts"] if t["role"] == "key_label" and t.get("map", 0) == 0]
    if not model_view and args.labels and (len(q) < args.labels or len(k) < args.labels):
        problems.append("%s: %d query and %d key labels, expected %d" % (heatmap["plot"], len(q), len(k), args.labels))
    return cell, len(q), len(k)


def check_widgets(layout, problems):
    for w in layout.get("widgets", []):
        r, v = w["rect"], w["visible"]
        if v["height"] <= 0 or v["width"] <= 0:
            continue  # scrolled out of view, or behind another tab
        if v["x"] > r["x"] + 1 or v["x"] + v["width"] < r["x"] + r["width"] - 1:
            problems.append("%s %r cut sideways by its panel (%d of %d px shown)" %
                            (w["class"], w["text"], v["width"], r["width"]))
        elif not w["wraps"] and w["needed_width"] > r["width"] + 1:
            problems.append("%s %r needs %d px, has %d" % (w["class"], w["text"], w["needed_width"], r["width"]))
        elif w["wraps"] and w.get("needed_height", 0) > r["height"] + 1:
            problems.append("%s %r needs %d px of height, has %d" % (w["class"], w["text"], w["needed_height"], r["height"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("layout")
    parser.add_argument("legacy_labels", nargs="?", type=int, default=0)
    parser.add_argument("--labels", type=int, default=0)
    parser.add_argument("--share", type=float, default=0)
    parser.add_argument("--min-thumb", type=float, default=0)
    parser.add_argument("--view", action="append", default=[])
    parser.add_argument("--no-scroll", action="append", default=[])
    parser.add_argument("--min-cell", type=float, default=0)
    parser.add_argument("--min-label-pt", type=float, default=0)
    args = parser.parse_args()
    args.labels = max(args.labels, args.legacy_labels)
    layout = json.load(open(args.layout))
    window = layout["window"]
    problems = []
    if not layout["heatmaps"]:
        problems.append("no heatmap on screen")
    lines = []
    for heatmap in layout["heatmaps"]:
        got = check_heatmap(heatmap, window, args, problems)
        if got:
            lines.append("%s: cells %.4g px, %d query / %d key labels" % ((heatmap["plot"],) + got))
    heads = layout.get("heads_view")
    share = heads["width"] * heads["height"] / float(window["width"] * window["height"]) if heads else 0
    if args.share and share < args.share:
        problems.append("the heads take %.0f%% of the window (want %.0f%%)" % (100 * share, 100 * args.share))
    check_widgets(layout, problems)
    views = {v["name"]: v for v in layout.get("views", [])}
    for name in args.view:
        v = views.get(name)
        if not v:
            problems.append("%s is not on screen" % name)
        elif v["visible"]["width"] < window["width"] / 3.0 - 1 or v["visible"]["height"] < window["height"] / 2.0:
            problems.append("%s shows %dx%d px of a %dx%d window (want a third of its width, half its height)" %
                            (name, v["visible"]["width"], v["visible"]["height"], window["width"], window["height"]))
        else:
            lines.append("%s %dx%d" % (name, v["visible"]["width"], v["visible"]["height"]))
    for name in args.no_scroll:
        v = views.get(name)
        if not v or v.get("scrolls", True):
            problems.append("%s: its text scrolls (or it is not on screen)" % name)
    print("%dx%d %s: %s; heads %.0f%% of the window" %
          (window["width"], window["height"], layout.get("language", ""), "; ".join(lines), 100 * share))
    if problems:
        sys.exit("\n".join(problems[:10]))


if __name__ == "__main__":
    main()
