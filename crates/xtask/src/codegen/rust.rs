//! Spelling registry types the way the `vulkan-headers` crate does.

use super::registry::Member;

/// The Rust name of a C base type (`uint32_t` → `u32`); Vulkan types keep their names.
pub fn base_type(c: &str) -> &str {
    match c {
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
        "int" => "c_int",
        other => other,
    }
}

/// The Rust type of a command parameter (arrays decay to pointers, as in C).
pub fn param_type(p: &Member) -> String {
    let mut ty = base_type(&p.ty).to_string();
    let mut consts = p.pointee_const.clone();
    if !p.array.is_empty() {
        consts.insert(0, p.is_const);
    }
    for pointee_const in consts {
        ty = format!("*{} {ty}", if pointee_const { "const" } else { "mut" });
    }
    ty
}

/// `"text"` as a Rust string literal.
pub fn string(text: &str) -> String {
    format!("{text:?}")
}

/// A C name as the `vulkan-headers` crate spells it in Rust (`type` → `typ`).
pub fn ident(name: &str) -> String {
    match name {
        "type" => "typ".to_string(),
        other => other.to_string(),
    }
}
