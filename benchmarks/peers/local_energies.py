# ===- benchmarks/peers/local_energies.py - The energies, per element ------===#
#
# The three energies of benchmarks/elements/Energies.h as one function of an
# element's vertices, in any array library xp with sqrt and log (jax.numpy,
# torch): local(xp, "spring")(xl, rest, measure) with xl of shape (..., A, 3)
# (A = 2, 3, 4 vertices), rest (..., R) (R = 1 rest length, 4 entries of the
# 2x2 inverse rest frame, 9 of the 3x3 one, row-major) and measure (...,)
# (area, volume; unused by springs). The leading axes are optional: the same
# function is the batched energy of every element and, under vmap, the local
# energy whose hessian is taken.
#
# ===----------------------------------------------------------------------===#
MU, LAMBDA = 1.0, 10.0


def local(xp, Energy):
    """The local energy function of Energy ("spring", "dirichlet", "neohookean")."""

    def spring(xl, rest, measure):
        d = xl[..., 0, :] - xl[..., 1, :]
        stretch = xp.sqrt((d * d).sum(-1)) - rest[..., 0]
        return 0.5 * stretch * stretch

    def dirichlet(xl, rest, measure):
        e1 = xl[..., 1, :] - xl[..., 0, :]
        e2 = xl[..., 2, :] - xl[..., 0, :]
        j0 = e1 * rest[..., 0, None] + e2 * rest[..., 2, None]
        j1 = e1 * rest[..., 1, None] + e2 * rest[..., 3, None]
        g00, g01, g11 = (j0 * j0).sum(-1), (j0 * j1).sum(-1), (j1 * j1).sum(-1)
        tr, det = g00 + g11, g00 * g11 - g01 * g01
        return measure * tr * (1.0 + 1.0 / det)

    def neohookean(xl, rest, measure):
        d = [xl[..., j, :] - xl[..., 0, :] for j in (1, 2, 3)]  # columns of Ds
        # F[r][c] = sum_j Ds[r][j] Minv[j][c]
        F = [[d[0][..., r] * rest[..., c] + d[1][..., r] * rest[..., 3 + c]
              + d[2][..., r] * rest[..., 6 + c] for c in range(3)] for r in range(3)]
        norm2 = sum(F[r][c] * F[r][c] for r in range(3) for c in range(3))
        J = (F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1])
             - F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0])
             + F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]))
        logJ = xp.log(J)
        return measure * (0.5 * MU * (norm2 - 3.0) - MU * logJ + 0.5 * LAMBDA * logJ * logJ)

    return {"spring": spring, "dirichlet": dirichlet, "neohookean": neohookean}[Energy]
