#!/usr/bin/env python3
"""Writes example-garage/activities/*.json and example-garage/rides.yaml: a plausible year of
rides for the demo bikes, the same bytes on every run (seeded). Run from the repository root:

    python3 scripts/generate-example-activities.py
"""
import datetime as dt
import json
import os
import random
import sys

START = dt.date(2025, 11, 1)
END = dt.date(2026, 11, 15)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "example-garage")

GRAVEL_PLACES = ["Gravel loop", "Forest roads", "Canal path and back", "Dusty hills", "Coffee ride"]
ROAD_PLACES = ["Morning Ride", "Hill repeats", "Club ride", "Lunch Ride", "Evening Ride", "Long ride to the lake"]
MTB_PLACES = ["Trail centre laps", "Enduro loop", "Wet roots", "Bike park", "Local singletrack"]
ZWIFT = ["Zwift - Watopia", "Zwift - Tempus Fugit", "Zwift - Innsbruck"]


def utc_offset(day):
    # Central European time: +2 h in summer (roughly April to October), else +1 h.
    return 2 if 4 <= day.month <= 10 else 1


def activity(rng, next_id, day, hour, sport, gear, name, hours, kmh, climb_per_km, trainer=False, commute=False):
    moving = int(hours * 3600)
    elapsed = moving + rng.randint(60, 1800)
    distance = round(hours * kmh * 1000, 1)
    local = dt.datetime(day.year, day.month, day.day, hour, rng.randint(0, 59), rng.randint(0, 59))
    start = local - dt.timedelta(hours=utc_offset(day))
    tz = "(GMT+02:00) Europe/Berlin" if utc_offset(day) == 2 else "(GMT+01:00) Europe/Berlin"
    kind = "Ride" if sport in ("Ride", "GravelRide", "MountainBikeRide") else sport
    return {
        "commute": commute,
        "distance": distance,
        "elapsed_time": elapsed,
        "gear_id": gear,
        "id": next_id,
        "manual": False,
        "moving_time": moving,
        "name": name,
        "sport_type": sport,
        "start_date": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "start_date_local": local.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timezone": tz,
        "total_elevation_gain": round(distance / 1000 * climb_per_km, 1),
        "trainer": trainer,
        "type": kind,
    }


def number(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return json.dumps(v, ensure_ascii=False)


def line(a):
    return "{" + ",".join(json.dumps(k) + ":" + number(a[k]) for k in sorted(a)) + "}"


def main():
    rng = random.Random(20251101)
    next_id = 16_000_000_000
    activities = []
    rides = []
    day = START
    while day <= END:
        winter = day.month in (11, 12, 1, 2)
        weekday = day.weekday()
        # Grail: gravel twice a week and most Sundays.
        if weekday in (1, 3) and rng.random() < 0.7:
            next_id += rng.randint(1000, 90000)
            activities.append(activity(rng, next_id, day, 17, rng.choice(["GravelRide", "Ride"]), "b1000001",
                                       rng.choice(GRAVEL_PLACES), rng.uniform(1.0, 2.2), rng.uniform(19, 25), 9))
        # Tarmac: summer Saturdays outside, winter evenings on the trainer.
        if weekday == 5 and not winter and rng.random() < 0.85:
            next_id += rng.randint(1000, 90000)
            activities.append(activity(rng, next_id, day, 8, "Ride", "b1000002", rng.choice(ROAD_PLACES),
                                       rng.uniform(2.0, 4.5), rng.uniform(26, 31), 11))
        if winter and weekday in (0, 2) and rng.random() < 0.8:
            next_id += rng.randint(1000, 90000)
            activities.append(activity(rng, next_id, day, 19, "VirtualRide", "b1000002", rng.choice(ZWIFT),
                                       rng.uniform(0.75, 1.5), rng.uniform(28, 33), 8, trainer=True))
        # Stumpy: Sunday trails, more in summer.
        if weekday == 6 and rng.random() < (0.6 if winter else 0.9):
            next_id += rng.randint(1000, 90000)
            activities.append(activity(rng, next_id, day, 10, "MountainBikeRide", "b1000003", rng.choice(MTB_PLACES),
                                       rng.uniform(1.5, 3.2), rng.uniform(11, 16), 28))
        # Runs with shoes: not bike activities, and filtered out by sport type and gear.
        if weekday == 4 and rng.random() < 0.5:
            next_id += rng.randint(1000, 90000)
            activities.append(activity(rng, next_id, day, 7, "Run", "g2000001", "Morning Run",
                                       rng.uniform(0.5, 1.1), rng.uniform(10, 12), 6))
        # Charger (not on Strava): commutes entered by hand, a few a week.
        if weekday in (0, 2, 4) and rng.random() < 0.45:
            minutes = rng.randint(28, 48)
            rides.append((day, minutes, round(minutes / 60 * rng.uniform(21, 25), 1)))
        day += dt.timedelta(days=1)

    by_month = {}
    for a in activities:
        by_month.setdefault(a["start_date"][:7], []).append(a)
    folder = os.path.join(OUT, "activities")
    os.makedirs(folder, exist_ok=True)
    for month, items in sorted(by_month.items()):
        items.sort(key=lambda a: (a["start_date"], a["id"]))
        body = "[\n" + ",\n".join(line(a) for a in items) + "\n]\n"
        with open(os.path.join(folder, month + ".json"), "w", encoding="utf-8") as f:
            f.write(body)

    with open(os.path.join(OUT, "rides.yaml"), "w", encoding="utf-8") as f:
        f.write("# yaml-language-server: $schema=.schemas/rides.schema.json\n")
        f.write("# Rides on bikes that are not on Strava, entered by hand (or with 'bikecheck ride add').\n")
        f.write("rides:\n")
        for day, minutes, km in rides:
            f.write(f"  - {{date: {day.isoformat()}, bike: charger, time: {minutes} min, distance: {km} km}}\n")
    print(f"{len(activities)} activities in {len(by_month)} months, {len(rides)} hand-entered rides", file=sys.stderr)


if __name__ == "__main__":
    main()
