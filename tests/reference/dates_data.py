#!/usr/bin/env python3
"""The date-normalisation task of the trained translators (issue 23): pure Python, no torch.

A date between 1950-01-01 and 2049-12-31 is written one of FORMATS ways, in English or Chinese,
and the model must write it as ISO 8601 ("2021-03-03"). Every example records the source
character spans [begin, end) of its year, month and day, so the alignment of a trained model can
be checked (the output's year characters 0-3 should read the year span, 5-6 the month span,
8-9 the day span).

Conventions (stated so the task has one answer):
- Numeric forms are day first: "03/03/2021" is DD/MM/YYYY, "3.3.2021" is D.M.YYYY; the only
  year-first numeric form is "2021/3/3" (YYYY/M/D), the Chinese order.
- A two-digit year ("Wednesday, 3 Mar 21") means 1950-2049: 50-99 -> 19xx, 00-49 -> 20xx.
- The weekday, when written, is the true weekday of the date (it is redundant).
- A span covers the field as written, with its English ordinal suffix ("3rd") or its Chinese unit
  character ("2021年", "三月", "三日"); it never covers spaces or punctuation.

Held-out test set: TEST_COUNT examples whose DATES never occur in training (the training stream
draws only from the other dates), made with GENERATOR_SEED. It is committed as
tests/data/translators/dates-test.json (with the trained models' greedy outputs);
`dates_data.py --check FILE` regenerates it and compares sources, targets, formats and spans
(CTest dates_generator_deterministic).
"""

import argparse
import datetime
import json
import random
import sys
from pathlib import Path

GENERATOR_SEED = 20260301
TEST_COUNT = 1000
FIRST_DATE = datetime.date(1950, 1, 1)
LAST_DATE = datetime.date(2049, 12, 31)

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_DIGITS = "〇一二三四五六七八九"
ZH_WEEKDAYS = ["一", "二", "三", "四", "五", "六", "日"]  # 星期一 (Monday) … 星期日 (Sunday)


def ordinal(day):
    """3 -> "3rd", 11 -> "11th", 22 -> "22nd"."""
    if 10 <= day % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def zh_number(value):
    """1..31 in Chinese numerals: 3 -> 三, 10 -> 十, 12 -> 十二, 20 -> 二十, 31 -> 三十一."""
    tens, units = divmod(value, 10)
    text = ""
    if tens:
        text = ("" if tens == 1 else ZH_DIGITS[tens]) + "十"
    if units:
        text += ZH_DIGITS[units]
    return text


def zh_year(year):
    """2021 -> 二〇二一 (digit by digit)."""
    return "".join(ZH_DIGITS[int(c)] for c in str(year))


class _Builder:
    """Concatenates pieces and remembers the span of the named ones."""

    def __init__(self):
        self.text = ""
        self.spans = {}

    def add(self, piece, field=None):
        if field is not None:
            self.spans[field] = [len(self.text), len(self.text) + len(piece)]
        self.text += piece
        return self


def _en_dmy(d, b):  # 3 March 2021
    b.add(str(d.day), "day").add(" ").add(MONTHS[d.month - 1], "month").add(" ")
    b.add(str(d.year), "year")


def _en_mdy_ordinal(d, b):  # March 3rd, 2021
    b.add(MONTHS[d.month - 1], "month").add(" ").add(ordinal(d.day), "day").add(", ")
    b.add(str(d.year), "year")


def _en_mdy_abbr(d, b):  # Mar 3, 2021
    b.add(MONTHS[d.month - 1][:3], "month").add(" ").add(str(d.day), "day").add(", ")
    b.add(str(d.year), "year")


def _en_weekday_dmy_yy(d, b):  # Wednesday, 3 Mar 21
    b.add(WEEKDAYS[d.weekday()]).add(", ").add(str(d.day), "day").add(" ")
    b.add(MONTHS[d.month - 1][:3], "month").add(" ").add(f"{d.year % 100:02d}", "year")


def _en_ordinal_of(d, b):  # 3rd of March 2021
    b.add(ordinal(d.day), "day").add(" of ").add(MONTHS[d.month - 1], "month").add(" ")
    b.add(str(d.year), "year")


def _num_dmy_slash(d, b):  # 03/03/2021 (DD/MM/YYYY)
    b.add(f"{d.day:02d}", "day").add("/").add(f"{d.month:02d}", "month").add("/")
    b.add(str(d.year), "year")


def _num_dmy_dot(d, b):  # 3.3.2021 (D.M.YYYY)
    b.add(str(d.day), "day").add(".").add(str(d.month), "month").add(".")
    b.add(str(d.year), "year")


def _num_ymd_slash(d, b):  # 2021/3/3 (YYYY/M/D)
    b.add(str(d.year), "year").add("/").add(str(d.month), "month").add("/")
    b.add(str(d.day), "day")


def _zh_arabic(d, b):  # 2021年3月3日
    b.add(f"{d.year}年", "year").add(f"{d.month}月", "month").add(f"{d.day}日", "day")


def _zh_numerals(d, b):  # 二〇二一年三月三日
    b.add(zh_year(d.year) + "年", "year").add(zh_number(d.month) + "月", "month")
    b.add(zh_number(d.day) + "日", "day")


def _zh_weekday(d, b):  # 星期三，2021年3月3日
    b.add("星期" + ZH_WEEKDAYS[d.weekday()] + "，")
    _zh_arabic(d, b)


# name -> writer; the order is part of the generator (formats are drawn by index).
FORMATS = {
    "en_dmy": _en_dmy,
    "en_mdy_ordinal": _en_mdy_ordinal,
    "en_mdy_abbr": _en_mdy_abbr,
    "en_weekday_dmy_yy": _en_weekday_dmy_yy,
    "en_ordinal_of": _en_ordinal_of,
    "num_dmy_slash": _num_dmy_slash,
    "num_dmy_dot": _num_dmy_dot,
    "num_ymd_slash": _num_ymd_slash,
    "zh_arabic": _zh_arabic,
    "zh_numerals": _zh_numerals,
    "zh_weekday": _zh_weekday,
}
FORMAT_NAMES = list(FORMATS)
MODEL_NAMES = ["dates-additive", "dates-transformer", "dates-transformer-unscaled"]


def write(date, fmt):
    """One example: {"source", "target", "format", "spans"} for `date` written as `fmt`."""
    b = _Builder()
    FORMATS[fmt](date, b)
    return {"source": b.text, "target": date.isoformat(), "format": fmt, "spans": b.spans}


def all_dates():
    """Every date of the range, in order (36 525 dates)."""
    days = (LAST_DATE - FIRST_DATE).days + 1
    return [FIRST_DATE + datetime.timedelta(days=i) for i in range(days)]


def split(seed=GENERATOR_SEED, count=TEST_COUNT):
    """(test examples, training dates): `count` held-out dates, each written in a random format
    (every format about equally often), and the remaining dates for training."""
    rng = random.Random(seed)
    dates = all_dates()
    test_dates = rng.sample(dates, count)
    held_out = set(test_dates)
    test = [write(d, FORMAT_NAMES[rng.randrange(len(FORMAT_NAMES))]) for d in test_dates]
    return test, [d for d in dates if d not in held_out]


def training_stream(train_dates, seed):
    """An endless deterministic stream of training examples: a random training date in a random
    format (uniform over both)."""
    rng = random.Random(seed)
    while True:
        date = train_dates[rng.randrange(len(train_dates))]
        yield write(date, FORMAT_NAMES[rng.randrange(len(FORMAT_NAMES))])


def source_alphabet():
    """Every character any format can write, sorted (the source vocabulary after the specials)."""
    chars = set()
    probe = [datetime.date(2000, 1, 1) + datetime.timedelta(days=i) for i in range(400)]
    probe += [datetime.date(y, 1, 1) for y in range(1950, 2050)]
    for d in probe:
        for fmt in FORMAT_NAMES:
            chars.update(write(d, fmt)["source"])
    return sorted(chars)


TARGET_ALPHABET = sorted("0123456789-")


def max_source_length():
    """The longest source any date of the range has in any format (all dates, all formats)."""
    return max(len(write(d, fmt)["source"]) for d in all_dates() for fmt in FORMAT_NAMES)


def check(path, models_dir=None):
    """Regenerates the test set and compares it with the committed file (and, with models_dir,
    each model's recorded accuracy with its outputs there); returns 0 when equal."""
    with open(path, encoding="utf-8") as f:
        committed = json.load(f)
    test, _ = split(committed["generator_seed"], committed["count"])
    if committed["generator_seed"] != GENERATOR_SEED or committed["count"] != TEST_COUNT:
        print(f"dates_data: {path} has seed {committed['generator_seed']} and count "
              f"{committed['count']}, the generator {GENERATOR_SEED} and {TEST_COUNT}")
        return 1
    if len(committed["examples"]) != len(test):
        print(f"dates_data: {path} has {len(committed['examples'])} examples, expected {len(test)}")
        return 1
    for i, (mine, theirs) in enumerate(zip(test, committed["examples"])):
        for key in ("source", "target", "format", "spans"):
            if mine[key] != theirs[key]:
                print(f"dates_data: example {i} differs in {key}: generated {mine[key]!r}, "
                      f"committed {theirs[key]!r}")
                return 1
    # Deterministic: a second run gives the same examples and training stream.
    again, train_dates = split(committed["generator_seed"], committed["count"])
    stream_a, stream_b = training_stream(train_dates, 7), training_stream(train_dates, 7)
    first = [next(stream_a) for _ in range(200)]
    if again != test or first != [next(stream_b) for _ in range(200)]:
        print("dates_data: two runs of the generator differ")
        return 1
    held_out = {e["target"] for e in test}
    if any(e["target"] in held_out for e in first):
        print("dates_data: a training example uses a held-out date")
        return 1
    for e in test:
        for field, (b, e_) in e["spans"].items():
            if not 0 <= b < e_ <= len(e["source"]):
                print(f"dates_data: span {field} {b, e_} outside {e['source']!r}")
                return 1
    if models_dir:
        for name in MODEL_NAMES:
            config = json.loads((Path(models_dir) / name / "config.json").read_text("utf-8"))
            outputs = [e["outputs"][name] for e in committed["examples"]]
            acc = sum(o == e["target"] for o, e in zip(outputs, test)) / len(test)
            if round(acc, 4) != config["test_accuracy"]:
                print(f"dates_data: {name}'s outputs in {path} score {acc:.4f}, its config.json "
                      f"says {config['test_accuracy']}")
                return 1
            print(f"dates_data: {name}: {acc:.4f} exact match, as its config.json says")
    print(f"dates_data: {len(test)} examples equal the committed {path}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="FILE", help="compare with a committed test set")
    parser.add_argument("--models", metavar="DIR", help="with --check: resources/models")
    parser.add_argument("--show", type=int, metavar="N", help="print N test examples")
    args = parser.parse_args()
    if args.check:
        return check(args.check, args.models)
    test, train_dates = split()
    for e in test[: args.show or 12]:
        print(json.dumps(e, ensure_ascii=False))
    print(f"{len(test)} test examples, {len(train_dates)} training dates, "
          f"source alphabet {len(source_alphabet())} characters, "
          f"max source length {max_source_length()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
