"""A small baseline JPEG encoder (ITU-T T.81 sequential DCT, Huffman coded, 8-bit) in Python's
standard library only: it writes the JPEG decoder program's input (jpeg.c) at build time, so no
imaging package is needed. Written from the standard's description: FDCT (A.3.3), the example
quantisation tables of Annex K.1 scaled like the IJG quality setting, the example Huffman tables
of Annex K.3 (bits and values), JFIF's YCbCr with 2 x 2 chroma subsampling (4:2:0) by averaging,
and a restart interval (one per MCU row) so the decoder's RSTn path runs too.

encode(width, height, pixel, quality) -> bytes, where pixel(x, y) returns (r, g, b), y = 0 at
the top. Slow (pure Python, about a second per 100k pixels) but only run once per build.
"""
import math
import struct

# Annex K.1 / K.2, natural (row-major) order
LUMA_Q = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
          14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
          18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
          49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
CHROMA_Q = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
            24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32


def _run(first, last):
    return list(range(first, last + 1))


# Annex K.3: (BITS: codes of each length 1..16, HUFFVAL)
DC_LUMA = ([0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], _run(0, 11))
DC_CHROMA = ([0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], _run(0, 11))
AC_LUMA = ([0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D],
           [0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13,
            0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42,
            0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A,
            0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A]
           + _run(0x34, 0x3A) + _run(0x43, 0x4A) + _run(0x53, 0x5A) + _run(0x63, 0x6A)
           + _run(0x73, 0x7A) + _run(0x83, 0x8A) + _run(0x92, 0x9A) + _run(0xA2, 0xAA)
           + _run(0xB2, 0xBA) + _run(0xC2, 0xCA) + _run(0xD2, 0xDA) + _run(0xE1, 0xEA)
           + _run(0xF1, 0xFA))
AC_CHROMA = ([0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
             [0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51,
              0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1,
              0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0, 0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24,
              0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26, 0x27, 0x28, 0x29, 0x2A]
             + _run(0x35, 0x3A) + _run(0x43, 0x4A) + _run(0x53, 0x5A) + _run(0x63, 0x6A)
             + _run(0x73, 0x7A) + _run(0x82, 0x8A) + _run(0x92, 0x9A) + _run(0xA2, 0xAA)
             + _run(0xB2, 0xBA) + _run(0xC2, 0xCA) + _run(0xD2, 0xDA) + _run(0xE2, 0xEA)
             + _run(0xF2, 0xFA))


def zigzag_order():
    """Natural-order index of each zigzag position: walk the anti-diagonals, alternating."""
    order = []
    for d in range(15):
        cells = [(r, d - r) for r in range(8) if 0 <= d - r < 8]  # row r, column d - r
        if d % 2 == 0:
            cells.reverse()  # even diagonals run upwards (row decreasing)
        order += [r * 8 + c for r, c in cells]
    return order


def scaled(table, quality):
    """The IJG scaling of an Annex K table for quality 1..100."""
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return [min(max((q * scale + 50) // 100, 1), 255) for q in table]


def code_table(spec):
    """Symbol -> (code, length), generated as in Annex C."""
    bits, values = spec
    assert sum(bits) == len(values) == len(set(values))
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[values[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


class BitWriter:
    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, length):
        self.acc = (self.acc << length) | (value & ((1 << length) - 1))
        self.n += length
        while self.n >= 8:
            self.n -= 8
            byte = (self.acc >> self.n) & 0xFF
            self.out.append(byte)
            if byte == 0xFF:
                self.out.append(0)  # byte stuffing (F.1.2.3)
        self.acc &= (1 << self.n) - 1

    def align(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)  # pad with 1-bits


COS = [[(math.sqrt(0.5) if u == 0 else 1.0) * math.cos((2 * x + 1) * u * math.pi / 16) / 2
        for x in range(8)] for u in range(8)]


def fdct(block):
    """block: 64 level-shifted samples, natural order -> 64 coefficients, natural order."""
    rows = [[sum(c * s for c, s in zip(COS[u], block[y * 8:y * 8 + 8])) for u in range(8)]
            for y in range(8)]
    out = [0.0] * 64
    for u in range(8):
        column = [rows[y][u] for y in range(8)]
        for v in range(8):
            out[v * 8 + u] = sum(c * s for c, s in zip(COS[v], column))
    return out


def size_of(value):
    return abs(value).bit_length()


def encode_block(w, block, quant, zz, dc, ac, pred):
    """Quantise and Huffman-code one block; returns the new DC prediction."""
    coef = fdct(block)
    q = [int(round(coef[zz[k]] / quant[zz[k]])) for k in range(64)]  # zigzag order
    diff = q[0] - pred
    s = size_of(diff)
    w.put(*dc[s])
    if s:
        w.put(diff if diff > 0 else diff - 1, s)  # negative: one's complement (F.1.2.1)
    run = 0
    for k in range(1, 64):
        if q[k] == 0:
            run += 1
            continue
        while run > 15:
            w.put(*ac[0xF0])  # ZRL: 16 zeros
            run -= 16
        s = size_of(q[k])
        w.put(*ac[(run << 4) | s])
        w.put(q[k] if q[k] > 0 else q[k] - 1, s)
        run = 0
    if run:
        w.put(*ac[0x00])  # EOB
    return q[0]


def planes(width, height, pixel, mcux, mcuy):
    """Y at full size, Cb and Cr averaged over 2 x 2, all padded to whole MCUs (edge repeated)."""
    pw, ph = mcux * 16, mcuy * 16
    y_plane, cb_full, cr_full = [], [], []
    for j in range(ph):
        for i in range(pw):
            r, g, b = pixel(min(i, width - 1), min(j, height - 1))
            y_plane.append(0.299 * r + 0.587 * g + 0.114 * b - 128)
            cb_full.append(-0.168736 * r - 0.331264 * g + 0.5 * b)
            cr_full.append(0.5 * r - 0.418688 * g - 0.081312 * b)

    def half(full):
        return [(full[2 * j * pw + 2 * i] + full[2 * j * pw + 2 * i + 1] +
                 full[(2 * j + 1) * pw + 2 * i] + full[(2 * j + 1) * pw + 2 * i + 1]) / 4
                for j in range(ph // 2) for i in range(pw // 2)]
    return y_plane, half(cb_full), half(cr_full)


def cut(plane, stride, bx, by):
    return [plane[(by * 8 + y) * stride + bx * 8 + x] for y in range(8) for x in range(8)]


def segment(marker, payload):
    return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload


def headers(width, height, lq, cq, restart):
    zz = zigzag_order()
    out = b"\xFF\xD8" + segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    out += segment(0xDB, bytes([0]) + bytes(lq[k] for k in zz) + bytes([1]) +
                   bytes(cq[k] for k in zz))
    out += segment(0xC0, struct.pack(">BHHB", 8, height, width, 3) +
                   bytes([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]))
    for tc_th, (bits, values) in ((0x00, DC_LUMA), (0x10, AC_LUMA), (0x01, DC_CHROMA),
                                  (0x11, AC_CHROMA)):
        out += segment(0xC4, bytes([tc_th] + bits + values))
    out += segment(0xDD, struct.pack(">H", restart))
    out += segment(0xDA, bytes([3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]))
    return out


def encode(width, height, pixel, quality=75):
    mcux, mcuy = (width + 15) // 16, (height + 15) // 16
    lq, cq = scaled(LUMA_Q, quality), scaled(CHROMA_Q, quality)
    zz = zigzag_order()
    luma_dc, luma_ac = code_table(DC_LUMA), code_table(AC_LUMA)
    chroma_dc, chroma_ac = code_table(DC_CHROMA), code_table(AC_CHROMA)
    yp, cbp, crp = planes(width, height, pixel, mcux, mcuy)
    w = BitWriter()
    for my in range(mcuy):
        if my:  # restart interval = one MCU row: byte-align, RSTn, reset the predictions
            w.align()
            w.out += bytes([0xFF, 0xD0 + (my - 1) % 8])
        pred = [0, 0, 0]
        for mx in range(mcux):
            for by in range(2):
                for bx in range(2):
                    pred[0] = encode_block(w, cut(yp, mcux * 16, mx * 2 + bx, my * 2 + by), lq,
                                           zz, luma_dc, luma_ac, pred[0])
            for c, plane in ((1, cbp), (2, crp)):
                pred[c] = encode_block(w, cut(plane, mcux * 8, mx, my), cq, zz, chroma_dc,
                                       chroma_ac, pred[c])
    w.align()
    return headers(width, height, lq, cq, mcux) + bytes(w.out) + b"\xFF\xD9"
