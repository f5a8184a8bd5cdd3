//! `VkPrivateDataSlot`: a map from (object type, handle) to a `u64` the application stores.

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::{Result, ensure};

/// A private data slot.
#[derive(Debug, Default)]
pub struct PrivateDataSlot {
    values: Mutex<HashMap<(i32, u64), u64>>,
}

impl PrivateDataSlot {
    /// `vkSetPrivateData`. `live`: whether `handle` names a live object of `object_type` (the
    /// ICD's handle registry knows).
    ///
    /// # Errors
    /// `Validation` when the object is not live.
    pub fn set(&self, object_type: i32, handle: u64, value: u64, live: bool) -> Result<()> {
        ensure!(
            live,
            "VUID-vkSetPrivateData-objectHandle-04016",
            "objectHandle {handle:#x} is not a live object of type {object_type}"
        );
        self.values.lock().insert((object_type, handle), value);
        Ok(())
    }

    /// `vkGetPrivateData`: 0 when nothing was stored.
    pub fn get(&self, object_type: i32, handle: u64) -> u64 {
        self.values
            .lock()
            .get(&(object_type, handle))
            .copied()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let slot = PrivateDataSlot::default();
        assert_eq!(slot.get(9, 0x1000), 0);
        slot.set(9, 0x1000, 42, true).unwrap();
        assert!(slot.set(9, 0x2000, 1, false).is_err());
        assert_eq!(slot.get(9, 0x1000), 42);
        assert_eq!(slot.get(10, 0x1000), 0);
    }
}
