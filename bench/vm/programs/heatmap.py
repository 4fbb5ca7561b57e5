#!/usr/bin/python3
"""Render a weather series as the image the paper's image programs process (FaTVM Section 7:
bitmap grayscale, red-block search): a day x hour heat map of the hourly temperature, colour-
mapped, as an uncompressed 24-bit BMP, and for the JPEG decoder the same picture as a baseline
JPEG (quality 75, 4:2:0 chroma, a restart marker per MCU row: jpegenc.py). Generated at build
time from the project's real data (never committed as a binary); the standard library only.

Usage: heatmap.py series.csv out.bmp [out.jpg]
Layout: x = day of the series (2 px per day), y = hour of the day (20 px per hour, midnight at
the top); colour = temperature on a blue-to-red scale from COLD to HOT degrees C.
"""
import csv
import struct
import sys

import jpegenc

DAY_PX, HOUR_PX = 2, 20
COLD, HOT = -10.0, 35.0
# A diverging blue-yellow-red scale (ColorBrewer RdYlBu, reversed): cold blue, hot dark red.
STOPS = [(49, 54, 149), (69, 117, 180), (171, 217, 233), (254, 224, 144), (244, 109, 67),
         (165, 0, 38)]


def colour(t):
    x = min(max((t - COLD) / (HOT - COLD), 0.0), 1.0) * (len(STOPS) - 1)
    i = min(int(x), len(STOPS) - 2)
    f = x - i
    return tuple(int(round(a + (b - a) * f)) for a, b in zip(STOPS[i], STOPS[i + 1]))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.reader(f))[1:]
    temps = [float(r[1]) for r in rows if len(r) > 1 and r[1] != ""]
    days = len(temps) // 24
    width, height = days * DAY_PX, 24 * HOUR_PX
    stride = (width * 3 + 3) & ~3  # BMP rows are padded to 4 bytes
    colours = [colour(t) for t in temps[:days * 24]]

    def pixel(x, y):
        return colours[(x // DAY_PX) * 24 + y // HOUR_PX]

    pixels = bytearray(stride * height)
    for y in range(height):  # BMP rows run bottom-up: file row 0 is the image's last
        base = (height - 1 - y) * stride
        for x in range(width):
            r, g, b = pixel(x, y)
            pixels[base + 3 * x:base + 3 * x + 3] = bytes((b, g, r))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(pixels), 2835, 2835,
                       0, 0)
    with open(sys.argv[2], "wb") as f:
        f.write(header + info + pixels)
    if len(sys.argv) == 4:
        with open(sys.argv[3], "wb") as f:
            f.write(jpegenc.encode(width, height, pixel, quality=75))


if __name__ == "__main__":
    main()
