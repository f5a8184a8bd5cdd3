#version 460
// A linked list of PhysicalStorageBuffer pointers stored in a buffer: each invocation starts at
// node (i % N) (pointer arithmetic on the head address), follows `next` to the null pointer
// (a phi of pointers), sums the values, picks one of two pointers with a select, adds its sum to
// a counter with an atomic through a pointer and stores a pointer it read into a buffer.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Node {
    Node next;
    uint value;
    uint pad;
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Counter { uint count; uint odd; };
layout(push_constant) uniform P {
    Node head;       // binding 0
    Counter even;    // binding 2, word 0
    Counter odd;     // binding 2, word 2
    uint n;
};
layout(set = 0, binding = 1) buffer O { uint sums[]; };
layout(set = 0, binding = 3) buffer L { Node nexts[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    Node p = Node(uint64_t(head) + uint64_t(16u * (i % n)));
    nexts[i] = p.next;
    uint sum = 0u;
    uint steps = 0u;
    while (uint64_t(p) != 0ul && steps < 64u) {
        sum += p.value;
        p = p.next;
        steps++;
    }
    sums[i] = sum;
    Counter c = (i & 1u) == 1u ? odd : even;
    atomicAdd(c.count, sum);
}
