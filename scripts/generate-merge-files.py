#!/usr/bin/env python3
"""Writes the three versions of one bike file with a long service log, for benchmarking git's merge
driver (`bikecheck git merge-driver BASE OURS THEIRS bikes/long-log.yaml`; scripts/BENCHMARKS.md).

    python3 scripts/generate-merge-files.py OUT_DIR [--entries 2000]

OUT_DIR/base.yaml holds ENTRIES log entries (one every one to four days, up to 2026-11-01, a
third with a cost, some with a note); OUT_DIR/ours.yaml adds two services after them and a to-do,
OUT_DIR/theirs.yaml adds three (one the same as ours'), removes one entry from the middle of the
log (a correction) and renames the bike: what a `git pull` meets after both sides logged services.
The merge validates and leaves no conflict. The same arguments always give the same bytes
(seeded). Python 3 standard library only.
"""
import argparse
import datetime as dt
import os
import random

END = dt.date(2026, 11, 1)
INTERVALS = ["chain-lube", "chain-check", "brake-pads", "sealant", "bar-tape"]
HEAD = """\
# yaml-language-server: $schema=../.schemas/bike.schema.json
name: {name}
bought: 1950-01-01

components:
  chain:
    name: KMC X11
    installed: 2020-01-01

intervals:
  chain-lube:
    task: Lube the chain
    component: chain
    every: 8 h
  chain-check:
    task: Check chain wear
    component: chain
    every: 500 km
  brake-pads:
    task: Check the brake pads
    every: 3 months
  sealant:
    task: Top up the sealant
    every: 4 months
  bar-tape:
    task: Replace the bar tape
    every: 1 year
{todo}
log:
"""


def entry(day, done, cost=None, note=None):
    text = f"  - date: {day.isoformat()}\n    done: [{', '.join(done)}]\n"
    if cost is not None:
        text += f"    cost: {cost}\n"
    if note is not None:
        text += f"    note: {note}\n"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--entries", type=int, default=2000)
    args = ap.parse_args()
    rng = random.Random(0x3217 + args.entries)

    days = []
    day = END - dt.timedelta(days=10)
    for _ in range(args.entries):
        days.append(day)
        day -= dt.timedelta(days=rng.randint(1, 4))
    days.reverse()
    log = []
    for d in days:
        done = rng.sample(INTERVALS, rng.randint(1, 2))
        cost = rng.randint(5, 150) if rng.random() < 0.3 else None
        note = "checked wear, all fine" if rng.random() < 0.1 else None
        log.append(entry(d, done, cost, note))

    shared = entry(END - dt.timedelta(days=5), ["chain-lube"])
    ours_new = [entry(END - dt.timedelta(days=7), ["sealant"], 12), shared]
    theirs_new = [entry(END - dt.timedelta(days=8), ["brake-pads"], 40, "front and rear"), shared,
                  entry(END, ["chain-check"])]
    removed = len(log) // 2

    base = HEAD.format(name="Long-log bike", todo="") + "".join(log)
    ours = HEAD.format(name="Long-log bike", todo="todo:\n  - true the rear wheel\n") + "".join(log + ours_new)
    theirs = HEAD.format(name="Long-log gravel bike", todo="") + "".join(log[:removed] + log[removed + 1:] + theirs_new)
    os.makedirs(args.out, exist_ok=True)
    for name, text in (("base.yaml", base), ("ours.yaml", ours), ("theirs.yaml", theirs)):
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
