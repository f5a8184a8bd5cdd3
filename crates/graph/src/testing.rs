//! A small SPIR-V graph-module assembler for tests: types and constants are interned, the
//! module is emitted in SPIR-V's section order.

use std::collections::HashMap;

/// `TOSA.001000.1` opcodes used by tests.
pub const ADD: u32 = 14;
pub const SUB: u32 = 29;
pub const MAX_POOL2D: u32 = 7;
pub const CONV2D: u32 = 2;
pub const RESCALE: u32 = 65;
pub const CAST: u32 = 64;
pub const MATMUL: u32 = 6;
pub const RFFT2D: u32 = 8;
pub const MUL: u32 = 27;

/// The assembler: interned types and constants, interface variables and a graph body.
#[derive(Debug, Default)]
pub struct Asm {
    next: u32,
    decorations: Vec<u32>,
    globals: Vec<u32>,
    body: Vec<u32>,
    interned: HashMap<String, u32>,
    inputs: Vec<(u32, u32)>,
    outputs: Vec<(u32, u32)>,
    tosa: u32,
}

fn inst(out: &mut Vec<u32>, opcode: u16, ops: &[u32]) {
    out.push(((ops.len() as u32 + 1) << 16) | u32::from(opcode));
    out.extend_from_slice(ops);
}

fn string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl Asm {
    pub fn new() -> Asm {
        let mut a = Asm {
            next: 1,
            ..Asm::default()
        };
        a.tosa = a.fresh();
        a
    }

    pub fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    fn intern(&mut self, key: String, opcode: u16, ops: impl FnOnce(u32) -> Vec<u32>) -> u32 {
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let id = self.fresh();
        let ops = ops(id);
        inst(&mut self.globals, opcode, &ops);
        self.interned.insert(key, id);
        id
    }

    pub fn int(&mut self, width: u32) -> u32 {
        self.intern(format!("int{width}"), 21, |id| vec![id, width, 0])
    }

    pub fn float(&mut self, width: u32) -> u32 {
        self.intern(format!("float{width}"), 22, |id| vec![id, width])
    }

    pub fn bool(&mut self) -> u32 {
        self.intern("bool".into(), 20, |id| vec![id])
    }

    pub fn u32c(&mut self, v: u32) -> u32 {
        let t = self.int(32);
        self.intern(format!("u32c{v}"), 43, |id| vec![t, id, v])
    }

    pub fn scalar(&mut self, ty: u32, bits: u32) -> u32 {
        self.intern(format!("scalar{ty}:{bits}"), 43, |id| vec![ty, id, bits])
    }

    pub fn boolc(&mut self, v: bool) -> u32 {
        let t = self.bool();
        self.intern(format!("bool{v}"), if v { 41 } else { 42 }, |id| {
            vec![t, id]
        })
    }

    pub fn tensor(&mut self, elem: u32, shape: &[u32]) -> u32 {
        let rank = self.u32c(shape.len() as u32);
        let uint = self.int(32);
        let arr = self.intern(format!("arr{}", shape.len()), 28, |id| vec![id, uint, rank]);
        let dims: Vec<u32> = shape.iter().map(|&d| self.u32c(d)).collect();
        let sh = self.intern(format!("shape{shape:?}"), 44, |id| {
            let mut v = vec![arr, id];
            v.extend(&dims);
            v
        });
        self.intern(format!("tensor{elem}{shape:?}"), 4163, |id| {
            vec![id, elem, rank, sh]
        })
    }

    /// `OpSpecConstant %ty bits` decorated `SpecId spec_id`.
    pub fn spec(&mut self, ty: u32, bits: u32, spec_id: u32) -> u32 {
        let id = self.fresh();
        inst(&mut self.globals, 50, &[ty, id, bits]);
        inst(&mut self.decorations, 71, &[id, 1, spec_id]);
        id
    }

    /// `OpTypeStruct` of `members`.
    pub fn struct_of(&mut self, members: &[u32]) -> u32 {
        self.intern(format!("struct{members:?}"), 30, |id| {
            let mut v = vec![id];
            v.extend_from_slice(members);
            v
        })
    }

    /// `OpCompositeExtract %ty %composite index` in the graph body.
    pub fn extract(&mut self, ty: u32, composite: u32, index: u32) -> u32 {
        let id = self.fresh();
        inst(&mut self.body, 81, &[ty, id, composite, index]);
        id
    }

    /// A tensor constant of scalar constants `parts` (ids).
    pub fn tensor_const(&mut self, ty: u32, parts: &[u32]) -> u32 {
        let id = self.fresh();
        let mut ops = vec![ty, id];
        ops.extend_from_slice(parts);
        inst(&mut self.globals, 44, &ops);
        id
    }

    /// A rank-1 i32 attribute tensor.
    pub fn i32s(&mut self, values: &[i32]) -> u32 {
        let i32t = self.int(32);
        let ty = self.tensor(i32t, &[values.len() as u32]);
        let parts: Vec<u32> = values
            .iter()
            .map(|&v| self.scalar(i32t, v as u32))
            .collect();
        self.tensor_const(ty, &parts)
    }

    /// A `[1]` tensor of `elem` holding `bits` (zero points, shifts).
    pub fn one(&mut self, elem: u32, bits: u32) -> u32 {
        let ty = self.tensor(elem, &[1]);
        let part = self.scalar(elem, bits);
        self.tensor_const(ty, &[part])
    }

    pub fn null(&mut self, ty: u32) -> u32 {
        let id = self.fresh();
        inst(&mut self.globals, 46, &[ty, id]);
        id
    }

    pub fn graph_constant(&mut self, ty: u32, graph_id: u32) -> u32 {
        let id = self.fresh();
        inst(&mut self.globals, 4181, &[ty, id, graph_id]);
        id
    }

    fn variable(&mut self, ty: u32, binding: u32) -> u32 {
        let ptr = self.intern(format!("ptr{ty}"), 32, |id| vec![id, 0, ty]);
        let var = self.fresh();
        inst(&mut self.globals, 59, &[ptr, var, 0]);
        inst(&mut self.decorations, 71, &[var, 34, 0]);
        inst(&mut self.decorations, 71, &[var, 33, binding]);
        var
    }

    /// A graph input of type `ty` at binding `binding`: its value id.
    pub fn input(&mut self, ty: u32, binding: u32) -> u32 {
        let var = self.variable(ty, binding);
        let index = self.u32c(self.inputs.len() as u32);
        let value = self.fresh();
        self.inputs.push((var, ty));
        // OpGraphInputARM is emitted at finish (after OpGraphARM); remember it.
        self.interned
            .insert(format!("input-value{}", self.inputs.len() - 1), value);
        self.interned
            .insert(format!("input-index{}", self.inputs.len() - 1), index);
        value
    }

    /// `OpExtInst %ty TOSA opcode operands`.
    pub fn op(&mut self, ty: u32, opcode: u32, operands: &[u32]) -> u32 {
        let id = self.fresh();
        let mut ops = vec![ty, id, self.tosa, opcode];
        ops.extend_from_slice(operands);
        inst(&mut self.body, 12, &ops);
        id
    }

    /// Declares `value` (of type `ty`) the next graph output at binding `binding`.
    pub fn output(&mut self, value: u32, ty: u32, binding: u32) {
        let var = self.variable(ty, binding);
        self.outputs.push((var, ty));
        let index = self.u32c(self.outputs.len() as u32 - 1);
        inst(&mut self.body, 4185, &[value, index]);
    }

    /// The module, with entry point "main".
    pub fn finish(mut self) -> Vec<u32> {
        let graph_ty = self.fresh();
        let graph = self.fresh();
        let mut w = vec![0x0723_0203, 0x0001_0600, 0, 0, 0];
        for cap in [1u32, 4174, 4191, 5345, 39, 22, 9, 11] {
            inst(&mut w, 17, &[cap]);
        }
        for ext in [
            "SPV_ARM_tensors",
            "SPV_ARM_graph",
            "SPV_KHR_vulkan_memory_model",
        ] {
            inst(&mut w, 10, &string(ext));
        }
        let mut import = vec![self.tosa];
        import.extend(string("TOSA.001000.1"));
        inst(&mut w, 11, &import);
        inst(&mut w, 14, &[0, 3]);
        w.extend(&self.decorations);
        w.extend(&self.globals);
        let mut gt = vec![graph_ty, self.inputs.len() as u32];
        gt.extend(self.inputs.iter().chain(&self.outputs).map(|&(_, t)| t));
        inst(&mut w, 4190, &gt);
        let mut ep = vec![graph];
        ep.extend(string("main"));
        ep.extend(self.inputs.iter().chain(&self.outputs).map(|&(v, _)| v));
        inst(&mut w, 4182, &ep);
        inst(&mut w, 4183, &[graph_ty, graph]);
        for (i, &(_, ty)) in self.inputs.iter().enumerate() {
            let value = self.interned[&format!("input-value{i}")];
            let index = self.interned[&format!("input-index{i}")];
            inst(&mut w, 4184, &[ty, value, index]);
        }
        w.extend(&self.body);
        inst(&mut w, 4186, &[]);
        w[3] = self.next;
        w
    }
}

/// `out = a + b` on f32 [2, 4]: the reader's fuzz seed.
pub fn add_module() -> Vec<u32> {
    let mut a = Asm::new();
    let f32t = a.float(32);
    let t = a.tensor(f32t, &[2, 4]);
    let x = a.input(t, 0);
    let y = a.input(t, 1);
    let s = a.op(t, ADD, &[x, y]);
    a.output(s, t, 2);
    a.finish()
}
