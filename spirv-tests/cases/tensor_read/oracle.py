import numpy as np

from common import FMT, Case, buf, shader, tensor, tensor_el

# Each invocation idx reads element idx (row-major over the push-constant dims) of the tensor
# and stores it to o[idx]. Element i holds value(i); padding bytes are 0xA5. "padded" strides add
# 13 elements of padding to every outer stride. Float types are checked bit for bit.
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
# spirv-opt -O of the rank-4 shader (used by crates/spirv/tests/tensor.rs) and a hand-kept
# SPIR-V 1.0 assembly of it (CTS modules are SPIR-V 1.0).
shaders += [shader("i32_r4_opt.spv", optimize="i32_r4.spv"),
            shader("i32_r4_spv10.spv", "spv10.spvasm", target_env="vulkan1.0")]
case = Case("tensorReadARM of every element of a T tensor of rank RANK, packed and padded, "
            "copied to a buffer", shaders=shaders)


def run(name, spv, ty, dims, pad):
    size = np.dtype(FMT[ty]).itemsize
    bits = BITS[size]
    n = int(np.prod(dims))
    vals = np.array([value(i, size) for i in range(n)], bits).reshape(dims)
    stored = vals.view(FMT[ty])   # the same bits as the tensor's element type
    case.run(name=name, shader=spv, dispatch=[n, 1, 1], push=dims_push(dims),
             bindings=[tensor(0, tensor_el(ty, stored, strides="padded" if pad else "packed",
                                           pad=13)),
                       buf(1, np.zeros(n, bits), vals.reshape(-1), dtype=bits)])


for t in TYPES:
    for pad in (False, True):
        run(f"{t}_{'padded' if pad else 'packed'}", f"{t}_r3.spv", t, (5, 7, 9), pad)
for r in range(1, 9):
    for pad in (False, True):
        run(f"rank{r}_{'padded' if pad else 'packed'}", f"i32_r{r}.spv", "i32", tuple(DIMS[:r]),
            pad)
run("i32_r4_spirv10", "i32_r4_spv10.spv", "i32", (13, 17, 19, 23), False)
