#!/usr/bin/env python3
"""Writes a large, valid garage for benchmarks: N bikes with templates, components and service
logs, and M cached activities in activities/YYYY-MM.json, byte for byte in the format that
ActivityCacheFormat.encode writes. The same arguments always give the same bytes (seeded).

    python3 scripts/generate-garage.py OUT [--bikes 50] [--activities 100000] [--years 10] [--parts 200]

Activities run from --years before 2026-11-15 up to that day; use `--as-of 2026-11-15` with
`bikecheck status`. About 85 % ride a bike, 10 % wear shoes, 5 % have no gear. --parts P writes
P wheelsets in parts/ that move between the bikes every one to thirteen months, with spells on
the shelf (a separate random stream: the rest of the garage is the same bytes with or without).

--peer writes instead the garage of the cross-check against strava-gear
(Tests/EndToEndTests/StravaGearCrossCheckTests.swift), scaled up: --bikes bikes with a Strava gear
id and nothing else, --parts parts (say 6) moved between them every 20 to 220 days with spells on
the shelf, and --activities rides (3 % without gear, 2 % on shoes, a tenth on a trainer), plus the
same data as strava-gear's own workload: strava-gear/rules.yaml (its dated component rules) and
strava-gear/activities.csv (its CSV input), for `strava-gear --rules strava-gear/rules.yaml --csv
strava-gear/activities.csv -r components`.
Python 3 standard library only.
"""
import argparse
import datetime as dt
import json
import os
import random
import shutil
import sys

END = dt.date(2026, 11, 15)
SCHEMA = "# yaml-language-server: $schema=../../schemas/{}.schema.json\n"

# The example garage's templates, so the benchmark rides the same schedules a rider would.
EXAMPLE_TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "example-garage", "templates")
TEMPLATES = {}
for _name in sorted(os.listdir(EXAMPLE_TEMPLATES)):
    if _name.endswith(".yaml"):
        with open(os.path.join(EXAMPLE_TEMPLATES, _name), encoding="utf-8") as _f:
            TEMPLATES[_name[:-5]] = _f.read()

# kind: (templates, components, counted sport types, sports ridden with weights, km/h, climb m/km, names)
KINDS = {
    "road": (["road-basics"], ["chain", "tyres"], ["Ride", "VirtualRide"],
             [("Ride", 8), ("VirtualRide", 2)], (26, 32), 11,
             ["Morning Ride", "Hill repeats", "Club ride", "Lunch Ride", "Evening Ride", "Zwift - Watopia"]),
    "gravel": (["road-basics", "tubeless"], ["chain", "tyres"], ["Ride", "GravelRide"],
               [("GravelRide", 6), ("Ride", 4)], (19, 25), 9,
               ["Gravel loop", "Forest roads", "Canal path and back", "Dusty hills", "Coffee ride \u2615"]),
    "mtb": (["mtb-basics", "fox-36", "fox-float-x", "tubeless"], ["chain", "fork", "shock"], ["MountainBikeRide", "Ride"],
            [("MountainBikeRide", 9), ("Ride", 1)], (11, 16), 28,
            ["Trail centre laps", "Enduro loop", "Wet roots", "Bike park", "Local singletrack", "\"Big\" day out"]),
    "ebike": (["ebike-drive"], ["chain"], ["EBikeRide", "Ride"],
              [("EBikeRide", 9), ("Ride", 1)], (21, 25), 5,
              ["Commute", "Commute home", "Shopping", "Kids to school"]),
}
KIND_ORDER = ["road", "gravel", "mtb", "ebike"]
MAKES = {
    "road": ["Specialized Tarmac SL7", "Canyon Ultimate CF SLX", "Trek Emonda SL6", "Cannondale SuperSix EVO"],
    "gravel": ["Canyon Grail CF SL 7", "Specialized Diverge", "Cervelo Aspero", "Open U.P."],
    "mtb": ["Specialized Stumpjumper Evo", "Santa Cruz Hightower", "YT Jeffsy", "Transition Sentinel"],
    "ebike": ["Riese & Müller Charger4 GT", "Gazelle Ultimate", "Cube Kathmandu Hybrid", "Specialized Turbo Vado"],
}
PARTS = {"chain": ["Shimano CN-M8100", "KMC X11", "SRAM GX Eagle"], "tyres": ["Continental GP5000 28 mm", "Schwalbe G-One RS 40 mm"],
         "fork": ["Fox 36 Factory Grip2, 150 mm"], "shock": ["Fox Float X Factory"]}
SHOE_NAMES = ["Morning Run", "Easy run", "Intervals", "Long run", "Hike"]
NO_GEAR = [("Walk", "Walk", "Afternoon Walk"), ("WeightTraining", "WeightTraining", "Gym"), ("Swim", "Swim", "Pool swim"),
           ("Ride", "Ride", "Hire bike"), ("Yoga", "Yoga", "Yoga")]


def q(s):
    """A JSON string exactly as ActivityCacheFormat.appendJSONString writes it (UTF-8, not \\u-escaped)."""
    return json.dumps(s, ensure_ascii=False)


def num(v):
    """ActivityCacheFormat.formatNumber: integers without a fraction, else the shortest round-trip form."""
    if v == int(v):
        return str(int(v))
    return repr(v)


def month_starts(start, end):
    months = []
    y, m = start.year, start.month
    while (y, m) <= (end.year, end.month):
        months.append((y, m))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return months


def days_in(y, m):
    nxt = dt.date(y + 1, 1, 1) if m == 12 else dt.date(y, m + 1, 1)
    return (nxt - dt.date(y, m, 1)).days


def bike_yaml(rng, bike_id, kind, gear, bought, start):
    templates, components, counts, _, _, _, _ = KINDS[kind]
    intervals = sorted({i for t in templates for i in interval_ids(t)})
    out = [SCHEMA.format("bike")]
    out.append(f"name: {rng.choice(MAKES[kind])} ({bike_id.split('-')[-1].lstrip('0')})\n")
    out.append(f"strava: {gear}\n")
    out.append(f"bought: {bought.isoformat()}\n")
    out.append(f"templates: [{', '.join(templates)}]\n")
    out.append(f"counts: [{', '.join(counts)}]\n\ncomponents:\n")
    for c in components:
        installed = start + dt.timedelta(days=rng.randint(0, (END - start).days))
        out.append(f"  {c}:\n    name: {rng.choice(PARTS[c])}\n    installed: {installed.isoformat()}\n")
        if c == "fork" and rng.random() < 0.3:
            out.append("    hours: 40\n")
    if "chain-lube" in intervals and rng.random() < 0.5:
        out.append("\nintervals:\n  chain-lube:\n    every: 8 h\n")
    # A service log over the whole span: a few entries a month, like a keen home mechanic.
    out.append("\nlog:\n")
    day = start
    while day <= END:
        day += dt.timedelta(days=rng.randint(5, 25))
        if day > END:
            break
        done = rng.sample(intervals, rng.randint(1, min(3, len(intervals))))
        out.append(f"  - date: {day.isoformat()}\n    done: [{', '.join(done)}]\n")
        if rng.random() < 0.3:
            out.append(f"    cost: {rng.randint(5, 150)}\n")
        if rng.random() < 0.2:
            out.append("    note: checked wear, all fine\n")
    return "".join(out)


def interval_ids(template):
    ids = []
    for line in TEMPLATES[template].splitlines():
        if line.startswith("  ") and not line.startswith("   ") and line.endswith(":"):
            ids.append(line.strip()[:-1])
    return ids


def activity_pools(rng, bikes):
    """Precomputed JSON fragments per gear: the parts of a line that do not change per activity."""
    pools = []
    for bike_id, kind, gear in bikes:
        _, _, _, sports, speed, climb, names = KINDS[kind]
        choices = [(s, w) for s, w in sports]
        # Strava's older `type` folds the bike sports into Ride, as in the example garage.
        types = [q("Ride" if s in ("Ride", "GravelRide", "MountainBikeRide") else s) for s, _ in choices]
        pools.append((q(gear), [(q(s), t) for (s, _), t in zip(choices, types)],
                      [w for _, w in choices], [q(n) for n in names], speed, climb, kind == "ebike"))
    return pools


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", help="folder to write (replaced if it exists)")
    p.add_argument("--bikes", type=int, default=50)
    p.add_argument("--activities", type=int, default=100_000)
    p.add_argument("--years", type=int, default=10, help="years of history before 2026-11-15 (default 10)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--parts", type=int, default=200, help="wheelsets that move between bikes (default 200)")
    p.add_argument("--peer", action="store_true", help="the strava-gear cross-check's garage, with strava-gear's input beside it")
    args = p.parse_args()
    if args.bikes < 1 or args.activities < 0 or args.years < 1 or args.parts < 0:
        p.error("--bikes and --years must be at least 1, --activities and --parts at least 0")
    if args.peer:
        return write_peer(args)

    rng = random.Random(args.seed)
    start = dt.date(END.year - args.years, END.month, END.day)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(os.path.join(args.out, "bikes"))
    os.makedirs(os.path.join(args.out, "templates"))
    os.makedirs(os.path.join(args.out, "activities"))

    with open(os.path.join(args.out, "garage.yaml"), "w", encoding="utf-8") as f:
        f.write(SCHEMA.format("garage").replace("../../", "../"))
        f.write(f"name: Benchmark garage ({args.bikes} bikes, {args.activities} activities)\n")
        f.write("units: metric\ncurrency: EUR\ndue_soon: 80%\n")
        f.write("counts: [Ride, GravelRide, MountainBikeRide, EBikeRide, EMountainBikeRide]\n")
    for name, body in TEMPLATES.items():
        with open(os.path.join(args.out, "templates", name + ".yaml"), "w", encoding="utf-8") as f:
            f.write(body)  # the example files already name their schema on the first line

    bikes = []
    for n in range(args.bikes):
        kind = KIND_ORDER[n % len(KIND_ORDER)]
        bike_id = f"{kind}-{n + 1:03d}"
        gear = f"b{10_000_000 + n}"
        bought = start - dt.timedelta(days=rng.randint(0, 400))
        bikes.append((bike_id, kind, gear))
        with open(os.path.join(args.out, "bikes", bike_id + ".yaml"), "w", encoding="utf-8") as f:
            f.write(bike_yaml(rng, bike_id, kind, gear, bought, start))

    ridden = write_activities(rng, args, bikes, start)

    # Hand-entered rides (commutes the rider does not record) on days Strava has no ride of
    # that bike: a hand ride on such a day would be the same ride twice (ride-also-on-strava).
    with open(os.path.join(args.out, "rides.yaml"), "w", encoding="utf-8") as f:
        f.write(SCHEMA.format("rides").replace("../../", "../") + "rides:\n")
        ebikes = [(b, g) for b, k, g in bikes if k == "ebike"] or [(bikes[0][0], bikes[0][2])]
        written = 0
        while written < 200:
            day = start + dt.timedelta(days=rng.randint(0, (END - start).days))
            bike, gear = rng.choice(ebikes)
            minutes = rng.randint(20, 60)
            if (q(gear), day.isoformat()) in ridden:
                continue
            f.write(f"  - {{date: {day.isoformat()}, bike: {bike}, time: {minutes} min, "
                    f"distance: {round(minutes / 60 * rng.uniform(18, 24), 1)} km}}\n")
            written += 1

    write_parts(random.Random(args.seed * 7919 + 1), args, bikes, start)


def write_parts(rng, args, bikes, start):
    """Wheelsets that move between bikes: one to thirteen months on a bike, then another bike the
    next day, or a spell on the shelf first; the last mount is open or ends on the shelf."""
    if args.parts == 0:
        return
    os.makedirs(os.path.join(args.out, "parts"))
    for n in range(args.parts):
        bought = start + dt.timedelta(days=rng.randint(0, 400))
        out = [SCHEMA.format("part"), f"name: Wheelset {n + 1}\n", f"bought: {bought.isoformat()}\n"]
        if rng.random() < 0.2:
            out.append(f"distance: {rng.randint(100, 3000)} km\n")
        out.append("templates: [wheelset]\n\nmounts:\n")
        day, bike, serviced = bought, rng.choice(bikes)[0], []
        while day <= END:
            end = day + dt.timedelta(days=rng.randint(30, 400))
            if end >= END:
                out.append(f"  - {{bike: {bike}, from: {day.isoformat()}}}\n")
                break
            out.append(f"  - {{bike: {bike}, from: {day.isoformat()}, to: {end.isoformat()}}}\n")
            serviced.append(end)
            day = end + dt.timedelta(days=1 if rng.random() < 0.8 else rng.randint(5, 90))
            bike = rng.choice([b for b, _, _ in bikes if b != bike] or [bike])
        # Serviced between bikes now and then.
        log = [d for d in serviced if rng.random() < 0.4]
        if log:
            out.append("\nlog:\n" + "".join(f"  - {{date: {d.isoformat()}, done: [hub-service, true-wheels]}}\n" for d in log))
        with open(os.path.join(args.out, "parts", f"wheelset-{n + 1:03d}.yaml"), "w", encoding="utf-8") as f:
            f.write("".join(out))


def write_activities(rng, args, bikes, start):
    months = month_starts(start, END)
    # More riding in summer: a weight per calendar month, then each month's share of M.
    season = [0.6, 0.6, 0.8, 1.0, 1.2, 1.3, 1.4, 1.3, 1.1, 0.9, 0.7, 0.6]
    weights = []
    for y, m in months:
        span = days_in(y, m)
        if (y, m) == (start.year, start.month):
            span -= start.day - 1
        if (y, m) == (END.year, END.month):
            span = END.day
        weights.append(season[m - 1] * span)
    total = sum(weights)
    counts = [int(args.activities * w / total) for w in weights]
    for k in range(args.activities - sum(counts)):
        counts[k % len(counts)] += 1

    pools = activity_pools(rng, bikes)
    shoe_gear = [q("g2000001"), q("g2000002")]
    rand, randint, choices, uniform = rng.random, rng.randint, rng.choices, rng.uniform
    next_id = 10_000_000_000
    written = 0
    ridden = set()
    for (y, m), count in zip(months, counts):
        first = start.day if (y, m) == (start.year, start.month) else 1
        last = END.day if (y, m) == (END.year, END.month) else days_in(y, m)
        offset = 2 if 4 <= m <= 10 else 1
        tz = q(f"(GMT+0{offset}:00) Europe/Berlin")
        # Starts between 05:00 and 20:59 UTC, so the local day (UTC+1 or +2) is the same day.
        starts = sorted((randint(first, last) * 86400 + randint(5 * 3600, 21 * 3600 - 1)) for _ in range(count))
        lines = []
        for t in starts:
            next_id += randint(1, 5000)
            d, s = divmod(t, 86400)
            h, s = divmod(s, 3600)
            mi, s = divmod(s, 60)
            date = f"{y:04d}-{m:02d}-{d:02d}"
            start_date = f'"{date}T{h:02d}:{mi:02d}:{s:02d}Z"'
            local = f'"{date}T{h + offset:02d}:{mi:02d}:{s:02d}Z"'
            r = rand()
            if r < 0.85:
                gear, sports, sport_w, names, speed, climb, commute = pools[int(rand() * len(pools))]
                sport, kind = choices(sports, sport_w)[0] if len(sports) > 1 else sports[0]
                hours = uniform(0.5, 4.0)
                dist = round(hours * uniform(*speed) * 1000, 1)
                name = names[int(rand() * len(names))]
                virtual = sport == '"VirtualRide"'
                trainer_s = '"trainer":true' if virtual else '"trainer":false'
                commute_s = "true" if commute and rand() < 0.6 else "false"
                elevation = round(dist / 1000 * climb, 1)
            elif r < 0.95:
                gear, sport, kind = shoe_gear[int(rand() * 2)], '"Run"', '"Run"'
                hours = uniform(0.4, 1.5)
                dist = round(hours * uniform(9, 13) * 1000, 1)
                name = q(SHOE_NAMES[int(rand() * len(SHOE_NAMES))])
                trainer_s, commute_s, elevation = '"trainer":false', "false", round(dist / 1000 * 6, 1)
            else:
                gear = "null"
                s_, k_, n_ = NO_GEAR[int(rand() * len(NO_GEAR))]
                sport, kind, name = q(s_), q(k_), q(n_)
                hours = uniform(0.3, 1.5)
                dist = round(hours * uniform(2, 15) * 1000, 1) if s_ != "WeightTraining" and s_ != "Yoga" else 0.0
                trainer_s, commute_s, elevation = '"trainer":false', "false", 0.0
            ridden.add((gear, date))
            moving = int(hours * 3600)
            elapsed = moving + randint(0, 1800)
            lines.append(
                f'{{"commute":{commute_s},"distance":{num(dist)},"elapsed_time":{elapsed},"gear_id":{gear},'
                f'"id":{next_id},"manual":false,"moving_time":{moving},"name":{name},"sport_type":{sport},'
                f'"start_date":{start_date},"start_date_local":{local},"timezone":{tz},'
                f'"total_elevation_gain":{num(elevation)},{trainer_s},"type":{kind}}}')
        if not lines:
            continue
        with open(os.path.join(args.out, "activities", f"{y:04d}-{m:02d}.json"), "w", encoding="utf-8") as f:
            f.write("[\n" + ",\n".join(lines) + "\n]\n")
        written += len(lines)
    print(f"{args.out}: {len(bikes)} bikes, {written} activities in {sum(1 for c in counts if c)} months", file=sys.stderr)
    return ridden


def write_peer(args):
    """The strava-gear cross-check's garage at scale: bikes with only a gear id, parts moving
    between them, rides of one sport type, and strava-gear's rules and CSV for the same data."""
    rng = random.Random(args.seed)
    start = dt.date(END.year - args.years, END.month, END.day)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    for folder in ["bikes", "parts", "activities", "strava-gear"]:
        os.makedirs(os.path.join(args.out, folder))
    with open(os.path.join(args.out, "garage.yaml"), "w", encoding="utf-8") as f:
        f.write("units: metric\ncounts: [Ride]\ntrainer: true\n")
    bikes = [f"bike-{n + 1}" for n in range(args.bikes)]
    gear = {b: f"b{1001 + n}" for n, b in enumerate(bikes)}
    bought = start - dt.timedelta(days=31)
    for b in bikes:
        with open(os.path.join(args.out, "bikes", b + ".yaml"), "w", encoding="utf-8") as f:
            f.write(f"name: Bike {b}\nstrava: {gear[b]}\nbought: {bought.isoformat()}\n")

    # Rides: spread evenly over the days, starting 06:00 to 17:59 UTC (local time = UTC).
    days = (END - start).days + 1
    starts = sorted(rng.randrange(days) * 86400 + 6 * 3600 + rng.randrange(12 * 3600) for _ in range(args.activities))
    by_month = {}
    csv = ["name,gear_id,start_date,moving_time,distance,total_elevation_gain\n"]
    for n, t in enumerate(starts):
        day = start + dt.timedelta(days=t // 86400)
        s = t % 86400
        stamp = f"{day.isoformat()}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}Z"
        roll = rng.randrange(100)
        g = None if roll < 3 else "g7" if roll < 5 else gear[bikes[rng.randrange(len(bikes))]]
        moving = 1800 + rng.randrange(12_600)
        distance = moving * (50 + rng.randrange(50)) / 10
        trainer = rng.randrange(10) == 0
        rid = n + 1
        by_month.setdefault(day.strftime("%Y-%m"), []).append(
            f'{{"commute":false,"distance":{num(distance)},"elapsed_time":{moving},"gear_id":{q(g) if g else "null"},'
            f'"id":{rid},"manual":false,"moving_time":{moving},"name":"ride {rid}","sport_type":"Ride",'
            f'"start_date":"{stamp}","start_date_local":"{stamp}","total_elevation_gain":0,'
            f'"trainer":{"true" if trainer else "false"}}}')
        csv.append(f"ride {rid},{g or ''},{stamp},{moving},{num(distance)},0\n")
    for month, lines in by_month.items():
        with open(os.path.join(args.out, "activities", month + ".json"), "w", encoding="utf-8") as f:
            f.write("[\n" + ",\n".join(lines) + "\n]\n")
    with open(os.path.join(args.out, "strava-gear", "activities.csv"), "w", encoding="utf-8") as f:
        f.write("".join(csv))

    # Parts moved between the bikes, with strava-gear's rule for each day something changes.
    first, last = start.toordinal(), END.toordinal()
    changes = {}
    components = []
    for p in range(1, args.parts + 1):
        part = f"p{p}"
        prior = (100 * p, 5 * p) if p % 2 == 0 else (0, 0)
        components.append(f"  {part}: {{kms: {prior[0]}, hours: {prior[1]}}}\n")
        mounts = []
        day = first + rng.randrange(60)
        bike = bikes[rng.randrange(len(bikes))]
        while day <= last:
            end = day + 20 + rng.randrange(200) - 1
            changes.setdefault(day, {}).setdefault(gear[bike], {})[part] = part
            if end >= last + 10:
                mounts.append(f"  - {{bike: {bike}, from: {dt.date.fromordinal(day)}}}")
                break
            mounts.append(f"  - {{bike: {bike}, from: {dt.date.fromordinal(day)}, to: {dt.date.fromordinal(end)}}}")
            following = end + 1
            if rng.randrange(10) < 3:  # a spell on the shelf
                changes.setdefault(following, {}).setdefault(gear[bike], {})[part] = None
                following += 5 + rng.randrange(60)
            if len(bikes) > 1:
                bike = rng.choice([b for b in bikes if b != bike])
            day = following
        text = f"name: Part {p}\n"
        if prior[0]:
            text += f"distance: {prior[0]} km\nhours: {prior[1]}\n"
        text += "intervals:\n  check: {task: Check, every: 1000 km}\nmounts:\n" + "\n".join(mounts) + "\n"
        with open(os.path.join(args.out, "parts", part + ".yaml"), "w", encoding="utf-8") as f:
            f.write(text)
    rules = ["components:\n", *components, "rules:\n"]
    for day in sorted(changes):
        rules.append(f"  - since: {dt.date.fromordinal(day)}\n")
        for g in sorted(changes[day]):
            roles = ", ".join(f"{k}: {v if v else 'null'}" for k, v in sorted(changes[day][g].items()))
            rules.append(f"    {g}: {{{roles}}}\n")
    with open(os.path.join(args.out, "strava-gear", "rules.yaml"), "w", encoding="utf-8") as f:
        f.write("".join(rules))
    print(f"{args.out}: {len(bikes)} bikes, {args.parts} parts, {args.activities} rides in {len(by_month)} months (peer)", file=sys.stderr)


if __name__ == "__main__":
    main()
