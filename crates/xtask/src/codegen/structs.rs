//! Owned mirrors of Vulkan structs for the runtime (`vk/structs.rs`) and the ICD code that copies
//! them: readers (C struct → mirror, with the implicit valid-usage checks: `sType`, null pointers,
//! array lengths, enum values, flag bits, handles) and writers (mirror → C struct, every byte
//! written, output `pNext` chains followed).
//!
//! A mirror keeps every member but `sType`/`pNext`, named in snake case: `VkBool32` becomes `bool`,
//! `const char*` a `String`, a pointer with a length a `Vec`, a pointer to one struct the mirror
//! (an `Option` when it may be null), a handle of an object Tessera implements an `Arc` of the
//! runtime object (other handles stay `u64`), and each extending struct Tessera knows an `Option`
//! field. Enum and flag members keep the header's types.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write;

use super::config;
use super::model::{Model, snake};
use super::registry::{Member, Registry, TypeKind};
use super::rust::{base_type, ident, string};

/// How one member is mirrored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `VkBool32` → `bool`.
    Bool,
    /// A number, enum or flags value, kept as the header's type.
    Scalar(String),
    /// An enum: checked against the registry's values when read.
    Enum(String),
    /// A flags value: checked against the registry's bits when read.
    Flags(String),
    /// `char name[N]` → `String`.
    FixedString,
    /// `T name[N]` (or `[N][M]`) of numbers → `[T; N]`.
    Array(String, Vec<usize>),
    /// `S name[N]` of structs → `[S; N]` of mirrors (written only).
    StructArray(String, usize),
    /// A struct by value.
    Nested(String),
    /// A handle by value; `runtime` is the runtime type when Tessera implements it.
    Handle { ty: String, runtime: Option<String> },
    /// `const char*` → `String`.
    CString,
    /// `const char* const*` with a count → `Vec<String>`.
    StringList(String),
    /// `const T*` to one struct → the mirror.
    Pointer(String),
    /// `const T*` with a count (`len`) → `Vec<T>` of numbers, mirrors or handles
    /// (`elem_optional`: handles that may be `VK_NULL_HANDLE`, as `Option`s).
    Slice {
        elem: Box<Kind>,
        len: Len,
        elem_optional: bool,
    },
    /// `const void*` with a byte count → `Vec<u8>`.
    Bytes(Len),
    /// A pointer whose contents are not read, only whether it is null (`bool`).
    Presence,
    /// A pointer kept as its address (`usize`, 0 for NULL): hand-written ICD code reads or
    /// writes what it points to, because only that code knows the size ([`ADDRESS_MEMBERS`]).
    Address,
    /// A `VkDeviceOrHostAddress(Const)KHR` union → its 64 bits (`u64`): a device address or a
    /// host pointer, whichever the command uses (both members are 64 bits wide).
    AddressUnion,
}

/// A `len` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Len {
    /// Another member (or parameter).
    Member(String),
    /// A member divided by a constant (`codeSize / 4`).
    Divided(String, u64),
}

impl Len {
    pub fn parse(text: &str) -> Option<Len> {
        let first = text.split(',').next()?.trim();
        if let Some(rest) = first.strip_prefix("latexmath:[") {
            // `\textrm{codeSize} \over 4`
            let name = rest.split('{').nth(1)?.split('}').next()?;
            let div = rest
                .split("\\over")
                .nth(1)?
                .trim()
                .trim_end_matches(']')
                .trim();
            return Some(Len::Divided(name.to_string(), div.parse().ok()?));
        }
        if first == "null-terminated" || first.contains(['-', '>', '(']) {
            return None;
        }
        Some(Len::Member(first.to_string()))
    }

    /// The member it counts with.
    pub fn member(&self) -> &str {
        match self {
            Len::Member(m) | Len::Divided(m, _) => m,
        }
    }
}

/// One mirrored member.
#[derive(Debug, Clone)]
pub struct Field {
    /// The registry member.
    pub member: Member,
    /// The Rust field name.
    pub name: String,
    /// How it is mirrored.
    pub kind: Kind,
    /// Whether it may be null / absent (`Option` or empty).
    pub optional: bool,
    /// A handle the spec lets hold anything when unused (`noautovalidity`): a live object of its
    /// type, or `None`.
    pub lenient: bool,
}

/// A mirrored struct.
#[derive(Debug, Clone)]
pub struct Mirror {
    /// `VkBufferCreateInfo`.
    pub name: String,
    /// `BufferCreateInfo`.
    pub rust: String,
    /// Its `sType` value, when it has one.
    pub stype: Option<String>,
    /// The mirrored members.
    pub fields: Vec<Field>,
    /// Extending structs Tessera knows, each an `Option` field (`pNext`).
    pub extensions: Vec<String>,
    /// Whether chained feature structs are gathered into a `features` field
    /// (`VkDeviceCreateInfo`).
    pub feature_chain: bool,
}

/// A member the generator cannot mirror on its own: why.
#[derive(Debug)]
struct Unmirrorable(String);

/// Pointers the generator keeps as addresses ([`Kind::Address`]): constant data whose size
/// follows from a chained `VkTensorDescriptionARM`, and the creation-feedback outputs that sit in
/// an input chain (written after the pipeline is made).
pub const ADDRESS_MEMBERS: &[(&str, &str)] = &[
    ("VkConvertCooperativeVectorMatrixInfoNV", "pDstSize"),
    ("VkDataGraphPipelineConstantARM", "pConstantData"),
    (
        "VkPipelineCreationFeedbackCreateInfo",
        "pPipelineCreationFeedback",
    ),
    (
        "VkPipelineCreationFeedbackCreateInfo",
        "pPipelineStageCreationFeedbacks",
    ),
];

/// Pointers the registry declares non-`const` that the spec only reads: mirrored as inputs.
pub const INPUT_POINTERS: &[(&str, &str)] = &[(
    "VkDataGraphProcessingEngineCreateInfoARM",
    "pProcessingEngines",
)];

/// Rules for members the registry marks `noautovalidity` (valid only in some cases): the Rust
/// condition (over the C struct `s`) under which the member is read. A pointer member with
/// `noautovalidity` and no rule here is not mirrored.
/// `false`: never read (Tessera rejects what would use it before it matters); `present`: only
/// whether it is null is kept.
pub const CONDITIONAL_MEMBERS: &[(&str, &str, &str)] = &[
    // Read only for secondary command buffers, and Tessera needs nothing from it.
    ("VkCommandBufferBeginInfo", "pInheritanceInfo", "present"),
    (
        "VkBufferCreateInfo",
        "pQueueFamilyIndices",
        "s.sharingMode == VK_SHARING_MODE_CONCURRENT",
    ),
    (
        "VkTensorCreateInfoARM",
        "pQueueFamilyIndices",
        "s.sharingMode == VK_SHARING_MODE_CONCURRENT",
    ),
    (
        "VkWriteDescriptorSet",
        "pBufferInfo",
        "matches!(s.descriptorType, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER | \
         VK_DESCRIPTOR_TYPE_STORAGE_BUFFER | VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC | \
         VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC)",
    ),
    // No image or texel-buffer descriptor type is supported: the type is rejected.
    ("VkWriteDescriptorSet", "pImageInfo", "false"),
    ("VkWriteDescriptorSet", "pTexelBufferView", "false"),
    (
        "VkDescriptorSetLayoutBinding",
        "pImmutableSamplers",
        "matches!(s.descriptorType, VK_DESCRIPTOR_TYPE_SAMPLER | \
         VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)",
    ),
];

/// Lengths the registry leaves out: `VkTensorDependencyInfoARM::pTensorMemoryBarriers` points to
/// `tensorMemoryBarrierCount` barriers (the spec says so; the 1.4.342 registry has no `len`).
pub const LEN_OVERRIDES: &[(&str, &str, &str)] = &[(
    "VkTensorDependencyInfoARM",
    "pTensorMemoryBarriers",
    "tensorMemoryBarrierCount",
)];

/// Members a newer registry (1.4.359) marks `optional` where the ABI's (1.4.342) does not:
/// a data graph pipeline made from an identifier has no resource infos.
pub const OPTIONAL_OVERRIDES: &[(&str, &str)] =
    &[("VkDataGraphPipelineCreateInfoARM", "resourceInfoCount")];

/// Mirrors that are read or written, and what they need.
pub struct Mirrors<'m> {
    reg: &'m Registry,
    /// Structs that core ≤ our version or our extensions define.
    supported: HashSet<String>,
    /// Every mirror by struct name.
    pub mirrors: BTreeMap<String, Mirror>,
    /// Structs read from the application.
    pub read: BTreeSet<String>,
    /// Structs written to the application.
    pub written: BTreeSet<String>,
    /// Enum values that our extensions add in a newer registry than the ABI's (the revision we
    /// implement is newer): `(enum, value)`.
    pub extra_values: Vec<(String, super::registry::EnumValue)>,
}

/// The Rust name of a struct's mirror (`VkBufferCreateInfo` → `BufferCreateInfo`).
pub fn mirror_name(name: &str) -> String {
    name.strip_prefix("Vk").unwrap_or(name).to_string()
}

/// A field name: snake case, without the pointer prefixes (`pQueueFamilyIndices` →
/// `queue_family_indices`, `ppEnabledExtensionNames` → `enabled_extension_names`); `type` is a
/// keyword: `ty`.
pub fn field_name(member: &str) -> String {
    let bare = ["pp", "p"]
        .iter()
        .find_map(|prefix| {
            member
                .strip_prefix(prefix)
                .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        })
        .unwrap_or(member);
    match snake(bare).as_str() {
        "type" => "ty".into(),
        other => other.into(),
    }
}

/// The types defined by core versions up to ours and by the extensions we implement.
/// `with_gated`: also those of extension parts that need extensions we do not implement.
pub fn supported_types(reg: &Registry, with_gated: bool) -> HashSet<String> {
    let mut out: HashSet<String> = config::EXTRA_STRUCTS
        .iter()
        .map(|s| s.to_string())
        .collect();
    let add = |out: &mut HashSet<String>, names: &[String]| {
        for n in names {
            out.insert(n.clone());
            out.insert(reg.resolve_type(n).to_string());
        }
    };
    for f in &reg.features {
        if f.version <= config::API_VERSION {
            for r in &f.requires {
                add(&mut out, &r.types);
            }
        }
    }
    for (name, ext) in &reg.extensions {
        if !config::is_supported_extension(name) {
            continue;
        }
        for r in &ext.requires {
            let holds = r
                .depends
                .as_deref()
                .is_none_or(|d| super::registry::depends_holds(d, &config::has));
            if holds || with_gated {
                add(&mut out, &r.types);
            }
        }
    }
    out
}

impl<'m> Mirrors<'m> {
    /// Starts with no mirrors.
    pub fn new(model: &'m Model) -> Self {
        Mirrors {
            reg: model.reg,
            supported: supported_types(model.reg, false),
            mirrors: BTreeMap::new(),
            read: BTreeSet::new(),
            written: BTreeSet::new(),
            extra_values: Vec::new(),
        }
    }

    fn runtime_type(handle: &str) -> Option<String> {
        config::OBJECTS
            .iter()
            .find(|(h, _)| *h == handle)
            .map(|(_, t)| t.to_string())
    }

    fn array_dims(&self, m: &Member) -> Result<Vec<usize>, Unmirrorable> {
        m.array
            .iter()
            .map(|d| {
                d.parse::<usize>()
                    .ok()
                    .or_else(|| self.reg.constant(d).map(|v| v as usize))
                    .ok_or_else(|| Unmirrorable(format!("array size {d}")))
            })
            .collect()
    }

    fn value_kind(&self, ty: &str) -> Result<Kind, Unmirrorable> {
        if ty == "VkBool32" {
            return Ok(Kind::Bool);
        }
        match self.reg.kind(ty) {
            Some(TypeKind::Struct { union: false, .. }) => Ok(Kind::Nested(ty.to_string())),
            Some(TypeKind::Struct { union: true, .. })
                if ty.starts_with("VkDeviceOrHostAddress") =>
            {
                Ok(Kind::AddressUnion)
            }
            Some(TypeKind::Struct { union: true, .. }) => Err(Unmirrorable(format!("union {ty}"))),
            Some(TypeKind::Handle { .. }) => Ok(Kind::Handle {
                ty: ty.to_string(),
                runtime: Self::runtime_type(self.reg.resolve_type(ty)),
            }),
            Some(TypeKind::Enum) => Ok(Kind::Enum(ty.to_string())),
            Some(TypeKind::Bitmask { .. }) => Ok(Kind::Flags(ty.to_string())),
            Some(TypeKind::FuncPointer) => Err(Unmirrorable(format!("function pointer {ty}"))),
            _ => Ok(Kind::Scalar(base_type(ty).to_string())),
        }
    }

    fn kind(&self, owner: &str, m: &Member) -> Result<Kind, Unmirrorable> {
        if m.bitfield.is_some() {
            return Err(Unmirrorable("bit-field".into()));
        }
        if !m.array.is_empty() {
            if m.pointers > 0 {
                return Err(Unmirrorable("array of pointers".into()));
            }
            if m.ty == "char" {
                return Ok(Kind::FixedString);
            }
            return match self.value_kind(&m.ty)? {
                Kind::Scalar(t) | Kind::Enum(t) | Kind::Flags(t) => {
                    Ok(Kind::Array(t, self.array_dims(m)?))
                }
                Kind::Bool => Ok(Kind::Array("bool".into(), self.array_dims(m)?)),
                Kind::Nested(t) => match self.array_dims(m)?.as_slice() {
                    [n] => Ok(Kind::StructArray(t, *n)),
                    _ => Err(Unmirrorable("2-D array of structs".into())),
                },
                other => Err(Unmirrorable(format!("array of {other:?}"))),
            };
        }
        let rule = CONDITIONAL_MEMBERS
            .iter()
            .find(|(s, n, _)| *s == owner && *n == m.name)
            .map(|(_, _, r)| *r);
        if rule == Some("present") {
            return Ok(Kind::Presence);
        }
        if ADDRESS_MEMBERS.contains(&(owner, m.name.as_str())) {
            return Ok(Kind::Address);
        }
        let input = INPUT_POINTERS.contains(&(owner, m.name.as_str()));
        let conditional = rule.is_some();
        if m.noautovalidity && m.pointers > 0 && !conditional {
            return Err(Unmirrorable("noautovalidity pointer without a rule".into()));
        }
        match m.pointers {
            0 => self.value_kind(&m.ty),
            1 if !m.is_const && !input => Err(Unmirrorable("output pointer".into())),
            1 if m.ty == "char" => Ok(Kind::CString),
            1 if m.ty == "void" => match m.len.as_deref().and_then(Len::parse) {
                Some(len) => Ok(Kind::Bytes(len)),
                None => Err(Unmirrorable("void pointer".into())),
            },
            1 => match m.len.as_deref() {
                Some(len) => {
                    let len =
                        Len::parse(len).ok_or_else(|| Unmirrorable(format!("length {len}")))?;
                    let elem = if m.ty == "VkBool32" {
                        Kind::Bool
                    } else {
                        self.value_kind(&m.ty)?
                    };
                    Ok(Kind::Slice {
                        elem: Box::new(elem),
                        len,
                        elem_optional: m.optional.get(1).copied().unwrap_or(false),
                    })
                }
                None => match self.reg.kind(&m.ty) {
                    Some(TypeKind::Struct { union: false, .. }) => Ok(Kind::Pointer(m.ty.clone())),
                    _ => Err(Unmirrorable(format!(
                        "pointer to {} without a length",
                        m.ty
                    ))),
                },
            },
            2 if m.ty == "char" && m.is_const => match m.len.as_deref().and_then(Len::parse) {
                Some(Len::Member(len)) => Ok(Kind::StringList(len)),
                _ => Err(Unmirrorable("string list without a count".into())),
            },
            _ => Err(Unmirrorable("pointer to pointer".into())),
        }
    }

    /// Adds the mirror of `name` (and of what it contains and of its known extending structs).
    pub fn add(&mut self, name: &str) -> Result<(), String> {
        let name = self.reg.resolve_type(name).to_string();
        if self.mirrors.contains_key(&name) {
            return Ok(());
        }
        match self.try_add(&name) {
            Ok(()) => Ok(()),
            Err(Unmirrorable(why)) => Err(format!("{name} cannot be mirrored: {why}")),
        }
    }

    fn try_add(&mut self, name: &str) -> Result<(), Unmirrorable> {
        let mut members = self
            .reg
            .struct_members(name)
            .ok_or_else(|| Unmirrorable("not a struct".into()))?
            .to_vec();
        for m in &mut members {
            if let Some((_, _, len)) = LEN_OVERRIDES
                .iter()
                .find(|(s, n, _)| *s == name && *n == m.name)
            {
                m.len = Some(len.to_string());
            }
            if OPTIONAL_OVERRIDES.contains(&(name, m.name.as_str())) {
                match m.optional.first_mut() {
                    Some(first) => *first = true,
                    None => m.optional.push(true),
                }
            }
        }
        let mut fields = Vec::new();
        let mut stype = None;
        for m in &members {
            if m.name == "sType" {
                stype = m.values.clone();
                continue;
            }
            if m.name == "pNext" {
                continue;
            }
            let kind = self
                .kind(name, m)
                .map_err(|Unmirrorable(why)| Unmirrorable(format!("{}: {why}", m.name)))?;
            fields.push(Field {
                member: m.clone(),
                name: field_name(&m.name),
                optional: m.is_optional(),
                lenient: m.noautovalidity && m.pointers == 0,
                kind,
            });
        }
        let has_header = stype.is_some();
        // Register first so that recursive structs terminate.
        self.mirrors.insert(
            name.to_string(),
            Mirror {
                name: name.to_string(),
                rust: mirror_name(name),
                stype,
                fields: fields.clone(),
                extensions: Vec::new(),
                feature_chain: name == "VkDeviceCreateInfo",
            },
        );
        for f in &fields {
            let inner = match &f.kind {
                Kind::Nested(t) | Kind::Pointer(t) | Kind::StructArray(t, _) => Some(t.clone()),
                Kind::Slice { elem, .. } => match elem.as_ref() {
                    Kind::Nested(t) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(t) = inner {
                let t = self.reg.resolve_type(&t).to_string();
                if let Err(e) = self.try_add(&t) {
                    self.mirrors.remove(name);
                    return Err(Unmirrorable(format!("{}: {}", f.member.name, e.0)));
                }
            }
        }
        if has_header {
            // Feature and property structs are gathered by `caps.rs` instead.
            let reg = self.reg;
            let family = |n: &str| {
                n == "VkPhysicalDeviceFeatures2"
                    || reg.extends(n).iter().any(|p| {
                        p == "VkPhysicalDeviceFeatures2" || p == "VkPhysicalDeviceProperties2"
                    })
            };
            self.add_extensions(name, &family);
        }
        Ok(())
    }

    /// The structs that can extend `parent` and that Tessera knows (defined by core or our
    /// extensions, and mirrorable), added as mirrors.
    pub fn add_extensions(&mut self, parent: &str, skip: &dyn Fn(&str) -> bool) -> Vec<String> {
        let mut exts = Vec::new();
        let mut names: Vec<&String> = self.reg.types.keys().collect();
        names.sort();
        for n in names {
            if !self.supported.contains(n) || skip(n) {
                continue;
            }
            if !self.reg.extends(n).iter().any(|p| p == parent) {
                continue;
            }
            match self.try_add(n) {
                Ok(()) => exts.push(n.clone()),
                Err(e) if std::env::var_os("TESSERA_GEN_DEBUG").is_some() => {
                    eprintln!("xtask gen: {n} (extends {parent}) is not mirrored: {}", e.0)
                }
                Err(_) => {}
            }
        }
        if let Some(m) = self.mirrors.get_mut(parent) {
            m.extensions = exts.clone();
        }
        exts
    }

    /// The Rust type of a field in the runtime's mirror.
    pub fn rust_type(&self, f: &Field) -> String {
        let t = self.kind_type(&f.kind);
        if f.lenient
            && matches!(
                f.kind,
                Kind::Handle {
                    runtime: Some(_),
                    ..
                }
            )
        {
            return format!("Option<{t}>");
        }
        let wrap = matches!(
            f.kind,
            Kind::Pointer(_)
                | Kind::CString
                | Kind::Slice { .. }
                | Kind::Handle {
                    runtime: Some(_),
                    ..
                }
        );
        if f.optional && wrap {
            format!("Option<{t}>")
        } else {
            t
        }
    }

    fn kind_type(&self, kind: &Kind) -> String {
        match kind {
            Kind::Bool => "bool".into(),
            Kind::Scalar(t) | Kind::Enum(t) | Kind::Flags(t) => t.clone(),
            Kind::FixedString | Kind::CString => "String".into(),
            Kind::Array(t, dims) => dims
                .iter()
                .rev()
                .fold(t.clone(), |inner, d| format!("[{inner}; {d}]")),
            Kind::Nested(t) | Kind::Pointer(t) => mirror_name(self.reg.resolve_type(t)),
            Kind::StructArray(t, n) => format!("[{}; {n}]", mirror_name(self.reg.resolve_type(t))),
            Kind::Handle {
                runtime: Some(rt), ..
            } => format!("Arc<crate::{rt}>"),
            Kind::Handle { runtime: None, .. } => "u64".into(),
            Kind::StringList(_) => "Vec<String>".into(),
            Kind::Slice {
                elem,
                elem_optional,
                ..
            } => {
                let inner = self.kind_type(elem);
                let handle = matches!(
                    elem.as_ref(),
                    Kind::Handle {
                        runtime: Some(_),
                        ..
                    }
                );
                if *elem_optional && handle {
                    format!("Vec<Option<{inner}>>")
                } else {
                    format!("Vec<{inner}>")
                }
            }
            Kind::Bytes(_) => "Vec<u8>".into(),
            Kind::Presence => "bool".into(),
            Kind::Address => "usize".into(),
            Kind::AddressUnion => "u64".into(),
        }
    }

    fn has_handles(&self, name: &str, seen: &mut HashSet<String>) -> bool {
        if !seen.insert(name.to_string()) {
            return false;
        }
        let Some(m) = self.mirrors.get(name) else {
            return false;
        };
        let mut inner = Vec::new();
        for f in &m.fields {
            match &f.kind {
                Kind::Handle {
                    runtime: Some(_), ..
                } => return true,
                Kind::Nested(t) | Kind::Pointer(t) | Kind::StructArray(t, _) => {
                    inner.push(t.clone())
                }
                Kind::Slice { elem, .. } => match elem.as_ref() {
                    Kind::Handle {
                        runtime: Some(_), ..
                    } => return true,
                    Kind::Nested(t) => inner.push(t.clone()),
                    _ => {}
                },
                _ => {}
            }
        }
        inner.extend(m.extensions.iter().cloned());
        inner
            .iter()
            .any(|t| self.has_handles(self.reg.resolve_type(t), seen))
    }

    /// The runtime's `vk/structs.rs`.
    pub fn emit_mirrors(&self) -> String {
        let mut out = String::new();
        for m in self.mirrors.values() {
            let plain = !self.has_handles(&m.name, &mut HashSet::new());
            let derives = if plain {
                "Debug, Clone, Default, PartialEq"
            } else {
                "Debug, Clone"
            };
            writeln!(
                out,
                "/// `{}`.\n#[derive({derives})]\npub struct {} {{",
                m.name, m.rust
            )
            .unwrap();
            for f in &m.fields {
                writeln!(
                    out,
                    "    /// `{}`.\n    pub {}: {},",
                    f.member.name,
                    f.name,
                    self.rust_type(f)
                )
                .unwrap();
            }
            for e in &m.extensions {
                writeln!(
                    out,
                    "    /// A chained `{e}`.\n    pub {}: Option<Box<{}>>,",
                    field_name(&mirror_name(e)),
                    mirror_name(e)
                )
                .unwrap();
            }
            if m.feature_chain {
                writeln!(
                    out,
                    "    /// The features every chained feature struct enables, together.\n    \
                     pub features: super::features::Features,\n    \
                     /// The `sType` of each chained feature struct, in chain order.\n    \
                     pub feature_structs: Vec<VkStructureType>,"
                )
                .unwrap();
            }
            writeln!(out, "}}\n").unwrap();
        }
        out
    }

    pub fn enum_values(&self, ty: &str) -> Vec<i128> {
        let ty = self.reg.resolve_type(ty);
        let mut values: Vec<i128> = self
            .reg
            .enums
            .get(ty)
            .map(|v| v.iter().filter_map(|e| e.value).collect())
            .unwrap_or_default();
        values.extend(
            self.extra_values
                .iter()
                .filter(|(e, _)| e == ty)
                .filter_map(|(_, v)| v.value),
        );
        values.sort();
        values.dedup();
        values
    }

    pub fn flag_bits(&self, ty: &str) -> Option<i128> {
        let bits = match self.reg.kind(ty)? {
            TypeKind::Bitmask { bits, .. } => bits.clone(),
            _ => None,
        };
        Some(match bits {
            Some(b) => self
                .reg
                .enums
                .get(self.reg.resolve_type(&b))
                .map(|v| v.iter().filter_map(|e| e.value).fold(0, |a, b| a | b))
                .unwrap_or(0),
            None => 0,
        })
    }

    /// The expression reading one value of `kind` from the C value `raw` (a place expression).
    fn read_value(
        &self,
        kind: &Kind,
        raw: &str,
        vuid: &str,
        optional: bool,
        unchecked: bool,
    ) -> String {
        // A place for a method call (`(*e).raw()`).
        let place = if raw.starts_with('*') {
            format!("({raw})")
        } else {
            raw.to_string()
        };
        match kind {
            Kind::Bool => format!("{raw} != VK_FALSE"),
            Kind::Scalar(_) => raw.to_string(),
            Kind::Enum(_) | Kind::Flags(_) if unchecked => raw.to_string(),
            Kind::Handle {
                runtime: Some(rt), ..
            } if unchecked => format!("handle::find::<tessera_runtime::{rt}>({place}.raw())"),
            Kind::Enum(ty) => {
                let values = self.enum_values(ty);
                if values.is_empty() {
                    return raw.to_string();
                }
                let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                format!(
                    "check_enum({raw}, &[{}], {}, {})?",
                    list.join(", "),
                    string(vuid),
                    string(ty)
                )
            }
            Kind::Flags(ty) => {
                let bits = self.flag_bits(ty).unwrap_or(0);
                let required = !optional && bits != 0;
                let zero_vuid = vuid.replace("-parameter", "-zerobitmask");
                let required_vuid = vuid.replace("-parameter", "-requiredbitmask");
                if bits == 0 {
                    format!(
                        "check_flags({raw}, 0, false, {}, {})?",
                        string(&zero_vuid),
                        string(ty)
                    )
                } else {
                    format!(
                        "check_flags({raw}, {bits:#x}, {required}, {}, {})?",
                        string(if required { &required_vuid } else { vuid }),
                        string(ty)
                    )
                }
            }
            Kind::Handle {
                runtime: Some(rt), ..
            } => {
                if optional {
                    format!(
                        "handle::get_optional::<tessera_runtime::{rt}>({place}.raw(), {})?",
                        string(vuid)
                    )
                } else {
                    format!(
                        "handle::lookup::<tessera_runtime::{rt}>({place}.raw(), {})?",
                        string(vuid)
                    )
                }
            }
            Kind::Handle { runtime: None, .. } => format!("{place}.raw()"),
            Kind::Nested(t) => format!(
                "read_{}({})?",
                snake(&mirror_name(self.reg.resolve_type(t))),
                raw.strip_prefix('*')
                    .map_or(format!("&{raw}"), str::to_string)
            ),
            Kind::FixedString => format!("fixed_string(&{raw})"),
            Kind::Array(..) => {
                // Numbers and enums are copied as they are; bools converted.
                if self.kind_type(kind).contains("bool") {
                    format!("{raw}.map(|b| b != VK_FALSE)")
                } else {
                    raw.to_string()
                }
            }
            other => unreachable!("read_value of {other:?}"),
        }
    }

    /// `read_<name>`: C struct → mirror.
    fn reader(&self, m: &Mirror) -> String {
        let s_name = &m.name;
        // A count member as `usize` (no cast for `size_t` members).
        let as_usize = |n: &str| {
            let is_size_t = m
                .fields
                .iter()
                .any(|f| f.member.name == n && f.member.ty == "size_t");
            if is_size_t {
                format!("s.{n}")
            } else {
                format!("s.{n} as usize")
            }
        };
        let mut body = String::new();
        if let Some(stype) = &m.stype {
            writeln!(
                body,
                "check_stype(s.sType, {stype}, {})?;",
                string(&format!("VUID-{s_name}-sType-sType"))
            )
            .unwrap();
        }
        // Counts that must not be zero.
        let mut checked_counts = BTreeSet::new();
        for f in &m.fields {
            let len = match &f.kind {
                Kind::Slice { len, .. } | Kind::Bytes(len) => Some(len.member().to_string()),
                Kind::StringList(len) => Some(len.clone()),
                _ => None,
            };
            if let Some(len) = len
                && let Some(count) = m.fields.iter().find(|c| c.member.name == len)
                && !count.optional
                && !f.optional
                && checked_counts.insert(len.clone())
            {
                writeln!(
                    body,
                    "ensure!(s.{len} != 0, {}, \"{len} is 0\");",
                    string(&format!("VUID-{s_name}-{len}-arraylength"))
                )
                .unwrap();
            }
        }
        let mut inits = String::new();
        for f in &m.fields {
            let c = &f.member.name;
            let vuid = format!("VUID-{s_name}-{c}-parameter");
            let raw = format!("s.{}", ident(c));
            let condition = CONDITIONAL_MEMBERS
                .iter()
                .find(|(s, n, _)| s == s_name && *n == c)
                .map(|(_, _, cond)| *cond);
            let value = match &f.kind {
                Kind::Presence => format!("!{raw}.is_null()"),
                Kind::Address => format!("{raw} as usize"),
                Kind::AddressUnion => format!(
                    "{{\n// SAFETY: both members of the union are 64 bits wide.\nunsafe {{ {raw}.deviceAddress }}\n}}"
                ),
                Kind::CString => {
                    if f.optional {
                        format!("optional_string({raw}, {})?", string(&vuid))
                    } else {
                        format!("string({raw}, {})?", string(&vuid))
                    }
                }
                Kind::StringList(len) => format!(
                    "strings({raw}, s.{len}, {})?",
                    string(&format!("VUID-{s_name}-{c}-parameter"))
                ),
                Kind::Pointer(t) => {
                    let reader = format!("read_{}", snake(&mirror_name(self.reg.resolve_type(t))));
                    if f.optional {
                        format!("optional({raw}, {reader})?")
                    } else {
                        format!("required({raw}, {}, {reader})?", string(&vuid))
                    }
                }
                Kind::Bytes(len) => {
                    let count = match len {
                        Len::Member(n) => as_usize(n),
                        Len::Divided(n, d) => format!("({}) / {d}", as_usize(n)),
                    };
                    format!(
                        "bytes({raw}.cast::<u8>(), {count}, {}, {})?.to_vec()",
                        f.optional,
                        string(&vuid)
                    )
                }
                Kind::Slice {
                    elem,
                    len,
                    elem_optional,
                } => {
                    let count = match len {
                        Len::Member(n) => as_usize(n),
                        Len::Divided(n, d) => {
                            writeln!(
                                body,
                                "ensure!(s.{n}.is_multiple_of({d}), {}, \"{n} is not a multiple of {d}\");",
                                string(&divisor_vuid(s_name, n))
                            )
                            .unwrap();
                            format!("({}) / {d}", as_usize(n))
                        }
                    };
                    let each = self.read_value(elem, "*e", &vuid, *elem_optional, false);
                    let simple = matches!(elem.as_ref(), Kind::Scalar(_));
                    let convert = |slice: &str| {
                        if simple {
                            format!("{slice}.to_vec()")
                        } else {
                            format!(
                                "{slice}.iter().map(|e| Ok({each})).collect::<Result<Vec<_>>>()?"
                            )
                        }
                    };
                    if f.optional {
                        // `None` for a null pointer (also with a zero count).
                        if simple {
                            format!("optional_array({raw}, {count}).map(<[_]>::to_vec)")
                        } else {
                            format!(
                                "optional_array({raw}, {count}).map(|a| a.iter().map(|e| Ok({each})).collect::<Result<Vec<_>>>()).transpose()?"
                            )
                        }
                    } else {
                        convert(&format!("array({raw}, {count}, false, {})?", string(&vuid)))
                    }
                }
                other => self.read_value(other, &raw, &vuid, f.optional, f.member.noautovalidity),
            };
            let value = match condition {
                Some("present") => value,
                Some("false") => "Default::default()".to_string(),
                Some(cond) => format!("if {cond} {{ {value} }} else {{ Default::default() }}"),
                None => value,
            };
            writeln!(inits, "{}: {value},", f.name).unwrap();
        }
        let mut chain = String::new();
        if m.feature_chain {
            writeln!(inits, "features,\nfeature_structs,").unwrap();
        }
        if !m.extensions.is_empty() || m.feature_chain {
            writeln!(
                chain,
                "// SAFETY: a valid input chain per the spec.\nlet links = unsafe {{ chain(s.pNext) }};"
            )
            .unwrap();
            writeln!(
                chain,
                "check_unique(&links, {})?;",
                string(&format!("VUID-{s_name}-sType-unique"))
            )
            .unwrap();
            if m.feature_chain {
                writeln!(
                    chain,
                    "let mut features = tessera_runtime::vk::features::Features::default();\n\
                     let mut feature_structs = Vec::new();\n\
                     for (stype, p) in &links {{\n\
                     // SAFETY: each link is the structure its sType names.\n\
                     if unsafe {{ super::caps::read_features(*stype, *p, &mut features) }} {{\n\
                     feature_structs.push(*stype);\n}}\n}}"
                )
                .unwrap();
            }
            for e in &m.extensions {
                let em = &self.mirrors[e];
                let stype = em.stype.clone().unwrap_or_default();
                writeln!(
                    inits,
                    "{}: match find_link(&links, {stype}) {{\n\
                     // SAFETY: the sType names this structure.\n\
                     Some(p) => Some(Box::new(unsafe {{ read_{}(&*p.cast::<{e}>()) }}?)),\n\
                     None => None,\n}},",
                    field_name(&em.rust),
                    snake(&em.rust)
                )
                .unwrap();
            }
        }
        let unused_s = if m.fields.is_empty()
            && m.stype.is_none()
            && m.extensions.is_empty()
            && !m.feature_chain
        {
            "_"
        } else {
            ""
        };
        format!(
            "/// Reads a `{s_name}`.\n///\n/// # Safety\n/// `s` must be valid per the spec: its \
             pointers, arrays and `pNext` chain too.\n\
             #[allow(unused_unsafe, clippy::needless_question_mark)]\n\
             pub unsafe fn read_{}({unused_s}s: &{s_name}) -> Result<vk::{}> {{\n\
             {body}{chain}\
             // SAFETY: the caller's contract covers every pointer read here.\n\
             Ok(unsafe {{ vk::{} {{\n{inits}}} }})\n}}\n\n",
            snake(&m.rust),
            m.rust,
            m.rust
        )
    }

    /// The ICD's `generated/read.rs` (readers of every struct in [`Self::read`]).
    pub fn emit_readers(&self) -> String {
        let mut out = String::new();
        let mut done = BTreeSet::new();
        let mut todo: Vec<String> = self.read.iter().cloned().collect();
        while let Some(name) = todo.pop() {
            let name = self.reg.resolve_type(&name).to_string();
            if !done.insert(name.clone()) {
                continue;
            }
            let m = &self.mirrors[&name];
            for f in &m.fields {
                let inner = match &f.kind {
                    Kind::Nested(t) | Kind::Pointer(t) => Some(t.clone()),
                    Kind::Slice { elem, .. } => match elem.as_ref() {
                        Kind::Nested(t) => Some(t.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                todo.extend(inner);
            }
            todo.extend(m.extensions.iter().cloned());
        }
        for name in &done {
            out.push_str(&self.reader(&self.mirrors[name]));
        }
        out
    }

    /// The expression converting a mirror value of `kind` (a place `v`) to its C value.
    fn write_value(&self, kind: &Kind, v: &str) -> String {
        match kind {
            Kind::Bool => format!("VkBool32::from({v})"),
            Kind::Scalar(_) | Kind::Enum(_) | Kind::Flags(_) => v.to_string(),
            Kind::Array(..) => {
                if self.kind_type(kind).contains("bool") {
                    format!("{v}.map(VkBool32::from)")
                } else {
                    v.to_string()
                }
            }
            Kind::Nested(t) => format!(
                "to_vk_{}(&{v})",
                snake(&mirror_name(self.reg.resolve_type(t)))
            ),
            Kind::StructArray(t, _) => format!(
                "std::array::from_fn(|i| to_vk_{}(&{v}[i]))",
                snake(&mirror_name(self.reg.resolve_type(t)))
            ),
            other => unreachable!("write_value of {other:?}"),
        }
    }

    /// Whether a struct can be written to the application (only values, no pointers).
    pub fn writable(&self, name: &str) -> bool {
        let Some(m) = self.mirrors.get(self.reg.resolve_type(name)) else {
            return false;
        };
        m.fields.iter().all(|f| match &f.kind {
            Kind::Bool
            | Kind::Scalar(_)
            | Kind::Enum(_)
            | Kind::Flags(_)
            | Kind::Array(..)
            | Kind::FixedString => true,
            Kind::Nested(t) | Kind::StructArray(t, _) => self.writable(t),
            _ => false,
        })
    }

    /// `to_vk_<name>` (structs without a header) or `write_<name>` (with one).
    fn writer(&self, m: &Mirror) -> String {
        let mut sets = String::new();
        // Members one by one into the caller's struct (its padding stays as the caller left
        // it: the CTS compares whole structs with a pre-filled pattern).
        let mut stores = String::new();
        for f in &m.fields {
            let c = &ident(&f.member.name);
            let v = format!("src.{}", f.name);
            match &f.kind {
                Kind::FixedString => writeln!(sets, "copy_cstr_str(&mut out.{c}, &{v});").unwrap(),
                kind => writeln!(sets, "out.{c} = {};", self.write_value(kind, &v)).unwrap(),
            }
            writeln!(stores, "std::ptr::addr_of_mut!((*dst).{c}).write(out.{c});").unwrap();
        }
        let snake_name = snake(&m.rust);
        let name = &m.name;
        if m.stype.is_none() {
            return format!(
                "/// A `{name}` from its mirror (every byte written: padding and unused name bytes \
                 are zero).\n\
                 pub fn to_vk_{snake_name}(src: &vk::{}) -> {name} {{\n\
                 let mut out: {name} = zeroed();\n{sets}out\n}}\n\n",
                m.rust
            );
        }
        let mut chain = String::new();
        for e in &m.extensions {
            let em = &self.mirrors[e];
            let stype = em.stype.clone().unwrap_or_default();
            writeln!(
                chain,
                "if stype == {stype} && let Some(ext) = &src.{} {{\n\
                 // SAFETY: the sType names this structure.\n\
                 unsafe {{ write_{}(p.cast::<{e}>(), ext) }};\n}}",
                field_name(&em.rust),
                snake(&em.rust)
            )
            .unwrap();
        }
        let chain = if chain.is_empty() {
            String::new()
        } else {
            format!(
                "// SAFETY: a valid output chain per the spec.\n\
                 for (stype, p) in unsafe {{ chain_mut((*dst).pNext) }} {{\n{chain}}}\n"
            )
        };
        format!(
            "/// Writes a `{name}` and the structures of its chain that Tessera knows (every member \
             of each is written; `sType`, `pNext` and padding are kept).\n///\n/// # Safety\n/// \
             `dst` must point to a writable `{name}` with a valid output chain.\n\
             pub unsafe fn write_{snake_name}(dst: *mut {name}, src: &vk::{}) {{\n\
             let mut out: {name} = zeroed();\n{sets}\
             // SAFETY: the caller's contract: `dst` is a writable `{name}`.\n\
             unsafe {{\n{stores}}}\n{chain}}}\n\n",
            m.rust
        )
    }

    /// The ICD's `generated/write.rs` (writers of every struct in [`Self::written`]).
    pub fn emit_writers(&self) -> Result<String, String> {
        let mut done = BTreeSet::new();
        let mut todo: Vec<String> = self.written.iter().cloned().collect();
        while let Some(name) = todo.pop() {
            let name = self.reg.resolve_type(&name).to_string();
            if !done.insert(name.clone()) {
                continue;
            }
            if !self.writable(&name) {
                return Err(format!(
                    "{name} cannot be written: it holds pointers or handles"
                ));
            }
            let m = &self.mirrors[&name];
            for f in &m.fields {
                if let Kind::Nested(t) | Kind::StructArray(t, _) = &f.kind {
                    todo.push(t.clone());
                }
            }
            todo.extend(m.extensions.iter().cloned());
        }
        Ok(done.iter().map(|n| self.writer(&self.mirrors[n])).collect())
    }
}

/// The VUID of a length given as a multiple (`codeSize` of `VkShaderModuleCreateInfo`).
fn divisor_vuid(owner: &str, member: &str) -> String {
    match (owner, member) {
        ("VkShaderModuleCreateInfo", "codeSize") => {
            "VUID-VkShaderModuleCreateInfo-codeSize-08735".into()
        }
        _ => format!("VUID-{owner}-{member}-parameter"),
    }
}
