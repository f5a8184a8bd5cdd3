//! Extensions Tessera implements that the ABI's registry (the one `vulkan-headers` mirrors) does
//! not have yet ([`config::NEWER_EXTENSIONS`]): each is grafted from the newer registry into the
//! model (the extension, its types, constants, enum values and commands), so the generator
//! treats it like any other, and its C declarations (`#[repr(C)]` structs, enum and flag types
//! and values, constants, `PFN_*` types), which `vulkan-headers` lacks, are emitted into
//! `vk/abi.rs` from the newer registry's text.
//!
//! Only what such an extension needs is handled: structs of plain members, fixed arrays and
//! pointers, 32-bit enums and flags, and commands; anything else fails the generator.

use std::fmt::Write;

use super::config;
use super::registry::{Member, Registry, TypeKind};

/// The Rust spelling of a C type in a declaration: `uint32_t` → `u32`; Vulkan names as they are.
fn c_type(ty: &str) -> &str {
    match ty {
        "uint8_t" => "u8",
        "int8_t" => "i8",
        "uint16_t" => "u16",
        "int16_t" => "i16",
        "uint32_t" => "u32",
        "int32_t" => "i32",
        "uint64_t" => "u64",
        "int64_t" => "i64",
        "size_t" => "usize",
        "float" => "f32",
        "double" => "f64",
        "char" => "c_char",
        "void" => "c_void",
        other => other,
    }
}

/// A member or parameter as a Rust type: pointers (`*const`/`*mut` per level) and fixed arrays.
fn member_type(m: &Member) -> Result<String, String> {
    let mut t = c_type(&m.ty).to_string();
    for level in 0..m.pointers {
        let is_const = m
            .pointee_const
            .get(level)
            .copied()
            .unwrap_or(m.is_const && level == 0);
        t = format!("*{} {t}", if is_const { "const" } else { "mut" });
    }
    for dim in m.array.iter().rev() {
        let n = if dim.chars().all(|c| c.is_ascii_digit()) {
            dim.clone()
        } else {
            format!("{dim} as usize")
        };
        t = format!("[{t}; {n}]");
    }
    if m.bitfield.is_some() {
        return Err(format!("{}: bit-fields are not handled", m.name));
    }
    Ok(t)
}

/// Grafts `extension` from `newer` into `reg` and returns its C declarations.
///
/// # Errors
/// When `newer` lacks the extension or it uses something this module does not handle.
pub fn graft(reg: &mut Registry, newer: &Registry, extension: &str) -> Result<String, String> {
    let ext = newer
        .extensions
        .get(extension)
        .ok_or_else(|| format!("{extension} is not in the newer registry"))?
        .clone();
    let mut decls = String::new();
    let mut types: Vec<String> = ext
        .requires
        .iter()
        .filter(|r| {
            r.depends
                .as_deref()
                .is_none_or(|d| super::registry::depends_holds(d, &config::has))
        })
        .flat_map(|r| r.types.clone())
        .collect();
    // Constants the new types use (`VK_MAX_…_SIZE`).
    let mut constants = Vec::new();
    let mut i = 0;
    while i < types.len() {
        let name = types[i].clone();
        i += 1;
        if reg.types.contains_key(&name) {
            continue;
        }
        let t = newer
            .types
            .get(&name)
            .ok_or_else(|| format!("{extension}: type {name} is not in the newer registry"))?
            .clone();
        match &t.kind {
            TypeKind::Struct { members, union, .. } => {
                if *union {
                    return Err(format!("{name}: unions are not handled"));
                }
                let _ = writeln!(
                    decls,
                    "/// `{name}` ({extension}).\n#[repr(C)]\n#[derive(Clone, Copy)]\n#[allow(missing_debug_implementations)]\npub struct {name} {{"
                );
                for m in members {
                    let _ = writeln!(decls, "    pub {}: {},", m.name, member_type(m)?);
                    for dim in &m.array {
                        if !dim.chars().all(|c| c.is_ascii_digit())
                            && !reg.constants.contains_key(dim)
                        {
                            constants.push(dim.clone());
                        }
                    }
                    if newer.types.contains_key(&m.ty) && !reg.types.contains_key(&m.ty) {
                        types.push(m.ty.clone());
                    }
                }
                decls.push_str("}\n\n");
            }
            TypeKind::Enum => {
                let values = newer.enums.get(&name).cloned().unwrap_or_default();
                // Flag bits enums are named `…FlagBits…`; both kinds here are 32 bits wide.
                let base = if name.contains("FlagBits") {
                    "VkFlags"
                } else {
                    "i32"
                };
                let _ = writeln!(
                    decls,
                    "/// `{name}` ({extension}).\npub type {name} = {base};"
                );
                for v in &values {
                    if let Some(value) = v.value {
                        let _ = writeln!(
                            decls,
                            "/// `{}`.\npub const {}: {name} = {value};",
                            v.name, v.name
                        );
                    }
                }
                decls.push('\n');
                reg.enums.insert(name.clone(), values);
            }
            TypeKind::Bitmask { bits } => {
                let _ = writeln!(
                    decls,
                    "/// `{name}` ({extension}).\npub type {name} = VkFlags;\n"
                );
                if let Some(bits) = bits {
                    types.push(bits.clone());
                }
            }
            other => return Err(format!("{name}: a {other:?} is not handled")),
        }
        reg.types.insert(name, t);
    }
    for c in constants {
        let v = newer
            .constants
            .get(&c)
            .ok_or_else(|| format!("constant {c} is not in the newer registry"))?
            .clone();
        let _ = writeln!(
            decls,
            "/// `{c}` ({extension}).\npub const {c}: u32 = {v};\n"
        );
        reg.constants.insert(c, v);
    }
    for name in ext.requires.iter().flat_map(|r| r.commands.clone()) {
        if reg.commands.contains_key(&name) {
            continue;
        }
        let cmd = newer
            .commands
            .get(&name)
            .ok_or_else(|| format!("command {name} is not in the newer registry"))?
            .clone();
        let params = cmd
            .params
            .iter()
            .map(|p| Ok(format!("{}: {}", p.name, member_type(p)?)))
            .collect::<Result<Vec<_>, String>>()?
            .join(", ");
        let ret = if cmd.ret == "void" {
            String::new()
        } else {
            format!(" -> {}", c_type(&cmd.ret))
        };
        let _ = writeln!(
            decls,
            "/// `{name}` ({extension}).\npub type NonNullPFN_{name} = unsafe extern \"system\" fn({params}){ret};\n\
             /// `{name}` ({extension}), nullable.\npub type PFN_{name} = Option<NonNullPFN_{name}>;\n"
        );
        reg.commands.insert(name, cmd);
    }
    for a in newer
        .added_by_extension
        .iter()
        .filter(|a| a.extension == extension)
    {
        let values = reg.enums.entry(a.extends.clone()).or_default();
        if !values.iter().any(|v| v.name == a.value.name) {
            values.push(a.value.clone());
        }
        reg.added_by_extension.push(a.clone());
    }
    reg.extensions.insert(extension.to_string(), ext);
    Ok(decls)
}
