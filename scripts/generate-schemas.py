#!/usr/bin/env python3
"""Writes schemas/*.schema.json, the JSON Schemas editors use to check garage files as riders type.

The shared pieces (quantities, dates, identifiers) are defined once here and copied into each
schema, so every schema file stands alone for editors that cannot follow references between files.
Edit this script, not the JSON, then run: python3 scripts/generate-schemas.py
(`--check` only compares, and exits 1 when a schema file differs; the tests run it).
The source of truth is the decoders in Sources/BikeCheckKit/Loading/FileDecoders.swift.
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def ci(word):
    """A regex for a word in any letter case (bikecheck lower-cases units before looking them up)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


def alternation(words):
    return "(?:" + "|".join(ci(w) for w in sorted(words, key=lambda w: (-len(w), w))) + ")"


TIME_UNITS = ["h", "hour", "hours", "min", "mins", "minute", "minutes"]
DISTANCE_UNITS = ["km", "mi", "mile", "miles"]
CALENDAR_UNITS = ["day", "days", "week", "weeks", "month", "months", "year", "years"]
RIDE_UNITS = ["ride", "rides"]
ALL_UNITS = TIME_UNITS + DISTANCE_UNITS + CALENDAR_UNITS + RIDE_UNITS

SP = "[ \\t]*"
# Quantity.parse: an optional sign, digits with at most one point, then the unit; more than zero.
NUMBER = "\\+?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)"
POSITIVE = "(?=[^A-Za-z]*[1-9])"


def quantity_pattern(units):
    return f"^{SP}{POSITIVE}{NUMBER}{SP}{alternation(units)}{SP}$"


QUANTITY_HELP = "Write a number and a unit: `10 h`, `90 min`, `1500 km`, `900 mi`, `30 days`, `2 weeks`, `6 months`, `1 year`, `25 rides`."

# Quantity.parseDuration: `1:30`, `1:30:00`, `1h30`, `90 min`, `1 h 30 min`, `1.5 h`.
UNSIGNED = "(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)"
DURATION = (
    "^(?=.*[1-9])(?:"
    f"{SP}[0-9]+:0*[0-5]?[0-9](?::0*[0-5]?[0-9])?{SP}"
    f"|{SP}{NUMBER}{SP}[hH]0*[0-5]?[0-9]{SP}"
    f"|{SP}(?: *{UNSIGNED} *{alternation(TIME_UNITS)} *)+{SP}"
    ")$"
)

# isIdentifier: a letter or digit, then letters, digits, '-', '_' and '.'.
IDENTIFIER = "^[\\p{L}\\p{M}\\p{Nl}0-9][\\p{L}\\p{M}\\p{Nl}0-9._-]*$"

CYCLING = ["Ride", "GravelRide", "MountainBikeRide", "EBikeRide", "EMountainBikeRide", "VirtualRide", "Velomobile", "Handcycle"]
SPORT_TYPES = ["AlpineSki", "BackcountrySki", "Badminton", "Basketball", "Canoeing", "Cricket", "Crossfit", "Dance",
    "EBikeRide", "Elliptical", "EMountainBikeRide", "Golf", "GravelRide", "Handcycle", "HighIntensityIntervalTraining", "Hike",
    "IceSkate", "InlineSkate", "Kayaking", "Kitesurf", "MountainBikeRide", "NordicSki", "Padel", "PhysicalTherapy", "Pickleball",
    "Pilates", "Racquetball", "Ride", "RockClimbing", "RollerSki", "Rowing", "Run", "Sail", "Skateboard", "Snowboard", "Snowshoe",
    "Soccer", "Squash", "StairStepper", "StandUpPaddling", "Surfing", "Swim", "TableTennis", "Tennis", "TrailRun", "Velomobile",
    "VirtualRide", "VirtualRow", "VirtualRun", "Volleyball", "Walk", "WeightTraining", "Wheelchair", "Windsurf", "Workout", "Yoga"]


def plain(md):
    return re.sub(r"`([^`]*)`", r"\1", md)


SERIAL = {"type": "integer", "minimum": 1, "maximum": 4294967295}
# `devices:` of a bike or a part: one serial number or a list of them.
SERIALS = {"anyOf": [SERIAL, {"type": "array", "items": SERIAL}, {"type": "null"}]}


def p(schema, md, **extra):
    """A property: its schema, with a plain description and a markdown one for hovers."""
    out = {"description": plain(md), "markdownDescription": md}
    out.update(schema)
    out.update(extra)
    return out


# Bikecheck reads any scalar as text, so `name: 2024` is fine; null is not.
TEXT = {"type": ["string", "number", "boolean"]}

# Money.parse: a plain decimal number with at most 4 decimals, optionally a currency code.
MONEY = {"anyOf": [{"type": "number", "minimum": 0, "maximum": 1000000000},
                   {"type": "string", "pattern": "^\\+?[0-9]+(?:\\.[0-9]+)?(?: +[A-Z]{3})?$"}]}

DEFS = {
    "text": p(TEXT, "Text. Any plain or quoted value; quote it if it starts with a special character such as `:` `#` `[` `{` `&` `*` `!` `|` `>` `'` `\"` `%` `@`."),
    "date": p({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "format": "date"},
              "A calendar date written `YYYY-MM-DD`, e.g. `2025-03-01`. It must be a real day (no `2025-02-30`).",
              examples=["2025-03-01"], patternErrorMessage="Write a date as YYYY-MM-DD, e.g. 2025-03-01."),
    "identifier": p({"type": "string", "pattern": IDENTIFIER},
                    "An id: starts with a letter or digit, then letters, digits, `-`, `_` and `.`, e.g. `chain-lube`.",
                    patternErrorMessage="Use letters, digits, '-', '_' and '.', e.g. chain-lube."),
    "quantity": p({"type": "string", "pattern": quantity_pattern(ALL_UNITS)},
                  "An amount with a unit, more than zero. " + QUANTITY_HELP +
                  "\n\nUnits: time `h` `hour(s)` `min` `mins` `minute(s)`; distance `km` `mi` `mile(s)`; calendar `day(s)` `week(s)` `month(s)` `year(s)`; count `ride(s)`.",
                  examples=["10 h", "90 min", "1500 km", "900 mi", "30 days", "2 weeks", "6 months", "1 year", "25 rides"],
                  patternErrorMessage="Write a number and a unit: 10 h, 90 min, 1500 km, 900 mi, 30 days, 2 weeks, 6 months, 1 year, 25 rides."),
    "distance": p({"type": "string", "pattern": quantity_pattern(DISTANCE_UNITS)},
                  "A distance, more than zero: `2500 km`, `1500 mi` (units `km`, `mi`, `mile`, `miles`).",
                  examples=["2500 km", "1500 mi"], patternErrorMessage="Write a distance, e.g. 2500 km or 1500 mi."),
    "fraction": p({"oneOf": [
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        {"type": "string", "pattern": f"^{SP}0*(?:[1-9][0-9]?(?:\\.[0-9]*)?|\\.0*[1-9][0-9]*){SP}%{SP}$|^{SP}0*\\.0*[1-9][0-9]*{SP}$"},
    ]}, "A threshold between 0 % and 100 % (both excluded): a percentage such as `80%` or a fraction such as `0.8`.",
        examples=["80%", 0.8]),
    "wearAmount": p({"type": "string", "pattern": f"^{SP}[0-9]+(?:\\.[0-9]+)?{SP}(%|mm){SP}$"},
                    "A measurement of wear: a number and `%` (a chain checker's stretch) or `mm` (a pad's thickness), e.g. `0.5 %`, `1.8 mm`.",
                    examples=["0.5 %", "0.75 %", "1.8 mm", "1 mm"], patternErrorMessage="Write a number and % or mm, e.g. 0.5 % or 1.8 mm."),
    "sportType": p({"anyOf": [{"enum": SPORT_TYPES}, {"type": "string"}]},
                   "A Strava sport type. Cycling types: " + ", ".join(f"`{t}`" for t in CYCLING) +
                   ". Other Strava types are accepted; an unknown one is a warning in `bikecheck validate`.",
                   examples=CYCLING),
}


def sport_types_list(md):
    return p({"anyOf": [{"$ref": "#/definitions/sportType"},
                        {"type": "array", "items": {"$ref": "#/definitions/sportType"}}]},
             md, examples=[["Ride", "GravelRide"]])


def every():
    return p({"anyOf": [{"$ref": "#/definitions/quantity"},
                        {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/quantity"}}]},
             "How often: one limit, or a list meaning *whichever comes first*. " + QUANTITY_HELP,
             examples=["10 h", "3000 km", ["100 h", "12 months"]])


TRAINER = {"anyOf": [{"type": "boolean"}, {"const": "only"}]}
TRAINER_HELP = "`true`: rides on a trainer (Strava's `trainer: true`) count too; `false`: outdoor rides only (a `VirtualRide` still counts where `counts` lists it); `only`: rides on a trainer only (a trainer tyre)."


def ride_filter(what, default):
    return {
        "counts": sport_types_list(f"Strava sport types that wear {what} (default: {default}). One type or a list."),
        "trainer": p(TRAINER, f"Which rides count for {what}, indoors or out (default: {default}). " + TRAINER_HELP),
    }


INTERVAL = p({
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "task": p({"$ref": "#/definitions/text"}, "What to do, as shown in reports, e.g. `Clean and lube the chain`. Defaults to the interval id."),
        "component": p({"$ref": "#/definitions/identifier"}, "The component this task is about (a key under the bike's `components:`). Its install date anchors the count until the task is first done."),
        "replaces": p({"$ref": "#/definitions/identifier"}, "The component this task replaces: doing it starts that component's life again (its install date moves to the log entry's date)."),
        "every": every(),
        "repeat": p({"enum": ["from-done", "fixed", "catch-up"]},
                    "How the next due point follows a service (org-mode's names). `from-done` (the default): one interval after the service. "
                    "`fixed`: one interval after the previous due point, however early or late the service was (a late job can stay overdue). "
                    "`catch-up`: the previous due point moved on by whole intervals until it is past the service (the annual service that stays in March). "
                    "The due points run from the install, the purchase or the last replacement, for every limit, calendar and odometer alike."),
        "wear_limit": p({"$ref": "#/definitions/wearAmount"},
                        "The measurement at which the job is due, e.g. `0.75 %` for a chain's stretch (a maximum), `1 mm` for a pad (a minimum): "
                        "log entries' `readings:` of this interval are measured against it, and `status` forecasts the day it is reached from them."),
        "due_soon": p({"$ref": "#/definitions/fraction"}, "When this interval counts as *due soon*, overriding `due_soon` in `garage.yaml`: `80%` or `0.8`."),
        **ride_filter("this interval", "its component's or part's, else the bike's, else the garage's"),
        "notes": p({"$ref": "#/definitions/text"}, "Free notes; bikecheck does not read them."),
    },
}, "A service interval: what to do and how often. A bike's interval with the same id as a template's overrides the keys it gives. Every interval needs `every` once templates and bike are merged.",
    defaultSnippets=[{"label": "interval", "description": "A task and how often",
                      "body": {"task": "${1:Clean and lube the chain}", "every": "${2:10 h}"}}])

INTERVALS = p({
    "type": "object",
    "propertyNames": {"pattern": IDENTIFIER},
    "additionalProperties": {"$ref": "#/definitions/interval"},
}, "Service intervals by id (letters, digits, `-`, `_`, `.`), e.g. `chain-lube:`.")


def schema(name, title, md, body, defs):
    out = {"$schema": "http://json-schema.org/draft-07/schema#", "title": title,
           "description": plain(md), "markdownDescription": md}
    out.update(body)
    if defs:
        out["definitions"] = {k: v for k, v in {**DEFS, "interval": INTERVAL}.items() if k in defs}
    return out


WEB_URL = {"type": "string", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/@#]+(/[^\\s#]*)?$"}
EMAIL = {"type": "string", "pattern": "^[^\\s@<>,;]+@[^\\s@<>,;]+\\.[^\\s@<>,;]+$"}

NOTIFY = p({
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "ntfy": p({
            "type": "object", "additionalProperties": False, "required": ["topic"],
            "properties": {
                "url": p(WEB_URL, "The ntfy server, default `https://ntfy.sh`. An access token goes in `BIKECHECK_NTFY_TOKEN`, never here.", examples=["https://ntfy.sh"]),
                "topic": p({"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}, "The topic to post to.", examples=["my-bikes"]),
            },
        }, "An ntfy topic: a plain-text POST to `url/topic` with Title, Priority and Tags headers."),
        "webhook": p({
            "type": "object", "additionalProperties": False, "required": ["url"],
            "properties": {
                "url": p(WEB_URL, "Where the JSON is posted. A bearer token goes in `BIKECHECK_WEBHOOK_TOKEN`, never here."),
            },
        }, "A generic webhook: a JSON POST (schemas/notify-webhook.schema.json)."),
        "email": p({
            "type": "object", "additionalProperties": False, "required": ["to", "from", "smtp"],
            "properties": {
                "to": p({"oneOf": [EMAIL, {"type": "array", "minItems": 1, "items": EMAIL}]}, "One address or a list."),
                "from": p(EMAIL, "The sender's address."),
                "smtp": p({"type": "string", "pattern": "^[A-Za-z0-9.-]+(:[0-9]{1,5})?$"}, "The mail server, `host:port` (default port 587). STARTTLS is required, except on port 465 where TLS starts at once. The login comes from `BIKECHECK_SMTP_USER` and `BIKECHECK_SMTP_PASSWORD`, never from here.", examples=["mail.example.org:587"]),
            },
        }, "Email over SMTP."),
        "repeat": p({"type": "string", "pattern": "^(never|[0-9]+ ?(d|w|days?|weeks?))$"}, "After how long a reminder still unresolved is sent again: days or weeks, or `never`. Default `7 days`.", examples=["7 days", "2w", "never"]),
        "bands": p({"type": "array", "items": {"type": "string", "pattern": "^(overdue|due-soon|(within:)?[0-9]+ ?(d|w|days?|weeks?))$"}},
                   "What is sent: `overdue`, `due-soon` (by progress) and forecast windows, days or weeks before the forecast due day. Default `[overdue, due-soon, 30d, 7d, 1d, 0d]`. The windows also set `status`'s bands."),
    },
}, "Reminders sent by `bikecheck notify` (see the README's Reminders section). Secrets never go here: they come from the environment.")

GARAGE = schema("garage.schema.json", "bikecheck garage.yaml",
    "Settings for the whole garage (`garage.yaml`). Every key is optional.", {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "name": p({"$ref": "#/definitions/text"}, "The garage's name, for reports.", examples=["Sam's garage"]),
        "units": p({"enum": ["metric", "imperial"]}, "Units you read in: `metric` (km, metres of climb) or `imperial` (miles, feet of climb), in text, CSV, Markdown, HTML and calendars, limits written in the other unit included. JSON stays in metres and seconds. Default `metric`."),
        "currency": p({"type": "string", "pattern": "^[A-Z]{3}$"}, "The currency of costs written without a code of their own, three capital letters: `EUR`, `USD`, `GBP` (`bikecheck init` writes the locale's, or `--currency`).", examples=["EUR", "USD", "GBP"]),
        "due_soon": p({"$ref": "#/definitions/fraction"}, "An interval is *due soon* past this share of its limit: `80%` or `0.8`. Default `80%`."),
        "counts": sport_types_list("Strava sport types that wear a bike, for bikes that do not say otherwise. One type or a list."),
        "trainer": p(TRAINER, "Which rides wear a bike, indoors or out, for bikes that do not say otherwise. Default `false`: an indoor ride does not wear tyres, brakes or suspension. " + TRAINER_HELP),
        "stale_after": p({"type": "string", "pattern": "^\\s*([0-9]+[dw]|[0-9]+\\s*(day|days|week|weeks))\\s*$"}, "`status` warns when the last Strava sync is older than this: `14 days`, `2 weeks`, `14d`, `2w`. Default `14 days`.", examples=["14 days"]),
        "quiet_after": p({"type": "string", "pattern": "^\\s*([0-9]+[dw]|[0-9]+\\s*(day|days|week|weeks))\\s*$"}, "`status` warns when a bike on Strava has had no ride for this long while another has: `60 days`, `8w`. Default `60 days`.", examples=["60 days"]),
        "strava": p({
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "client_id": p({"type": ["string", "integer"]}, "Your Strava API application's client id (a number, from strava.com/settings/api). The secret and tokens never go in the garage."),
            },
        }, "Strava settings."),
        "notify": NOTIFY,
        "riders": p({
            "type": ["object", "null"],
            "propertyNames": {"pattern": IDENTIFIER},
            "additionalProperties": p({
                "type": ["object", "null"],
                "additionalProperties": False,
                "properties": {
                    "notify": p(NOTIFY, "Where this rider's reminders go: only their own bikes and parts (`rider:` NAME), as `notify:` says it."),
                    "notes": p({"$ref": "#/definitions/text"}, "Free notes; bikecheck does not read them."),
                },
            }, "One rider: their settings (empty for none of their own)."),
        }, "A household on one garage: each rider's name and settings. Bikes and parts name theirs with `rider:`; each rider logs in with `bikecheck login --rider NAME` and gets reminders of their own bikes (docs/household.md).",
            examples=[{"alex": {"notify": {"ntfy": {"topic": "alex-bikes"}}}, "sam": None}]),
    },
}, ["text", "fraction", "sportType"])

SNOOZE = p({
    "type": ["object", "null"],
    "propertyNames": {"pattern": IDENTIFIER},
    "additionalProperties": p({"$ref": "#/definitions/date"}, "The day the interval counts again, `YYYY-MM-DD`."),
}, "Intervals put off, by id: `snooze: {chain-lube: 2026-12-01}`. Before that day `status` shows the interval as snoozed, never overdue or due soon; from that day on it counts again. `bikecheck snooze` writes here, `bikecheck done` removes the interval's line.",
    examples=[{"chain-lube": "2026-12-01"}])

TODO = p({
    "type": ["array", "null"],
    "items": p({"anyOf": [
        {"type": "string", "minLength": 1, "pattern": "\\S"},
        {"type": "object", "additionalProperties": False, "required": ["task"], "properties": {
            "task": p({"type": "string", "minLength": 1, "pattern": "\\S"}, "What needs doing, e.g. `replace rear derailleur hanger`."),
            "due": p({"$ref": "#/definitions/date"}, "When it should be done by, `YYYY-MM-DD`; after that day it is overdue."),
            "id": p({"$ref": "#/definitions/identifier"}, "A short name for `bikecheck done BIKE --todo ID`; without one, the text is its name."),
            "note": p({"$ref": "#/definitions/text"}, "Free notes; bikecheck does not read them."),
        }},
    ]}, "One job: a line of text, or `{task, due, id}`.",
        defaultSnippets=[{"label": "to-do", "description": "A one-off job with a due day",
                          "body": {"task": "${1:replace rear derailleur hanger}", "due": "${2:2026-12-01}"}}]),
}, "One-off jobs, besides the intervals: `- replace rear derailleur hanger`, or `- {task: …, due: 2026-12-01, id: hanger}`. `status` shows them; `bikecheck todo add` appends here, `bikecheck done BIKE --todo TEXT-OR-ID` removes one and logs it.")

BIKE = schema("bike.schema.json", "bikecheck bike file",
    "One bike (`bikes/ID.yaml`); its id is the file name.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "name": p({"$ref": "#/definitions/text"}, "The bike's name, e.g. `Canyon Grail CF SL 7`.", examples=["Canyon Grail CF SL 7"]),
        "rider": p({"$ref": "#/definitions/identifier"}, "Whose it is: one of garage.yaml's `riders:`. Their Strava login brings its rides, their reminders name it, `status --rider` shows it (docs/household.md).", examples=["alex"]),
        "strava": p({"type": "string", "pattern": "^b[0-9]+$"}, "The bike's Strava gear id, `b` and digits (see `bikecheck sync`). Activities with this gear id count for this bike.",
                    examples=["b12345678"], patternErrorMessage="Bike gear ids look like b12345678."),
        "devices": p(SERIALS,
                     "Serial numbers of the devices (head units, watches) that record only this bike's rides: `bikecheck import files` puts the rides of their FIT and TCX files on this bike. One bike or part per device.",
                     examples=[[3980001234]]),
        "bought": p({"$ref": "#/definitions/date"}, "When the bike was bought, `YYYY-MM-DD`; intervals with no other anchor count from here."),
        "retired": p({"$ref": "#/definitions/date"}, "When the bike was retired, `YYYY-MM-DD`; `status` leaves it out unless named."),
        "price": p(MONEY, "What the bike cost, counted by `costs` in the year it was bought: `1899`, or `1899 USD` in another currency than the garage's."),
        "templates": p({"anyOf": [{"$ref": "#/definitions/identifier"}, {"type": "array", "items": {"$ref": "#/definitions/identifier"}}, {"type": "null"}]},
                       "Templates (file names in `templates/`, without `.yaml`) whose intervals this bike gets, in order; the bike overrides by interval id.",
                       examples=[["road-basics", "tubeless"]]),
        "counts": sport_types_list("Strava sport types that wear this bike (default: `counts` in `garage.yaml`). One type or a list."),
        "trainer": p(TRAINER, "Which rides count for this bike, indoors or out (default: `trainer` in `garage.yaml`, else `false`). " + TRAINER_HELP),
        "components": p({
            "type": ["object", "null"],
            "propertyNames": {"pattern": IDENTIFIER},
            "additionalProperties": p({
                "type": ["object", "null"],
                "additionalProperties": False,
                "properties": {
                    "name": p({"$ref": "#/definitions/text"}, "What is fitted, e.g. `Shimano CN-M8100`."),
                    "installed": p({"$ref": "#/definitions/date"}, "When it was fitted, `YYYY-MM-DD`; intervals about it count from here until first done."),
                    "hours": p({"type": "number", "minimum": 0}, "Ride hours it had before tracking started (a second-hand part), e.g. `120`."),
                    "distance": p({"$ref": "#/definitions/distance"}, "Distance it had before tracking started, e.g. `2500 km`."),
                    "rides": p({"type": "number", "minimum": 0}, "Rides it had before tracking started."),
                    **ride_filter("this component", "the bike's"),
                    "notes": p({"$ref": "#/definitions/text"}, "Free notes; bikecheck does not read them."),
                },
            }, "A component; may be empty (`chain:` alone).",
                defaultSnippets=[{"label": "component", "description": "What is fitted and since when",
                                  "body": {"name": "${1:Shimano CN-M8100}", "installed": "${2:2025-03-01}"}}]),
        }, "Parts whose life is tracked, by id (letters, digits, `-`, `_`, `.`), e.g. `chain:`."),
        "intervals": {**INTERVALS, "type": ["object", "null"]},
        "log": p({
            "type": ["array", "null"],
            "items": p({
                "type": "object",
                "additionalProperties": False,
                "required": ["date"],
                "anyOf": [{"required": ["done"]}, {"required": ["todo"]}, {"required": ["readings"]}, {"required": ["cost"]}],
                "properties": {
                    "date": p({"$ref": "#/definitions/date"}, "When it was done, `YYYY-MM-DD`."),
                    "done": p({"anyOf": [{"$ref": "#/definitions/identifier"},
                                         {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/identifier"}}]},
                              "The interval ids done: one id or a non-empty list, e.g. `[chain-replace, chain-lube]`.",
                              examples=[["chain-lube"]]),
                    "readings": p({"type": "object", "propertyNames": {"pattern": IDENTIFIER},
                                   "additionalProperties": {"$ref": "#/definitions/wearAmount"}},
                                  "Measurements by interval id, in the unit of the interval's `wear_limit:`: `{chain-replace: 0.5 %}`, `{brake-pads: 1.8 mm}`. "
                                  "An entry of readings alone (no `done`) is a measurement, not a service; `bikecheck done BIKE --reading ID=VALUE` writes one.",
                                  examples=[{"chain-replace": "0.5 %"}]),
                    "todo": p({"$ref": "#/definitions/text"}, "The one-off job this entry closed, as it read under `todo:`; `bikecheck done BIKE --todo …` writes it. An entry has `done`, `todo`, `readings` or several, or is an expense with a `cost` alone."),
                    "cost": p(MONEY, "What it cost, exact: `45.99` in the garage's currency, or `45 USD` in another (reported apart, never summed)."),
                    "currency": p({"type": "string", "pattern": "^[A-Z]{3}$"}, "The cost's currency when it is not the garage's, e.g. `USD`."),
                    "category": p({"$ref": "#/definitions/text"}, "What kind of cost it was, free text: `parts`, `labour`, `consumables`; `costs --by category` groups by it."),
                    "note": p({"$ref": "#/definitions/text"}, "A note, e.g. which part was fitted."),
                },
            }, "One service: `date`, `done` (or `todo` for a closed to-do, or only a `cost` for an expense naming no interval), and optionally `cost`, `category` and `note`.",
                defaultSnippets=[{"label": "log entry", "description": "What was done on which day",
                                  "body": {"date": "${1:2025-03-01}", "done": ["${2:chain-lube}"]}}]),
        }, "What was done, oldest first; `bikecheck done` appends here."),
        "snooze": SNOOZE,
        "todo": TODO,
        "notes": p({"$ref": "#/definitions/text"}, "Free notes; bikecheck does not read them."),
    },
}, ["text", "date", "identifier", "quantity", "distance", "fraction", "sportType", "wearAmount", "interval"])

# Gear (`gear/ID.yaml`) is a bike with a kind: a bike's keys, `kind:`, and Strava's shoe ids too.
GEAR = schema("gear.schema.json", "bikecheck gear file",
    "Gear that is not a bike (`gear/ID.yaml`): shoes, a trainer, a helmet. Its id is the file name, shared with the bikes'; it takes a bike's keys and `kind:`.", {
    **{k: v for k, v in BIKE.items() if k not in ("$schema", "title", "description", "markdownDescription", "definitions", "properties", "required")},
    "required": ["name", "kind"],
    "properties": {
        "name": p({"$ref": "#/definitions/text"}, "The gear's name, e.g. `Trail shoes`.", examples=["Saucony Peregrine 14"]),
        "kind": p({"enum": ["shoes", "trainer", "helmet", "other"]},
                  "What it is, which says which rides wear it by default: `shoes` count `Run`, `TrailRun`, `Walk` and `Hike` on their own Strava gear (`g…`), treadmill included; a `trainer` counts the indoor rides of every bike (or, with `devices:`, every ride they recorded); a `helmet` and `other` gear count the rides of every bike as a bike counts its own (with `strava:` or `devices:`, only their own). `counts:` and `trainer:` say otherwise.",
                  examples=["shoes"]),
        **{k: v for k, v in BIKE["properties"].items() if k not in ("name", "strava", "counts", "trainer")},
        "strava": p({"type": "string", "pattern": "^[bg][0-9]+$"}, "Its Strava gear id: a pair of shoes' `g` and digits (or a bike's `b` and digits). Activities with this gear id count for it, and then only those.",
                    examples=["g12345678"], patternErrorMessage="Shoe ids look like g12345678, bike ids like b12345678."),
        "counts": sport_types_list("Strava sport types that wear it (default: shoes `Run`, `TrailRun`, `Walk`, `Hike`; a trainer `counts` in `garage.yaml` and `VirtualRide`; other kinds `counts` in `garage.yaml`). One type or a list."),
        "trainer": p(TRAINER, "Which rides count for it, indoors or out (default: shoes `true`; a trainer `only`, or `true` with `devices:`; other kinds `trainer` in `garage.yaml`). " + TRAINER_HELP),
    },
}, ["text", "date", "identifier", "quantity", "distance", "fraction", "sportType", "interval"])

TEMPLATE = schema("template.schema.json", "bikecheck template file",
    "A reusable set of service intervals (`templates/ID.yaml`); bikes list it under `templates:`.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "intervals"],
    "properties": {
        "name": p({"$ref": "#/definitions/text"}, "The template's name, e.g. `Road bike basics`."),
        "description": p({"$ref": "#/definitions/text"}, "What the template is for."),
        "source": p({"anyOf": [{"$ref": "#/definitions/text"}, {
            "type": "object",
            "additionalProperties": False,
            "required": ["url", "path", "commit"],
            "properties": {
                "url": p({"type": "string"}, "The git repository it was imported from, as `git clone` takes it (a local one relative to the garage)."),
                "path": p({"type": "string"}, "The file's path inside that repository."),
                "commit": p({"type": "string", "pattern": "^(?:[0-9a-f]{40}|[0-9a-f]{64})$"}, "The full id of the commit this copy was taken from; `bikecheck template update` merges from it."),
                "ref": p({"type": "string"}, "The tag or branch followed; without it, the repository's default branch."),
            },
        }]}, "Where the schedule comes from (a maker's manual, a URL); `bikecheck template import` from a git repository writes `{url, path, commit}`."),
        "intervals": INTERVALS,
    },
}, ["text", "identifier", "quantity", "fraction", "sportType", "wearAmount", "interval"])

RIDES = schema("rides.schema.json", "bikecheck rides.yaml",
    "Rides entered by hand (`rides.yaml`), for bikes not on Strava or offline use.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["rides"],
    "properties": {
        "rides": p({
            "type": ["array", "null"],
            "items": p({
                "type": "object",
                "additionalProperties": False,
                "required": ["date", "bike", "time"],
                "properties": {
                    "date": p({"$ref": "#/definitions/date"}, "The day of the ride, `YYYY-MM-DD`."),
                    "bike": p({"$ref": "#/definitions/identifier"}, "The bike's id (its file name in `bikes/`, without `.yaml`)."),
                    "time": p({"type": "string", "pattern": DURATION}, "Moving time: `1h30`, `1:30`, `90 min`, `1 h 30 min` or `1.5 h`.",
                              examples=["1h30", "1:30", "90 min"], patternErrorMessage="Write e.g. 1h30, 1:30, 90 min or 2 h."),
                    "distance": p({"$ref": "#/definitions/distance"}, "Distance ridden, e.g. `35 km` or `20 mi`. Default 0."),
                    "sport": p({"$ref": "#/definitions/sportType"},
                               "The Strava sport type of the ride, e.g. `EBikeRide`; filtered by the bike's `counts` like Strava activities (default: always counts)."),
                    "name": p({"$ref": "#/definitions/text"}, "A name for the ride."),
                },
            }, "One ride: `date`, `bike`, `time`, and optionally `distance`, `sport`, `name`.",
                defaultSnippets=[{"label": "ride", "description": "A ride entered by hand",
                                  "body": {"date": "${1:2025-11-12}", "bike": "${2:bike-id}", "time": "${3:1h30}", "distance": "${4:30 km}"}}]),
        }, "The rides, e.g. `- {date: 2025-11-12, bike: commuter, time: 47 min, distance: 17 km}`."),
    },
}, ["text", "date", "identifier", "distance", "sportType"])

PART = schema("part.schema.json", "bikecheck part file",
    "A part that moves between bikes (`parts/ID.yaml`): a wheelset, a fork, a spare chain. Its id is the file name; its usage is what counted for each bike on the days it was mounted there, plus its usage before tracking.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "name": p({"$ref": "#/definitions/text"}, "The part's name, e.g. `DT Swiss ARC 1100 wheelset`.", examples=["DT Swiss ARC 1100 wheelset"]),
        "rider": p({"$ref": "#/definitions/identifier"}, "Whose it is: one of garage.yaml's `riders:`. Their Strava login brings its rides, their reminders name it, `status --rider` shows it (docs/household.md).", examples=["alex"]),
        "bought": p({"$ref": "#/definitions/date"}, "When the part was bought, `YYYY-MM-DD`; a mount before it is a warning."),
        "retired": p({"$ref": "#/definitions/date"}, "When the part was retired (sold, worn out), `YYYY-MM-DD`."),
        "price": p(MONEY, "What the part cost, counted by `costs` on the part's own line in the year it was bought (not in a bike's): `1299`, or `1299 USD` in another currency than the garage's."),
        "slot": p({"$ref": "#/definitions/identifier"}, "The place on a bike the part fills, e.g. `wheels` or `fork`: two parts with the same slot may not be on one bike on the same day.", examples=["wheels"]),
        "devices": p(SERIALS,
                     "Serial numbers of the devices that record only the rides of this part (a power meter in a wheelset, the trainer a part lives on): `bikecheck import files` puts their rides on the bike the part was mounted on that day. One bike or part per device.",
                     examples=[[3980005678]]),
        "hours": p({"type": "number", "minimum": 0}, "Ride hours it had before tracking started (a second-hand part), e.g. `120`."),
        "distance": p({"$ref": "#/definitions/distance"}, "Distance it had before tracking started, e.g. `800 km`."),
        "rides": p({"type": "number", "minimum": 0}, "Rides it had before tracking started."),
        **ride_filter("this part", "the filter of the bike it was on"),
        "templates": p({"anyOf": [{"$ref": "#/definitions/identifier"}, {"type": "array", "items": {"$ref": "#/definitions/identifier"}}, {"type": "null"}]},
                       "Templates whose intervals follow the part wherever it is mounted, in order; the part overrides by interval id.",
                       examples=[["wheelset"]]),
        "intervals": {**INTERVALS, "type": ["object", "null"]},
        "mounts": p({
            "type": ["array", "null"],
            "items": p({
                "type": "object",
                "additionalProperties": False,
                "required": ["from"],
                "oneOf": [{"required": ["bike"]}, {"required": ["part"]}],
                "properties": {
                    "bike": p({"$ref": "#/definitions/identifier"}, "The bike's id (its file name in `bikes/`, without `.yaml`)."),
                    "part": p({"$ref": "#/definitions/identifier"}, "Instead of `bike`: the part it was on (tyres on a wheelset, its file name in `parts/`): on each day it wears with whatever bike that part is on, through its own ride filter."),
                    "from": p({"$ref": "#/definitions/date"}, "The first day on the bike or part, `YYYY-MM-DD` (inclusive)."),
                    "to": p({"anyOf": [{"$ref": "#/definitions/date"}, {"type": "null"}]}, "The last day on the bike or part, `YYYY-MM-DD` (inclusive); leave it out while the part is still there."),
                    "tag": p({"type": "string", "pattern": "^#?[^\\s#][^\\s]*$"}, "Only rides whose name has this hashtag, written without `#` (`race`: the race wheels go on for rides named `Crit #race`). Such a mount may share its days with the part's other mounts; not with `part`."),
                    "unless_tag": p({"anyOf": [{"type": "string", "pattern": "^#?[^\\s#][^\\s]*$"},
                                               {"type": "array", "items": {"type": "string", "pattern": "^#?[^\\s#][^\\s]*$"}}]},
                                    "Not rides whose name has this hashtag (or one of these): the everyday wheels come off for `#race` rides. Not with `tag` or `part`."),
                    "note": p({"$ref": "#/definitions/text"}, "A note about the mount."),
                },
                "not": {"anyOf": [{"required": ["tag", "unless_tag"]}, {"required": ["part", "tag"]}, {"required": ["part", "unless_tag"]}]},
            }, "One stretch on one bike (`bike`) or on another part (`part`): `from`, and `to` once it came off.",
                defaultSnippets=[{"label": "mount", "description": "On a bike since a day",
                                  "body": {"bike": "${1:bike-id}", "from": "${2:2025-03-01}"}},
                                 {"label": "mount on a part", "description": "On another part (a wheelset) since a day",
                                  "body": {"part": "${1:part-id}", "from": "${2:2025-03-01}"}}]),
        }, "Where the part has been, on one bike or part at a time; the mount without `to` is where it is now. `bikecheck part mount` writes here."),
        "log": BIKE["properties"]["log"],
        "snooze": SNOOZE,
        "todo": TODO,
        "notes": p({"$ref": "#/definitions/text"}, "Free notes; bikecheck does not read them."),
    },
}, ["text", "date", "identifier", "quantity", "distance", "fraction", "sportType", "wearAmount", "interval"])

TIMESTAMP = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}.*Z$"
NULLABLE_TEXT = {"type": ["string", "null"]}
ACTIVITIES = schema("activities.schema.json", "bikecheck activity cache",
    "A month of cached activities (`activities/YYYY-MM.json`), written by `bikecheck sync` and `bikecheck import`: sorted by start date then id, Strava's field names and units. Unknown fields are kept for newer versions.", {
    "type": "array",
    "items": p({
        "type": "object",
        "required": ["id", "start_date", "moving_time", "distance"],
        # Either names the sport; null counts as missing.
        "anyOf": [{"required": ["sport_type"], "properties": {"sport_type": {"type": "string"}}},
                  {"required": ["type"], "properties": {"type": {"type": "string"}}}],
        "properties": {
            "id": p({"type": "integer", "minimum": 1}, "Strava's activity id; for a ride imported from a file (`source`), an id derived from the file's content, 2^62 or more."),
            "name": p(NULLABLE_TEXT, "The activity's title."),
            "sport_type": p(NULLABLE_TEXT, "Strava sport type, e.g. `Ride`, `GravelRide`."),
            "type": p(NULLABLE_TEXT, "Strava's older, coarser activity type; used when `sport_type` is missing."),
            "start_date": p({"type": "string", "pattern": TIMESTAMP}, "Start time in UTC, e.g. `2025-10-02T06:12:00Z`; the file is named by its month."),
            "start_date_local": p({"type": ["string", "null"], "pattern": TIMESTAMP}, "The rider's wall-clock start time, written with a `Z` as Strava does."),
            "timezone": p(NULLABLE_TEXT, "Strava's time zone description, e.g. `(GMT+01:00) Europe/Berlin`."),
            "moving_time": p({"type": "number", "minimum": 0, "maximum": 2592000}, "Moving time in seconds (at most 30 days)."),
            "elapsed_time": p({"type": ["number", "null"], "minimum": 0, "maximum": 2592000}, "Elapsed time in seconds (at most 30 days); the moving time when missing."),
            "distance": p({"type": "number", "minimum": 0, "maximum": 100000000}, "Distance in metres (at most 100,000 km)."),
            "total_elevation_gain": p({"type": ["number", "null"], "minimum": -100000000, "maximum": 100000000}, "Climbing in metres."),
            "gear_id": p(NULLABLE_TEXT, "The gear (bike) id, e.g. `b12345678`; null when none was set. A ride imported from a file onto a bike has `bike:` and the bike's id, e.g. `bike:grail`."),
            "trainer": p({"type": ["boolean", "null"]}, "Ridden on a trainer."),
            "commute": p({"type": ["boolean", "null"]}, "Marked as a commute."),
            "manual": p({"type": ["boolean", "null"]}, "Entered by hand on Strava."),
            "source": p({"enum": ["fit", "tcx", "gpx"]}, "A ride `bikecheck import files` read from a file, and its format; absent for Strava's. `sync` never deletes these."),
            "device": p({"type": "integer", "minimum": 1}, "The serial number of the device that recorded it, when its file says."),
            "athlete": p({"type": "integer", "minimum": 1}, "The Strava athlete whose activity it is (the listing's `athlete.id`); absent in caches written before households and for rides from files."),
        },
    }, "One activity, as Strava describes it."),
}, [])

DAY = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "format": "date"}
NULLABLE_DAY = {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "format": "date"}
MEASURES = ["time", "distance", "days", "months", "rides"]


JSON_UNITS = p({"const": "si"}, "The units of every figure here: `si`, distances and climb in metres, times in seconds, whatever garage.yaml's `units` says.")
DISPLAY_UNITS = p({"enum": ["metric", "imperial"]}, "garage.yaml's `units`: what the text, CSV, Markdown and HTML of this report are in (km or mi), never these figures.")


def closed(props, required=None, md=""):
    return p({"type": "object", "additionalProperties": False, "required": required or list(props), "properties": props}, md)


GIT = p({"anyOf": [{"type": "null"}, {
    "type": "object", "additionalProperties": False, "required": ["commit", "changes"], "properties": {
        "commit": p({"type": ["string", "null"], "pattern": "^[0-9a-f]{40,64}$"}, "The full id of the commit the report describes: the garage's HEAD, or the `--rev` commit; null before the first commit."),
        "changes": p({"type": "boolean"}, "True when the garage's files in the work tree had changes not in that commit (changed, staged or new; ignored files such as the activity cache do not count); false with `--rev`."),
    }}]}, "The git commit the report describes, so a report handed on can be traced to its data; null when the garage is not in a git work tree.")


LIMIT = closed({
    "every": p({"type": "string"}, "The limit as written, e.g. `10 h`."),
    "measure": p({"enum": MEASURES}, "What it measures: `time` (seconds), `distance` (metres), `days`, `months` or `rides`."),
    "unit": p({"type": "string"}, "The unit it was written in, e.g. `h`, `km`, `months`."),
    "unit_size": p({"type": "number", "exclusiveMinimum": 0}, "The unit's size in the measure's base unit (3600 for `h`)."),
    "limit": p({"type": "number", "exclusiveMinimum": 0}, "The limit in the base unit."),
    "used": p({"type": "number", "minimum": 0}, "Used so far, in the base unit."),
    "progress": p({"type": "number", "minimum": 0}, "`used / limit`; 1 or more is overdue."),
    "due": p(NULLABLE_DAY, "The day the limit is reached at the recent pace, or absent without a pace."),
}, required=["every", "measure", "unit", "unit_size", "limit", "used", "progress"], md="One limit of an interval and how far along it is.")

BAND = {"type": "string", "pattern": "^(overdue|due-soon|ok|within:[0-9]+d)$"}

INTERVAL_STATUS = closed({
    "id": p({"type": "string"}, "The interval id."),
    "task": p({"type": "string"}, "What to do."),
    "component": p({"type": ["string", "null"]}, "The component it is about."),
    "template": p({"type": ["string", "null"]}, "The template it came from."),
    "state": p({"enum": ["overdue", "due-soon", "ok", "snoozed"]}, "How urgent: `overdue`, `due-soon`, `ok`, or `snoozed` (put off until `snoozed_until`, whatever its progress)."),
    "progress": p({"type": "number", "minimum": 0}, "The largest fraction over the limits; 1 or more is overdue."),
    "since": p(NULLABLE_DAY, "The anchor day the count starts from."),
    "anchor": p({"enum": ["done", "installed", "replaced", "bought", "first-ride", "none"]}, "What the count starts from."),
    "usage": closed({
        "moving_time": p({"type": "number", "minimum": 0}, "Moving time in seconds."),
        "distance": p({"type": "number", "minimum": 0}, "Distance in metres."),
        "days": p({"type": "integer"}, "Calendar days since the anchor."),
        "rides": p({"type": "integer", "minimum": 0}, "Rides since the anchor."),
    }, md="Usage since the anchor, in Strava's units."),
    "limits": p({"type": "array", "items": LIMIT}, "Each limit and its progress."),
    "due": p(NULLABLE_DAY, "The earliest day a limit is reached at the recent pace; for a snoozed interval, no earlier than `snoozed_until`."),
    "part": p({"type": ["string", "null"]}, "The part (in `parts/`) the interval belongs to; absent for the bike's own intervals."),
    "snoozed_until": p(DAY, "While `state` is `snoozed`: the day the interval counts again; absent otherwise."),
    "wear": closed({
        "limit": p({"type": "number", "exclusiveMinimum": 0}, "The interval's `wear_limit`, in `unit`."),
        "unit": p({"enum": ["%", "mm"]}, "The unit of the limit and the readings."),
        "direction": p({"enum": ["maximum", "minimum"]}, "`maximum`: the readings rise to the limit (a chain's stretch); `minimum`: they fall to it (a pad). The first reading since the anchor decides."),
        "readings": p({"type": "array", "minItems": 1, "items": closed({
            "date": p(DAY, "The day it was measured."),
            "value": p({"type": "number", "minimum": 0}, "The reading, in `unit`."),
            "used": p({"type": "number", "minimum": 0}, "The usage from the anchor through the day before, in `measure`'s base unit."),
        }, md="One reading.")}, "The readings since the anchor, oldest first."),
        "measure": p({"enum": ["time", "distance", "rides"]}, "The usage the rate is per: the interval's first limit in hours, distance or rides, else distance."),
        "from_zero": p({"type": "boolean"}, "Whether the anchor counts as a reading of zero (a new part whose readings rise)."),
        "rate": p({"type": ["number", "null"]}, "The change of the reading per second, metre or ride (a least-squares line); absent with fewer than two points."),
        "progress": p({"type": "number", "minimum": 0}, "The latest reading over the limit (a maximum), or the limit over it (a minimum): 1 when reached."),
        "due": p(NULLABLE_DAY, "The estimated day the limit is reached at the recent pace; absent without a rate towards it, or once reached."),
    }, required=["limit", "unit", "direction", "readings", "measure", "from_zero", "progress"],
        md="Its measured wear: the readings since its anchor against its `wear_limit`; absent without a reading."),
    "band": p(BAND, "Its urgency band: `overdue`; `within:Nd` when the forecast due day is at most N days away (the nearest of the garage's windows, by default 30, 7, 1 and 0 days); `due-soon` by progress; else `ok`."),
}, required=["id", "task", "state", "progress", "anchor", "usage", "limits", "band"], md="One interval's status.")

TODO_STATUS = closed({
    "task": p({"type": "string"}, "What needs doing."),
    "id": p({"type": ["string", "null"]}, "Its id, when it has one."),
    "due": p(NULLABLE_DAY, "When it should be done by."),
    "state": p({"enum": ["overdue", "due-soon", "ok"]}, "`overdue` after its due day, `due-soon` within 7 days of it, else `ok`."),
    "part": p({"type": ["string", "null"]}, "The part (in `parts/`) it belongs to, when shown under the part's bike."),
}, required=["task", "state"], md="One to-do.")

STATUS = schema("status.schema.json", "bikecheck status --format json",
    "What `bikecheck status --format json` prints: every bike's intervals, most urgent first.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["as_of", "units", "display_units", "bikes", "parts", "git"],
    "properties": {
        "as_of": p(DAY, "The day the report is computed for."),
        "git": GIT,
        "units": JSON_UNITS,
        "display_units": DISPLAY_UNITS,
        "bikes": p({"type": "array", "items": closed({
            "id": p({"type": "string"}, "The bike id (its file name)."),
            "name": p({"type": "string"}, "The bike's name."),
            "retired": p(NULLABLE_DAY, "When the bike was retired."),
            "rider": p({"type": "string"}, "A household's: the rider whose bike it is (its `rider:`); absent when it names none."),
            "kind": p({"enum": ["shoes", "trainer", "helmet", "other"]}, "Gear's kind (a file in `gear/`); absent for a bike."),
            "intervals": p({"type": "array", "items": INTERVAL_STATUS}, "Its intervals, most urgent first."),
            "todos": p({"type": "array", "items": TODO_STATUS}, "Its to-dos and those of the parts on it, most urgent first."),
        }, required=["id", "name", "intervals"], md="One bike.")}, "The bikes reported, then the gear (`gear/`, with `kind`); a part's intervals show under the bike it is mounted on, with `part` set."),
        "parts": p({"type": "array", "items": closed({
            "id": p({"type": "string"}, "The part id (its file name in `parts/`)."),
            "name": p({"type": "string"}, "The part's name."),
            "bike": p({"type": ["string", "null"]}, "The bike it is mounted on as of the report's day; absent on the shelf."),
            "retired": p(NULLABLE_DAY, "When the part was retired."),
            "rider": p({"type": "string"}, "A household's: the rider whose part it is (its `rider:`); absent when it names none."),
            "intervals": p({"type": "array", "items": INTERVAL_STATUS}, "Its intervals, most urgent first."),
            "todos": p({"type": "array", "items": TODO_STATUS}, "Its to-dos, most urgent first."),
        }, required=["id", "name", "intervals"], md="One part.")}, "Parts reported on their own: those on no bike, or those named on the command line."),
        "warnings": p({"type": "array", "items": closed({
            "kind": p({"enum": ["stale-sync", "quiet-bike", "quiet-garage"]}, "`stale-sync`: the last Strava sync (or, with none on record, the newest cached activity) is older than `stale_after`; `quiet-bike`: a bike on Strava has had no ride for `quiet_after` while another has; `quiet-garage`: no bike on Strava has had a ride for `quiet_after`, though the sync is recent."),
            "bike": p({"type": ["string", "null"]}, "The bike a `quiet-bike` warning is about."),
            "since": p(NULLABLE_DAY, "The last sync, or the bike's (for `quiet-garage` the garage's) last ride; absent when it has none."),
            "message": p({"type": "string"}, "The warning, as status prints it."),
            "help": p({"type": "string"}, "What to do about it."),
        }, required=["kind", "message", "help"], md="One sign of stale data.")}, "Signs that the data behind the report stopped arriving, so that nothing due is not mistaken for all well; they never change the exit code."),
        "urgency": p({"type": "array", "items": closed({
            "bike": p({"type": ["string", "null"]}, "The bike it shows under; absent for a part reported on its own."),
            "part": p({"type": ["string", "null"]}, "The part it belongs to, when it is a part's."),
            "interval": p({"type": "string"}, "The interval id."),
            "band": p(BAND, "Its urgency band."),
        }, required=["interval", "band"], md="One interval.")}, "With `--by urgency`: every interval once, most urgent first (overdue by progress, then by forecast due day)."),
    },
}, [])

LIFE = {
    "distance": p({"type": "number", "minimum": 0}, "Distance in metres."),
    "moving_time": p({"type": "number", "minimum": 0}, "Moving time in seconds."),
    "rides": p({"type": "integer", "minimum": 0}, "Rides."),
    "first_use": p(NULLABLE_DAY, "The first day ridden; absent when never ridden."),
    "last_use": p(NULLABLE_DAY, "The last day ridden; absent when never ridden."),
}
LIFE_REQUIRED = ["distance", "moving_time", "rides"]

PARTS = schema("parts.schema.json", "bikecheck part list / part show --format json",
    "What `bikecheck part list --format json` and `part show PART --format json` print: each part's (and, for `part list`, each component's) life so far, in Strava's units.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["as_of", "units", "display_units", "parts", "git"],
    "properties": {
        "as_of": p(DAY, "The day the report is computed for."),
        "git": GIT,
        "units": JSON_UNITS,
        "display_units": DISPLAY_UNITS,
        "parts": p({"type": "array", "items": closed({
            "kind": p({"enum": ["part", "component"]}, "`part`: a file in `parts/`; `component`: a key under a bike's `components:`."),
            "id": p({"type": "string"}, "The part's id, or the component's key in its bike file."),
            "name": p({"type": ["string", "null"]}, "Its name."),
            "bike": p({"type": ["string", "null"]}, "Where it is now: a part's bike as of the report's day (absent on the shelf), a component's bike."),
            "retired": p(NULLABLE_DAY, "When the part (or a component's bike) was retired."),
            "since": p(NULLABLE_DAY, "A component's current one counts from here: its install or its latest replacement."),
            **LIFE,
            "prior": closed({k: LIFE[k] for k in LIFE_REQUIRED}, md="Usage before tracking, included in the totals."),
            "mounts": p({"type": "array", "items": closed({
                "bike": p({"type": "string"}, "The bike."),
                "from": p(DAY, "First day on the bike (inclusive)."),
                "to": p(NULLABLE_DAY, "Last day on the bike (inclusive); absent while it is still there."),
                "via": p({"type": "array", "items": {"type": "string"}}, "The parts it was on the bike through, nearest first (tyres on a wheelset: the wheelset); absent when it was on the bike itself."),
                **LIFE,
            }, required=["bike", "from"] + LIFE_REQUIRED, md="One mount and the usage on it.")}, "A part's mounts, oldest first."),
            "slot": closed(LIFE, required=LIFE_REQUIRED, md="A component's slot: every counted ride of its bike, whichever component filled it."),
        }, required=["kind", "id", "prior"] + LIFE_REQUIRED, md="One part or component: its whole life (a component: the current one's).")},
            "Parts by id, then components by bike."),
    },
}, [])

POSITION = closed({
    "line": p({"type": "integer", "minimum": 1}, "1-based line."),
    "column": p({"type": "integer", "minimum": 1}, "1-based column."),
}, md="A position in a file.")

VALIDATE = schema("validate.schema.json", "bikecheck validate --format json",
    "What `bikecheck validate --format json` prints: counts and every diagnostic.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["errors", "warnings", "diagnostics"],
    "properties": {
        "errors": p({"type": "integer", "minimum": 0}, "How many diagnostics are errors."),
        "warnings": p({"type": "integer", "minimum": 0}, "How many diagnostics are warnings."),
        "diagnostics": p({"type": "array", "items": closed({
            "id": p({"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"}, "A stable kebab-case id, e.g. `unknown-key`."),
            "severity": p({"enum": ["error", "warning"]}, "`error` or `warning`."),
            "message": p({"type": "string", "minLength": 1}, "What is wrong."),
            "file": p({"type": "string"}, "The file, relative to where bikecheck ran."),
            "start": POSITION,
            "end": POSITION,
            "notes": p({"type": "array", "items": closed({
                "message": p({"type": "string"}, "The note."),
                "file": p({"type": "string"}, "Where it points."),
                "line": p({"type": ["integer", "null"], "minimum": 1}, "1-based line."),
                "column": p({"type": ["integer", "null"], "minimum": 1}, "1-based column."),
            }, required=["message", "file"], md="A related location.")}, "Related locations."),
            "help": p({"type": ["string", "null"]}, "How to fix it."),
        }, required=["id", "severity", "message", "file", "notes"], md="One problem, located.")}, "Every problem, in file order."),
    },
}, [])

SUBJECT = closed({
    "kind": p({"enum": ["bike", "part"]}, "What the line is about: a `bike` (`bikes/ID.yaml`) or a `part` (`parts/ID.yaml`)."),
    "id": p({"type": "string"}, "Its id (the file name); a bike and a part may share one, so read it with `kind`."),
    "name": p({"type": "string"}, "Its name."),
}, md="What a line is about.")
AMOUNT = p({"type": "string", "pattern": "^-?[0-9]+\\.[0-9]{2,4}$"}, "An exact amount as a decimal string with 2 to 4 decimals, e.g. `\"0.30\"`, so no reader turns it into binary floating point.")
NULLABLE_AMOUNT = {"anyOf": [AMOUNT, {"type": "null"}]}
CURRENCY = p({"type": ["string", "null"], "pattern": "^[A-Z]{3}$"}, "The currency code; null when neither the cost nor the garage names one.")
METRES = p({"type": "number", "minimum": 0}, "Metres.")
SECONDS = p({"type": "number", "minimum": 0}, "Seconds of moving time.")


def report(name, title, md, props, required):
    return schema(name, title, md, {"type": "object", "additionalProperties": False, "required": required + ["git"], "properties": {
        "as_of": p(DAY, "The day the report is computed for."),
        "git": GIT,
        "units": JSON_UNITS,
        "display_units": DISPLAY_UNITS,
        "since": p(NULLABLE_DAY, "The first day counted (`--since`)."),
        **props}}, [])


COSTS = report("costs.schema.json", "bikecheck costs --format json",
    "What `bikecheck costs --format json` prints: exact totals per group and currency; currencies are never summed.", {
    "by": p({"enum": ["bike", "rider", "year", "month", "category"]}, "How lines are grouped (`rider`: a household's riders, `(shared)` for bikes and parts that name none)."),
    "rows": p({"type": "array", "items": closed({
        "group": p({"type": "string"}, "The bike's or part's id (see `subject`), the rider (`(shared)`: none), `2025`, `2025-03`, `undated`, or the category (`purchase` for prices, `uncategorised`)."),
        "subject": SUBJECT,
        "currency": CURRENCY,
        "services": AMOUNT, "purchases": AMOUNT, "total": AMOUNT,
        "entries": p({"type": "integer", "minimum": 0}, "Log entries with a cost."),
        "distance": METRES, "moving_time": SECONDS,
        "per_1000_km": p(NULLABLE_AMOUNT, "The total per 1,000 km of counted rides behind the line, to the cent (per 1,000 km whatever `display_units` says; text, CSV and Markdown show per 1,000 mi for `imperial`)."),
        "per_hour": p(NULLABLE_AMOUNT, "The total per hour of counted rides behind the line, to the cent."),
    }, required=["group", "services", "purchases", "total", "entries", "distance", "moving_time"], md="One group in one currency.")}, "Lines, by group then currency."),
    "totals": p({"type": "array", "items": closed({
        "currency": CURRENCY, "services": AMOUNT, "purchases": AMOUNT, "total": AMOUNT,
        "entries": p({"type": "integer", "minimum": 0}, "Log entries with a cost."),
    }, required=["services", "purchases", "total", "entries"], md="The total in one currency.")}, "One total per currency."),
}, ["as_of", "units", "display_units", "by", "rows", "totals"])

USAGE_ROW = closed({
    "subject": SUBJECT,
    "period": p({"type": "string"}, "`2025-03`, `2025`, or for totals the span (`2025-01-01..2026-11-15`)."),
    "rides": p({"type": "integer", "minimum": 0}, "Counted rides."),
    "moving_time": SECONDS, "distance": METRES,
    "elevation": p({"type": "number", "minimum": 0}, "Metres climbed."),
    "odometer": p({"type": "number", "minimum": 0}, "Metres of every counted ride up to the end of the period."),
}, md="One bike's or part's riding in one period (a part's odometer starts from its distance before tracking).")
USAGE = report("usage.schema.json", "bikecheck usage --format json",
    "What `bikecheck usage --format json` prints: counted rides per bike per month or year.", {
    "period": p({"enum": ["month", "year"]}, "The period of each line."),
    "rows": p({"type": "array", "items": USAGE_ROW}, "Periods with counted rides, per bike, then per part."),
    "totals": p({"type": "array", "items": USAGE_ROW}, "One per bike or part over the whole span."),
}, ["as_of", "units", "display_units", "period", "rows", "totals"])

HISTORY = report("history.schema.json", "bikecheck history --format json",
    "What `bikecheck history --format json` prints: log entries, newest first.", {
    "until": p(NULLABLE_DAY, "The last day shown (`--until`)."),
    "interval": p({"type": ["string", "null"]}, "Only entries that did this interval (`--interval`)."),
    "entries": p({"type": "array", "items": closed({
        "subject": SUBJECT,
        "bike": p({"type": ["string", "null"]}, "For a part's entry, the bike it was on that day; absent when it was on none."),
        "date": p(DAY, "When it was done."),
        "tasks": p({"type": "array", "items": closed({
            "id": p({"type": "string"}, "The interval id."),
            "task": p({"type": "string"}, "What was done."),
            "previous": p(NULLABLE_DAY, "The previous entry that did it; absent the first time."),
            "rides": p({"type": ["integer", "null"], "minimum": 0}, "Counted rides since then."),
            "moving_time": p({"type": ["number", "null"], "minimum": 0}, "Seconds since then."),
            "distance": p({"type": ["number", "null"], "minimum": 0}, "Metres since then."),
        }, required=["id", "task"], md="One task of the entry.")}, "The tasks done."),
        "cost": p(NULLABLE_AMOUNT, "What it cost."),
        "currency": CURRENCY,
        "category": p({"type": ["string", "null"]}, "The entry's category."),
        "note": p({"type": ["string", "null"]}, "The entry's note."),
        "todo": p({"type": ["string", "null"]}, "The one-off job (`todo:`) the entry closed; absent when none."),
        "readings": p({"type": "array", "items": closed({
            "id": p({"type": "string"}, "The interval measured."),
            "value": p({"type": "number", "minimum": 0}, "The reading."),
            "unit": p({"enum": ["%", "mm"]}, "Its unit."),
        }, md="One reading.")}, "The measurements it recorded (`readings:`); absent when none."),
    }, required=["subject", "date", "tasks"], md="One log entry.")}, "Entries, newest first."),
}, ["as_of", "units", "display_units", "entries"])

RIDES_REPORT = report("rides-report.schema.json", "bikecheck rides --format json",
    "What `bikecheck rides --format json` prints: each ride, counted or not and why.", {
    "until": p(NULLABLE_DAY, "The last day shown (`--until`)."),
    "interval": p({"type": ["string", "null"]}, "Rides since this interval's anchor (`--interval`)."),
    "rides": p({"type": "array", "items": closed({
        "subject": SUBJECT,
        "bike": p({"type": ["string", "null"]}, "For the rides behind a part, the bike it was on for this ride."),
        "day": p(DAY, "The day ridden."),
        "source": p({"enum": ["strava", "file", "rides.yaml"]}, "Where the ride comes from: Strava, a file `import files` read, or `rides.yaml`."),
        "activity": p({"type": ["integer", "null"]}, "Strava's activity id."),
        "name": p({"type": ["string", "null"]}, "The ride's name."),
        "sport": p({"type": ["string", "null"]}, "Its sport type."),
        "trainer": p({"type": "boolean"}, "Ridden on a trainer."),
        "moving_time": SECONDS, "distance": METRES,
        "elevation": p({"type": "number"}, "Metres climbed."),
        "verdict": p({"enum": ["counted", "sport-type", "indoor", "outdoor", "no-gear", "before-bought", "after-retired"]}, "Whether it counts, or why not: `indoor` a trainer ride (every VirtualRide is one) where trainer rides do not count; `outdoor` an outdoor ride where only trainer rides count (`trainer: only`); `before-bought` and `after-retired` outside the days the bike was the rider's."),
    }, required=["subject", "day", "source", "trainer", "moving_time", "distance", "elevation", "verdict"], md="One ride.")}, "Rides, per bike, oldest first."),
    "totals": p({"type": "array", "items": closed({
        "subject": SUBJECT,
        "since": p(NULLABLE_DAY, "The interval's anchor, with `--interval`."),
        "counted": p({"type": "integer", "minimum": 0}, "Rides that count."),
        "not_counted": p({"type": "integer", "minimum": 0}, "Rides that do not."),
        "moving_time": SECONDS, "distance": METRES,
        "prior": p(closed({"moving_time": SECONDS, "distance": METRES, "rides": p({"type": "integer", "minimum": 0}, "Rides.")},
            required=["moving_time", "distance", "rides"], md="Usage before tracking."),
            "With `--interval`: the usage before tracking (a second-hand part's) that status adds to the counted rides; counted plus prior is the status figure."),
    }, required=["subject", "counted", "not_counted", "moving_time", "distance"], md="One bike's or part's counted rides.")}, "One per bike or part."),
}, ["as_of", "units", "display_units", "rides", "totals"])

LIMITS = {"type": "array", "items": {"type": "string"}}
DIFF = schema("diff.schema.json", "bikecheck diff --format json",
    "What `bikecheck diff REV1 [REV2] --format json` prints: what changed in the garage between two commits (or a commit and the work tree), as a rider reads it.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["from", "from_commit", "changes", "git"],
    "properties": {
        "from": p({"type": "string"}, "The earlier revision as given (`HEAD~1`, a tag, `@2026-01-01`)."),
        "from_commit": p({"type": "string", "pattern": "^[0-9a-f]{40,64}$"}, "The commit it is."),
        "to": p({"type": "string"}, "The later revision as given; absent for the work tree."),
        "to_commit": p({"type": "string", "pattern": "^[0-9a-f]{40,64}$"}, "The commit it is; absent for the work tree."),
        "git": GIT,
        "changes": p({"type": "array", "items": closed({
            "change": p({"enum": ["bike-added", "bike-removed", "bike-retired", "part-added", "part-removed", "part-retired",
                                  "service-logged", "service-removed", "interval-added", "interval-removed", "interval-changed",
                                  "part-mounted", "part-unmounted", "mount-removed"]},
                "What changed: a bike or part added, removed (its file gone) or given a `retired` day; a log entry added (`service-logged`) or taken out; an interval (a template's too) added, removed or given another `every`, `repeat` or `wear_limit`; a part mounted on a bike, taken off one (a mount's `to`), or a mount taken out of its list."),
            "subject": SUBJECT,
            "date": p(DAY, "The service's day, the mount's first day (`to` for `part-unmounted`), or the day retired."),
            "done": p({"type": "array", "items": {"type": "string"}}, "The intervals a service did (`to-do: TEXT` for a to-do it closed, `measured ID AMOUNT` for a reading it recorded)."),
            "interval": p({"type": "string"}, "The interval added, removed or changed."),
            "before": p(LIMITS, "Its `every` before (`10 h`, `3 months`), then `repeat: RULE` when it is not `from-done` and `wear_limit: AMOUNT` when it has one."),
            "after": p(LIMITS, "The same after."),
            "bike": p({"type": "string"}, "The bike a part was mounted on or taken off."),
            "cost": AMOUNT,
            "currency": CURRENCY,
            "note": p({"type": "string"}, "The service's note."),
        }, required=["change", "subject", "done"], md="One change.")}, "Changes by bike, then part (by id), then kind and day."),
    },
}, [])

NOTIFY_WEBHOOK = schema("notify-webhook.schema.json", "bikecheck notify: the webhook's JSON",
    "What `bikecheck notify` posts to `notify: webhook: url` (Content-Type `application/json`): the intervals and to-dos that newly crossed a band, most urgent first, and the stale-data warnings not yet sent; at least one of the two lists has an item.", {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "as_of", "garage", "reminders", "warnings"],
    "anyOf": [{"properties": {"reminders": {"minItems": 1}}}, {"properties": {"warnings": {"minItems": 1}}}],
    "properties": {
        "id": p({"type": "string", "pattern": "^[0-9a-f]{32}$"}, "The message's stable id, from what it tells (the day, the garage's name, each reminder's key, anchor and line), never the time: a run interrupted after this webhook took the message, and run again, sends the same id, so a receiver can drop the repeat. Another day, or other reminders, give another id."),
        "as_of": p(DAY, "The day the reminders are computed for."),
        "garage": p({"type": ["string", "null"]}, "garage.yaml's `name`, if any."),
        "reminders": p({"type": "array", "items": closed({
            "kind": p({"enum": ["interval", "todo"]}, "`interval`: a service interval; `todo`: a one-off job (`todo:`) by its due day."),
            "key": p({"type": "string", "pattern": "^(bike|part)/[^/]+/([^/]+|todo/[A-Za-z0-9._~%-]+)/(overdue|due-soon|within:[0-9]+d)$"}, "A stable key for this interval or to-do in this band: `bike/ID/INTERVAL/BAND`, `bike/ID/todo/TODO/BAND` (TODO: the to-do's id, else its text percent-encoded), or the same with `part/ID`. The same reminder sent again (after `repeat`) has the same key."),
            "bike": p({"type": ["string", "null"]}, "The bike it is on; null for a part on the shelf."),
            "bike_name": p({"type": ["string", "null"]}, "The bike's name."),
            "part": p({"type": ["string", "null"]}, "The part (in `parts/`) it belongs to; null for a bike's own."),
            "interval": p({"type": ["string", "null"]}, "The interval id; null for a to-do."),
            "todo": p({"type": ["string", "null"]}, "The to-do's id, if it has one; null for an interval."),
            "task": p({"type": "string"}, "What to do: the interval's task, or the to-do's text."),
            "band": p(BAND, "The band crossed: `overdue`, `due-soon` or `within:Nd` (for a to-do, by its due day)."),
            "state": p({"enum": ["overdue", "due-soon", "ok"]}, "Its state: an interval's by progress, a to-do's by its due day."),
            "progress": p({"type": ["number", "null"], "minimum": 0}, "The largest fraction over the interval's limits; null for a to-do."),
            "since": p(NULLABLE_DAY, "The anchor the interval's count starts from; null for a to-do."),
            "due": p(NULLABLE_DAY, "The interval's forecast due day, if any, or the to-do's due day."),
            "text": p({"type": "string"}, "One line for people: `grail: chain-lube: Clean and lube the chain — overdue (112%)`, `grail: to-do: fit mudguards — overdue (due 2026-03-10)`."),
        }, md="One reminder.")}, "The intervals, then the to-dos, most urgent first."),
        "warnings": p({"type": "array", "items": closed({
            "key": p({"type": "string", "pattern": "^stale/(sync|bike/[^/]+)$"}, "A stable key for the warning: `stale/sync` (also for `quiet-garage`), or `stale/bike/ID` for a bike gone quiet."),
            "kind": p({"enum": ["stale-sync", "quiet-bike", "quiet-garage"]}, "`stale-sync`: the last Strava sync (or, with none on record, the newest cached activity) is older than `stale_after`; `quiet-bike`: a bike on Strava has had no ride for `quiet_after` while another has; `quiet-garage`: no bike on Strava has had a ride for `quiet_after`, though the sync is recent."),
            "bike": p({"type": ["string", "null"]}, "The bike a `quiet-bike` warning is about."),
            "since": p(NULLABLE_DAY, "The last sync, or the bike's (for `quiet-garage` the garage's) last ride; null when it has none."),
            "message": p({"type": "string"}, "The warning, as `status` prints it."),
            "help": p({"type": "string"}, "What to do about it."),
            "text": p({"type": "string"}, "One line for people: `warning: MESSAGE — HELP`."),
        }, md="One sign of stale data.")}, "Stale-data warnings not yet sent (or due again after `repeat`): the reminders may be missing something, so that nothing due is not mistaken for all well."),
    },
}, [])

check = "--check" in sys.argv
stale = []
for name, value in [("garage", GARAGE), ("bike", BIKE), ("gear", GEAR), ("template", TEMPLATE), ("rides", RIDES), ("part", PART),
                    ("activities", ACTIVITIES), ("status", STATUS), ("parts", PARTS), ("validate", VALIDATE),
                    ("costs", COSTS), ("usage", USAGE), ("history", HISTORY), ("rides-report", RIDES_REPORT),
                    ("notify-webhook", NOTIFY_WEBHOOK), ("diff", DIFF)]:
    path = ROOT / "schemas" / f"{name}.schema.json"
    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    if check:
        if not path.exists() or path.read_text() != text:
            stale.append(str(path.relative_to(ROOT)))
    else:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
if stale:
    sys.exit("out of date with scripts/generate-schemas.py (run it): " + ", ".join(stale))
