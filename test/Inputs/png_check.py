"""Reads a PNG (8-bit RGB, no interlace) with python3's zlib, checks every
chunk's CRC32, undoes the row filters and compares the pixels with a dump
(first line "W H", then one "R G B" line per pixel, rows from the top).
Without a dump, only decodes the file. Prints "PNG OK <file> WxH" or
"FAIL ..."; exits 1 on a failure.
Usage: png_check.py image.png [pixels.txt]"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise ValueError("bad CRC in chunk %r" % kind)
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if (depth, colour) != (8, 2):
                raise ValueError("not 8-bit RGB")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 3 * width
    if len(raw) != height * (stride + 1):
        raise ValueError("wrong decompressed size")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if filt == 2:
            row = bytearray((row[i] + prev[i]) & 255 for i in range(stride))
        elif filt != 0:
            raise ValueError("filter %d not supported here" % filt)
        rows.append(row)
        prev = row
    return width, height, rows


def main():
    png = sys.argv[1]
    try:
        width, height, rows = read_png(png)
    except (ValueError, zlib.error) as err:
        print("FAIL %s: %s" % (png, err))
        return 1
    if len(sys.argv) < 3:
        print("PNG OK %s %dx%d" % (png.split("/")[-1], width, height))
        return 0
    dump = sys.argv[2]
    lines = open(dump).read().split("\n")
    want_w, want_h = map(int, lines[0].split())
    if (width, height) != (want_w, want_h):
        print("FAIL %s: %dx%d, want %dx%d" % (png, width, height, want_w, want_h))
        return 1
    for i in range(width * height):
        y, x = divmod(i, width)
        got = tuple(rows[y][3 * x:3 * x + 3])
        want = tuple(map(int, lines[1 + i].split()))
        if got != want:
            print("FAIL %s: pixel (%d, %d) is %s, want %s" % (png, x, y, got, want))
            return 1
    print("PNG OK %s %dx%d" % (png.split("/")[-1], width, height))
    return 0


if __name__ == "__main__":
    sys.exit(main())
