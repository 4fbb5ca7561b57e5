#!/usr/bin/python3
"""The JPEG decoder program (bench/vm/programs/jpeg.c) decodes correctly and survives damage.

Usage: jpeg_check.py DECODER image.jpg source.bmp
1. Fidelity: the decoded bitmap against the picture the JPEG was encoded from (heatmap.py's BMP;
   quality 75, 4:2:0). Measured when written: mean absolute error 3.96 per sample, 0.76 % of
   samples off by more than 16 (the picture's 2-pixel day stripes under 16 x 16 chroma blocks).
   A decoder that swaps chroma, misreads the zigzag order or the quantisation is far beyond the
   bounds (a quantiser indexed in the wrong order, once in the encoder, gave 9.7 and 19 %).
2. Damage: truncated files and files with random bytes overwritten (a fixed seed) are either
   decoded or refused with the program's message and exit status 1: never a sanitizer report,
   another status or a hang.
"""
import os
import random
import subprocess
import sys
import tempfile

MEAN_BOUND, FAR, FAR_SHARE_BOUND = 5.0, 16, 0.02
DAMAGED = 40


def bmp_pixels(data):
    """(width, height, rows top-down of b, g, r bytes) of a bottom-up 24-bit BMP."""
    offset = int.from_bytes(data[10:14], "little")
    width = int.from_bytes(data[18:22], "little")
    height = int.from_bytes(data[22:26], "little")
    stride = (width * 3 + 3) & ~3
    rows = [data[offset + (height - 1 - y) * stride:][:width * 3] for y in range(height)]
    return width, height, rows


def fidelity(decoder, jpg, source, tmp):
    out = os.path.join(tmp, "decoded.bmp")
    subprocess.run([decoder, jpg, out], check=True, stdout=subprocess.DEVNULL, timeout=120)
    with open(out, "rb") as f:
        got = bmp_pixels(f.read())
    with open(source, "rb") as f:
        want = bmp_pixels(f.read())
    if got[:2] != want[:2]:
        return "size %s, source %s" % (got[:2], want[:2])
    total = far = samples = 0
    for a, b in zip(got[2], want[2]):
        for x, y in zip(a, b):
            d = abs(x - y)
            total += d
            far += d > FAR
            samples += 1
    mean, share = total / samples, far / samples
    print("fidelity: mean |error| %.2f per sample, %.2f %% off by more than %d"
          % (mean, 100 * share, FAR))
    if mean > MEAN_BOUND or share > FAR_SHARE_BOUND:
        return "beyond the bounds (mean %.1f, %.0f %%)" % (MEAN_BOUND, 100 * FAR_SHARE_BOUND)
    return None


def damaged_variants(data):
    rng = random.Random(14)
    for i in range(DAMAGED):
        if i % 4 == 0:
            n = rng.randrange(len(data))
            yield "truncated at %d" % n, data[:n]
        else:
            d = bytearray(data)
            spots = [rng.randrange(len(d)) for _ in range(1 + i % 5)]
            for at in spots:
                d[at] = rng.randrange(256)
            yield "bytes %s overwritten" % spots, bytes(d)


def damage(decoder, jpg, tmp):
    with open(jpg, "rb") as f:
        data = f.read()
    path = os.path.join(tmp, "damaged.jpg")
    errors, refused = [], 0
    for what, d in damaged_variants(data):
        with open(path, "wb") as f:
            f.write(d)
        try:
            p = subprocess.run([decoder, path], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            errors.append("%s: hangs" % what)
            continue
        clean_refusal = p.returncode == 1 and p.stderr.startswith("jpeg: not a baseline JPEG")
        if p.returncode == 0 and not p.stderr:
            continue
        if clean_refusal:
            refused += 1
            continue
        errors.append("%s: exit %d, %s" % (what, p.returncode, p.stderr.strip()[:300]))
    print("damage: %d files, %d refused, %d decoded, %d wrong" % (
        DAMAGED, refused, DAMAGED - refused - len(errors), len(errors)))
    return errors


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    decoder, jpg, source = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        problems = [p for p in [fidelity(decoder, jpg, source, tmp)] if p]
        problems += damage(decoder, jpg, tmp)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
