import numpy as np

from common import SUBGROUP_SIZE, Case, Rng, buf, shader, spec_size, subgroups

# 40 outputs of T per invocation (see the shader), from a[g] (add, min, max, bitwise) and m[g]
# (multiply: factors 2, +-1, 0.5 keep float products exact). Outputs 19..29 only in the
# divergent branch (gl_LocalInvocationIndex % 3 != 0), bitwise ones (27..29, 30..36) and the bool
# ones (binding 3) only for integer types; the rest stay 0. Values are raw bits, zero-extended.
NOUT, NWG = 40, 2
f16, f32, f64 = np.float16, np.float32, np.float64
M64 = (1 << 64) - 1


def ibits(v, size):
    return v & ((1 << (8 * size)) - 1)


def sgn(v, size):
    v = ibits(v, size)
    return v - (1 << (8 * size)) if v >> (8 * size - 1) else v


def f32b(x):
    return int(f32(x).view(np.uint32))


def f32v(b):
    return np.array([b], np.uint32).view(f32)[0]


def f16b(x):
    return int(f16(x).view(np.uint16))


def f16v(b):
    return np.array([b], np.uint16).view(f16)[0].astype(f32)


def f64b(x):
    return int(f64(x).view(np.uint64))


def f64v(b):
    return np.array([b], np.uint64).view(f64)[0]


def mulpat(r, lane):
    """Multipliers with bounded, exact products: 2, +-1, 0.5, +-1, ..."""
    return {0: 2.0, 2: 0.5}.get(lane % 4, 1.0 if r & 1 == 0 else -1.0)


def int_type(size, signed, make):
    def add(a, b):
        return ibits(a + b, size)

    def mul(a, b):
        return ibits(a * b, size)

    key = (lambda a: sgn(a, size)) if signed else (lambda a: a)
    top = 1 << (8 * size - 1)
    return dict(size=size, int=True, add=add, mul=mul,
                min=lambda a, b: min(a, b, key=key), max=lambda a, b: max(a, b, key=key),
                ids=[0, 1, top - 1 if signed else (1 << (8 * size)) - 1, top if signed else 0],
                make=make)


def float_type(size, op, ids, make):
    return dict(size=size, int=False, add=lambda a, b: op(a, b, np.add),
                mul=lambda a, b: op(a, b, np.multiply), min=lambda a, b: op(a, b, np.fmin),
                max=lambda a, b: op(a, b, np.fmax), ids=ids, make=make)


TYPES = {
    # make(random word, lane) -> (value for add/min/max/bitwise, value for mul)
    "i32": ("int", "ivec2", int_type(4, True, lambda r, l: (r & 0xFFFFFFFF, r >> 32))),
    "u32": ("uint", "uvec2", int_type(4, False, lambda r, l: (r & 0xFFFFFFFF, r >> 32))),
    "i64": ("int64_t", "i64vec2", int_type(8, True, lambda r, l: (
        r, (((r << 17) | (r >> 47)) & M64) ^ 0x9E3779B9))),
    "i8": ("int8_t", "i8vec2", int_type(1, True, lambda r, l: (r & 0xFF, (r >> 32) & 0xFF))),
    "u16": ("uint16_t", "u16vec2",
            int_type(2, False, lambda r, l: (r & 0xFFFF, (r >> 32) & 0xFFFF))),
    # float32 and float16 arithmetic in float32, rounded to the type; float64 in float64
    "f32": ("float", "vec2", float_type(
        4, lambda a, b, op: f32b(op(f32v(a), f32v(b))),
        [f32b(0), f32b(1), f32b(np.inf), f32b(-np.inf)],
        lambda r, l: (f32b((f32(r % 17) - 8) * f32(0.5)), f32b(mulpat(r >> 8, l))))),
    "f16": ("float16_t", "f16vec2", float_type(
        2, lambda a, b, op: f16b(op(f16v(a), f16v(b))),
        [f16b(0), f16b(1), 0x7C00, 0xFC00],
        lambda r, l: (f16b((f32(r % 17) - 8) * f32(0.5)), f16b(mulpat(r >> 8, l))))),
    "f64": ("double", "dvec2", float_type(
        8, lambda a, b, op: f64b(op(f64v(a), f64v(b))),
        [f64b(0), f64b(1), f64b(np.inf), f64b(-np.inf)],
        lambda r, l: (f64b((f64(r % 1001) - 500) * 0.25), f64b(mulpat(r >> 8, l))))),
}
EXTENSION = {"i64": "I64", "i8": "I8", "u16": "I16", "f16": "F16"}


class Red:
    """A reduction/scan of `f` (identity `ident`) over the active lanes of one subgroup."""

    def __init__(self, vals, f, ident):
        self.vals, self.f, self.ident = vals, f, ident

    def fold(self, act, lo, upto):
        acc = None
        for k in act:
            if lo <= k < upto:
                acc = self.vals[k] if acc is None else self.f(acc, self.vals[k])
        return self.ident if acc is None else acc

    def reduce(self, act):
        return self.fold(act, 0, SUBGROUP_SIZE)

    def incl(self, act, k):
        return self.fold(act, 0, k + 1)

    def excl(self, act, k):
        return self.fold(act, 0, k)

    def clustered(self, act, k, c):
        lo = k // c * c
        return self.fold(act, lo, lo + c)


def AND(a, b):
    return a & b


def OR(a, b):
    return a | b


def XOR(a, b):
    return a ^ b


shaders = []
for name, (glsl, vec2, t) in TYPES.items():
    defines = {"T": glsl, "tvec2": vec2}
    if t["int"]:
        defines["INT"] = 1
    if name in EXTENSION:
        defines[EXTENSION[name]] = 1
    shaders.append(shader(f"{name}.spv", "shader.comp", defines=defines))
case = Case("Subgroup reductions, inclusive/exclusive scans and clustered operations of T, "
            "uniform and divergent; bitwise and bool ones for integer types", shaders=shaders)

for name, (_, _, t) in TYPES.items():
    size = t["size"]
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    ones = (1 << (8 * size)) - 1
    for wgs in [32, 64, 96, 40]:
        n = wgs * NWG
        rng = Rng(0xA11C_E000 + wgs + size)
        a, m = zip(*[t["make"](rng.next(), g % wgs) for g in range(n)])
        o = np.zeros((n, NOUT), np.uint64)
        ob = np.zeros((n, 4), np.uint32)
        for sg in subgroups(wgs, NWG):
            av = [a[g] for g in sg]
            mv = [m[g] for g in sg]
            add, mul = Red(av, t["add"], t["ids"][0]), Red(mv, t["mul"], t["ids"][1])
            mn, mx = Red(av, t["min"], t["ids"][2]), Red(av, t["max"], t["ids"][3])
            band, bor, bxor = Red(av, AND, ones), Red(av, OR, 0), Red(av, XOR, 0)
            madd = Red(mv, t["add"], t["ids"][0])
            every = list(range(len(sg)))
            dv = [k for k in every if (sg[k] % wgs) % 3 != 0]
            for k, g in enumerate(sg):
                w = o[g]
                w[0:19] = [add.reduce(every), mul.reduce(every), mn.reduce(every),
                           mx.reduce(every), add.incl(every, k), mul.incl(every, k),
                           mn.incl(every, k), mx.incl(every, k), add.excl(every, k),
                           mul.excl(every, k), mn.excl(every, k), mx.excl(every, k),
                           add.clustered(every, k, 4), mx.clustered(every, k, 8),
                           mul.clustered(every, k, 2), mn.clustered(every, k, 1),
                           add.clustered(every, k, 32), add.incl(every, k), madd.incl(every, k)]
                if k in dv:
                    w[19:27] = [add.reduce(dv), add.incl(dv, k), add.excl(dv, k), mn.excl(dv, k),
                                mx.incl(dv, k), mul.reduce(dv), add.clustered(dv, k, 4),
                                mul.excl(dv, k)]
                    if t["int"]:
                        w[27:30] = [band.reduce(dv), bor.excl(dv, k), bxor.incl(dv, k)]
                if t["int"]:
                    w[30:37] = [band.reduce(every), bor.reduce(every), bxor.reduce(every),
                                band.incl(every, k), bor.incl(every, k), bxor.excl(every, k),
                                bxor.clustered(every, k, 16)]
                    pv = [int(x & 3 != 0) for x in av]
                    ev = [int(x == 3) for x in av]
                    ob[g] = [Red(pv, AND, 1).reduce(every), Red(ev, OR, 0).incl(every, k),
                             Red(pv, XOR, 0).excl(every, k),
                             Red(pv, AND, 1).clustered(every, k, 4)]
        case.run(name=f"{name}_wgs{wgs}", shader=f"{name}.spv", dispatch=[NWG, 1, 1],
                 spec=spec_size(wgs),
                 bindings=[buf(0, np.array(a, np.uint64).astype(bits), dtype=bits),
                           buf(1, np.array(m, np.uint64).astype(bits), dtype=bits),
                           buf(2, np.zeros(o.size, bits), o.reshape(-1).astype(bits), dtype=bits),
                           buf(3, np.zeros(ob.size, np.uint32),
                               ob.reshape(-1) if t["int"] else None)])
