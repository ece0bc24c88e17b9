"""JAX side of issue 12's benchmark (benchmarks/hessian-sparse/gpu-bench.cu).

The same mass-spring energy over an n x n grid (springs right, down and
diagonal; 3 DOFs per vertex, fp64), its sparse Hessian values on the GPU in
two ways, both jitted, the pattern and slots computed once (numpy):

- vmap(hessian): jax.vmap(jax.hessian(spring)) over the springs' 6 DOFs,
  then the 36 values of each spring added into the CSR values through
  cached slots (values.at[slots].add, an index_add);
- colouring: jax.jacfwd(jax.grad(energy)) restricted to 27 seed vectors
  (vertex colour (r mod 3, c mod 3), times 3 DOFs: vertices of one colour
  share no row), 27 Hessian-vector products in one vmap, then the values
  gathered from them.

Prints a markdown table (median of --reps after 3 warm-ups) and the largest
relative difference between the two. Usage: python3 jax_bench.py [--n=1024]
[--reps=10]
"""

import sys
import time

import numpy as np

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


def grid(n, seed=12):
    rng = np.random.default_rng(seed)
    r, c = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    x = np.stack([c + rng.uniform(-0.1, 0.1, c.shape),
                  r + rng.uniform(-0.1, 0.1, r.shape),
                  rng.uniform(-0.1, 0.1, r.shape)], axis=-1).reshape(-1)
    v = (r * n + c)
    edges, rest = [], []
    for (dr, dc, l0) in [(0, 1, 1.0), (1, 0, 1.0), (1, 1, np.sqrt(2.0))]:
        a = v[:n - dr, :n - dc].reshape(-1)
        b = v[dr:, dc:].reshape(-1)
        edges.append(np.stack([a, b], axis=1))
        rest.append(l0 * (1 + rng.uniform(-0.1, 0.1, a.shape)))
    return x, np.concatenate(edges), np.concatenate(rest)


def pattern(n, edges):
    """CSR rows/columns of the Hessian and each (spring, 6x6 entry)'s slot."""
    dofs = (3 * edges[:, :, None] + np.arange(3)).reshape(len(edges), 6)
    rows = np.repeat(dofs, 6, axis=1).astype(np.int64)
    cols = np.tile(dofs, (1, 6)).astype(np.int64)
    nr = 3 * n * n
    keys = (rows * nr + cols).reshape(-1)
    uniq, slots = np.unique(keys, return_inverse=True)
    return uniq // nr, uniq % nr, slots.astype(np.int32)


def spring(q, rest, k):
    d = q[:3] - q[3:]
    return 0.5 * k * (jnp.sqrt(jnp.dot(d, d)) - rest) ** 2


def median_ms(fn, reps):
    for _ in range(3):
        fn().block_until_ready()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn().block_until_ready()
        times.append((time.perf_counter() - t) * 1e3)
    return sorted(times)[len(times) // 2]


def main():
    n, reps = 1024, 10
    for a in sys.argv[1:]:
        if a.startswith("--n="):
            n = int(a[4:])
        if a.startswith("--reps="):
            reps = int(a[7:])
    k = 3.0
    x, edges, rest = grid(n)
    t = time.perf_counter()
    rows, cols, slots = pattern(n, edges)
    pattern_s = time.perf_counter() - t
    nnz = len(rows)
    xd, ed, rd = jnp.asarray(x), jnp.asarray(edges), jnp.asarray(rest)
    sd = jnp.asarray(slots)

    @jax.jit
    def by_vmap(x):
        q = x.reshape(-1, 3)[ed].reshape(-1, 6)
        local = jax.vmap(jax.hessian(spring), in_axes=(0, 0, None))(q, rd, k)
        return jnp.zeros(nnz, x.dtype).at[sd].add(local.reshape(-1))

    def energy(x):
        q = x.reshape(-1, 3)[ed]
        d = q[:, 0] - q[:, 1]
        return 0.5 * k * jnp.sum((jnp.sqrt(jnp.sum(d * d, axis=1)) - rd) ** 2)

    vr, vc = np.divmod(np.arange(n * n), n)
    colour = (vr % 3) * 3 + (vc % 3)
    seeds = np.zeros((27, 3 * n * n))
    for d in range(3):
        seeds[colour * 3 + d, 3 * np.arange(n * n) + d] = 1.0
    seeds = jnp.asarray(seeds)
    col_seed = jnp.asarray(colour[cols // 3] * 3 + cols % 3)
    rows_d = jnp.asarray(rows)

    @jax.jit
    def by_colouring(x):
        hv = jax.vmap(lambda s: jax.jvp(jax.grad(energy), (x,), (s,))[1])(seeds)
        return hv[col_seed, rows_d]

    t_vmap = median_ms(lambda: by_vmap(xd), reps)
    t_col = median_ms(lambda: by_colouring(xd), reps)
    a, b = np.asarray(by_vmap(xd)), np.asarray(by_colouring(xd))
    diff = np.max(np.abs(a - b)) / np.max(np.abs(a))
    print(f"JAX {jax.__version__} on {jax.devices()[0].device_kind}: "
          f"{n}x{n} grid, {len(edges)} springs, {nnz} nonzeros; pattern and "
          f"slots (numpy, once) {pattern_s:.1f} s")
    print("| JAX variant | ms |")
    print("|---|---|")
    print(f"| jit(vmap(hessian)) + index_add into cached slots | {t_vmap:.3f} |")
    print(f"| jit(jacfwd(grad)) by 27 colours (27 HVPs) + gather | {t_col:.3f} |")
    print(f"max relative difference vmap vs colouring: {diff:.2e}")


if __name__ == "__main__":
    main()
