"""Ride files for RideFileTests, written and read by other programs than bikecheck.

  ridefiles.py gpx OUT --start ISO --seconds N [--stop-from S --stop-for N] [--type cycling]
      a GPX track (a point every 2 s, 7 m/s east, climbing and descending)
  ridefiles.py fit OUT --start ISO --seconds N --serial N [--device N] [--sub-sport N] [--no-positions]
      a FIT activity written by fit-tool: file_id (with the serial), device_info, records, a session
  ridefiles.py reference FILE
      what Garmin's FIT SDK (for .fit) or gpxpy (for .gpx) reads: JSON on standard output
"""
import argparse
import datetime
import json
import math
import sys


def track(start, seconds, stop_from, stop_for):
    lat, lon = 47.37, 8.54
    t0 = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))
    points = []
    for i in range(0, seconds + 1, 2):
        v = 0.0 if stop_from is not None and stop_from <= i < stop_from + stop_for else 7.0
        lon += v * 2 / (111320 * math.cos(math.radians(lat)))
        lat += 0.5 * math.sin(i / 300) / 111320
        points.append((lat, lon, 400 + 20 * math.sin(i / 200), t0 + datetime.timedelta(seconds=i)))
    return points


def write_gpx(a):
    with open(a.out, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<gpx version="1.1" creator="ridefiles.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
        f.write(f"<trk><name>Test ride</name><type>{a.type}</type><trkseg>\n")
        for la, lo, e, t in track(a.start, a.seconds, a.stop_from, a.stop_for):
            f.write(f'<trkpt lat="{la:.7f}" lon="{lo:.7f}"><ele>{e:.1f}</ele><time>{t.strftime("%Y-%m-%dT%H:%M:%SZ")}</time></trkpt>\n')
        f.write("</trkseg></trk></gpx>\n")


def write_fit(a):
    from fit_tool.fit_file_builder import FitFileBuilder
    from fit_tool.profile.messages.device_info_message import DeviceInfoMessage
    from fit_tool.profile.messages.file_id_message import FileIdMessage
    from fit_tool.profile.messages.record_message import RecordMessage
    from fit_tool.profile.messages.session_message import SessionMessage
    from fit_tool.profile.profile_type import FileType, Manufacturer, Sport, SubSport

    points = track(a.start, a.seconds, a.stop_from, a.stop_for)
    ms = lambda t: round(t.timestamp() * 1000)
    builder = FitFileBuilder(auto_define=True, min_string_size=50)
    m = FileIdMessage()
    m.type = FileType.ACTIVITY
    m.manufacturer = Manufacturer.GARMIN.value
    m.product = 3121
    m.time_created = ms(points[0][3])
    m.serial_number = a.serial
    builder.add(m)
    if a.device is not None:
        d = DeviceInfoMessage()
        d.timestamp = ms(points[0][3])
        d.device_index = 1
        d.serial_number = a.device
        d.manufacturer = Manufacturer.GARMIN.value
        builder.add(d)
    distance = 0.0
    previous = None
    moving = 0.0
    for la, lo, e, t in points:
        r = RecordMessage()
        r.timestamp = ms(t)
        if previous:
            step = haversine(previous[0], previous[1], la, lo)
            distance += step
            if step / 2 >= 1 / 3.6:
                moving += 2
        if not a.no_positions:
            r.position_lat = la
            r.position_long = lo
        r.altitude = e
        r.distance = distance
        builder.add(r)
        previous = (la, lo)
    s = SessionMessage()
    s.timestamp = ms(points[-1][3])
    s.start_time = ms(points[0][3])
    s.sport = Sport.CYCLING
    s.sub_sport = SubSport(a.sub_sport)
    s.total_elapsed_time = (points[-1][3] - points[0][3]).total_seconds()
    s.total_timer_time = moving
    s.total_distance = distance
    s.total_ascent = 123
    builder.add(s)
    builder.build().to_file(a.out)


def haversine(lat1, lon1, lat2, lon2):
    r = math.pi / 180
    d_lat, d_lon = (lat2 - lat1) * r, (lon2 - lon1) * r
    h = math.sin(d_lat / 2) ** 2 + math.cos(lat1 * r) * math.cos(lat2 * r) * math.sin(d_lon / 2) ** 2
    return 2 * 6371000 * math.atan2(math.sqrt(h), math.sqrt(1 - h))


def reference(a):
    if a.file.endswith(".gpx"):
        import gpxpy

        with open(a.file) as f:
            g = gpxpy.parse(f)
        start, end = g.get_time_bounds()
        moving = g.get_moving_data()
        out = {"start": int(start.timestamp()), "elapsed": (end - start).total_seconds(), "distance": g.length_2d(),
               "moving": moving.moving_time}
    else:
        from garmin_fit_sdk import Decoder, Stream

        messages, errors = Decoder(Stream.from_file(a.file)).read()
        if errors:
            print(json.dumps({"errors": [str(e) for e in errors]}))
            return
        out = {"serials": [m["serial_number"] for m in messages.get("file_id_mesgs", []) + messages.get("device_info_mesgs", []) if m.get("serial_number")]}
        sessions = messages.get("session_mesgs") or []
        records = messages.get("record_mesgs") or []
        if sessions:
            s = sessions[0]
            out.update({"start": int(s["start_time"].timestamp()), "elapsed": s.get("total_elapsed_time"), "moving": s.get("total_timer_time"),
                        "distance": s.get("total_distance"), "sub_sport": str(s.get("sub_sport"))})
        elif records:
            out.update({"start": int(records[0]["timestamp"].timestamp()),
                        "elapsed": (records[-1]["timestamp"] - records[0]["timestamp"]).total_seconds(),
                        "distance": max(r.get("distance") or 0 for r in records)})
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("gpx", "fit"):
        w = sub.add_parser(name)
        w.add_argument("out")
        w.add_argument("--start", default="2026-05-01T06:30:00Z")
        w.add_argument("--seconds", type=int, default=3600)
        w.add_argument("--stop-from", type=int)
        w.add_argument("--stop-for", type=int, default=300)
        w.add_argument("--type", default="cycling")
        w.add_argument("--serial", type=int, default=3980001234)
        w.add_argument("--device", type=int)
        w.add_argument("--sub-sport", type=int, default=7)
        w.add_argument("--no-positions", action="store_true")
    r = sub.add_parser("reference")
    r.add_argument("file")
    a = p.parse_args()
    {"gpx": write_gpx, "fit": write_fit, "reference": reference}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
