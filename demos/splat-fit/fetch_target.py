#!/usr/bin/env python3
# ===- demos/splat-fit/fetch_target.py - Make astronaut-256.ppm ------------===#
#
# Rebuilds the demo's target from scikit-image's astronaut.png (Eileen
# Collins, NASA Great Images; "No known copyright restrictions, released
# into the public domain", skimage.data.astronaut): downloads the
# scikit-image wheel with pip (`pip download scikit-image --no-deps`),
# decodes the PNG (zlib and the five PNG filters, numpy), averages 2x2
# blocks and writes a binary PPM of 256 x 256 pixels.
#
#   python3 demos/splat-fit/fetch_target.py [WHEEL] > astronaut-256.ppm
#
# ===----------------------------------------------------------------------===#
import glob, io, os, struct, subprocess, sys, tempfile, zipfile, zlib

import numpy as np


def wheel():
    if len(sys.argv) > 1:
        return sys.argv[1]
    d = tempfile.mkdtemp()
    subprocess.check_call([sys.executable, '-m', 'pip', 'download', '-q',
                           'scikit-image==0.26.0', '--no-deps', '-d', d])
    return glob.glob(os.path.join(d, '*.whl'))[0]


def decode(png):
    pos, idat = 8, b''
    while pos < len(png):
        n = struct.unpack('>I', png[pos:pos + 4])[0]
        kind, body = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, colour = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and colour == 2 and body[12] == 0
        elif kind == b'IDAT':
            idat += body
    raw, bpp, stride = zlib.decompress(idat), 3, 3 * w
    rows, prev = [], np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride,
                             y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, np.int32)
        for x in range(stride):
            a = cur[x - bpp] if x >= bpp else 0
            b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
            p = a + b - c
            pred = [0, a, b, (a + b) >> 1,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                    else (b if abs(p - b) <= abs(p - c) else c)][f]
            cur[x] = (line[x] + pred) & 255
        rows.append(cur)
        prev = cur
    return np.array(rows).reshape(h, w, 3).astype(np.float64)


img = decode(zipfile.ZipFile(wheel()).read('skimage/data/astronaut.png'))
small = np.clip(np.round(img.reshape(256, 2, 256, 2, 3).mean(axis=(1, 3))),
                0, 255).astype(np.uint8)
out = sys.stdout.buffer
out.write(b'P6\n# scikit-image 0.26.0 skimage/data/astronaut.png (NASA, '
          b'public domain), 2x2 box-filtered\n256 256\n255\n')
out.write(small.tobytes())
