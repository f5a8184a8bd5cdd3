//! Emits the ICD's dispatch table (`generated/dispatch.rs`), the entry points of the commands
//! Tessera does not implement (`generated/unsupported.rs`) and the core command lists
//! (`generated/core_commands.rs`).

use std::fmt::Write;

use super::HEADER;
use super::config;
use super::model::{Implementation, Model, Requirement};
use super::registry::{Command, Member};
use super::rust::{param_type, string};

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
    } else if mentions("Image") || name.contains("BufferView") {
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
            format!(
                "{}{}: {}",
                if used(&p.name) { "" } else { "_" },
                p.name,
                param_type(p)
            )
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
pub fn emit(model: &Model) -> Result<Vec<(String, String)>, String> {
    let mut table = String::new();
    let mut stubs = String::new();
    let mut stub_names = std::collections::BTreeSet::new();
    for c in model.exposed.values() {
        let cmd = model
            .reg
            .commands
            .get(&c.target)
            .ok_or_else(|| format!("no command {}", c.target))?;
        let function = match &model.implementations[&c.target] {
            Implementation::Extern { module } => format!("entry::{module}::{}", c.target),
            Implementation::Entry { .. } => {
                return Err(format!(
                    "{}: entry functions with converted arguments are not generated yet",
                    c.target
                ));
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
         use vulkan_headers::vulkan::vulkan_core::*;\n\n\
         use super::unsupported;\n\
         use crate::dispatch::{{Entry, Requirement, Scope}};\n\
         use crate::entry;\n\n\
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
         use vulkan_headers::vulkan::vulkan_core::*;\n\n\
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
    let out = config::ICD_OUT;
    Ok(vec![
        (format!("{out}/dispatch.rs"), dispatch),
        (format!("{out}/unsupported.rs"), unsupported),
        (format!("{out}/core_commands.rs"), core),
    ])
}
