"""Speed of evstat.belief: the binary Dempster fast path and the fast Moebius transforms.

Run:  python benchmarks/bench_belief.py [--quick]

Prints one line per case: the best wall time over a few repeats (after one warm-up run).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import numpy as np

from evstat.belief import (
    Frame,
    MassArray,
    bel_to_mass,
    combine,
    decide,
    loss_matrix,
    mass_to_bel,
    mass_to_pl,
    mass_to_q,
    pl_to_mass,
    q_to_mass,
    rules,
)


def best_time(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def random_masses(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    v = rng.random((n, 1 << k))
    v[:, 0] = 0.0
    return v / v.sum(axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    args = parser.parse_args()
    repeat = 2 if args.quick else 5
    n_bin = 100_000 if args.quick else 1_000_000
    rng = np.random.default_rng(2024)
    rows: list[tuple[str, str, float]] = []

    # --- binary frame: one million pairs, Dempster's rule ---------------------------------------
    p = rng.dirichlet([1.0, 1.0, 1.0], size=n_bin)
    r = rng.dirichlet([1.0, 1.0, 1.0], size=n_bin)
    a = MassArray.from_binary(m0=p[:, 0], m1=p[:, 1], m01=p[:, 2])
    b = MassArray.from_binary(m0=r[:, 0], m1=r[:, 1], m01=r[:, 2])
    size = f"n = {n_bin:,}"
    rows.append(("binary: MassArray.from_binary (validated)", size,
                 best_time(lambda: MassArray.from_binary(m0=p[:, 0], m1=p[:, 1], m01=p[:, 2]), repeat)))
    rows.append(("binary: combine(a, b, rule='dempster')", size, best_time(lambda: combine(a, b), repeat)))
    rows.append(("binary: combine(a, b, rule='conjunctive')", size,
                 best_time(lambda: combine(a, b, rule="conjunctive"), repeat)))
    av, bv = a.values, b.values
    rows.append(("binary: Dempster, general q-product path", size,
                 best_time(lambda: rules.dempster(av, bv, method="moebius"), repeat)))
    ab = combine(a, b)
    loss = loss_matrix(a.frame, reject=0.15)
    rows.append(("binary: decide(strategy='pessimistic'), reject 0.15", size,
                 best_time(lambda: decide(ab, loss, strategy="pessimistic"), repeat)))

    # --- Moebius transforms on a 16-element frame ------------------------------------------------
    k = 14 if args.quick else 16
    m = random_masses(rng, 1, k)[0]
    bel, pl, q = mass_to_bel(m), mass_to_pl(m), mass_to_q(m)
    one = f"K = {k}, 1 x {1 << k:,}"
    for name, fn, x in (
        ("m -> bel", mass_to_bel, m),
        ("m -> pl", mass_to_pl, m),
        ("m -> q", mass_to_q, m),
        ("bel -> m", bel_to_mass, bel),
        ("pl -> m", pl_to_mass, pl),
        ("q -> m", q_to_mass, q),
    ):
        rows.append((f"Moebius: {name}", one, best_time(lambda fn=fn, x=x: fn(x), repeat)))
    err = max(
        np.abs(bel_to_mass(bel) - m).max(), np.abs(pl_to_mass(pl) - m).max(), np.abs(q_to_mass(q) - m).max()
    )

    nb = 16 if args.quick else 64
    batch = random_masses(rng, nb, k)
    many = f"K = {k}, {nb} x {1 << k:,}"
    rows.append(("Moebius batch: m -> q", many, best_time(lambda: mass_to_q(batch), repeat)))
    qb = mass_to_q(batch)
    rows.append(("Moebius batch: q -> m", many, best_time(lambda: q_to_mass(qb), repeat)))

    # --- general frames: conjunctive rule on batches ---------------------------------------------
    for kk, n in ((4, 100_000), (10, 1_000)):
        if args.quick:
            n //= 10
        x, y = random_masses(rng, n, kk), random_masses(rng, n, kk)
        f = Frame(range(kk))
        xa, ya = MassArray(f, x), MassArray(f, y)
        rows.append(("batch Dempster, dense masses (auto: q-product)", f"K = {kk}, n = {n:,}",
                     best_time(lambda xa=xa, ya=ya: combine(xa, ya), repeat)))

    width = max(len(r[0]) for r in rows)
    swidth = max(len(r[1]) for r in rows)
    print(f"evstat.belief benchmarks (numpy {np.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}); best of {repeat}")
    print(f"{'case':<{width}}  {'size':<{swidth}}  {'time':>10}")
    print("-" * (width + swidth + 14))
    for name, sz, t in rows:
        shown = f"{t * 1e3:8.1f} ms" if t < 10 else f"{t:8.2f} s "
        print(f"{name:<{width}}  {sz:<{swidth}}  {shown:>10}")
    print(f"max |inverse(transform(m)) - m| on K = {k}: {err:.1e}")


if __name__ == "__main__":
    main()
