#!/usr/bin/env python3
"""Checks a screenshot of an `amble report` page: not blank, and the charts' colours drawn.

    pixels.py FILE.png NAME=RRGGBB:MIN_PIXELS ...

Reads the PNG with Pillow when present, else with the standard library alone (8-bit RGB or RGBA, not interlaced: what
Chromium writes). Prints the figures and exits 1 when a check fails.
"""
import struct
import sys
import zlib


def read_png(path):
    try:
        from PIL import Image  # much faster when present (Debian: python3-pil)
        image = Image.open(path).convert("RGB")
        colours = image.getcolors(maxcolors=image.width * image.height)
        return image.width, image.height, {colour: count for count, colour in colours}
    except ImportError:
        pass
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise SystemExit(f"{path}: PNG depth {depth}, colour type {colour}, interlace {interlace} not handled")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    counts = {}
    for row in rows:
        for i in range(0, stride, channels):
            colour = (row[i], row[i + 1], row[i + 2])
            counts[colour] = counts.get(colour, 0) + 1
    return width, height, counts


def main():
    path, wanted = sys.argv[1], sys.argv[2:]
    width, height, counts = read_png(path)
    total = width * height
    background, _ = max(counts.items(), key=lambda item: item[1])
    ink = sum(n for colour, n in counts.items() if max(abs(colour[i] - background[i]) for i in range(3)) > 40)
    share = ink / total
    print(f"{path}: {width}x{height}, {len(counts)} colours, {share:.1%} of the pixels away from the background")
    failed = []
    if len(counts) < 20 or share < 0.01:
        failed.append("the page looks blank")
    for spec in wanted:
        name, rest = spec.split("=")
        hex_colour, minimum = rest.split(":")
        target = tuple(int(hex_colour[i:i + 2], 16) for i in (0, 2, 4))
        found = sum(n for colour, n in counts.items() if max(abs(colour[i] - target[i]) for i in range(3)) <= 24)
        print(f"  {name} (#{hex_colour}): {found} pixels")
        if found < int(minimum):
            failed.append(f"{name}: {found} pixels of #{hex_colour}, expected at least {minimum}")
    for failure in failed:
        print(f"  FAILED: {failure}")
    sys.exit(1 if failed else 0)


main()
