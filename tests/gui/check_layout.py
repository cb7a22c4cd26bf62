#!/usr/bin/python3
"""check_layout.py LAYOUT.json [MIN_QUERY_LABELS]: checks what attention-lab --layout-json wrote —
every heatmap's cells square (width = height) and drawn where laid out, every text inside the
window and apart from every other, and at least MIN_QUERY_LABELS query labels. Prints the cell
size; exits 1 naming the first problem."""
import json
import sys


def overlaps(a, b):
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return w > 0.5 and h > 0.5


def main():
    layout = json.load(open(sys.argv[1]))
    want = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    window = layout["window"]
    for heatmap in layout["heatmaps"]:
        for m in heatmap["maps"]:
            if m["cell_width"] != m["cell_height"]:
                sys.exit("cells not square: %s x %s" % (m["cell_width"], m["cell_height"]))
            if any(m["drawn"][k] != m[k] for k in ("x", "y", "width", "height")):
                sys.exit("map drawn at %s, laid out at %s" % (m["drawn"], m))
        texts = heatmap["texts"]
        for i, a in enumerate(texts):
            if a["x"] < -1 or a["y"] < -1 or a["x"] + a["width"] > window["width"] + 1 or \
                    a["y"] + a["height"] > window["height"] + 1:
                sys.exit("outside the window: %r" % a["text"])
            for b in texts[i + 1:]:
                if overlaps(a, b):
                    sys.exit("%r overlaps %r" % (a["text"], b["text"]))
        labels = [t for t in texts if t["role"] == "query_label"]
        if len(labels) < want:
            sys.exit("%d query labels, expected at least %d" % (len(labels), want))
        print("%s: cells %s px, %d query labels, %d texts apart" %
              (heatmap["plot"], heatmap["maps"][0]["cell_width"], len(labels), len(texts)))


if __name__ == "__main__":
    main()
