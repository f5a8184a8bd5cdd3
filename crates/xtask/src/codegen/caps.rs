//! Features and properties: the runtime's `Features` and `Properties` (one field per canonical
//! struct: `VkPhysicalDeviceFeatures`, the `Vulkan1x` structs and the structs of our extensions
//! that no core struct covers) and the ICD code that writes them into, and reads them from, every
//! feature or property struct Tessera knows, including the promoted ones
//! (`VkPhysicalDevice16BitStorageFeatures` is a view of `VkPhysicalDeviceVulkan11Features`).

use std::fmt::Write;

use super::config;
use super::model::{Model, snake};
use super::registry::Member;
use super::rust::string;
use super::structs::{Kind, Mirrors, field_name, mirror_name, supported_types};

/// Feature or property structs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Features,
    Properties,
}

impl Family {
    fn parent(self) -> &'static str {
        match self {
            Family::Features => "VkPhysicalDeviceFeatures2",
            Family::Properties => "VkPhysicalDeviceProperties2",
        }
    }
    fn core(self) -> &'static str {
        match self {
            Family::Features => "VkPhysicalDeviceFeatures",
            Family::Properties => "VkPhysicalDeviceProperties",
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Family::Features => "Features",
            Family::Properties => "Properties",
        }
    }
    fn rust(self) -> &'static str {
        match self {
            Family::Features => "Features",
            Family::Properties => "Properties",
        }
    }
}

/// A struct of the family and where its members live.
#[derive(Debug, Clone)]
struct View {
    /// The struct (`VkPhysicalDevice16BitStorageFeatures`).
    name: String,
    /// The canonical struct holding its members (`VkPhysicalDeviceVulkan11Features`).
    canonical: String,
    /// Its members and the canonical member each maps to.
    members: Vec<(Member, String)>,
}

/// The `Features`/`Properties` field of a canonical struct (`vulkan11`, `tensor_arm`).
fn aggregate_field(family: Family, canonical: &str) -> String {
    if canonical == family.core() {
        return "vulkan10".into();
    }
    let trimmed = canonical
        .strip_prefix("VkPhysicalDevice")
        .unwrap_or(canonical)
        .replacen(family.suffix(), "", 1);
    field_name(&trimmed)
}

fn members_of(model: &Model, name: &str) -> Vec<Member> {
    model
        .reg
        .struct_members(name)
        .unwrap_or_default()
        .iter()
        .filter(|m| m.name != "sType" && m.name != "pNext")
        .cloned()
        .collect()
}

fn views(model: &Model, family: Family) -> Result<(Vec<String>, Vec<View>), String> {
    let supported = supported_types(model.reg, family == Family::Features);
    let core_versions: Vec<String> = (1..=config::API_VERSION.1)
        .map(|minor| format!("VkPhysicalDeviceVulkan1{minor}{}", family.suffix()))
        .filter(|n| model.reg.types.contains_key(n))
        .collect();
    let mut canonical = vec![family.core().to_string()];
    canonical.extend(core_versions.iter().cloned());
    let mut names: Vec<&String> = model
        .reg
        .types
        .keys()
        .filter(|n| supported.contains(*n))
        .filter(|n| model.reg.extends(n).iter().any(|p| p == family.parent()))
        .collect();
    names.sort();
    let mut views = vec![View {
        name: family.parent().to_string(),
        canonical: family.core().to_string(),
        members: Vec::new(),
    }];
    for name in names {
        let members = members_of(model, name);
        if core_versions.contains(name) {
            views.push(View {
                name: name.clone(),
                canonical: name.clone(),
                members: members
                    .iter()
                    .map(|m| (m.clone(), m.name.clone()))
                    .collect(),
            });
            continue;
        }
        // A promoted struct: every member is a member of one core struct (properties of the
        // subgroup struct carry a `subgroup` prefix there).
        let promoted = core_versions.iter().find_map(|core| {
            let core_members = members_of(model, core);
            let mapped: Option<Vec<(Member, String)>> = members
                .iter()
                .map(|m| {
                    let prefixed = {
                        let mut c = m.name.chars();
                        c.next()
                            .map(|f| format!("subgroup{}{}", f.to_ascii_uppercase(), c.as_str()))
                    };
                    core_members
                        .iter()
                        .find(|cm| cm.name == m.name || Some(&cm.name) == prefixed.as_ref())
                        .map(|cm| (m.clone(), cm.name.clone()))
                })
                .collect();
            mapped.map(|mapped| (core.clone(), mapped))
        });
        match promoted {
            Some((core, mapped)) if !members.is_empty() => views.push(View {
                name: name.clone(),
                canonical: core,
                members: mapped,
            }),
            _ => {
                canonical.push(name.clone());
                views.push(View {
                    name: name.clone(),
                    canonical: name.clone(),
                    members: members
                        .iter()
                        .map(|m| (m.clone(), m.name.clone()))
                        .collect(),
                });
            }
        }
    }
    Ok((canonical, views))
}

fn stype_of(model: &Model, name: &str) -> Option<String> {
    model
        .reg
        .struct_members(name)?
        .iter()
        .find(|m| m.name == "sType")?
        .values
        .clone()
}

/// Emits the runtime's `vk/features.rs` and `vk/properties.rs` and the ICD's `generated/caps.rs`;
/// adds the canonical structs to `mirrors`.
pub fn emit(model: &Model, mirrors: &mut Mirrors) -> Result<Vec<(String, String)>, String> {
    let mut runtime = Vec::new();
    let mut icd = String::new();
    for family in [Family::Features, Family::Properties] {
        let (canonical, views) = views(model, family)?;
        // The 1.0 struct is written whole by its own command.
        mirrors.written.insert(family.core().to_string());
        for c in &canonical {
            mirrors.add(c)?;
            // Nested structs (limits, sparse properties, conformance version) are converted by
            // the generic writers.
            for f in &mirrors.mirrors[c].fields.clone() {
                if let Kind::Nested(t) = &f.kind {
                    mirrors
                        .written
                        .insert(model.reg.resolve_type(t).to_string());
                }
            }
        }
        let agg = family.rust();
        let mut fields = String::new();
        for c in &canonical {
            writeln!(
                fields,
                "    /// `{c}`.\n    pub {}: {},",
                aggregate_field(family, c),
                mirror_name(c)
            )
            .unwrap();
        }
        let derives = "Debug, Clone, Default, PartialEq";
        let mut text = format!(
            "{}\n//! Every {} struct Tessera knows, gathered in one value: one field per \
             canonical struct (promoted structs are views of the core ones).\n\n\
             use super::structs::*;\n\n\
             /// The device's {}, by canonical struct.\n\
             #[derive({derives})]\npub struct {agg} {{\n{fields}}}\n",
            super::HEADER,
            family.suffix().to_ascii_lowercase(),
            family.suffix().to_ascii_lowercase(),
        );
        if family == Family::Features {
            let mut checks = String::new();
            let mut names = String::new();
            for c in &canonical {
                let field = aggregate_field(family, c);
                for m in members_of(model, c) {
                    let f = field_name(&m.name);
                    writeln!(
                        checks,
                        "if self.{field}.{f} && !supported.{field}.{f} {{ return Some({}); }}",
                        string(&format!("{c}::{}", m.name))
                    )
                    .unwrap();
                    writeln!(
                        names,
                        "({}, self.{field}.{f}),",
                        string(&format!("{c}::{}", m.name))
                    )
                    .unwrap();
                }
            }
            write!(
                text,
                "\nimpl Features {{\n\
                 /// The first feature `self` enables that `supported` lacks, as \
                 `VkStruct::member`.\n\
                 pub fn first_unsupported(&self, supported: &Features) -> Option<&'static str> {{\n\
                 {checks}None\n}}\n\n\
                 /// Every feature with its value, as `(\"VkStruct::member\", enabled)`.\n\
                 pub fn list(&self) -> Vec<(&'static str, bool)> {{\n\
                 vec![\n{names}]\n}}\n}}\n"
            )
            .unwrap();
        }
        runtime.push((
            format!(
                "{}/{}.rs",
                config::RUNTIME_OUT,
                family.suffix().to_ascii_lowercase()
            ),
            text,
        ));

        // ICD: write every view; read feature views.
        let lower = family.suffix().to_ascii_lowercase();
        let mut write_arms = String::new();
        let mut read_arms = String::new();
        for v in &views {
            if v.name == family.parent() {
                continue;
            }
            let stype = stype_of(model, &v.name).ok_or_else(|| format!("{}: no sType", v.name))?;
            let canon_field = aggregate_field(family, &v.canonical);
            let cm = &mirrors.mirrors[&v.canonical];
            let mut sets = String::new();
            let mut ors = String::new();
            for (m, canon_member) in &v.members {
                let f = cm
                    .fields
                    .iter()
                    .find(|f| f.member.name == *canon_member)
                    .ok_or_else(|| format!("{}: no member {canon_member}", v.canonical))?;
                let src = format!("src.{canon_field}.{}", f.name);
                let value = match &f.kind {
                    Kind::FixedString => {
                        writeln!(sets, "copy_cstr_str(&mut out.{}, &{src});", m.name).unwrap();
                        continue;
                    }
                    Kind::Bool => format!("VkBool32::from({src})"),
                    Kind::Nested(t) => format!(
                        "to_vk_{}(&{src})",
                        snake(&mirror_name(model.reg.resolve_type(t)))
                    ),
                    Kind::Array(..) if mirrors.rust_type(f).contains("bool") => {
                        format!("{src}.map(VkBool32::from)")
                    }
                    _ => src.clone(),
                };
                writeln!(sets, "out.{} = {value};", super::rust::ident(&m.name)).unwrap();
                if family == Family::Features {
                    writeln!(
                        ors,
                        "dst.{canon_field}.{} |= s.{} != VK_FALSE;",
                        f.name, m.name
                    )
                    .unwrap();
                }
            }
            let ty = &v.name;
            writeln!(
                write_arms,
                "{stype} => {{\n\
                 let mut out: {ty} = zeroed();\n{sets}\
                 // SAFETY: the sType names this structure (the caller's contract).\n\
                 unsafe {{ write_whole(&mut *p.cast::<{ty}>(), &out) }};\n}}"
            )
            .unwrap();
            if family == Family::Features {
                writeln!(
                    read_arms,
                    "{stype} => {{\n\
                     // SAFETY: the sType names this structure (the caller's contract).\n\
                     let s = unsafe {{ &*p.cast::<{ty}>() }};\n{ors}}}"
                )
                .unwrap();
            }
        }
        let features2 = if family == Family::Features {
            "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 => {\n\
             let mut out: VkPhysicalDeviceFeatures2 = zeroed();\n\
             out.features = to_vk_physical_device_features(&src.vulkan10);\n\
             // SAFETY: the sType names this structure (the caller's contract).\n\
             unsafe { write_whole(&mut *p.cast::<VkPhysicalDeviceFeatures2>(), &out) };\n}\n"
        } else {
            ""
        };
        write!(
            icd,
            "/// Writes the device's {lower} into the {lower} struct at `p`, by its `sType` \
             (every byte written, `sType` and `pNext` kept); `false` for a struct Tessera does \
             not know (left untouched). `VkPhysicalDevice{agg}2` is written by its command.\n\
             ///\n/// # Safety\n/// `p` must point to a writable structure of the type `stype` \
             names.\n\
             pub unsafe fn write_{lower}(stype: VkStructureType, p: *mut VkBaseOutStructure, \
             src: &vk::{lower}::{agg}) -> bool {{\n\
             match stype {{\n{features2}{write_arms}_ => return false,\n}}\ntrue\n}}\n\n"
        )
        .unwrap();
        if family == Family::Features {
            write!(
                icd,
                "/// Adds the features the struct at `p` enables to `dst`, by its `sType`; \
                 `false` for a struct that is not a feature struct Tessera knows.\n\
                 ///\n/// # Safety\n/// `p` must point to a structure of the type `stype` names.\n\
                 pub unsafe fn read_features(stype: VkStructureType, p: *const VkBaseInStructure, \
                 dst: &mut vk::features::Features) -> bool {{\n\
                 match stype {{\n\
                 VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 => {{\n\
                 // SAFETY: the sType names this structure (the caller's contract).\n\
                 read_features10(unsafe {{ &(*p.cast::<VkPhysicalDeviceFeatures2>()).features }}, dst);\n}}\n\
                 {read_arms}_ => return false,\n}}\ntrue\n}}\n\n\
                 /// Adds the features a `VkPhysicalDeviceFeatures` enables to `dst`.\n\
                 pub fn read_features10(s: &VkPhysicalDeviceFeatures, dst: &mut \
                 vk::features::Features) {{\n{}}}\n\n",
                members_of(model, family.core())
                    .iter()
                    .map(|m| format!(
                        "dst.vulkan10.{} |= s.{} != VK_FALSE;\n",
                        field_name(&m.name),
                        m.name
                    ))
                    .collect::<String>()
            )
            .unwrap();
        }
    }
    let mut out = runtime;
    out.push((
        format!("{}/caps.rs", config::ICD_OUT),
        format!(
            "{}\n//! Features and properties written into (and features read from) every struct \
             of the two families Tessera knows.\n\n\
             use tessera_runtime::vk;\n\
             use vulkan_headers::vulkan::vulkan_core::*;\n\
         #[allow(unused_imports)]\nuse tessera_runtime::vk::abi::*;\n\n\
             use super::write::*;\n\
             use crate::conv::{{copy_cstr_str, write_whole, zeroed}};\n\n{icd}",
            super::HEADER
        ),
    ));
    Ok(out)
}
