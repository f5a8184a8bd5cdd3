//! Query pools. Timestamps are nanoseconds on the host's monotonic clock
//! (`timestampPeriod = 1.0`, 64 valid bits).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use vulkan_headers::vulkan::vulkan_core::*;

use crate::sync::{SyncHub, WaitOutcome};
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// The query types a pool may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// `VK_QUERY_TYPE_TIMESTAMP`.
    Timestamp,
    /// `VK_QUERY_TYPE_OCCLUSION` (creatable; it needs a graphics queue to be used).
    Occlusion,
}

impl ResultFlags {
    /// Decodes `VkQueryResultFlags` (the ICD has already rejected bits the registry does not
    /// define).
    pub fn from_vk(flags: VkQueryResultFlags) -> Self {
        ResultFlags {
            wide: flags & VK_QUERY_RESULT_64_BIT != 0,
            wait: flags & VK_QUERY_RESULT_WAIT_BIT != 0,
            with_availability: flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT != 0,
            partial: flags & VK_QUERY_RESULT_PARTIAL_BIT != 0,
        }
    }
}

/// `VkQueryResultFlags` as the runtime needs them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultFlags {
    /// `VK_QUERY_RESULT_64_BIT`.
    pub wide: bool,
    /// `VK_QUERY_RESULT_WAIT_BIT`.
    pub wait: bool,
    /// `VK_QUERY_RESULT_WITH_AVAILABILITY_BIT`.
    pub with_availability: bool,
    /// `VK_QUERY_RESULT_PARTIAL_BIT`.
    pub partial: bool,
}

#[derive(Debug, Default)]
struct Slot {
    value: AtomicU64,
    available: AtomicBool,
}

/// A query pool.
#[derive(Debug)]
pub struct QueryPool {
    kind: QueryKind,
    slots: Box<[Slot]>,
}

/// Nanoseconds since the driver's clock epoch.
pub fn timestamp_now() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    // Never 0, so a written timestamp is distinguishable from an unwritten one in tests.
    epoch.elapsed().as_nanos() as u64 + 1
}

impl QueryPool {
    /// `vkCreateQueryPool`: timestamp and occlusion pools (the latter cannot be used on a
    /// compute queue, but can be created).
    ///
    /// # Errors
    /// `Validation` for pipeline-statistics pools (not supported), query types of other
    /// extensions and a zero count.
    pub fn create(info: &vk::QueryPoolCreateInfo) -> Result<Self> {
        let kind = match info.query_type {
            VK_QUERY_TYPE_TIMESTAMP => QueryKind::Timestamp,
            VK_QUERY_TYPE_OCCLUSION => QueryKind::Occlusion,
            VK_QUERY_TYPE_PIPELINE_STATISTICS => {
                return Err(Error::invalid(
                    "VUID-VkQueryPoolCreateInfo-queryType-00791",
                    "pipelineStatisticsQuery is not supported",
                ));
            }
            other => {
                return Err(Error::invalid(
                    "VUID-VkQueryPoolCreateInfo-queryType-parameter",
                    format!("query type {other} needs an extension Tessera does not support"),
                ));
            }
        };
        Self::new(kind, info.query_count)
    }

    /// `vkResetQueryPool` (host reset).
    ///
    /// # Errors
    /// `Validation` for queries outside the pool.
    pub fn host_reset(&self, first: u32, count: u32) -> Result<()> {
        self.check_range(first, count, "VUID-vkResetQueryPool-firstQuery-09436")?;
        self.reset(first, count);
        Ok(())
    }

    /// `vkGetQueryPoolResults`: waits (with `VK_QUERY_RESULT_WAIT_BIT`) on `hub`, then writes the
    /// results into `out` (`address`: where `pData` is, for its alignment rule). Returns whether
    /// every query was available.
    ///
    /// # Errors
    /// `Validation` naming the rule broken; `DeviceLost` when the device goes during the wait.
    #[allow(clippy::too_many_arguments)]
    pub fn results(
        &self,
        hub: &SyncHub,
        first: u32,
        count: u32,
        stride: u64,
        flags: VkQueryResultFlags,
        address: usize,
        out: &mut [u8],
    ) -> Result<bool> {
        let flags = ResultFlags::from_vk(flags);
        self.check_range(first, count, "VUID-vkGetQueryPoolResults-firstQuery-09436")?;
        let word = if flags.wide { 8 } else { 4 };
        ensure!(
            stride.is_multiple_of(word),
            "VUID-vkGetQueryPoolResults-flags-02828",
            "stride {stride} is not a multiple of {word}"
        );
        ensure!(
            address.is_multiple_of(word as usize),
            "VUID-vkGetQueryPoolResults-flags-02828",
            "pData is not {word}-byte aligned"
        );
        if flags.wait {
            let ready = || (first..first + count).all(|q| self.is_available(q));
            if hub.wait_until(None, ready) == WaitOutcome::Shutdown {
                return Err(Error::DeviceLost(
                    "the device was destroyed during the wait".into(),
                ));
            }
        }
        self.write_results(first, count, stride, flags, out)
    }

    /// A pool of `count` unavailable queries.
    ///
    /// # Errors
    /// `Validation` for a zero count.
    pub fn new(kind: QueryKind, count: u32) -> Result<Self> {
        ensure!(
            count > 0,
            "VUID-VkQueryPoolCreateInfo-queryCount-02763",
            "queryCount is 0"
        );
        Ok(QueryPool {
            kind,
            slots: (0..count).map(|_| Slot::default()).collect(),
        })
    }

    /// The pool's query type.
    pub fn kind(&self) -> QueryKind {
        self.kind
    }

    /// Number of queries.
    pub fn count(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Checks that `[first, first + count)` names queries of this pool.
    ///
    /// # Errors
    /// `Validation` naming `vuid`.
    pub fn check_range(&self, first: u32, count: u32, vuid: &'static str) -> Result<()> {
        ensure!(
            first < self.count() && count <= self.count() - first,
            vuid,
            "queries [{first}, {first}+{count}) are outside a pool of {}",
            self.count()
        );
        Ok(())
    }

    /// Makes queries unavailable (`vkResetQueryPool`, `vkCmdResetQueryPool`).
    pub fn reset(&self, first: u32, count: u32) {
        for slot in &self.slots[first as usize..(first + count) as usize] {
            slot.available.store(false, Ordering::Release);
            slot.value.store(0, Ordering::Relaxed);
        }
    }

    /// Writes a timestamp into query `index`.
    pub fn write_timestamp(&self, index: u32) {
        let slot = &self.slots[index as usize];
        slot.value.store(timestamp_now(), Ordering::Relaxed);
        slot.available.store(true, Ordering::Release);
    }

    /// Whether query `index` is available.
    pub fn is_available(&self, index: u32) -> bool {
        self.slots[index as usize].available.load(Ordering::Acquire)
    }

    /// Writes results of `[first, first + count)` into `out` with `stride` bytes between queries.
    /// Returns whether every query was available (`VK_NOT_READY` otherwise). Unavailable values are
    /// written only with `partial` (as 0), availability words always with `with_availability`.
    ///
    /// # Errors
    /// `Validation` when `out` is too small for the layout.
    pub fn write_results(
        &self,
        first: u32,
        count: u32,
        stride: u64,
        flags: ResultFlags,
        out: &mut [u8],
    ) -> Result<bool> {
        let word = if flags.wide { 8 } else { 4 };
        let per_query = word * (1 + u64::from(flags.with_availability));
        if count > 0 {
            let needed = stride
                .checked_mul(u64::from(count - 1))
                .and_then(|n| n.checked_add(per_query));
            ensure!(
                needed.is_some_and(|n| n <= out.len() as u64),
                "VUID-vkGetQueryPoolResults-dataSize-00817",
                "dataSize {} is too small for {count} queries with stride {stride}",
                out.len()
            );
        }
        let mut all = true;
        for i in 0..count {
            let slot = &self.slots[(first + i) as usize];
            let available = slot.available.load(Ordering::Acquire);
            all &= available;
            let base = (u64::from(i) * stride) as usize;
            let mut put = |at: usize, v: u64| {
                if flags.wide {
                    out[at..at + 8].copy_from_slice(&v.to_le_bytes());
                } else {
                    out[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
                }
            };
            if available || flags.partial {
                let v = if available {
                    slot.value.load(Ordering::Relaxed)
                } else {
                    0
                };
                put(base, v);
            }
            if flags.with_availability {
                put(base + word as usize, u64::from(available));
            }
        }
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_layout() {
        let pool = QueryPool::new(QueryKind::Timestamp, 3).unwrap();
        pool.write_timestamp(0);
        pool.write_timestamp(1);
        let flags = ResultFlags {
            wide: true,
            with_availability: true,
            ..Default::default()
        };
        let mut out = [0xffu8; 48];
        assert!(!pool.write_results(0, 3, 16, flags, &mut out).unwrap());
        let v0 = u64::from_le_bytes(out[0..8].try_into().unwrap());
        let v1 = u64::from_le_bytes(out[16..24].try_into().unwrap());
        assert!(v0 > 0 && v1 >= v0);
        assert_eq!(&out[8..16], &1u64.to_le_bytes());
        assert_eq!(&out[40..48], &0u64.to_le_bytes());
        assert_eq!(
            &out[32..40],
            &[0xff; 8],
            "unavailable value left untouched without PARTIAL"
        );
        assert!(pool.write_results(0, 3, 16, flags, &mut out[..40]).is_err());
        pool.reset(0, 3);
        assert!(!pool.is_available(0));
        assert!(pool.check_range(2, 2, "x").is_err());
    }
}
