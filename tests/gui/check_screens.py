#!/usr/bin/python3
"""check_screens.py WINDOW_BINARY WxH[@DPR] LAYOUT [OUT_DIR]: takes the window's screenshot on a
screen of that size (Qt's offscreen platform with a screen geometry) in English and in Chinese,
in one layout, and checks each --layout-json with check_layout.py.

LAYOUT: default | projector | presentation | head | lesson | lesson-presentation | lesson-entropy | decode | lesson-kvcache |
model-smollm2 | model-minilm | translator-additive | translator-transformer. The model layouts read ATTNLAB_SMOLLM2_GGUF /
ATTNLAB_MINILM_DIR and exit 77 (skipped) without; the translators are bundled (their source: a date
written in the language of the screenshot).
The pictures stay in OUT_DIR (default: a temporary folder) to be looked at.

The matrix (issue 50): WxH may list screens ("1024x768,1280x720") and LAYOUT may be
  lessons[:NAME:STEP,…]  every step of every lesson (resources/lessons), or the steps listed: the
                         step's own view (its plot or panel) on screen and at least a third of the
                         window wide and half of it high, the lesson's text (caption and Try this)
                         without scrolling, nothing cut by the window's edge; a step on a model that
                         is not fetched is skipped with the reason
  docks                  every dock beside the heads: decode, lesson-kvcache, cost, head roles,
                         generate (the model layouts), both translators
  matrix                 lessons and docks
The whole matrix takes several minutes on two cores (CTest: gui_screen_matrix, run only with
ATTNLAB_SCREEN_MATRIX=1); CI runs a few steps of it (gui_screen_1024x768_lessons)."""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CAT = "The cat sat on the mat because it was tired."
CHINESE = "我爱自然语言处理。注意力机制很有趣"  # 17 characters, one token each in the lab
DATES = {"en": "March 3rd, 2021", "zh_CN": "2021年3月3日"}  # a translator's source per language
PROJECTOR_CHINESE = "我爱自然语言处理注意力机制很有趣"  # 16 characters: the projector layout's most tokens

# Per layout: the window's arguments, the check's options; "{text}" is the sentence of the language.
LAYOUTS = {
    "default": ([], ["--labels", "{n}"]),
    # The default window read on a projector (issue 50): up to 16 tokens, from 1280 × 720 on labels
    # of 10 pt and cells of 20 px (the grid scrolls), not presentation mode; 16 tokens in Chinese.
    "projector": ([], ["--labels", "{n}"]),
    "presentation": (["--presentation"], ["--labels", "{n}"]),
    "head": (["--head", "2"], ["--labels", "{n}"]),
    # A lesson step's own view in front and large, its text without scrolling (issue 50).
    "lesson": (["--lesson", "saturation:2"], ["--view", "saturationPlot", "--no-scroll", "lessonPanel"]),
    "lesson-presentation": (["--lesson", "saturation:2", "--presentation"],
                            ["--view", "saturationPlot", "--no-scroll", "lessonPanel"]),
    "lesson-entropy": (["--lesson", "alignment:3"], ["--view", "entropyPlot", "--no-scroll", "lessonPanel"]),
    # The KV-cache dock beside the heads (issue 50): its texts wrap or elide, the head titles
    # keep off the colour bar.
    "decode": (["--causal", "--decode-step", "5"], []),
    "lesson-kvcache": (["--lesson", "kvcache:3"], ["--no-scroll", "lessonPanel"]),
    "model-smollm2": (["--model", "$ATTNLAB_SMOLLM2_GGUF"], ["--min-thumb", "48"]),
    "model-minilm": (["--model", "$ATTNLAB_MINILM_DIR"], ["--min-thumb", "48"]),
    # Rows: the 10 output characters and </s>; columns: the source's characters (9 or 15).
    "translator-additive": (["--model", "dates-additive"], ["--labels", "9"]),
    "translator-transformer": (["--model", "dates-transformer"], ["--min-thumb", "48"]),
    # The head roles panel in the Analysis dock beside a model view badged by role (issue 50).
    "head-roles": (["--model", "$ATTNLAB_SMOLLM2_GGUF", "--head-role", "induction"],
                   ["--min-thumb", "48"]),
}
DOCKS = ["decode", "lesson-kvcache", "head-roles", "model-smollm2", "translator-additive", "translator-transformer"]
LESSON_DIR = os.path.join(HERE, "..", "..", "resources", "lessons")
# A lesson step's view (its "view" in the lesson file) → the objectName of what shows it.
VIEW_OBJECTS = {"heads": "gridPlot", "compare": "gridPlot", "decode": "gridPlot", "entropy": "entropyPlot",
                "saturation": "saturationPlot", "histogram": "histogramPlot", "cost": "costPlot",
                "head-similarity": "headSimilarityPlot", "head-roles": "headRolesPanel",
                "training": "trainingPlot", "dla": "interventionPlot", "logit-lens": "interventionPlot"}


def lesson_layouts(spec):
    """(name, window arguments, checks) of every lesson step, or of those spec lists ("cost:1,scale:4")."""
    lessons = sorted((json.load(open(f, encoding="utf-8")) for f in glob.glob(os.path.join(LESSON_DIR, "*.json"))),
                     key=lambda d: d["order"])
    wanted = set(spec.split(",")) if spec else None
    out = []
    for lesson in lessons:
        name = os.path.splitext(os.path.basename(lesson.get("name", "")))[0] or lesson["id"]
        for i, step in enumerate(lesson["steps"], 1):
            key = "%s:%d" % (name, i)
            if wanted is not None and key not in wanted:
                continue
            view = VIEW_OBJECTS[step.get("view", "heads")]
            options = step.get("options", [])
            if view == "gridPlot" and "--head" in options and options[options.index("--head") + 1] != "all":
                view = "headPlot"  # the enlarged head
            out.append(("lesson-%s-%d" % (name, i), ["--lesson", key], ["--view", view, "--no-scroll", "lessonPanel"]))
    return out


def run_layout(binary, screen, layout, args, checks, out):
    """Screenshots of one layout in English and Chinese, checked; returns "failed", "skipped" or ""."""
    size, _, dpr = screen.partition("@")
    width, height = (int(v) for v in size.split("x"))
    for i, a in enumerate(args):
        if a.startswith("$"):
            value = os.environ.get(a[1:], "")
            if not value or not os.path.exists(value):
                print("%s: skipped: %s is not set (scripts/fetch-model)" % (layout, a[1:]))
                return "skipped"
            args = args[:i] + [value] + args[i + 1:]
    # One configuration file per screen and layout: CTest runs the layouts of a screen side by side,
    # and a shared file rewritten by one run while another's window parses it reads as "illegal value".
    config = os.path.join(out, "screen-%s-%s.json" % (screen, layout))
    with open(config + ".part", "w") as f:
        json.dump({"screens": [{"name": "p", "x": 0, "y": 0, "width": width, "height": height,
                                "logicalDpi": 96, "logicalBpi": 96, "dpr": float(dpr or 1)}]}, f)
    os.replace(config + ".part", config)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen:configfile=" + config)
    failed = False
    for lang, text in (("en", CAT), ("zh_CN", CHINESE)):
        base = os.path.join(out, "%s-%s-%s" % (layout, screen, lang))
        if layout == "projector" and lang == "zh_CN":
            text = PROJECTOR_CHINESE
        # The lab's tokenizer: words and punctuation, one per character in Chinese.
        tokens = 11 if lang == "en" else len(text)
        command = [binary] + args + ["--lang", lang, "--screenshot", base + ".png", "--layout-json", base + ".json"]
        if layout.startswith("translator"):
            command += ["--source", DATES[lang]]
        elif not layout.startswith("model") and not layout.startswith("lesson") and layout != "head-roles":
            command += ["--text", text]
        if layout in ("model-smollm2", "head-roles"):
            command += ["--text", text]
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        if run.returncode != 0 and layout.startswith("lesson-") and "fetch-model" in run.stderr:
            print("%s: skipped: %s" % (layout, run.stderr.strip().splitlines()[-1]))  # a model not fetched
            return "skipped"
        if run.returncode != 0:
            print("%s %s: the window exited %d: %s" % (layout, lang, run.returncode, run.stderr.strip()[-400:]))
            failed = True
            continue
        options = [c.replace("{n}", str(tokens)) for c in checks]
        if width >= 1280 and height >= 720 and layout == "default":
            options += ["--share", "0.55"]
        if width >= 1280 and height >= 720 and layout == "projector":
            options += ["--min-cell", "20", "--min-label-pt", "10"]
        check = subprocess.run([sys.executable, os.path.join(HERE, "check_layout.py"), base + ".json"] + options,
                               capture_output=True, text=True)
        print("%s %s: %s%s" % (layout, lang, check.stdout.strip(), check.stderr.strip() and "\n  " + check.stderr.strip().replace("\n", "\n  ")))
        failed = failed or check.returncode != 0
    return "failed" if failed else ""


def main():
    binary, screens, layout = sys.argv[1:4]
    out = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(prefix="attnlab-screens-")
    os.makedirs(out, exist_ok=True)
    kind, _, spec = layout.partition(":")
    if kind in ("lessons", "docks", "matrix"):
        layouts = lesson_layouts(spec) if kind in ("lessons", "matrix") else []
        if kind in ("docks", "matrix"):
            layouts += [(name,) + LAYOUTS[name] for name in DOCKS]
    else:
        layouts = [(layout,) + LAYOUTS[layout]]
    results = {}
    for screen in screens.split(","):
        for name, args, checks in layouts:
            results[(screen, name)] = run_layout(binary, screen, name, list(args), checks, out)
    failed = sorted("%s %s" % key for key, r in results.items() if r == "failed")
    skipped = sorted("%s %s" % key for key, r in results.items() if r == "skipped")
    if len(results) > 1:
        print("%d layouts × 2 languages: %d failed, %d skipped%s" %
              (len(results), len(failed), len(skipped), "".join("\n  failed: " + f for f in failed)))
    if failed:
        sys.exit(1)
    if skipped and len(skipped) == len(results):
        sys.exit(77)


if __name__ == "__main__":
    main()
