//! What the generator emits code for, decided from the registry and `config.rs`: the commands the
//! driver exposes (core commands up to our version, and the commands of the extensions we
//! implement), their dispatch level and what enables them, and which of them have a hand-written
//! implementation in `crates/icd/src/entry`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::config;
use super::registry::{Command, Registry, depends_holds, depends_names};

/// The dispatch level of a command (which proc-addr query returns it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Instance,
    PhysicalDevice,
    Device,
}

impl Scope {
    pub fn rust(self) -> &'static str {
        match self {
            Scope::Global => "Scope::Global",
            Scope::Instance => "Scope::Instance",
            Scope::PhysicalDevice => "Scope::PhysicalDevice",
            Scope::Device => "Scope::Device",
        }
    }
}

/// What makes a command available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// A core version.
    Core((u32, u32)),
    /// Every one of these extensions (the first is the one that adds it).
    Extensions(Vec<String>),
}

/// One command name the driver resolves.
#[derive(Debug, Clone)]
pub struct ExposedCommand {
    /// The name looked up (`vkCmdPipelineBarrier2KHR`).
    pub name: String,
    /// The command it is (`vkCmdPipelineBarrier2`): aliases share one implementation.
    pub target: String,
    /// Its dispatch level.
    pub scope: Scope,
    /// What enables it.
    pub requirement: Requirement,
}

/// How a command is implemented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Implementation {
    /// A hand-written `fn <snake_name>` in `entry/<module>.rs` that the generated entry point
    /// calls with converted arguments.
    Entry { module: String, function: String },
    /// A `vkDestroy*`/`vkFreeMemory` of an object Tessera implements with nothing to do but
    /// unregister the handle (the runtime object is dropped when its last user is done).
    Destroy,
    /// Nothing: the generated entry point reports that Tessera does not support it.
    Unsupported,
}

/// Everything the emitters need.
pub struct Model<'r> {
    pub reg: &'r Registry,
    /// Every name we resolve, by name.
    pub exposed: BTreeMap<String, ExposedCommand>,
    /// How each target command is implemented.
    pub implementations: BTreeMap<String, Implementation>,
    /// The core commands by version, for the tests (every core command up to our version
    /// resolves).
    pub core_by_version: BTreeMap<(u32, u32), BTreeSet<String>>,
}

/// `vkCreateBuffer` → `create_buffer`; `vkCmdCopyTensorARM` → `cmd_copy_tensor_arm`;
/// `maxImageDimension1D` → `max_image_dimension1d`; `storageBuffer16BitAccess` →
/// `storage_buffer16_bit_access`.
pub fn snake(name: &str) -> String {
    let name = name.strip_prefix("vk").unwrap_or(name);
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                None => false,
                Some(p) if p.is_ascii_lowercase() => true,
                Some(p) if p.is_ascii_digit() => next.is_some_and(|n| n.is_ascii_alphabetic()),
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

/// Whether `cmd` is `vkDestroy<X>` or `vkFree<X>` of one object whose handle type Tessera
/// implements.
fn destroys_object(cmd: &Command) -> bool {
    let Some(object) = cmd
        .name
        .strip_prefix("vkDestroy")
        .or_else(|| cmd.name.strip_prefix("vkFree"))
    else {
        return false;
    };
    // `vkFreeMemory` frees a `VkDeviceMemory`.
    let ty = if object == "Memory" {
        "VkDeviceMemory".to_string()
    } else {
        format!("Vk{object}")
    };
    cmd.params.len() == 3 && cmd.params[1].ty == ty && config::OBJECTS.iter().any(|(h, _)| *h == ty)
}

fn scope_of(reg: &Registry, cmd: &Command) -> Scope {
    match cmd.name.as_str() {
        "vkGetInstanceProcAddr" => return Scope::Instance,
        "vkGetDeviceProcAddr" => return Scope::Device,
        _ => {}
    }
    let first = cmd.params.first().map(|p| p.ty.as_str()).unwrap_or("");
    match reg.resolve_type(first) {
        "VkInstance" => Scope::Instance,
        "VkPhysicalDevice" => Scope::PhysicalDevice,
        "VkDevice" | "VkQueue" | "VkCommandBuffer" => Scope::Device,
        _ => Scope::Global,
    }
}

/// The hand-written functions of `entry/*.rs`: `fn name(` at the start of a line (after `pub`
/// qualifiers), by name → module.
fn scan_entries(dir: &Path) -> Result<HashMap<String, String>, String> {
    let mut found = HashMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    for path in files {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let module = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if module == "mod" {
            continue;
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("pub(crate) ") else {
                continue;
            };
            let rest = rest.strip_prefix("unsafe ").unwrap_or(rest);
            let Some(rest) = rest.strip_prefix("fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if let Some(previous) = found.insert(name.clone(), module.clone()) {
                return Err(format!(
                    "entry points: {name} is defined in both {previous}.rs and {module}.rs"
                ));
            }
        }
    }
    Ok(found)
}

impl<'r> Model<'r> {
    /// Decides the exposed commands and finds their implementations under `entry_dir`.
    pub fn new(reg: &'r Registry, entry_dir: &Path) -> Result<Self, String> {
        let mut exposed = BTreeMap::new();
        let mut core_by_version: BTreeMap<(u32, u32), BTreeSet<String>> = BTreeMap::new();
        for feature in &reg.features {
            for r in &feature.requires {
                for name in &r.commands {
                    core_by_version
                        .entry(feature.version)
                        .or_default()
                        .insert(name.clone());
                }
            }
        }
        for (version, names) in &core_by_version {
            if *version > config::API_VERSION {
                continue;
            }
            for name in names {
                exposed.insert(name.clone(), Requirement::Core(*version));
            }
        }
        for (name, ext) in &reg.extensions {
            if !config::is_supported_extension(name) {
                continue;
            }
            for r in &ext.requires {
                let mut needs = vec![name.clone()];
                if let Some(depends) = &r.depends {
                    // The extensions the block depends on (beyond core versions we have); for an
                    // alternative, the first one we support, else the first named.
                    let mut terms: Vec<String> = depends_names(depends)
                        .into_iter()
                        .filter(|t| !t.starts_with("VK_VERSION_"))
                        .collect();
                    if !depends_holds(depends, &config::has) {
                        terms.retain(|t| !config::has(t));
                        terms.truncate(1);
                    } else {
                        terms.clear();
                    }
                    needs.extend(terms);
                }
                for cmd in &r.commands {
                    exposed
                        .entry(cmd.clone())
                        .or_insert_with(|| Requirement::Extensions(needs.clone()));
                }
            }
        }
        let mut commands = BTreeMap::new();
        for (name, requirement) in exposed {
            let target = reg
                .command_aliases
                .get(&name)
                .cloned()
                .unwrap_or_else(|| name.clone());
            let cmd = reg
                .commands
                .get(&target)
                .ok_or_else(|| format!("registry: {name} names a command that does not exist"))?;
            commands.insert(
                name.clone(),
                ExposedCommand {
                    scope: scope_of(reg, cmd),
                    name,
                    target,
                    requirement,
                },
            );
        }
        let found = scan_entries(entry_dir)?;
        let mut implementations = BTreeMap::new();
        for c in commands.values() {
            let function = snake(&c.target);
            let imp = if let Some(module) = found.get(&function) {
                Implementation::Entry {
                    module: module.clone(),
                    function,
                }
            } else if reg.commands.get(&c.target).is_some_and(destroys_object) {
                Implementation::Destroy
            } else {
                Implementation::Unsupported
            };
            implementations.insert(c.target.clone(), imp);
        }
        Ok(Model {
            reg,
            exposed: commands,
            implementations,
            core_by_version,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::snake;

    #[test]
    fn snake_names() {
        assert_eq!(snake("vkCreateBuffer"), "create_buffer");
        assert_eq!(snake("vkCmdCopyTensorARM"), "cmd_copy_tensor_arm");
        assert_eq!(snake("vkMapMemory2"), "map_memory2");
        assert_eq!(
            snake("vkGetPhysicalDeviceFeatures2"),
            "get_physical_device_features2"
        );
        assert_eq!(
            snake("vkGetDeviceGroupPeerMemoryFeatures"),
            "get_device_group_peer_memory_features"
        );
        assert_eq!(snake("vkMapMemory2KHR"), "map_memory2_khr");
        assert_eq!(snake("maxImageDimension1D"), "max_image_dimension1d");
        assert_eq!(
            snake("storageBuffer16BitAccess"),
            "storage_buffer16_bit_access"
        );
        assert_eq!(snake("deviceLUIDValid"), "device_luid_valid");
        assert_eq!(
            snake("textureCompressionASTC_LDR"),
            "texture_compression_astc_ldr"
        );
    }
}
