//! `VkCommandPool`: allocates command buffers and resets them together.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use vulkan_headers::vulkan::vulkan_core::*;

use super::{CommandBuffer, Level};
use crate::physical_device::PhysicalDevice;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// A command pool.
#[derive(Debug)]
pub struct CommandPool {
    resettable: bool,
    physical: Arc<PhysicalDevice>,
    buffers: Mutex<Vec<Weak<CommandBuffer>>>,
}

impl CommandPool {
    /// A pool; `resettable` is `VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT`.
    pub fn new(physical: Arc<PhysicalDevice>, resettable: bool) -> Self {
        CommandPool {
            resettable,
            physical,
            buffers: Mutex::new(Vec::new()),
        }
    }

    /// Allocates a command buffer in the initial state.
    pub fn allocate(&self, level: Level) -> Arc<CommandBuffer> {
        let cb = Arc::new(CommandBuffer::new(
            level,
            self.resettable,
            self.physical.clone(),
        ));
        let mut buffers = self.buffers.lock();
        buffers.retain(|w| w.strong_count() > 0);
        buffers.push(Arc::downgrade(&cb));
        cb
    }

    /// `vkAllocateCommandBuffers`.
    ///
    /// # Errors
    /// `Validation` for a zero count.
    pub fn allocate_buffers(
        &self,
        info: &vk::CommandBufferAllocateInfo,
    ) -> Result<Vec<Arc<CommandBuffer>>> {
        ensure!(
            info.command_buffer_count > 0,
            "VUID-VkCommandBufferAllocateInfo-commandBufferCount-arraylength",
            "commandBufferCount is 0"
        );
        let level = if info.level == VK_COMMAND_BUFFER_LEVEL_SECONDARY {
            Level::Secondary
        } else {
            Level::Primary
        };
        Ok((0..info.command_buffer_count)
            .map(|_| self.allocate(level))
            .collect())
    }

    fn owns(&self, cb: &Arc<CommandBuffer>) -> bool {
        self.buffers
            .lock()
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(cb)))
    }

    /// `vkFreeCommandBuffers` of one buffer.
    ///
    /// # Errors
    /// `Validation` when it was not allocated from this pool or is pending (it is still freed
    /// then: it finishes first).
    pub fn free(&self, cb: &Arc<CommandBuffer>) -> Result<()> {
        ensure!(
            self.owns(cb),
            "VUID-vkFreeCommandBuffers-pCommandBuffers-parent",
            "the command buffer was not allocated from this pool"
        );
        self.buffers
            .lock()
            .retain(|w| !std::ptr::eq(w.as_ptr(), Arc::as_ptr(cb)));
        if cb.is_pending() {
            return Err(Error::invalid(
                "VUID-vkFreeCommandBuffers-pCommandBuffers-00047",
                "a freed command buffer is still pending (it will finish first)",
            ));
        }
        Ok(())
    }

    /// `vkDestroyCommandPool`: the command buffers it frees with it.
    pub fn destroy(&self) -> Vec<Arc<CommandBuffer>> {
        let buffers = self.buffers();
        self.buffers.lock().clear();
        buffers
    }

    /// The live command buffers allocated from this pool.
    pub fn buffers(&self) -> Vec<Arc<CommandBuffer>> {
        self.buffers
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// `vkResetCommandPool`: resets every buffer.
    ///
    /// # Errors
    /// `Validation` when one of them is pending (the others are still reset).
    pub fn reset(&self) -> Result<()> {
        let mut result = Ok(());
        for cb in self.buffers() {
            if let Err(e) = cb.reset(true) {
                result = Err(e);
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::{State, UsageFlags};

    #[test]
    fn reset_and_free() {
        let pool = CommandPool::new(Default::default(), false);
        let a = pool.allocate(Level::Primary);
        let b = pool.allocate(Level::Secondary);
        a.begin(UsageFlags::default()).unwrap();
        pool.reset().unwrap();
        assert_eq!(a.state(), State::Initial);
        pool.free(&b).unwrap();
        assert_eq!(pool.buffers().len(), 1);
    }
}
