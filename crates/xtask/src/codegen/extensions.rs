//! Emits the runtime's extension tables (`vk/extensions.rs`): the instance and device extensions
//! Tessera implements, with the revision it implements, as a typed enum and as lists.

use std::fmt::Write;

use super::HEADER;
use super::config;
use super::model::Model;
use super::rust::string;

/// `VK_KHR_16bit_storage` → `Khr16bitStorage`.
pub fn variant(name: &str) -> String {
    let name = name.strip_prefix("VK_").unwrap_or(name);
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => {
                    let rest: String = chars.collect();
                    let rest = if part.chars().all(|c| c.is_ascii_uppercase()) {
                        rest.to_ascii_lowercase()
                    } else {
                        rest
                    };
                    format!("{}{rest}", first.to_ascii_uppercase())
                }
                None => String::new(),
            }
        })
        .collect()
}

fn list(
    model: &Model,
    kind: &str,
    names: &[(&str, Option<u32>)],
    out: &mut String,
) -> Result<(), String> {
    let ty = if kind == "device" {
        "DeviceExtension"
    } else {
        "InstanceExtension"
    };
    let mut variants = String::new();
    let mut infos = String::new();
    for (name, revision) in names {
        let ext =
            model.reg.extensions.get(*name).ok_or_else(|| {
                format!("config: {name} is not a Vulkan extension of the registry")
            })?;
        if ext.kind != kind {
            return Err(format!("config: {name} is a {} extension", ext.kind));
        }
        let spec = revision.unwrap_or(ext.spec_version);
        let v = variant(name);
        writeln!(variants, "/// `{name}`.\n{v},").unwrap();
        writeln!(
            infos,
            "ExtensionInfo {{ extension: {ty}::{v}, name: {}, spec_version: {spec} }},",
            string(name)
        )
        .unwrap();
    }
    let upper = kind.to_ascii_uppercase();
    write!(
        out,
        "/// The {kind} extensions Tessera implements.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n\
         pub enum {ty} {{\n{variants}}}\n\n\
         /// Every {kind} extension Tessera implements, in the order it lists them.\n\
         pub const {upper}_EXTENSIONS: &[ExtensionInfo<{ty}>] = &[\n{infos}];\n\n\
         impl {ty} {{\n\
             /// The extension called `name`, if Tessera implements it.\n\
             pub fn from_name(name: &str) -> Option<Self> {{\n\
                 {upper}_EXTENSIONS.iter().find(|e| e.name == name).map(|e| e.extension)\n\
             }}\n\n\
             /// Its name and revision.\n\
             pub fn info(self) -> &'static ExtensionInfo<{ty}> {{\n\
                 &{upper}_EXTENSIONS[{upper}_EXTENSIONS.iter().position(|e| e.extension == self).unwrap_or(0)]\n\
             }}\n\
         }}\n\n"
    )
    .unwrap();
    Ok(())
}

/// The generated files.
pub fn emit(model: &Model) -> Result<Vec<(String, String)>, String> {
    let mut text = format!(
        "{HEADER}\n\
         //! The extensions Tessera implements, with the revision it implements (the registry's \
         `SPEC_VERSION` unless the driver implements a later revision).\n\n\
         /// An extension's name and revision.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq)]\n\
         pub struct ExtensionInfo<E: 'static> {{\n\
             /// The extension.\n\
             pub extension: E,\n\
             /// `VK_…_EXTENSION_NAME`.\n\
             pub name: &'static str,\n\
             /// The revision (`specVersion`).\n\
             pub spec_version: u32,\n\
         }}\n\n"
    );
    let instance: Vec<(&str, Option<u32>)> = config::INSTANCE_EXTENSIONS
        .iter()
        .map(|n| (*n, None))
        .collect();
    list(model, "instance", &instance, &mut text)?;
    list(model, "device", config::DEVICE_EXTENSIONS, &mut text)?;
    let out = config::RUNTIME_OUT;
    Ok(vec![(format!("{out}/extensions.rs"), text)])
}

#[cfg(test)]
mod tests {
    use super::variant;

    #[test]
    fn variant_names() {
        assert_eq!(variant("VK_ARM_tensors"), "ArmTensors");
        assert_eq!(variant("VK_KHR_16bit_storage"), "Khr16bitStorage");
        assert_eq!(variant("VK_EXT_shader_float8"), "ExtShaderFloat8");
    }
}
