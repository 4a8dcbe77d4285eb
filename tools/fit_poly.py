#!/usr/bin/env python3
"""Fits the minimax polynomials used by kineform::lanes (Lawson's iteratively
reweighted least squares in float64), then reports the max error of the
float32 Horner evaluation. Run: python3 tools/fit_poly.py (needs numpy).

The coefficients it prints are the ones in src/lanes/math.rs."""
import numpy as np

def lawson(f, basis, a, b, rel=True, iters=400, n=4000):
    x = 0.5 * (a + b) + 0.5 * (b - a) * np.cos(np.linspace(0, np.pi, n))
    A = np.stack([g(x) for g in basis], axis=1)
    y = f(x)
    wscale = 1.0 / np.abs(y) if rel else np.ones_like(y)
    w = np.ones_like(x) / n
    for _ in range(iters):
        sw = np.sqrt(w) * wscale
        c, *_ = np.linalg.lstsq(A * sw[:, None], y * sw, rcond=None)
        err = np.abs(A @ c - y) * wscale
        w = w * err
        w /= w.sum()
    return c, err.max()

def horner32(cs, s):
    s = s.astype(np.float32)
    r = np.float32(cs[-1]) * np.ones_like(s)
    for c in cs[-2::-1]:
        r = (r * s + np.float32(c)).astype(np.float32)
    return r

# atan(t) = t + t^3 P(t^2) on [0, 1], relative error.
deg = 7
basis = [lambda t, k=k: t ** (2 * k + 3) for k in range(deg)]
c, e = lawson(lambda t: np.arctan(t) - t, basis, 1e-4, 1.0, rel=False)
t = np.linspace(0, 1, 200001).astype(np.float32)
s = (t * t).astype(np.float32)
approx = (t + t * s * horner32(c, s)).astype(np.float32)
print("ATAN", [float(np.float32(v)) for v in c], "f32 max abs err", np.abs(approx - np.arctan(t.astype(np.float64))).max())

# sin(r) = r + r^3 S(r^2) on [0, pi/4]
basis = [lambda r, k=k: r ** (2 * k + 3) for k in range(3)]
c, e = lawson(lambda r: np.sin(r) - r, basis, 1e-4, np.pi / 4, rel=False)
r = np.linspace(0, np.pi / 4, 200001).astype(np.float32)
s = (r * r).astype(np.float32)
approx = (r + r * s * horner32(c, s)).astype(np.float32)
print("SIN", [float(np.float32(v)) for v in c], "f32 max abs err", np.abs(approx - np.sin(r.astype(np.float64))).max())

# cos(r) = 1 - r^2/2 + r^4 C(r^2) on [0, pi/4]
basis = [lambda r, k=k: r ** (2 * k + 4) for k in range(3)]
c, e = lawson(lambda r: np.cos(r) - 1 + r * r / 2, basis, 1e-4, np.pi / 4, rel=False)
approx = (1 - s / 2 + s * s * horner32(c, s)).astype(np.float32)
print("COS", [float(np.float32(v)) for v in c], "f32 max abs err", np.abs(approx - np.cos(r.astype(np.float64))).max())
