#!/usr/bin/env python3
"""Rasterise the hand-drawn ground-truth masks of the segmentation set.

For reviewers, not for CI.  Standard library + Pillow only.

    python3 render_masks.py                      # every masks/*.json -> /tmp/seg-review/
    python3 render_masks.py masks/coffee.json    # one mask
    python3 render_masks.py --out DIR --scale 2  # other folder, enlarged overlays

For each mask NAME.json it writes
    NAME.mask.png     the binary mask (L, 255 = subject, 0 = ground), same size as the image
    NAME.overlay.png  the image with the subject tinted, polygon outlines in red and
                      hole outlines in yellow (enlarged by --scale), for checking by eye

Rasterising rule (the Rust side must use the same one):
    a pixel (x, y) is sampled at its centre (x + 0.5, y + 0.5), in image pixel units with
    the origin at the top-left corner of the image;
    a pixel is in the subject when its centre lies inside at least one of "polygons"
    and inside none of "holes" (polygons filled, then holes cleared);
    "inside" a single ring is decided by the even-odd crossing rule; the rings are simple
    (not self-intersecting), so even-odd and non-zero agree on them;
    no pixel centre lies exactly on an edge of the committed rings, so any correct
    point-in-polygon test gives the same mask as this scanline fill.
A photo without a subject ("subject": null, "polygons": []) rasterises to an all-zero mask.
"""

import argparse
import glob
import json
import os
import sys

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))


def ring_spans(ring, yc):
    """x coordinates where the horizontal line y = yc crosses the ring, sorted."""
    xs = []
    n = len(ring)
    for i in range(n):
        x1, y1 = ring[i]
        x2, y2 = ring[(i + 1) % n]
        # half-open rule: a vertex exactly on the scan line is counted once
        if (y1 <= yc < y2) or (y2 <= yc < y1):
            xs.append(x1 + (yc - y1) * (x2 - x1) / (y2 - y1))
    xs.sort()
    return xs


def fill_rings(rows, rings, width, height, value):
    for ring in rings:
        if len(ring) < 3:
            continue
        ys = [p[1] for p in ring]
        y_lo = max(0, int(min(ys)) - 1)
        y_hi = min(height, int(max(ys)) + 2)
        for y in range(y_lo, y_hi):
            xs = ring_spans(ring, y + 0.5)
            row = rows[y]
            for k in range(0, len(xs) - 1, 2):
                # pixel x is inside when xs[k] <= x + 0.5 < xs[k + 1]
                a = max(0, _ceil(xs[k] - 0.5))
                b = min(width, _ceil(xs[k + 1] - 0.5))
                for x in range(a, b):
                    row[x] = value


def _ceil(v):
    i = int(v)
    return i + 1 if v > i else i


def rasterise(spec):
    w, h = spec["width"], spec["height"]
    rows = [bytearray(w) for _ in range(h)]
    fill_rings(rows, spec.get("polygons") or [], w, h, 255)
    fill_rings(rows, spec.get("holes") or [], w, h, 0)
    return Image.frombytes("L", (w, h), b"".join(bytes(r) for r in rows))


def check(spec, image, path):
    problems = []
    if image.size != (spec["width"], spec["height"]):
        problems.append(f"image is {image.size}, JSON says {(spec['width'], spec['height'])}")
    if spec.get("subject") is None and spec.get("polygons"):
        problems.append("no subject but polygons given")
    if spec.get("subject") is not None and not spec.get("polygons"):
        problems.append("a subject but no polygons")
    for key in ("polygons", "holes"):
        for i, ring in enumerate(spec.get(key) or []):
            for x, y in ring:
                if not (0 <= x <= spec["width"] and 0 <= y <= spec["height"]):
                    problems.append(f"{key}[{i}] has a point outside the image: {x},{y}")
                    break
    for p in problems:
        print(f"{path}: {p}", file=sys.stderr)
    return not problems


def overlay(image, mask, spec, scale):
    base = image.convert("RGB")
    tint = Image.new("RGB", base.size, (0, 120, 255))
    alpha = mask.point(lambda v: 90 if v else 0)
    out = base.copy()
    out.paste(tint, (0, 0), alpha)
    if scale != 1:
        out = out.resize((base.width * scale, base.height * scale), Image.NEAREST)
    draw = ImageDraw.Draw(out)
    for key, colour in (("polygons", (255, 0, 0)), ("holes", (255, 255, 0))):
        for ring in spec.get(key) or []:
            pts = [(x * scale, y * scale) for x, y in ring]
            if len(pts) >= 2:
                draw.line(pts + [pts[0]], fill=colour, width=1)
    label = spec.get("subject") or "no subject"
    draw.rectangle([0, 0, min(out.width, 8 + 6 * len(label)), 14], fill=(0, 0, 0))
    draw.text((4, 2), label, fill=(255, 255, 255))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("masks", nargs="*", help="mask JSON files (default: masks/*.json next to this script)")
    ap.add_argument("--out", default="/tmp/seg-review", help="output folder (default /tmp/seg-review)")
    ap.add_argument("--scale", type=int, default=1, help="enlarge the overlay by this integer factor")
    args = ap.parse_args()

    paths = args.masks or sorted(glob.glob(os.path.join(HERE, "masks", "*.json")))
    os.makedirs(args.out, exist_ok=True)
    ok = True
    for path in paths:
        with open(path) as f:
            spec = json.load(f)
        root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
        image = Image.open(os.path.join(root, spec["image"]))
        ok &= check(spec, image, path)
        mask = rasterise(spec)
        name = os.path.splitext(os.path.basename(path))[0]
        mask.save(os.path.join(args.out, f"{name}.mask.png"))
        overlay(image, mask, spec, args.scale).save(os.path.join(args.out, f"{name}.overlay.png"))
        share = mask.histogram()[255] / (spec["width"] * spec["height"])
        print(f"{name}: {spec['width']}x{spec['height']}, subject covers {share:.1%}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
