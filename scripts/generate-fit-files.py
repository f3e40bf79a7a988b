#!/usr/bin/env python3
"""Writes N FIT activity files for benchmarking `bikecheck import files` (scripts/BENCHMARKS.md).

  scripts/generate-fit-files.py OUT_DIR [--count 1000] [--records 900] [--serial 3980001234]

Each file is a minimal, valid FIT activity: a file_id with the device's serial number, one record
every 2 s (position and distance) and a session, 13 hours apart from the one before, with both
CRCs. Written by hand here because fit-tool takes seconds per file; the decoder's correctness is
tested against fit-tool's and gpsbabel's files and Garmin's SDK (Tests/RideFilesTests).
"""
import argparse
import os
import struct

CRC_TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
FIT_EPOCH = 631065600


def crc(data, c=0):
    for b in data:
        t = CRC_TABLE[c & 0xF]; c = (c >> 4) & 0x0FFF; c = c ^ t ^ CRC_TABLE[b & 0xF]
        t = CRC_TABLE[c & 0xF]; c = (c >> 4) & 0x0FFF; c = c ^ t ^ CRC_TABLE[(b >> 4) & 0xF]
    return c


def definition(local, number, fields):
    return bytes([0x40 | local, 0, 0]) + struct.pack('<HB', number, len(fields)) + b''.join(bytes(f) for f in fields)


def activity(start, records, serial):
    body = bytearray()
    body += definition(0, 0, [(0, 1, 0), (1, 2, 0x84), (3, 4, 0x8C), (4, 4, 0x86)])
    body += bytes([0]) + struct.pack('<BHII', 4, 1, serial, start)
    body += definition(1, 20, [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (5, 4, 0x86)])
    lat, lon = int(47.37 / 180 * 2**31), int(8.54 / 180 * 2**31)
    distance = 0.0
    for k in range(records):
        body += bytes([1]) + struct.pack('<Iiii', start + 2 * k, lat, lon + k * 2000, int(distance * 100))
        distance += 14.0
    body += definition(2, 18, [(253, 4, 0x86), (2, 4, 0x86), (5, 1, 0), (6, 1, 0), (7, 4, 0x86), (8, 4, 0x86), (9, 4, 0x86), (22, 2, 0x84)])
    seconds = 2 * records
    body += bytes([2]) + struct.pack('<IIBBIIIH', start + seconds, start, 2, 7, seconds * 1000, seconds * 1000, int(distance * 100), 100)
    header = bytearray(struct.pack('<BBHI4s', 14, 0x20, 2132, len(body), b'.FIT'))
    header += struct.pack('<H', crc(header))
    whole = header + body
    return whole + struct.pack('<H', crc(whole))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--records", type=int, default=900)
    p.add_argument("--serial", type=int, default=3980001234)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    first = 1704092400 - FIT_EPOCH  # 2024-01-01T07:00:00Z
    for i in range(a.count):
        with open(os.path.join(a.out, f"r{i:04d}.fit"), "wb") as f:
            f.write(activity(first + i * 13 * 3600, a.records, a.serial))


if __name__ == "__main__":
    main()
