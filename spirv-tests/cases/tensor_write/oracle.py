import numpy as np

from common import FMT, Case, buf, shader, tensor, tensor_el

# Each invocation idx writes i_.data[idx] = value(idx) to element idx (row-major over the
# push-constant dims) of a tensor filled with 0xA5: the elements land at their strided offsets
# and every padding byte keeps 0xA5. "padded" strides add 13 elements of padding to every outer
# stride. Float types are checked bit for bit.
TYPES = {"i8": "int8_t", "u8": "uint8_t", "i16": "int16_t", "u16": "uint16_t", "i32": "int",
         "u32": "uint", "i64": "int64_t", "u64": "uint64_t", "f16": "float16_t", "f32": "float"}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
DIMS = [3, 2, 5, 1, 2, 3, 2, 4]


def value(i, size):
    v = ((i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) ^ 0x5555
    return v if size == 8 else v & ((1 << (size * 8)) - 1)


def dims_push(dims):
    return np.array(list(dims) + [0] * (8 - len(dims)), np.uint32).tobytes()


shaders = [shader(f"{t}_r3.spv", "shader.comp", defines={"T": g, "RANK": 3})
           for t, g in TYPES.items()]
shaders += [shader(f"i32_r{r}.spv", "shader.comp", defines={"T": "int", "RANK": r})
            for r in (1, 2, 4, 5, 6, 7, 8)]
case = Case("tensorWriteARM of every element of a T tensor of rank RANK, packed and padded, from "
            "a buffer; the padding stays untouched", shaders=shaders)


def run(name, spv, ty, dims, pad):
    size = np.dtype(FMT[ty]).itemsize
    bits = BITS[size]
    n = int(np.prod(dims))
    vals = np.array([value(i, size) for i in range(n)], bits).reshape(dims)
    before = np.full(dims, int.from_bytes(b"\xa5" * size, "little"), bits)  # every byte 0xA5
    t = tensor_el(ty, before.view(FMT[ty]), vals.view(FMT[ty]),
                  strides="padded" if pad else "packed", pad=13,
                  compare={1: "u8", 2: "u16", 4: "u32", 8: "u64"}[size])
    case.run(name=name, shader=spv, dispatch=[n, 1, 1], push=dims_push(dims),
             bindings=[tensor(0, t), buf(1, vals.reshape(-1), dtype=bits)])


for t in TYPES:
    for pad in (False, True):
        run(f"{t}_{'padded' if pad else 'packed'}", f"{t}_r3.spv", t, (5, 7, 9), pad)
for r in range(1, 9):
    for pad in (False, True):
        run(f"rank{r}_{'padded' if pad else 'packed'}", f"i32_r{r}.spv", "i32", tuple(DIMS[:r]),
            pad)
