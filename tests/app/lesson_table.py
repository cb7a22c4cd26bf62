#!/usr/bin/python3
"""lesson_table.py CLI USER_GUIDE: the lesson table of docs/user-guide.md says each lesson's number
of steps as `attention-lab-cli lesson list` does, and the lecture pack's figure count ("and N
figures") is their sum (issue 50: the table said 3 steps where there were 4, 41 figures for 50)."""
import re
import subprocess
import sys

cli, guide = sys.argv[1:3]
listed = {}
for line in subprocess.run([cli, "lesson", "list"], capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s*\d+\s+(\S+)\s.*\((\d+) steps?\)\s*$", line)
    if m:
        listed[m.group(1)] = int(m.group(2))
text = open(guide, encoding="utf-8").read()
table = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| *\d+ \| `([a-z]+)` \| (\d+) \|", text, re.M)}
problems = []
if not listed:
    problems.append("lesson list printed no lessons")
if table != listed:
    for name in sorted(set(table) | set(listed)):
        if table.get(name) != listed.get(name):
            problems.append("%s: the user guide says %s steps, lesson list %s" % (name, table.get(name), listed.get(name)))
figures = re.search(r"lesson export all .*# lecture/index\.html and (\d+) figures", text)
if not figures or int(figures.group(1)) != sum(listed.values()):
    problems.append("the user guide's figure count %s is not the %d steps" % (figures and figures.group(1), sum(listed.values())))
if problems:
    sys.exit("\n".join(problems))
print("%d lessons, %d steps: the user guide agrees" % (len(listed), sum(listed.values())))
