//! `VkBuffer`: a size and usage, bound once to a range of a [`DeviceMemory`].

use std::sync::{Arc, OnceLock};

use crate::limits::{BUFFER_ALIGNMENT, MAX_BUFFER_SIZE};
use crate::memory::{BindVuids, DeviceMemory, check_bind};
pub use crate::memory::{Binding, MemoryRequirements};
use crate::{Error, Result, ensure};

/// A buffer.
#[derive(Debug)]
pub struct Buffer {
    size: u64,
    usage: u64,
    binding: OnceLock<Binding>,
}

impl Buffer {
    /// Creates an unbound buffer of `size` bytes with the given usage bits (`VkBufferUsageFlags2`).
    ///
    /// # Errors
    /// `Validation` for a zero size; `OutOfDeviceMemory` past `maxStorageBufferRange`-sized limits.
    pub fn new(size: u64, usage: u64) -> Result<Self> {
        ensure!(size > 0, "VUID-VkBufferCreateInfo-size-00912", "size is 0");
        ensure!(
            usage != 0,
            "VUID-VkBufferCreateInfo-None-09500",
            "usage is 0"
        );
        if size > MAX_BUFFER_SIZE {
            return Err(Error::OutOfDeviceMemory(format!(
                "buffer of {size} bytes exceeds the largest supported buffer ({MAX_BUFFER_SIZE})"
            )));
        }
        Ok(Buffer {
            size,
            usage,
            binding: OnceLock::new(),
        })
    }

    /// Memory requirements for a buffer of `size` bytes (also used before creation, for
    /// `vkGetDeviceBufferMemoryRequirements`).
    pub fn requirements_for(size: u64) -> MemoryRequirements {
        MemoryRequirements {
            size: size
                .div_ceil(BUFFER_ALIGNMENT)
                .saturating_mul(BUFFER_ALIGNMENT),
            alignment: BUFFER_ALIGNMENT,
        }
    }

    /// This buffer's memory requirements.
    pub fn requirements(&self) -> MemoryRequirements {
        Self::requirements_for(self.size)
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Usage bits.
    pub fn usage(&self) -> u64 {
        self.usage
    }

    /// Binds the buffer to `memory` at `offset`.
    ///
    /// # Errors
    /// `Validation` when already bound, misaligned, or the range does not fit in the memory.
    pub fn bind(&self, memory: Arc<DeviceMemory>, offset: u64) -> Result<()> {
        ensure!(
            self.binding.get().is_none(),
            "VUID-VkBindBufferMemoryInfo-buffer-07459",
            "buffer is already bound to memory"
        );
        check_bind(
            &memory,
            offset,
            self.requirements(),
            BindVuids {
                offset: "VUID-VkBindBufferMemoryInfo-memoryOffset-01031",
                alignment: "VUID-VkBindBufferMemoryInfo-memoryOffset-01036",
                size: "VUID-VkBindBufferMemoryInfo-size-01037",
            },
        )?;
        self.binding.set(Binding { memory, offset }).map_err(|_| {
            Error::invalid(
                "VUID-VkBindBufferMemoryInfo-buffer-07459",
                "buffer is already bound",
            )
        })
    }

    /// The binding, if bound.
    pub fn binding(&self) -> Option<&Binding> {
        self.binding.get()
    }

    /// The binding, or a validation error naming `vuid` (for commands that need a bound buffer).
    ///
    /// # Errors
    /// `Validation` when the buffer is not bound.
    pub fn bound(&self, vuid: &'static str) -> Result<&Binding> {
        self.binding
            .get()
            .ok_or_else(|| Error::invalid(vuid, "buffer is not bound to memory"))
    }

    /// Device address of the first byte (`vkGetBufferDeviceAddress`): the host address, since the
    /// device is the CPU.
    ///
    /// # Errors
    /// `Validation` when the buffer is not bound.
    pub fn device_address(&self) -> Result<u64> {
        let b = self.bound("VUID-VkBufferDeviceAddressInfo-buffer-02600")?;
        Ok(b.memory.address(b.offset))
    }

    /// Checks that `[offset, offset + size)` lies in the buffer.
    ///
    /// # Errors
    /// `Validation` naming `vuid`.
    pub fn check_range(&self, offset: u64, size: u64, vuid: &'static str) -> Result<()> {
        ensure!(
            offset.checked_add(size).is_some_and(|end| end <= self.size),
            vuid,
            "range [{offset}, {offset}+{size}) is outside the {}-byte buffer",
            self.size
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HeapBudget;

    #[test]
    fn requirements_round_up() {
        assert_eq!(Buffer::requirements_for(1).size, BUFFER_ALIGNMENT);
        assert_eq!(
            Buffer::requirements_for(BUFFER_ALIGNMENT).size,
            BUFFER_ALIGNMENT
        );
    }

    #[test]
    fn bind_rules() {
        let heap = Arc::new(HeapBudget::new(1 << 20));
        let mem = Arc::new(DeviceMemory::allocate(&heap, 256, 0).unwrap());
        let buf = Buffer::new(64, 1).unwrap();
        assert!(buf.bind(mem.clone(), 1).is_err());
        assert!(buf.bind(mem.clone(), 256).is_err());
        let big = Buffer::new(200, 1).unwrap();
        assert!(big.bind(mem.clone(), 64).is_err());
        buf.bind(mem.clone(), 192).unwrap();
        assert!(buf.bind(mem.clone(), 0).is_err());
        assert_eq!(buf.device_address().unwrap(), mem.address(192));
        assert!(buf.check_range(60, 4, "x").is_ok());
        assert!(buf.check_range(60, 5, "x").is_err());
        assert!(buf.check_range(u64::MAX, 2, "x").is_err());
    }

    #[test]
    fn zero_size_is_invalid() {
        assert!(Buffer::new(0, 1).is_err());
        assert!(Buffer::new(4, 0).is_err());
    }
}
