import numpy as np

from common import Case, buf

N = 8
words = np.zeros((N, 4), np.uint32)  # struct {x, pad, y, pad} at stride 16
words[:, 0] = np.arange(N) * 3 + 1
words[:, 2] = np.arange(N) * 7 + 2
out = [int(words[i, 2]) * 10 + int(words[i, 0]) for i in range(N)]

case = Case("Block, ArrayStride and member Offset decorations applied through "
            "OpGroupDecorate / OpGroupMemberDecorate (SPIR-V assembly)")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, words.flatten()), buf(1, np.zeros(N, np.uint32), out)])
