//! Control flow: lowering a function body into blocks (with calls inlined) and ordering the
//! blocks.
//!
//! `lower_function` gives every SPIR-V block an IR block up front, allocates `OpPhi` result
//! registers up front and turns phis into parallel moves on the incoming edges (`edge`); a call
//! lowers the callee again in place, with a fresh continuation block that its returns jump to
//! (recursion is rejected, depth is capped at 64); merge instructions only add ordering successors
//! (header → merge, continue target → loop merge). `order_blocks` then establishes the
//! structured topological order that `ir` documents and `exec` relies on: block 0 stays first,
//! every non-back edge goes forward, a construct's blocks precede its merge, unreachable blocks
//! are dropped.

use super::types::{PointerRepr, SpvType};
use super::{Id, LowerResult, Lowerer, Val, err, idref, opname};
use crate::SpirvError;
use crate::ir::{Block, Edge, Reg, Term};
use rspirv::dr::{Function, Operand};
use rspirv::spirv::Op as S;
use std::collections::HashMap;

/// Per block label: the phis' result registers and their (value, parent label) pairs.
type PhiMap = HashMap<Id, Vec<(Vec<Reg>, Vec<(Id, Id)>)>>;

/// Orders blocks so that every non-back edge goes forward and every construct's blocks precede its
/// merge (DFS over edges + ordering successors, dropping edges to blocks on the DFS stack), drops
/// unreachable blocks and renumbers.
/// Orders `blocks` (see the module docs); also gives each old block's new number (`u32::MAX`
/// for an unreachable one, which is dropped).
pub(super) fn order_blocks(blocks: Vec<Block>) -> LowerResult<(Vec<Block>, Vec<u32>)> {
    let n = blocks.len();
    let succ = |b: &Block| -> Vec<u32> {
        let mut v: Vec<u32> = match &b.term {
            Term::Jump(e) => vec![e.target],
            Term::Branch {
                if_true, if_false, ..
            } => vec![if_true.target, if_false.target],
            Term::Switch { edges, .. } => edges.iter().map(|e| e.target).collect(),
            Term::Exit => vec![],
        };
        // Ordering successors are visited first so that merges end up after the constructs.
        let mut o = b.order_succ.clone();
        o.append(&mut v);
        o
    };
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(usize, Vec<u32>, usize)> = Vec::new();
    if n == 0 {
        return err("no blocks");
    }
    state[0] = 1;
    stack.push((0, succ(&blocks[0]), 0));
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let s = top.1[top.2] as usize;
            top.2 += 1;
            if s < n && state[s] == 0 {
                state[s] = 1;
                let ss = succ(&blocks[s]);
                stack.push((s, ss, 0));
            }
        } else {
            state[top.0] = 2;
            post.push(top.0);
            stack.pop();
        }
    }
    post.reverse();
    let mut newidx = vec![u32::MAX; n];
    for (i, &b) in post.iter().enumerate() {
        newidx[b] = i as u32;
    }
    let mut slots: Vec<Option<Block>> = blocks.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(post.len());
    let fix = |e: &mut Edge| -> LowerResult<()> {
        let t = newidx.get(e.target as usize).copied().unwrap_or(u32::MAX);
        if t == u32::MAX {
            return err("branch to an unknown block");
        }
        e.target = t;
        Ok(())
    };
    for &b in &post {
        let Some(mut blk) = slots[b].take() else {
            return err("block ordering failed");
        };
        match &mut blk.term {
            Term::Jump(e) => fix(e)?,
            Term::Branch {
                if_true, if_false, ..
            } => {
                fix(if_true)?;
                fix(if_false)?;
            }
            Term::Switch { edges, .. } => {
                for e in edges {
                    fix(e)?;
                }
            }
            Term::Exit => {}
        }
        blk.order_succ.clear();
        out.push(blk);
    }
    Ok((out, newidx))
}

impl<'m> Lowerer<'m> {
    pub(super) fn lower_function(
        &mut self,
        fid: Id,
        args: Vec<Val>,
        ret: Option<(u32, Vec<Reg>)>,
    ) -> LowerResult<u32> {
        let f: &'m Function = self
            .funcs
            .get(&fid)
            .copied()
            .ok_or_else(|| SpirvError::new(format!("unknown function %{fid}")))?;
        let mut vals: HashMap<Id, Val> = HashMap::new();
        if f.parameters.len() != args.len() {
            return err(format!(
                "call to %{fid} passes {} arguments, it takes {}",
                args.len(),
                f.parameters.len()
            ));
        }
        for (p, a) in f.parameters.iter().zip(args) {
            let pid = p
                .result_id
                .ok_or_else(|| SpirvError::new("parameter without id"))?;
            vals.insert(pid, a);
        }
        if f.blocks.is_empty() {
            return err(format!("function %{fid} has no body"));
        }
        let mut label_map: HashMap<Id, u32> = HashMap::new();
        for b in &f.blocks {
            let lid = b
                .label_id()
                .ok_or_else(|| SpirvError::new("block without label"))?;
            label_map.insert(lid, self.blocks.len() as u32);
            self.blocks.push(Block {
                ops: Vec::new(),
                term: Term::Exit,
                order_succ: Vec::new(),
            });
        }
        // Phis: allocate result registers up front.
        let mut phis: PhiMap = HashMap::new();
        for b in &f.blocks {
            let lid = b.label_id().unwrap_or(0);
            for inst in &b.instructions {
                if inst.class.opcode != S::Phi {
                    continue;
                }
                let rid = inst
                    .result_id
                    .ok_or_else(|| SpirvError::new("OpPhi without result"))?;
                let n = self.nleaves(inst.result_type.unwrap_or(0))?;
                if !matches!(
                    self.ty(inst.result_type.unwrap_or(0))?,
                    SpvType::Scalar(_)
                        | SpvType::Vector { .. }
                        | SpvType::CoopMat { .. }
                        | SpvType::Matrix { .. }
                        | SpvType::Array { .. }
                        | SpvType::Struct { .. }
                        | SpvType::Pointer {
                            repr: PointerRepr::Physical
                                | PointerRepr::VariableBuffer
                                | PointerRepr::VariableWorkgroup,
                            ..
                        }
                ) {
                    return err(format!(
                        "OpPhi %{rid} of a type that is not a value (a StorageBuffer or \
                         Workgroup pointer is one only under VariablePointers)"
                    ));
                }
                let base = self.alloc_leaves(inst.result_type.unwrap_or(0))?;
                let regs: Vec<Reg> = (base..base + n).collect();
                let mut inc = Vec::new();
                for pair in inst.operands.chunks(2) {
                    inc.push((idref(pair.first())?, idref(pair.get(1))?));
                }
                vals.insert(rid, Val::Regs(regs.clone()));
                phis.entry(lid).or_default().push((regs, inc));
            }
        }
        let entry = label_map[&f.blocks[0].label_id().unwrap_or(0)];
        for b in &f.blocks {
            let lid = b.label_id().unwrap_or(0);
            self.cur = label_map[&lid] as usize;
            for inst in &b.instructions {
                self.at = format!(
                    "{} in block %{lid} (word {})",
                    opname(inst),
                    self.m
                        .id_offsets
                        .get(&inst.result_id.unwrap_or(lid))
                        .copied()
                        .unwrap_or(0)
                );
                let target = |l: &Lowerer, o: Option<&Operand>| -> LowerResult<u32> {
                    let t = idref(o)?;
                    label_map.get(&t).copied().ok_or_else(|| {
                        SpirvError::new(format!("{}: %{t} is not a block of this function", l.at))
                    })
                };
                match inst.class.opcode {
                    S::Phi | S::Line | S::NoLine | S::Nop => {}
                    S::LoopMerge => {
                        let merge = target(self, inst.operands.first())?;
                        let cont = target(self, inst.operands.get(1))?;
                        self.blocks[cont as usize].order_succ.push(merge);
                        let c = self.cur;
                        self.blocks[c].order_succ.push(merge);
                        if let Some(Operand::LoopControl(control)) = inst.operands.get(2)
                            && control.contains(rspirv::spirv::LoopControl::DONT_UNROLL)
                        {
                            self.dont_unroll.push(c as u32);
                        }
                    }
                    S::SelectionMerge => {
                        let merge = target(self, inst.operands.first())?;
                        let c = self.cur;
                        self.blocks[c].order_succ.push(merge);
                    }
                    S::Branch => {
                        let t = target(self, inst.operands.first())?;
                        let e = self.edge(&vals, &phis, lid, idref(inst.operands.first())?, t)?;
                        let c = self.cur;
                        self.blocks[c].term = Term::Jump(e);
                    }
                    S::BranchConditional => {
                        let c = self.reg1(&vals, idref(inst.operands.first())?)?;
                        let tl = idref(inst.operands.get(1))?;
                        let fl = idref(inst.operands.get(2))?;
                        let t =
                            self.edge(&vals, &phis, lid, tl, target(self, inst.operands.get(1))?)?;
                        let fe =
                            self.edge(&vals, &phis, lid, fl, target(self, inst.operands.get(2))?)?;
                        let cur = self.cur;
                        self.blocks[cur].term = Term::Branch {
                            cond: c,
                            if_true: t,
                            if_false: fe,
                        };
                    }
                    S::Switch => {
                        let sel_id = idref(inst.operands.first())?;
                        let sel = self.reg1(&vals, sel_id)?;
                        // Literals of selectors narrower than 32 bits are sign-extended when
                        // the type is signed (SPIR-V 2.2.1 "Literal"); the selector register
                        // holds the value zero-extended, so compare at the selector's width.
                        let sel_w = self
                            .typed_leaves(sel_id)?
                            .first()
                            .map_or(32, |s| s.width_code());
                        let dl = idref(inst.operands.get(1))?;
                        let mut edges = vec![self.edge(
                            &vals,
                            &phis,
                            lid,
                            dl,
                            target(self, inst.operands.get(1))?,
                        )?];
                        let mut cases = Vec::new();
                        for pair in inst.operands[2..].chunks(2) {
                            let v = match pair.first() {
                                Some(Operand::LiteralBit32(v)) => u64::from(*v),
                                Some(Operand::LiteralBit64(v)) => *v,
                                _ => return err(format!("{}: malformed case literal", self.at)),
                            };
                            let v = crate::alu::trunc(v, sel_w);
                            let l = idref(pair.get(1))?;
                            let e = self.edge(&vals, &phis, lid, l, target(self, pair.get(1))?)?;
                            edges.push(e);
                            cases.push((v, edges.len() - 1));
                        }
                        let c = self.cur;
                        self.blocks[c].term = Term::Switch {
                            selector: sel,
                            cases,
                            edges,
                        };
                    }
                    S::Return | S::ReturnValue => {
                        let c = self.cur;
                        self.blocks[c].term = match &ret {
                            None => Term::Exit,
                            Some((cont, rregs)) => {
                                let mut moves = Vec::new();
                                if inst.class.opcode == S::ReturnValue {
                                    let v = self.regs(&vals, idref(inst.operands.first())?)?;
                                    if v.len() != rregs.len() {
                                        return err(format!(
                                            "{}: return value has the wrong type",
                                            self.at
                                        ));
                                    }
                                    moves = rregs.iter().copied().zip(v).collect();
                                }
                                Term::Jump(Edge {
                                    target: *cont,
                                    moves,
                                })
                            }
                        };
                    }
                    S::Kill | S::TerminateInvocation | S::Unreachable => {
                        let c = self.cur;
                        self.blocks[c].term = Term::Exit;
                    }
                    S::FunctionCall => {
                        let callee = idref(inst.operands.first())?;
                        if self.call_stack.contains(&callee) {
                            return err(format!("{}: recursion through %{callee}", self.at));
                        }
                        if self.call_stack.len() > 64 {
                            return err("call depth too large");
                        }
                        let mut args = Vec::new();
                        for a in &inst.operands[1..] {
                            args.push(self.val(&vals, idref(Some(a))?)?);
                        }
                        let rt = inst.result_type.unwrap_or(0);
                        let n = self.nleaves(rt)?;
                        let base = self.alloc_leaves(rt)?;
                        let rregs: Vec<Reg> = (base..base + n).collect();
                        let cont = self.blocks.len() as u32;
                        self.blocks.push(Block {
                            ops: Vec::new(),
                            term: Term::Exit,
                            order_succ: Vec::new(),
                        });
                        let caller_cur = self.cur;
                        self.call_stack.push(callee);
                        let centry =
                            self.lower_function(callee, args, Some((cont, rregs.clone())))?;
                        self.call_stack.pop();
                        self.blocks[caller_cur].term = Term::Jump(Edge {
                            target: centry,
                            moves: Vec::new(),
                        });
                        self.cur = cont as usize;
                        if let Some(r) = inst.result_id {
                            vals.insert(r, Val::Regs(rregs));
                        }
                    }
                    _ => self.lower_inst(inst, &mut vals)?,
                }
            }
        }
        Ok(entry)
    }

    fn edge(
        &mut self,
        vals: &HashMap<Id, Val>,
        phis: &PhiMap,
        from: Id,
        to: Id,
        target: u32,
    ) -> LowerResult<Edge> {
        let mut moves = Vec::new();
        if let Some(ps) = phis.get(&to) {
            for (dst, inc) in ps {
                if let Some((v, _)) = inc.iter().find(|(_, p)| *p == from) {
                    let src = self.regs(vals, *v)?;
                    if src.len() != dst.len() {
                        return err(format!(
                            "{}: OpPhi operand %{v} has the wrong type",
                            self.at
                        ));
                    }
                    moves.extend(dst.iter().copied().zip(src));
                }
            }
        }
        Ok(Edge { target, moves })
    }
}
