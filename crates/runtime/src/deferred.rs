//! `VK_KHR_deferred_host_operations` (a dependency of `VK_ARM_data_graph`): deferred operation
//! objects. No command Tessera implements defers work (`vkCreateDataGraphPipelinesARM` requires
//! `deferredOperation` to be `VK_NULL_HANDLE`), so an operation never has work: joining it
//! returns `VK_SUCCESS` at once and its result is `VK_SUCCESS`, as the spec says for an
//! operation no command was deferred on.

/// A `VkDeferredOperationKHR` with no work attached.
#[derive(Debug, Default)]
pub struct DeferredOperation;

impl DeferredOperation {
    /// `vkGetDeferredOperationMaxConcurrencyKHR`: no work is left, so no thread can help.
    pub fn max_concurrency(&self) -> u32 {
        0
    }
}
