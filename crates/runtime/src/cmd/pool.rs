//! `VkCommandPool`: allocates command buffers and resets them together.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::{CommandBuffer, Level};
use crate::Result;

/// A command pool.
#[derive(Debug)]
pub struct CommandPool {
    resettable: bool,
    buffers: Mutex<Vec<Weak<CommandBuffer>>>,
}

impl CommandPool {
    /// A pool; `resettable` is `VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT`.
    pub fn new(resettable: bool) -> Self {
        CommandPool {
            resettable,
            buffers: Mutex::new(Vec::new()),
        }
    }

    /// Allocates a command buffer in the initial state.
    pub fn allocate(&self, level: Level) -> Arc<CommandBuffer> {
        let cb = Arc::new(CommandBuffer::new(level, self.resettable));
        let mut buffers = self.buffers.lock();
        buffers.retain(|w| w.strong_count() > 0);
        buffers.push(Arc::downgrade(&cb));
        cb
    }

    /// Forgets `cb` (`vkFreeCommandBuffers`).
    pub fn free(&self, cb: &Arc<CommandBuffer>) {
        self.buffers
            .lock()
            .retain(|w| !std::ptr::eq(w.as_ptr(), Arc::as_ptr(cb)));
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
        let pool = CommandPool::new(false);
        let a = pool.allocate(Level::Primary);
        let b = pool.allocate(Level::Secondary);
        a.begin(UsageFlags::default()).unwrap();
        pool.reset().unwrap();
        assert_eq!(a.state(), State::Initial);
        pool.free(&b);
        assert_eq!(pool.buffers().len(), 1);
    }
}
