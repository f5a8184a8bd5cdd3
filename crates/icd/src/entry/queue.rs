//! `vkQueueSubmit`, `vkQueueSubmit2` and `vkQueueWaitIdle`: submissions are read into owned
//! batches here and handed to the queue's worker thread by the runtime.

use std::sync::Arc;

use tessera_runtime::device::SubmitBatch;
use tessera_runtime::queue::SemaphoreOp;
use tessera_runtime::sync::{Fence, SemaphoreKind};
use tessera_runtime::{Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, find, slice};
use crate::entry::command::command_buffer;
use crate::entry::device::Queue;
use crate::entry::sync::{fence, semaphore};
use crate::handle::{self, RawHandle};

fn queue(queue: VkQueue) -> Result<Arc<Queue>> {
    handle::get::<Queue>(queue.raw())
}

fn optional_fence(f: VkFence) -> Result<Option<Arc<Fence>>> {
    if f.is_null() {
        Ok(None)
    } else {
        fence(f).map(Some)
    }
}

fn semaphore_op(
    s: VkSemaphore,
    value: Option<u64>,
    vuid_value: &'static str,
) -> Result<SemaphoreOp> {
    let semaphore = semaphore(s)?;
    let value = match (semaphore.kind(), value) {
        (SemaphoreKind::Binary, _) => 0,
        (SemaphoreKind::Timeline, Some(v)) => v,
        (SemaphoreKind::Timeline, None) => {
            return Err(tessera_runtime::Error::invalid(
                vuid_value,
                "a timeline semaphore needs a value (VkTimelineSemaphoreSubmitInfo)",
            ));
        }
    };
    Ok(SemaphoreOp { semaphore, value })
}

/// Reads one `VkSubmitInfo`.
///
/// # Safety
/// `info` must be valid per the spec.
unsafe fn read_submit(info: &VkSubmitInfo) -> Result<SubmitBatch> {
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_SUBMIT_INFO,
        "VUID-VkSubmitInfo-sType-sType",
    )?;
    // SAFETY: a valid chain per the spec.
    let timeline = unsafe {
        find::<VkTimelineSemaphoreSubmitInfo>(
            info.pNext,
            VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        )
    };
    // SAFETY: counts and arrays per the spec.
    let (waits, cbs, signals) = unsafe {
        (
            slice(
                info.pWaitSemaphores,
                info.waitSemaphoreCount,
                "pWaitSemaphores",
            )?,
            slice(
                info.pCommandBuffers,
                info.commandBufferCount,
                "pCommandBuffers",
            )?,
            slice(
                info.pSignalSemaphores,
                info.signalSemaphoreCount,
                "pSignalSemaphores",
            )?,
        )
    };
    let (wait_values, signal_values): (&[u64], &[u64]) = match timeline {
        None => (&[], &[]),
        // SAFETY: counts and arrays per the spec.
        Some(t) => unsafe {
            (
                slice(
                    t.pWaitSemaphoreValues,
                    t.waitSemaphoreValueCount,
                    "pWaitSemaphoreValues",
                )?,
                slice(
                    t.pSignalSemaphoreValues,
                    t.signalSemaphoreValueCount,
                    "pSignalSemaphoreValues",
                )?,
            )
        },
    };
    if timeline.is_some() {
        ensure!(
            wait_values.len() == waits.len(),
            "VUID-VkSubmitInfo-pNext-03240",
            "waitSemaphoreValueCount {} differs from waitSemaphoreCount {}",
            wait_values.len(),
            waits.len()
        );
        ensure!(
            signal_values.len() == signals.len(),
            "VUID-VkSubmitInfo-pNext-03241",
            "signalSemaphoreValueCount {} differs from signalSemaphoreCount {}",
            signal_values.len(),
            signals.len()
        );
    }
    Ok(SubmitBatch {
        waits: waits
            .iter()
            .enumerate()
            .map(|(i, s)| {
                semaphore_op(
                    *s,
                    wait_values.get(i).copied(),
                    "VUID-VkSubmitInfo-pWaitSemaphores-03243",
                )
            })
            .collect::<Result<_>>()?,
        command_buffers: cbs
            .iter()
            .map(|cb| command_buffer(*cb))
            .collect::<Result<_>>()?,
        signals: signals
            .iter()
            .enumerate()
            .map(|(i, s)| {
                semaphore_op(
                    *s,
                    signal_values.get(i).copied(),
                    "VUID-VkSubmitInfo-pSignalSemaphores-03244",
                )
            })
            .collect::<Result<_>>()?,
    })
}

/// Reads one `VkSubmitInfo2`.
///
/// # Safety
/// `info` must be valid per the spec.
unsafe fn read_submit2(info: &VkSubmitInfo2) -> Result<SubmitBatch> {
    check_stype(
        info.sType,
        VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        "VUID-VkSubmitInfo2-sType-sType",
    )?;
    ensure!(
        info.flags & VK_SUBMIT_PROTECTED_BIT == 0,
        "VUID-VkSubmitInfo2-flags-03886",
        "protected submissions are not supported"
    );
    // SAFETY: counts and arrays per the spec.
    let (waits, cbs, signals) = unsafe {
        (
            slice(
                info.pWaitSemaphoreInfos,
                info.waitSemaphoreInfoCount,
                "pWaitSemaphoreInfos",
            )?,
            slice(
                info.pCommandBufferInfos,
                info.commandBufferInfoCount,
                "pCommandBufferInfos",
            )?,
            slice(
                info.pSignalSemaphoreInfos,
                info.signalSemaphoreInfoCount,
                "pSignalSemaphoreInfos",
            )?,
        )
    };
    let op = |s: &VkSemaphoreSubmitInfo| {
        check_stype(
            s.sType,
            VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
            "VUID-VkSemaphoreSubmitInfo-sType-sType",
        )?;
        ensure!(
            s.deviceIndex == 0,
            "VUID-VkSemaphoreSubmitInfo-deviceIndex-03888",
            "deviceIndex {} >= 1",
            s.deviceIndex
        );
        semaphore_op(
            s.semaphore,
            Some(s.value),
            "VUID-VkSubmitInfo2-semaphore-03881",
        )
    };
    Ok(SubmitBatch {
        waits: waits.iter().map(op).collect::<Result<_>>()?,
        command_buffers: cbs
            .iter()
            .map(|c| {
                check_stype(
                    c.sType,
                    VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                    "VUID-VkCommandBufferSubmitInfo-sType-sType",
                )?;
                ensure!(
                    c.deviceMask <= 1,
                    "VUID-VkCommandBufferSubmitInfo-deviceMask-03891",
                    "deviceMask {:#x} names devices beyond the one in the group",
                    c.deviceMask
                );
                command_buffer(c.commandBuffer)
            })
            .collect::<Result<_>>()?,
        signals: signals.iter().map(op).collect::<Result<_>>()?,
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkQueueSubmit(
    queue: VkQueue,
    submitCount: u32,
    pSubmits: *const VkSubmitInfo,
    fence: VkFence,
) -> VkResult {
    boundary::result("vkQueueSubmit", || {
        let q = self::queue(queue)?;
        // SAFETY: `submitCount` structs per the spec.
        let submits = unsafe { slice(pSubmits, submitCount, "pSubmits")? };
        // SAFETY: each is valid per the spec.
        let batches = submits
            .iter()
            .map(|s| unsafe { read_submit(s) })
            .collect::<Result<Vec<_>>>()?;
        q.device.submit(&q.queue, batches, optional_fence(fence)?)?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkQueueSubmit2(
    queue: VkQueue,
    submitCount: u32,
    pSubmits: *const VkSubmitInfo2,
    fence: VkFence,
) -> VkResult {
    boundary::result("vkQueueSubmit2", || {
        let q = self::queue(queue)?;
        // SAFETY: `submitCount` structs per the spec.
        let submits = unsafe { slice(pSubmits, submitCount, "pSubmits")? };
        // SAFETY: each is valid per the spec.
        let batches = submits
            .iter()
            .map(|s| unsafe { read_submit2(s) })
            .collect::<Result<Vec<_>>>()?;
        q.device.submit(&q.queue, batches, optional_fence(fence)?)?;
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkQueueWaitIdle(queue: VkQueue) -> VkResult {
    boundary::result("vkQueueWaitIdle", || {
        self::queue(queue)?.queue.wait_idle()?;
        Ok(VK_SUCCESS)
    })
}
