//! Emits the ICD's dispatch table (`generated/dispatch.rs`), the entry points of the commands
//! Tessera does not implement (`generated/unsupported.rs`) and the core command lists
//! (`generated/core_commands.rs`).

use std::fmt::Write;

use std::collections::BTreeSet;

use super::HEADER;
use super::config;
use super::model::{Implementation, Model, Requirement, snake};
use super::registry::{Command, Member, TypeKind};
use super::rust::{ident, param_type, string};
use super::structs::{Len, Mirrors, mirror_name};

/// Parameters passed to the hand-written implementation as the raw pointer they are (with their
/// count), because the implementation checks the count before anything is read.
/// `vkBindBufferMemory2`'s infos are read one by one, because a chained `VkBindMemoryStatus`
/// (an output pointer in an input chain) receives each one's result.
const RAW_PARAMS: &[(&str, &str)] = &[
    ("vkCmdUpdateBuffer", "pData"),
    ("vkBindBufferMemory2", "pBindInfos"),
];

/// The runtime type of an implemented handle type.
fn runtime_type(reg: &super::registry::Registry, ty: &str) -> Option<String> {
    let ty = reg.resolve_type(ty);
    config::OBJECTS
        .iter()
        .find(|(h, _)| *h == ty)
        .map(|(_, t)| format!("tessera_runtime::{t}"))
}

/// Whether a command records into its command buffer (the first parameter).
pub fn records(cmd: &Command) -> bool {
    cmd.name.starts_with("vkCmd")
        && cmd
            .params
            .first()
            .is_some_and(|p| p.ty == "VkCommandBuffer")
        && cmd.ret == "void"
}

/// The object a `vkDestroy*`/`vkFree*` command destroys: its parameter index.
pub fn destroyed_param(reg: &super::registry::Registry, cmd: &Command) -> Option<usize> {
    let object = cmd
        .name
        .strip_prefix("vkDestroy")
        .or_else(|| cmd.name.strip_prefix("vkFree"))?;
    let object = if object == "Memory" {
        "DeviceMemory"
    } else {
        object
    };
    cmd.params
        .iter()
        .position(|p| p.pointers == 0 && reg.resolve_type(&p.ty) == format!("Vk{object}"))
        .filter(|i| *i > 0 || cmd.name == "vkDestroyInstance")
        .or_else(|| (cmd.name == "vkDestroyInstance" || cmd.name == "vkDestroyDevice").then_some(0))
}

/// The generated entry point of a command with a hand-written implementation: converts every
/// argument it can (handles to runtime objects, structs and arrays to owned mirrors, `VkBool32`
/// to `bool`, with the implicit checks), then calls `entry::<module>::<function>`.
fn shell(
    model: &Model,
    mirrors: &mut Mirrors,
    cmd: &Command,
    implementation: Option<(&str, &str)>,
) -> Result<String, String> {
    let reg = model.reg;
    let name = &cmd.name;
    let record = records(cmd);
    let destroyed = destroyed_param(reg, cmd);
    let raw = |p: &Member| {
        RAW_PARAMS.contains(&(name.as_str(), p.name.as_str()))
            || (p.noautovalidity && p.pointers > 0)
    };
    // Counts (by value) that only size converted input arrays are consumed by the conversion.
    let mut consumed = BTreeSet::new();
    let mut kept = BTreeSet::new();
    for p in &cmd.params {
        if let Some(len) = p.len.as_deref().and_then(|l| l.split(',').next())
            && cmd.params.iter().any(|c| c.name == len && c.pointers == 0)
        {
            if p.is_const && p.pointers == 1 && !raw(p) {
                consumed.insert(len.to_string());
            } else {
                kept.insert(len.to_string());
            }
        }
    }
    consumed.retain(|c| !kept.contains(c));
    let mut lets = String::new();
    // Counts that may not be zero (`VUID-…-arraylength`).
    for c in &consumed {
        if let Some(count) = cmd.params.iter().find(|p| p.name == *c)
            && !count.is_optional()
        {
            writeln!(
                lets,
                "ensure!({c} != 0, {}, \"{c} is 0\");",
                string(&format!("VUID-{name}-{c}-arraylength"))
            )
            .unwrap();
        }
    }
    let mut args = Vec::new();
    for (i, p) in cmd.params.iter().enumerate() {
        let pn = &ident(&p.name);
        let vuid = string(&format!("VUID-{name}-{}-parameter", p.name));
        if p.ty == "VkAllocationCallbacks" || consumed.contains(&p.name) {
            continue;
        }
        if record && i == 0 {
            args.push("rec".to_string());
            continue;
        }
        if raw(p) {
            // The implementation reads a raw struct array itself, with the generated reader.
            if p.is_const && matches!(reg.kind(&p.ty), Some(TypeKind::Struct { union: false, .. }))
            {
                let t = reg.resolve_type(&p.ty).to_string();
                mirrors.add(&t)?;
                mirrors.read.insert(t);
            }
            args.push(pn.clone());
            continue;
        }
        let local = super::structs::field_name(&p.name);
        let kind = reg.kind(&p.ty).cloned();
        let value = if p.pointers == 0 && p.array.is_empty() {
            match &kind {
                Some(TypeKind::Handle { .. }) => match runtime_type(reg, &p.ty) {
                    Some(rt) if destroyed == Some(i) => {
                        format!("handle::remove::<{rt}>({pn}.raw(), {vuid})?")
                    }
                    Some(rt) if p.is_optional() => {
                        format!("handle::get_optional::<{rt}>({pn}.raw(), {vuid})?")
                    }
                    Some(rt) => format!("handle::lookup::<{rt}>({pn}.raw(), {vuid})?"),
                    None => pn.clone(),
                },
                _ if p.ty == "VkBool32" => format!("{pn} != VK_FALSE"),
                Some(TypeKind::Enum) => {
                    let values = mirrors.enum_values(&p.ty);
                    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                    format!(
                        "check_enum({pn}, &[{}], {vuid}, {})?",
                        list.join(", "),
                        string(&p.ty)
                    )
                }
                Some(TypeKind::Bitmask { .. }) => {
                    let bits = mirrors.flag_bits(&p.ty).unwrap_or(0);
                    if bits == 0 {
                        format!(
                            "check_flags({pn}, 0, false, {}, {})?",
                            string(&format!("VUID-{name}-{}-zerobitmask", p.name)),
                            string(&p.ty)
                        )
                    } else if p.is_optional() {
                        format!(
                            "check_flags({pn}, {bits:#x}, false, {vuid}, {})?",
                            string(&p.ty)
                        )
                    } else {
                        format!(
                            "check_flags({pn}, {bits:#x}, true, {}, {})?",
                            string(&format!("VUID-{name}-{}-requiredbitmask", p.name)),
                            string(&p.ty)
                        )
                    }
                }
                _ => pn.clone(),
            }
        } else if p.pointers == 1 && p.is_const && p.array.is_empty() {
            let len = p.len.as_deref().and_then(|l| {
                if l.contains("null-terminated") {
                    None
                } else {
                    Len::parse(l)
                }
            });
            let count = len.as_ref().map(|l| format!("{} as usize", l.member()));
            let optional = p.is_optional();
            match (&kind, count) {
                (_, None) if p.ty == "char" => {
                    if optional {
                        format!("optional_cstr({pn})")
                    } else {
                        format!("cstr_param({pn}, {vuid})?")
                    }
                }
                (Some(TypeKind::Struct { union: false, .. }), None) => {
                    let t = reg.resolve_type(&p.ty).to_string();
                    mirrors.add(&t)?;
                    mirrors.read.insert(t.clone());
                    let reader = format!("read_{}", snake(&mirror_name(&t)));
                    if optional {
                        format!("optional({pn}, {reader})?")
                    } else {
                        format!("required({pn}, {vuid}, {reader})?")
                    }
                }
                (Some(TypeKind::Struct { union: false, .. }), Some(count)) => {
                    let t = reg.resolve_type(&p.ty).to_string();
                    mirrors.add(&t)?;
                    mirrors.read.insert(t.clone());
                    format!(
                        "array({pn}, {count}, {optional}, {vuid})?.iter().map(|s| read_{}(s)).collect::<Result<Vec<_>>>()?",
                        snake(&mirror_name(&t))
                    )
                }
                (Some(TypeKind::Handle { .. }), Some(count)) => match runtime_type(reg, &p.ty) {
                    Some(rt) => format!(
                        "array({pn}, {count}, {optional}, {vuid})?.iter().map(|h| handle::lookup::<{rt}>(h.raw(), {vuid})).collect::<Result<Vec<_>>>()?"
                    ),
                    None => format!("array({pn}, {count}, {optional}, {vuid})?"),
                },
                (_, Some(count)) if p.ty == "void" => {
                    format!("bytes({pn}.cast::<u8>(), {count}, {optional}, {vuid})?")
                }
                (_, Some(count)) if p.ty == "VkBool32" => format!(
                    "array({pn}, {count}, {optional}, {vuid})?.iter().map(|b| *b != VK_FALSE).collect::<Vec<_>>()"
                ),
                (_, Some(count)) => format!("array({pn}, {count}, {optional}, {vuid})?"),
                _ => pn.clone(),
            }
        } else {
            // Output pointers and what cannot be converted are passed as they are; output
            // structs get writers.
            if p.pointers == 1
                && !p.is_const
                && matches!(kind, Some(TypeKind::Struct { union: false, .. }))
            {
                let t = reg.resolve_type(&p.ty).to_string();
                if mirrors.add(&t).is_ok() && mirrors.writable(&t) {
                    mirrors.written.insert(t);
                }
            }
            pn.clone()
        };
        if value == *pn {
            args.push(pn.clone());
        } else {
            writeln!(lets, "let {local} = {value};").unwrap();
            args.push(local);
        }
    }
    let call = match implementation {
        Some((module, function)) => {
            format!("entry::{module}::{function}({})", args.join(", "))
        }
        // A destroy with nothing else to do: the handle is unregistered above, and the object
        // goes when its last user (a pending command, a child object) drops it.
        None => format!("let _ = ({});\nOk(())", args.join(", ")),
    };
    let body = format!(
        "// SAFETY: the application's pointers are valid per the spec (the entry point's \
         contract); every conversion reads only what the registry says they point to.\n\
         unsafe {{ {lets}{call} }}"
    );
    let cname = string(name);
    let wrapped = if record {
        format!("boundary::command({cname}, commandBuffer, |rec| {{ {body} }})")
    } else {
        match cmd.ret.as_str() {
            "VkResult" => format!("boundary::result({cname}, || {{ {body} }})"),
            "void" => format!("boundary::void({cname}, || {{ {body} }})"),
            other => format!(
                "boundary::value({cname}, {}, || {{ {body} }})",
                default_value(other)
            ),
        }
    };
    Ok(format!(
        "/// `{name}`.
///
/// # Safety
/// The Vulkan spec's valid-usage contract for the          pointers; every other rule is checked.
         pub unsafe extern \"system\" fn {} {{
{wrapped}
}}

",
        signature(cmd, &wrapped)
    ))
}

/// Why a command that Tessera does not implement cannot run (the `Why` variants of
/// `crates/icd/src/entry/unsupported.rs`).
fn why(model: &Model, cmd: &Command, requirement: &Requirement) -> String {
    if let Requirement::Extensions(exts) = requirement
        && exts.len() > 1
    {
        return format!("Why::Requires({})", string(&exts[1]));
    }
    let name = cmd.name.as_str();
    let mentions = |word: &str| {
        name.contains(word)
            || cmd
                .params
                .iter()
                .any(|p| model.reg.resolve_type(&p.ty).contains(word))
    };
    if name.contains("Ycbcr") {
        "Why::Ycbcr".into()
    } else if name.contains("BufferView") {
        "Why::TexelBuffer".into()
    } else if mentions("Image") {
        "Why::Image".into()
    } else if name.contains("Sparse") {
        "Why::Sparse".into()
    } else {
        "Why::Graphics".into()
    }
}

/// The C signature in Rust; parameters that `body` does not use get a `_` prefix.
fn signature(cmd: &Command, body: &str) -> String {
    let used = |name: &str| {
        body.match_indices(name).any(|(i, _)| {
            let after = body[i + name.len()..].chars().next();
            let before = body[..i].chars().next_back();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '"')
        })
    };
    let params: Vec<String> = cmd
        .params
        .iter()
        .map(|p| {
            let name = ident(&p.name);
            if used(&name) {
                format!("{name}: {}", param_type(p))
            } else {
                format!("_{}: {}", p.name, param_type(p))
            }
        })
        .collect();
    let ret = match cmd.ret.as_str() {
        "void" => String::new(),
        other => format!(" -> {}", super::rust::base_type(other)),
    };
    format!("{}({}){ret}", cmd.name, params.join(", "))
}

/// The value a command returns when it fails, for commands that do not return `VkResult`.
fn default_value(ret: &str) -> &'static str {
    match ret {
        "PFN_vkVoidFunction" => "None",
        "VkBool32" => "VK_FALSE",
        _ => "0",
    }
}

fn unsupported_body(model: &Model, cmd: &Command, requirement: &Requirement) -> String {
    let why = why(model, cmd, requirement);
    let name = string(&cmd.name);
    let first: Option<&Member> = cmd.params.first();
    if cmd.name.starts_with("vkCmd")
        && first.is_some_and(|p| p.ty == "VkCommandBuffer")
        && cmd.ret == "void"
    {
        return format!("unsupported_cmd(commandBuffer, {name}, {why})");
    }
    if let Some(handle) = cmd.name.strip_prefix("vkDestroy")
        && cmd.ret == "void"
        && let Some(p) = cmd.params.get(1)
        && p.ty == format!("Vk{handle}")
    {
        return format!(
            "unsupported_destroy({name}, {}.raw(), {})",
            p.name,
            string(&p.ty)
        );
    }
    match cmd.ret.as_str() {
        "VkResult" => format!("unsupported_result({name}, {why})"),
        "void" => format!("unsupported_void({name}, {why})"),
        other => format!("unsupported_value({name}, {why}, {})", default_value(other)),
    }
}

/// The table's requirement: the core version, or the extension that adds the command (a
/// command of the part of an extension that needs another is still resolved when the extension is
/// enabled, and reports what it needs when called).
fn requirement(r: &Requirement) -> String {
    match r {
        Requirement::Core((major, minor)) => format!("Requirement::Core({major}, {minor})"),
        Requirement::Extensions(exts) => format!("Requirement::Extension({})", string(&exts[0])),
    }
}

/// The `entry!` macro of the dispatch table (rustfmt leaves macro bodies alone, so it is written
/// formatted).
const ENTRY_MACRO: &str = r#"/// One table entry; the `const` checks the function's type against the PFN type.
macro_rules! entry {
    ($name:literal, $pfn:ty, $f:path, $scope:expr, $req:expr) => {
        Entry {
            name: $name,
            scope: $scope,
            requirement: $req,
            function: {
                const F: $pfn = $f;
                // SAFETY: function pointers all have one size and representation; callers cast
                // the pointer back to the command's PFN type before calling it, as the Vulkan
                // ABI requires.
                unsafe { std::mem::transmute::<$pfn, NonNullPFN_vkVoidFunction>(F) }
            },
        }
    };
}"#;

/// The generated files: `(path relative to the repository root, contents)`.
pub fn emit(model: &Model, mirrors: &mut Mirrors) -> Result<Vec<(String, String)>, String> {
    let mut table = String::new();
    let mut stubs = String::new();
    let mut shells = String::new();
    let mut shell_names = BTreeSet::new();
    let mut stub_names = std::collections::BTreeSet::new();
    for c in model.exposed.values() {
        let cmd = model
            .reg
            .commands
            .get(&c.target)
            .ok_or_else(|| format!("no command {}", c.target))?;
        let function = match &model.implementations[&c.target] {
            Implementation::Entry { module, function } => {
                if shell_names.insert(c.target.clone()) {
                    shells.push_str(&shell(model, mirrors, cmd, Some((module, function)))?);
                }
                format!("entrypoints::{}", c.target)
            }
            Implementation::Destroy => {
                if shell_names.insert(c.target.clone()) {
                    shells.push_str(&shell(model, mirrors, cmd, None)?);
                }
                format!("entrypoints::{}", c.target)
            }
            Implementation::Unsupported => {
                if stub_names.insert(c.target.clone()) {
                    let body = unsupported_body(model, cmd, &c.requirement);
                    writeln!(
                        stubs,
                        "/// `{}`: Tessera does not implement it (see [`Why`]); no pointer is read.\n\
                         ///\n/// # Safety\n/// Callable with any arguments.\n\
                         pub unsafe extern \"system\" fn {} {{ {body} }}\n",
                        c.target,
                        signature(cmd, &body),
                    )
                    .unwrap();
                }
                format!("unsupported::{}", c.target)
            }
        };
        writeln!(
            table,
            "entry!({}, NonNullPFN_{}, {function}, {}, {}),",
            string(&c.name),
            c.target,
            c.scope.rust(),
            requirement(&c.requirement),
        )
        .unwrap();
    }
    let dispatch = format!(
        "{HEADER}\n\
         //! Every command name the driver resolves, sorted by name: its dispatch level, what \
         enables it, and its function, checked against the `vulkan-headers` PFN type of its name \
         at compile time.\n\n\
         use vulkan_headers::vulkan::vulkan_core::*;\n\
         #[allow(unused_imports)]\nuse tessera_runtime::vk::abi::*;\n\n\
         use super::{{entrypoints, unsupported}};\n\
         use crate::dispatch::{{Entry, Requirement, Scope}};\n\n\
         {ENTRY_MACRO}\n\n\
         /// The table, sorted by name (binary search).\n\
         pub static ENTRIES: &[Entry] = &[\n{table}];\n"
    );
    let ffi: Vec<&str> = ["c_char", "c_int", "c_void"]
        .into_iter()
        .filter(|t| stubs.contains(t))
        .collect();
    let ffi = match ffi.as_slice() {
        [] => String::new(),
        [one] => format!("use std::ffi::{one};\n\n"),
        many => format!("use std::ffi::{{{}}};\n\n", many.join(", ")),
    };
    let helpers: Vec<&str> = [
        "Why",
        "unsupported_cmd",
        "unsupported_destroy",
        "unsupported_result",
        "unsupported_value",
        "unsupported_void",
    ]
    .into_iter()
    .filter(|h| stubs.contains(&format!("{h}(")) || *h == "Why")
    .collect();
    let helpers = helpers.join(", ");
    let raw_handle = if stubs.contains(".raw()") {
        "use crate::handle::RawHandle;\n"
    } else {
        ""
    };
    let unsupported = format!(
        "{HEADER}\n\
         //! Entry points of the commands Tessera resolves but does not implement: a `vkCmd*` \
         makes the recording fail (`vkEndCommandBuffer` returns the error), other commands \
         return or log an error. None reads its pointer arguments.\n\n\
         #![allow(non_snake_case)]\n\n\
         {ffi}\
         use vulkan_headers::vulkan::vulkan_core::*;\n\
         #[allow(unused_imports)]\nuse tessera_runtime::vk::abi::*;\n\n\
         use crate::entry::unsupported::{{{helpers}}};\n\
         {raw_handle}\n\
         {stubs}"
    );
    let mut core = String::new();
    for (version, names) in &model.core_by_version {
        let list: Vec<String> = names.iter().map(|n| string(n)).collect();
        writeln!(
            core,
            "({}, {}, &[{}]),",
            version.0,
            version.1,
            list.join(", ")
        )
        .unwrap();
    }
    let core = format!(
        "{HEADER}\n\
         //! The core commands of each Vulkan version, as the registry lists them.\n\n\
         /// `(major, minor, commands)` for every core version the registry knows.\n\
         pub const CORE_COMMANDS: &[(u32, u32, &[&str])] = &[\n{core}];\n"
    );
    let entrypoints = format!(
        "{HEADER}\n\
         //! The entry points of the commands Tessera implements: each converts its arguments \
         (handles to runtime objects, structs and arrays to owned mirrors, with the implicit \
         valid-usage checks), runs the hand-written implementation in `crate::entry` behind \
         `crate::boundary` (panics caught, errors to `VkResult`) and returns.\n\n\
         #![allow(non_snake_case, unused_unsafe, clippy::redundant_closure)]\n\n\
         #[allow(unused_imports)]\nuse std::ffi::{{c_char, c_int, c_void}};\n\n\
         use tessera_runtime::{{Result, ensure}};\n\
         use vulkan_headers::vulkan::vulkan_core::*;\n\
         #[allow(unused_imports)]\nuse tessera_runtime::vk::abi::*;\n\n\
         use super::read::*;\n\
         use crate::conv::*;\n\
         use crate::handle::{{self, RawHandle}};\n\
         use crate::{{boundary, entry}};\n\n{shells}"
    );
    let mut objects = String::new();
    for (handle, path) in config::OBJECTS {
        let Some(TypeKind::Handle {
            object_type: Some(object_type),
            ..
        }) = model.reg.kind(handle)
        else {
            return Err(format!(
                "config: {handle} is not a handle with an object type"
            ));
        };
        writeln!(
            objects,
            "impl Object for tessera_runtime::{path} {{\n\
             const TYPE: VkObjectType = {object_type};\n\
             const NAME: &'static str = {};\n}}\n",
            string(handle)
        )
        .unwrap();
    }
    let objects = format!(
        "{HEADER}\n//! The runtime type behind each Vulkan handle Tessera implements.\n\n\
         use vulkan_headers::vulkan::vulkan_core::*;\n\
         #[allow(unused_imports)]\nuse tessera_runtime::vk::abi::*;\n\n\
         use crate::handle::Object;\n\n{objects}"
    );
    let out = config::ICD_OUT;
    Ok(vec![
        (format!("{out}/objects.rs"), objects),
        (format!("{out}/entrypoints.rs"), entrypoints),
        (format!("{out}/dispatch.rs"), dispatch),
        (format!("{out}/unsupported.rs"), unsupported),
        (format!("{out}/core_commands.rs"), core),
    ])
}
