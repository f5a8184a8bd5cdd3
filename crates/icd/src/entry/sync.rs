//! Fences, semaphores (binary and timeline) and events, with the host-side waits and signals.

use std::sync::Arc;

use tessera_runtime::sync::{self as rt, Event, Fence, Semaphore, SemaphoreKind, WaitOutcome};
use tessera_runtime::{Error, Result, ensure};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::boundary;
use crate::conv::{check_stype, deref, find, slice, write};
use crate::entry::device::device;
use crate::handle::{self, Object, RawHandle};

impl Object for Fence {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_FENCE;
    const NAME: &'static str = "VkFence";
}

impl Object for Semaphore {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_SEMAPHORE;
    const NAME: &'static str = "VkSemaphore";
}

impl Object for Event {
    const TYPE: VkObjectType = VK_OBJECT_TYPE_EVENT;
    const NAME: &'static str = "VkEvent";
}

/// Looks up a fence handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn fence(fence: VkFence) -> Result<Arc<Fence>> {
    handle::get::<Fence>(fence.raw())
}

/// Looks up a semaphore handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn semaphore(semaphore: VkSemaphore) -> Result<Arc<Semaphore>> {
    handle::get::<Semaphore>(semaphore.raw())
}

/// Looks up an event handle.
///
/// # Errors
/// `Validation` for a bad handle.
pub fn event(event: VkEvent) -> Result<Arc<Event>> {
    handle::get::<Event>(event.raw())
}

fn wait_result(outcome: WaitOutcome) -> Result<VkResult> {
    match outcome {
        WaitOutcome::Ready => Ok(VK_SUCCESS),
        WaitOutcome::TimedOut => Ok(VK_TIMEOUT),
        WaitOutcome::Shutdown => Err(Error::DeviceLost(
            "the device was destroyed during the wait".into(),
        )),
    }
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateFence(
    device: VkDevice,
    pCreateInfo: *const VkFenceCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pFence: *mut VkFence,
) -> VkResult {
    boundary::result("vkCreateFence", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
            "VUID-VkFenceCreateInfo-sType-sType",
        )?;
        let signaled = info.flags & VK_FENCE_CREATE_SIGNALED_BIT != 0;
        let h = handle::insert(Arc::new(Fence::new(dev.rt.hub().clone(), signaled)));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pFence, "pFence", VkFence::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyFence(
    _device: VkDevice,
    fence: VkFence,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyFence", || {
        handle::remove::<Fence>(fence.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkResetFences(
    device: VkDevice,
    fenceCount: u32,
    pFences: *const VkFence,
) -> VkResult {
    boundary::result("vkResetFences", || {
        self::device(device)?;
        // SAFETY: `fenceCount` handles per the spec.
        let fences = unsafe { slice(pFences, fenceCount, "pFences")? };
        let fences = fences
            .iter()
            .map(|f| fence(*f))
            .collect::<Result<Vec<_>>>()?;
        fences.iter().for_each(|f| f.reset());
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetFenceStatus(device: VkDevice, fence: VkFence) -> VkResult {
    boundary::result("vkGetFenceStatus", || {
        let dev = self::device(device)?;
        let f = self::fence(fence)?;
        if dev.rt.is_lost() {
            return Err(Error::DeviceLost("a submission failed".into()));
        }
        Ok(if f.is_signaled() {
            VK_SUCCESS
        } else {
            VK_NOT_READY
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkWaitForFences(
    device: VkDevice,
    fenceCount: u32,
    pFences: *const VkFence,
    waitAll: VkBool32,
    timeout: u64,
) -> VkResult {
    boundary::result("vkWaitForFences", || {
        let dev = self::device(device)?;
        // SAFETY: `fenceCount` handles per the spec.
        let handles = unsafe { slice(pFences, fenceCount, "pFences")? };
        ensure!(
            !handles.is_empty(),
            "VUID-vkWaitForFences-fenceCount-arraylength",
            "fenceCount is 0"
        );
        let fences = handles
            .iter()
            .map(|f| fence(*f))
            .collect::<Result<Vec<_>>>()?;
        wait_result(rt::wait_for_fences(
            dev.rt.hub(),
            &fences,
            waitAll != VK_FALSE,
            timeout,
        ))
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateSemaphore(
    device: VkDevice,
    pCreateInfo: *const VkSemaphoreCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pSemaphore: *mut VkSemaphore,
) -> VkResult {
    boundary::result("vkCreateSemaphore", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
            "VUID-VkSemaphoreCreateInfo-sType-sType",
        )?;
        // SAFETY: a valid chain per the spec.
        let ty = unsafe {
            find::<VkSemaphoreTypeCreateInfo>(
                info.pNext,
                VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
            )
        };
        let (kind, initial) = match ty {
            None => (SemaphoreKind::Binary, 0),
            Some(t) if t.semaphoreType == VK_SEMAPHORE_TYPE_BINARY => {
                ensure!(
                    t.initialValue == 0,
                    "VUID-VkSemaphoreTypeCreateInfo-semaphoreType-03279",
                    "a binary semaphore's initialValue must be 0"
                );
                (SemaphoreKind::Binary, 0)
            }
            Some(t) if t.semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE => {
                (SemaphoreKind::Timeline, t.initialValue)
            }
            Some(t) => {
                return Err(Error::invalid(
                    "VUID-VkSemaphoreTypeCreateInfo-semaphoreType-parameter",
                    format!("semaphoreType {} is not a VkSemaphoreType", t.semaphoreType),
                ));
            }
        };
        let h = handle::insert(Arc::new(Semaphore::new(
            dev.rt.hub().clone(),
            kind,
            initial,
        )));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pSemaphore, "pSemaphore", VkSemaphore::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroySemaphore(
    _device: VkDevice,
    semaphore: VkSemaphore,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroySemaphore", || {
        handle::remove::<Semaphore>(semaphore.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetSemaphoreCounterValue(
    device: VkDevice,
    semaphore: VkSemaphore,
    pValue: *mut u64,
) -> VkResult {
    boundary::result("vkGetSemaphoreCounterValue", || {
        self::device(device)?;
        let value = self::semaphore(semaphore)?.counter_value()?;
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pValue, "pValue", value)? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkWaitSemaphores(
    device: VkDevice,
    pWaitInfo: *const VkSemaphoreWaitInfo,
    timeout: u64,
) -> VkResult {
    boundary::result("vkWaitSemaphores", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pWaitInfo, "pWaitInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
            "VUID-VkSemaphoreWaitInfo-sType-sType",
        )?;
        // SAFETY: `semaphoreCount` handles and values per the spec.
        let (sems, values) = unsafe {
            (
                slice(info.pSemaphores, info.semaphoreCount, "pSemaphores")?,
                slice(info.pValues, info.semaphoreCount, "pValues")?,
            )
        };
        let waits = sems
            .iter()
            .zip(values)
            .map(|(s, v)| Ok((semaphore(*s)?, *v)))
            .collect::<Result<Vec<_>>>()?;
        let any = info.flags & VK_SEMAPHORE_WAIT_ANY_BIT != 0;
        wait_result(rt::wait_semaphores(dev.rt.hub(), &waits, any, timeout)?)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkSignalSemaphore(
    device: VkDevice,
    pSignalInfo: *const VkSemaphoreSignalInfo,
) -> VkResult {
    boundary::result("vkSignalSemaphore", || {
        self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pSignalInfo, "pSignalInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
            "VUID-VkSemaphoreSignalInfo-sType-sType",
        )?;
        let s = semaphore(info.semaphore)?;
        ensure!(
            s.kind() == SemaphoreKind::Timeline,
            "VUID-VkSemaphoreSignalInfo-semaphore-03257",
            "semaphore is not a timeline semaphore"
        );
        s.check_signal_value(info.value, "VUID-VkSemaphoreSignalInfo-value-03258")?;
        s.signal(info.value);
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkCreateEvent(
    device: VkDevice,
    pCreateInfo: *const VkEventCreateInfo,
    _pAllocator: *const VkAllocationCallbacks,
    pEvent: *mut VkEvent,
) -> VkResult {
    boundary::result("vkCreateEvent", || {
        let dev = self::device(device)?;
        // SAFETY: valid per the spec.
        let info = unsafe { deref(pCreateInfo, "pCreateInfo")? };
        check_stype(
            info.sType,
            VK_STRUCTURE_TYPE_EVENT_CREATE_INFO,
            "VUID-VkEventCreateInfo-sType-sType",
        )?;
        let device_only = info.flags & VK_EVENT_CREATE_DEVICE_ONLY_BIT != 0;
        let h = handle::insert(Arc::new(Event::new(dev.rt.hub().clone(), device_only)));
        // SAFETY: valid out pointer per the spec.
        unsafe { write(pEvent, "pEvent", VkEvent::from_raw(h))? };
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkDestroyEvent(
    _device: VkDevice,
    event: VkEvent,
    _pAllocator: *const VkAllocationCallbacks,
) {
    boundary::void("vkDestroyEvent", || {
        handle::remove::<Event>(event.raw()).map(|_| ())
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkGetEventStatus(device: VkDevice, event: VkEvent) -> VkResult {
    boundary::result("vkGetEventStatus", || {
        self::device(device)?;
        let e = self::event(event)?;
        e.check_host_access("VUID-vkGetEventStatus-event-03940")?;
        Ok(if e.is_set() {
            VK_EVENT_SET
        } else {
            VK_EVENT_RESET
        })
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkSetEvent(device: VkDevice, event: VkEvent) -> VkResult {
    boundary::result("vkSetEvent", || {
        self::device(device)?;
        let e = self::event(event)?;
        e.check_host_access("VUID-vkSetEvent-event-03941")?;
        e.store(true);
        Ok(VK_SUCCESS)
    })
}

/// # Safety
/// See [`crate::entry`].
pub unsafe extern "system" fn vkResetEvent(device: VkDevice, event: VkEvent) -> VkResult {
    boundary::result("vkResetEvent", || {
        self::device(device)?;
        let e = self::event(event)?;
        e.check_host_access("VUID-vkResetEvent-event-03823")?;
        e.store(false);
        Ok(VK_SUCCESS)
    })
}
