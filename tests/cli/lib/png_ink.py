#!/usr/bin/env python3
"""png_ink.py PNG [X0 Y0 X1 Y1] - prints two fractions of the pixels in the
box (default: the whole image): those that differ from white by more than
16 in any channel (ink), and those in colour, whose channels differ by more
than 60 (the charts' bars; text and axes are grey). A small reader of 8-bit RGB/RGBA PNGs (what Chromium writes):
zlib-inflate the IDAT chunks and undo the five row filters (PNG spec §9)."""
import struct
import sys
import zlib


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                sys.exit("unsupported PNG: depth %d colour type %d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


w, h, bpp, rows = read(sys.argv[1])
x0, y0, x1, y1 = (int(v) for v in sys.argv[2:6]) if len(sys.argv) >= 6 else (0, 0, w, h)
x1, y1 = min(x1, w), min(y1, h)
ink = total = colour = 0
for y in range(y0, y1):
    r = rows[y]
    for x in range(x0, x1):
        p = r[x * bpp:x * bpp + 3]
        total += 1
        if min(p) < 255 - 16:
            ink += 1
        if max(p) - min(p) > 60:
            colour += 1
print("%.4f %.4f" % (ink / total if total else 0, colour / total if total else 0))
