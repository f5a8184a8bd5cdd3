import numpy as np

from common import Case, buf

N = 16
case = Case("GL_EXT_device_group: a device is one physical device, so gl_DeviceIndex is 0")
case.run(dispatch=[1, 1, 1],
         bindings=[buf(0, np.full(N, 99, np.uint32), [i * 3 for i in range(N)])])
