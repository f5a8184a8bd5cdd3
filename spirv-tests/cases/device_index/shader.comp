#version 450
// GL_EXT_device_group: a device is one physical device, so gl_DeviceIndex is 0.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_device_group : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    o[gl_GlobalInvocationID.x] = uint(gl_DeviceIndex) + gl_GlobalInvocationID.x * 3u;
}
