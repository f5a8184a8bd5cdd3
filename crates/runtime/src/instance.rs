//! `VkInstance`: the application's API version, its enabled extensions and the one physical
//! device it enumerates.

use std::ffi::CStr;
use std::sync::Arc;

use vulkan_headers::vulkan::vulkan_core::*;

use crate::physical_device::PhysicalDevice;
use crate::vk::extensions::{ExtensionInfo, INSTANCE_EXTENSIONS, InstanceExtension};
use crate::vk::structs as vk;
use crate::{Error, Result};

/// The instance-level version `vkEnumerateInstanceVersion` reports.
pub const API_VERSION: u32 = VK_API_VERSION_1_3;

/// An instance.
#[derive(Debug)]
pub struct Instance {
    api_version: u32,
    extensions: Vec<InstanceExtension>,
    physical_device: Arc<PhysicalDevice>,
}

/// The instance extensions, or those of a layer (Tessera provides none).
///
/// # Errors
/// `LayerNotPresent` for any layer name.
pub fn extensions(layer: Option<&CStr>) -> Result<&'static [ExtensionInfo<InstanceExtension>]> {
    match layer {
        None => Ok(INSTANCE_EXTENSIONS),
        Some(name) => Err(Error::LayerNotPresent(format!(
            "{name:?}: Tessera provides no layers"
        ))),
    }
}

impl Instance {
    /// `vkCreateInstance`.
    ///
    /// # Errors
    /// `LayerNotPresent` when a layer is requested (layers are the loader's business),
    /// `ExtensionNotPresent` for an extension Tessera does not implement.
    pub fn new(info: &vk::InstanceCreateInfo) -> Result<Arc<Instance>> {
        if !info.enabled_layer_names.is_empty() {
            return Err(Error::LayerNotPresent(
                "Tessera provides no layers (layers are the loader's business)".into(),
            ));
        }
        let extensions = info
            .enabled_extension_names
            .iter()
            .map(|name| {
                InstanceExtension::from_name(name)
                    .ok_or_else(|| Error::ExtensionNotPresent(format!("instance extension {name}")))
            })
            .collect::<Result<Vec<_>>>()?;
        let api_version = match &info.application_info {
            Some(app) if app.api_version != 0 => app.api_version,
            _ => VK_API_VERSION_1_0,
        };
        Ok(Arc::new(Instance {
            api_version,
            extensions,
            physical_device: Arc::new(PhysicalDevice::new()),
        }))
    }

    /// `VkApplicationInfo::apiVersion` (1.0 when absent).
    pub fn api_version(&self) -> u32 {
        self.api_version
    }

    /// The enabled instance extensions.
    pub fn extensions(&self) -> &[InstanceExtension] {
        &self.extensions
    }

    /// The physical device this instance enumerates.
    pub fn physical_device(&self) -> &Arc<PhysicalDevice> {
        &self.physical_device
    }
}
