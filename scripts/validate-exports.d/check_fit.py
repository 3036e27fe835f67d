#!/usr/bin/env python3
"""Checks `amble export --format fit` files with Garmin's own decoder (garmin-fit-sdk, PyPI; a
test harness only, never part of Amble).

    check_fit.py SESSIONS_CSV FILE.fit...

SESSIONS_CSV is `amble export --format csv`'s amble-sessions.csv for the same sessions. For each
file (amble-walk-ID-...): the decoder reads it with no error and its integrity (header, CRC)
holds; the session and every lap say sport = walking; the session's totals equal the
summary's (steps as 2 x strides, distance, calories, average and maximum heart rate); the laps
add up to the session (strides, distance, timer time); the records' distance never goes back
and ends at the session's. Prints one `ok` line per file; exits 1 on the first file that fails.
"""
import csv
import re
import sys

from garmin_fit_sdk import Decoder, Stream


def summary_rows(path):
    with open(path, newline="") as f:
        return {row["session_id"]: row for row in csv.DictReader(f)}


def steps(message):
    return round(2 * (message.get("total_cycles", 0) + message.get("total_fractional_cycles", 0)))


def check(path, sessions):
    problems = []
    if not Decoder(Stream.from_file(path)).check_integrity():
        problems.append("integrity check failed")
    messages, errors = Decoder(Stream.from_file(path)).read()
    problems += [f"decoder: {error}" for error in errors]
    session_id = re.search(r"amble-walk-(\d+)-", path).group(1)
    expected = sessions[session_id]
    (session,) = messages["session_mesgs"]
    laps = messages["lap_mesgs"]
    records = messages.get("record_mesgs", [])
    if session.get("sport") != "walking" or any(lap.get("sport") != "walking" for lap in laps):
        problems.append(f"sport {session.get('sport')}, laps {[lap.get('sport') for lap in laps]}")

    def same(name, got, want, tolerance=0.0):
        if want is None or got is None or abs(got - want) > tolerance:
            problems.append(f"{name} {got}, expected {want}")

    number = lambda key: float(expected[key]) if expected[key] != "" else None
    same("steps", steps(session), int(expected["steps"]))
    same("distance", session["total_distance"], number("distance_m"), 0.051)
    if number("active_kcal") is not None:
        same("calories", session.get("total_calories"), number("active_kcal"), 0.5 + 1e-9)
    for key, field in (("avg_hr_bpm", "avg_heart_rate"), ("max_hr_bpm", "max_heart_rate")):
        if number(key) is not None:
            same(field, session.get(field), number(key), 0.5 + 1e-9)
    same("laps", len(laps), session["num_laps"])
    same("lap steps", sum(steps(lap) for lap in laps), steps(session))
    same("lap distance", sum(lap["total_distance"] for lap in laps), session["total_distance"], 0.0051)
    same("lap timer", sum(lap["total_timer_time"] for lap in laps), session["total_timer_time"], 0.0011)
    distances = [record["distance"] for record in records if "distance" in record]
    if any(b < a for a, b in zip(distances, distances[1:])):
        problems.append("a record's distance goes back")
    if distances:
        same("last record's distance", distances[-1], session["total_distance"], 0.0051)
    if problems:
        print(f"FAILED {path}: " + "; ".join(problems))
        return False
    print(f"ok {path}: walking, {steps(session)} steps, {session['total_distance']:.2f} m, "
          f"{len(laps)} laps, {len(records)} records")
    return True


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sessions = summary_rows(sys.argv[1])
    results = [check(path, sessions) for path in sys.argv[2:]]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
