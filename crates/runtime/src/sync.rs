//! Fences, binary and timeline semaphores, and events.
//!
//! All waiting goes through one [`SyncHub`] per device: every state change (a fence signalled, a
//! semaphore value raised, an event set) calls [`SyncHub::notify`], and every waiter re-checks its
//! condition under the hub's lock. That makes "wait for any of several objects" (e.g.
//! `vkWaitForFences` with `waitAll = VK_FALSE`) as simple as "wait for one", with no lost wake-ups.
//! The hub can be shut down, which releases every waiter (used when a device is destroyed with
//! work still pending).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::limits::MAX_TIMELINE_DIFFERENCE;
use vulkan_headers::vulkan::vulkan_core::*;

use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitOutcome {
    /// The condition holds.
    Ready,
    /// The deadline passed first.
    TimedOut,
    /// The device is being torn down.
    Shutdown,
}

/// The device-wide wake-up point for all waits.
#[derive(Debug, Default)]
pub struct SyncHub {
    generation: Mutex<u64>,
    cv: Condvar,
    shutdown: AtomicBool,
}

impl SyncHub {
    /// Wakes every waiter so it re-checks its condition. Call after changing any sync state.
    pub fn notify(&self) {
        let mut g = self.generation.lock();
        *g = g.wrapping_add(1);
        self.cv.notify_all();
    }

    /// Releases every current and future waiter with [`WaitOutcome::Shutdown`].
    pub fn shut_down(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.notify();
    }

    /// Whether [`shut_down`](Self::shut_down) was called.
    pub fn is_shut_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Blocks until `ready()` holds, `deadline` passes or the hub shuts down. `ready` runs under the
    /// hub's lock, so it may also consume state (a binary semaphore's signal).
    pub fn wait_until(
        &self,
        deadline: Option<Instant>,
        mut ready: impl FnMut() -> bool,
    ) -> WaitOutcome {
        let mut g = self.generation.lock();
        loop {
            if ready() {
                return WaitOutcome::Ready;
            }
            if self.is_shut_down() {
                return WaitOutcome::Shutdown;
            }
            match deadline {
                None => self.cv.wait(&mut g),
                Some(d) => {
                    if self.cv.wait_until(&mut g, d).timed_out() {
                        return if ready() {
                            WaitOutcome::Ready
                        } else {
                            WaitOutcome::TimedOut
                        };
                    }
                }
            }
        }
    }

    /// Like [`wait_until`](Self::wait_until) with a Vulkan timeout in nanoseconds (`u64::MAX`:
    /// forever; 0: poll).
    pub fn wait_timeout_ns(&self, timeout_ns: u64, ready: impl FnMut() -> bool) -> WaitOutcome {
        let deadline = if timeout_ns == u64::MAX {
            None
        } else {
            Instant::now().checked_add(Duration::from_nanos(timeout_ns))
        };
        self.wait_until(deadline, ready)
    }
}

/// A fence.
#[derive(Debug)]
pub struct Fence {
    signaled: AtomicBool,
    hub: Arc<SyncHub>,
}

impl Fence {
    /// A fence, signalled or not.
    pub fn new(hub: Arc<SyncHub>, signaled: bool) -> Self {
        Fence {
            signaled: AtomicBool::new(signaled),
            hub,
        }
    }

    /// `vkGetFenceStatus`.
    pub fn is_signaled(&self) -> bool {
        self.signaled.load(Ordering::Acquire)
    }

    /// Signals the fence (queue side) and wakes waiters.
    pub fn signal(&self) {
        self.signaled.store(true, Ordering::Release);
        self.hub.notify();
    }

    /// `vkResetFences`.
    pub fn reset(&self) {
        self.signaled.store(false, Ordering::Release);
    }
}

/// Waits for all (or any) of `fences`; `VK_TIMEOUT` semantics with `timeout_ns`.
pub fn wait_for_fences(
    hub: &SyncHub,
    fences: &[Arc<Fence>],
    wait_all: bool,
    timeout_ns: u64,
) -> WaitOutcome {
    hub.wait_timeout_ns(timeout_ns, || {
        if wait_all {
            fences.iter().all(|f| f.is_signaled())
        } else {
            fences.iter().any(|f| f.is_signaled())
        }
    })
}

/// Binary or timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemaphoreKind {
    /// Signalled/unsignalled; a wait consumes the signal.
    Binary,
    /// A monotonically increasing 64-bit counter.
    Timeline,
}

/// A semaphore. A binary semaphore's value is 0 or 1.
#[derive(Debug)]
pub struct Semaphore {
    kind: SemaphoreKind,
    value: AtomicU64,
    hub: Arc<SyncHub>,
}

impl Semaphore {
    /// A semaphore; `initial` is the timeline's initial value (0 for binary).
    pub fn new(hub: Arc<SyncHub>, kind: SemaphoreKind, initial: u64) -> Self {
        let initial = if kind == SemaphoreKind::Binary {
            0
        } else {
            initial
        };
        Semaphore {
            kind,
            value: AtomicU64::new(initial),
            hub,
        }
    }

    /// Binary or timeline.
    pub fn kind(&self) -> SemaphoreKind {
        self.kind
    }

    /// `vkGetSemaphoreCounterValue`.
    ///
    /// # Errors
    /// `Validation` for a binary semaphore.
    pub fn counter_value(&self) -> Result<u64> {
        ensure!(
            self.kind == SemaphoreKind::Timeline,
            "VUID-vkGetSemaphoreCounterValue-semaphore-03255",
            "semaphore is not a timeline semaphore"
        );
        Ok(self.value.load(Ordering::Acquire))
    }

    /// Checks a host or queue signal of `value` against the timeline's rules.
    ///
    /// # Errors
    /// `Validation` when `value` does not increase the counter or jumps too far.
    pub fn check_signal_value(&self, value: u64, vuid_increase: &'static str) -> Result<()> {
        if self.kind == SemaphoreKind::Binary {
            return Ok(());
        }
        let current = self.value.load(Ordering::Acquire);
        ensure!(
            value > current,
            vuid_increase,
            "signal value {value} is not greater than the current value {current}"
        );
        ensure!(
            value - current <= MAX_TIMELINE_DIFFERENCE,
            "VUID-VkSemaphoreSignalInfo-value-03260",
            "signal value {value} is more than maxTimelineSemaphoreValueDifference past {current}"
        );
        Ok(())
    }

    /// Signals: a binary semaphore becomes signalled, a timeline counter becomes `value`.
    pub fn signal(&self, value: u64) {
        match self.kind {
            SemaphoreKind::Binary => self.value.store(1, Ordering::Release),
            SemaphoreKind::Timeline => {
                self.value.fetch_max(value, Ordering::AcqRel);
            }
        }
        self.hub.notify();
    }

    /// Whether a wait for `value` is satisfied now; a satisfied binary wait consumes the signal.
    /// Call under the hub's lock (inside [`SyncHub::wait_until`]).
    pub fn try_acquire(&self, value: u64) -> bool {
        match self.kind {
            SemaphoreKind::Binary => self
                .value
                .compare_exchange(1, 0, Ordering::AcqRel, Ordering::Acquire)
                .is_ok(),
            SemaphoreKind::Timeline => self.value.load(Ordering::Acquire) >= value,
        }
    }
}

/// `vkWaitSemaphores`: waits until all (or any) timeline semaphores reach their values.
///
/// # Errors
/// `Validation` when a semaphore is binary.
pub fn wait_semaphores(
    hub: &SyncHub,
    waits: &[(Arc<Semaphore>, u64)],
    wait_any: bool,
    timeout_ns: u64,
) -> Result<WaitOutcome> {
    for (s, _) in waits {
        ensure!(
            s.kind == SemaphoreKind::Timeline,
            "VUID-VkSemaphoreWaitInfo-pSemaphores-03256",
            "vkWaitSemaphores on a binary semaphore"
        );
    }
    Ok(hub.wait_timeout_ns(timeout_ns, || {
        if wait_any {
            waits.iter().any(|(s, v)| s.try_acquire(*v))
        } else {
            waits.iter().all(|(s, v)| s.try_acquire(*v))
        }
    }))
}

/// The `VkResult` of a host wait.
///
/// # Errors
/// `DeviceLost` when the device was destroyed during the wait.
pub fn wait_result(outcome: WaitOutcome) -> Result<VkResult> {
    match outcome {
        WaitOutcome::Ready => Ok(VK_SUCCESS),
        WaitOutcome::TimedOut => Ok(VK_TIMEOUT),
        WaitOutcome::Shutdown => Err(Error::DeviceLost(
            "the device was destroyed during the wait".into(),
        )),
    }
}

impl Semaphore {
    /// `vkCreateSemaphore`: binary unless a `VkSemaphoreTypeCreateInfo` says timeline.
    ///
    /// # Errors
    /// `Validation` for a binary semaphore with a non-zero initial value.
    pub fn create(hub: Arc<SyncHub>, info: &vk::SemaphoreCreateInfo) -> Result<Self> {
        let (kind, initial) = match &info.semaphore_type_create_info {
            None => (SemaphoreKind::Binary, 0),
            Some(t) if t.semaphore_type == VK_SEMAPHORE_TYPE_TIMELINE => {
                (SemaphoreKind::Timeline, t.initial_value)
            }
            Some(t) => {
                ensure!(
                    t.initial_value == 0,
                    "VUID-VkSemaphoreTypeCreateInfo-semaphoreType-03279",
                    "a binary semaphore's initialValue must be 0"
                );
                (SemaphoreKind::Binary, 0)
            }
        };
        Ok(Semaphore::new(hub, kind, initial))
    }

    /// `vkSignalSemaphore`.
    ///
    /// # Errors
    /// `Validation` for a binary semaphore or a value that does not increase the counter.
    pub fn host_signal(&self, value: u64) -> Result<()> {
        ensure!(
            self.kind == SemaphoreKind::Timeline,
            "VUID-VkSemaphoreSignalInfo-semaphore-03257",
            "semaphore is not a timeline semaphore"
        );
        self.check_signal_value(value, "VUID-VkSemaphoreSignalInfo-value-03258")?;
        self.signal(value);
        Ok(())
    }
}

/// An event (`VK_EVENT_SET` / `VK_EVENT_RESET`).
#[derive(Debug)]
pub struct Event {
    set: AtomicBool,
    device_only: bool,
    hub: Arc<SyncHub>,
}

impl Event {
    /// An unsignalled event. `device_only` is `VK_EVENT_CREATE_DEVICE_ONLY_BIT`.
    pub fn new(hub: Arc<SyncHub>, device_only: bool) -> Self {
        Event {
            set: AtomicBool::new(false),
            device_only,
            hub,
        }
    }

    /// Whether the event is set.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Sets or resets it (device side) and wakes waiters.
    pub fn store(&self, set: bool) {
        self.set.store(set, Ordering::Release);
        self.hub.notify();
    }

    /// `vkGetEventStatus`: whether the event is set.
    ///
    /// # Errors
    /// `Validation` on a device-only event.
    pub fn host_status(&self) -> Result<bool> {
        self.check_host_access("VUID-vkGetEventStatus-event-03940")?;
        Ok(self.is_set())
    }

    /// `vkSetEvent` (`set`) / `vkResetEvent` from the host.
    ///
    /// # Errors
    /// `Validation` on a device-only event.
    pub fn host_store(&self, set: bool) -> Result<()> {
        let vuid = if set {
            "VUID-vkSetEvent-event-03941"
        } else {
            "VUID-vkResetEvent-event-03823"
        };
        self.check_host_access(vuid)?;
        self.store(set);
        Ok(())
    }

    /// Host `vkSetEvent` / `vkResetEvent` / `vkGetEventStatus` checks.
    ///
    /// # Errors
    /// `Validation` on a device-only event.
    pub fn check_host_access(&self, vuid: &'static str) -> Result<()> {
        if self.device_only {
            return Err(Error::invalid(
                vuid,
                "event was created with VK_EVENT_CREATE_DEVICE_ONLY_BIT",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    #[test]
    fn fence_wait_any_and_all() {
        let hub = Arc::new(SyncHub::default());
        let a = Arc::new(Fence::new(hub.clone(), false));
        let b = Arc::new(Fence::new(hub.clone(), true));
        let both = [a.clone(), b.clone()];
        assert_eq!(wait_for_fences(&hub, &both, false, 0), WaitOutcome::Ready);
        assert_eq!(
            wait_for_fences(&hub, &both, true, 1000),
            WaitOutcome::TimedOut
        );
        let a2 = a.clone();
        let t = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            a2.signal();
        });
        assert_eq!(
            wait_for_fences(&hub, &both, true, u64::MAX),
            WaitOutcome::Ready
        );
        t.join().unwrap();
    }

    #[test]
    fn binary_semaphore_is_consumed() {
        let hub = Arc::new(SyncHub::default());
        let s = Semaphore::new(hub.clone(), SemaphoreKind::Binary, 7);
        assert!(!s.try_acquire(0));
        s.signal(0);
        assert!(s.try_acquire(0));
        assert!(!s.try_acquire(0));
        assert!(s.counter_value().is_err());
    }

    #[test]
    fn timeline_rules() {
        let hub = Arc::new(SyncHub::default());
        let s = Arc::new(Semaphore::new(hub.clone(), SemaphoreKind::Timeline, 5));
        assert_eq!(s.counter_value().unwrap(), 5);
        assert!(s.check_signal_value(5, "x").is_err());
        assert!(s.check_signal_value(6, "x").is_ok());
        let waits = [(s.clone(), 10)];
        assert_eq!(
            wait_semaphores(&hub, &waits, false, 0).unwrap(),
            WaitOutcome::TimedOut
        );
        let s2 = s.clone();
        let t = thread::spawn(move || s2.signal(10));
        assert_eq!(
            wait_semaphores(&hub, &waits, false, u64::MAX).unwrap(),
            WaitOutcome::Ready
        );
        t.join().unwrap();
    }

    #[test]
    fn shutdown_releases_waiters() {
        let hub = Arc::new(SyncHub::default());
        let h2 = hub.clone();
        let t = thread::spawn(move || h2.wait_until(None, || false));
        thread::sleep(Duration::from_millis(10));
        hub.shut_down();
        assert_eq!(t.join().unwrap(), WaitOutcome::Shutdown);
    }

    #[test]
    fn device_only_event_rejects_host() {
        let hub = Arc::new(SyncHub::default());
        assert!(
            Event::new(hub.clone(), true)
                .check_host_access("x")
                .is_err()
        );
        let e = Event::new(hub, false);
        e.store(true);
        assert!(e.is_set());
    }
}
