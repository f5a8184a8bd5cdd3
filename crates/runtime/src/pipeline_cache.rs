//! `VkPipelineCache`: the data graph pipelines made with it ([`GraphEntries`]) and the machine
//! code of the compute shaders compiled with it ([`CodeEntries`], sealed entries of
//! `tessera_jit::cache`), so that an application that stores the cache data and creates its
//! pipelines with it in a later run skips both the graph planning and Cranelift's compile.
//!
//! The data ([`PipelineCache::data_within`]) is the standard 32-byte header (version one,
//! vendor and device IDs, `pipelineCacheUUID`), then sections, each a `u32` tag, a `u64`
//! length and that many bytes: [`GRAPHS`] (the graph entries' own encoding) and [`CODE`] (a
//! `u32` count, then per entry its 32-byte key, a `u64` length and the sealed entry). Initial
//! data with another header is ignored, as the spec allows; a section or entry that does not
//! parse is skipped, and a code entry is checked against its key ([`tessera_jit::cache::open`])
//! before its code is used, so damaged data costs a compile, never a crash.
//!
//! Invariants: [`PipelineCache::data_within`] writes only whole sections and whole entries, so
//! any prefix it returns is valid initial data; the data includes the code of every compute
//! pipeline created with the cache (it waits for their background compiles).

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use tessera_jit::cache::{CodeKey, CodeStore};
use vulkan_headers::vulkan::vulkan_core::*;

use crate::Result;
use crate::data_graph::GraphEntries;
use crate::device::Device;
use crate::ensure;
use crate::shader::Compiled;
use crate::vk::structs as vk;

/// The section of data graph entries.
pub const GRAPHS: u32 = 1;
/// The section of compiled shader code.
pub const CODE: u32 = 2;

/// Sealed code entries by key (a [`CodeStore`] for the JIT).
#[derive(Debug, Default)]
pub struct CodeEntries {
    entries: Mutex<HashMap<CodeKey, Arc<[u8]>>>,
}

impl CodeStore for CodeEntries {
    fn get(&self, key: &CodeKey) -> Option<Vec<u8>> {
        self.entries.lock().get(key).map(|e| e.to_vec())
    }

    fn put(&self, key: &CodeKey, sealed: &[u8]) {
        self.entries.lock().insert(*key, sealed.into());
    }
}

impl CodeEntries {
    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.lock().is_empty()
    }

    /// The entries sorted by key.
    fn sorted(&self) -> Vec<(CodeKey, Arc<[u8]>)> {
        let mut all: Vec<_> = self
            .entries
            .lock()
            .iter()
            .map(|(k, e)| (*k, e.clone()))
            .collect();
        all.sort_unstable_by_key(|e| e.0);
        all
    }

    /// Adds the entries of a [`CODE`] section; stops at the first that does not parse.
    fn deserialize(&self, mut bytes: &[u8]) {
        let Some(count) = take_u32(&mut bytes) else {
            return;
        };
        for _ in 0..count {
            let Some(key) = take(&mut bytes, 32).and_then(|k| CodeKey::try_from(k).ok()) else {
                return;
            };
            let Some(len) = take_len(&mut bytes) else {
                return;
            };
            let Some(sealed) = take(&mut bytes, len) else {
                return;
            };
            self.put(&key, sealed);
        }
    }

    /// Copies every entry of `other` in.
    fn merge(&self, other: &CodeEntries) {
        for (k, e) in other.sorted() {
            self.entries.lock().insert(k, e);
        }
    }
}

/// The first `n` bytes of `bytes`, which move past them.
fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = bytes.split_at_checked(n)?;
    *bytes = rest;
    Some(head)
}

/// A little-endian `u32` from the front of `bytes`.
fn take_u32(bytes: &mut &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(take(bytes, 4)?.try_into().ok()?))
}

/// A little-endian `u64` length from the front of `bytes`, as a `usize`.
fn take_len(bytes: &mut &[u8]) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?)).ok()
}

fn section(out: &mut Vec<u8>, tag: u32, body: &[u8]) {
    out.extend_from_slice(&tag.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
}

/// A pipeline cache (see the module docs).
#[derive(Debug)]
pub struct PipelineCache {
    header: Vec<u8>,
    graphs: GraphEntries,
    code: CodeEntries,
    /// Compute pipelines created with this cache whose background compile may not have run
    /// yet (the data waits for them).
    pending: Mutex<Vec<Weak<Compiled>>>,
}

impl PipelineCache {
    /// `vkCreatePipelineCache`.
    pub fn create(device: &Device, info: &vk::PipelineCacheCreateInfo) -> Self {
        let props = &device.physical().properties().vulkan10;
        let mut header = Vec::with_capacity(32);
        header.extend_from_slice(&32u32.to_le_bytes());
        header.extend_from_slice(&(VK_PIPELINE_CACHE_HEADER_VERSION_ONE as u32).to_le_bytes());
        header.extend_from_slice(&props.vendor_id.to_le_bytes());
        header.extend_from_slice(&props.device_id.to_le_bytes());
        header.extend_from_slice(&props.pipeline_cache_uuid);
        Self::with_header(header, &info.initial_data)
    }

    /// A cache whose data starts with `header`, with what `initial_data` holds after the same
    /// header (nothing when its header differs).
    fn with_header(header: Vec<u8>, initial_data: &[u8]) -> Self {
        let cache = PipelineCache {
            header,
            graphs: GraphEntries::default(),
            code: CodeEntries::default(),
            pending: Mutex::new(Vec::new()),
        };
        if let Some(mut rest) = initial_data.strip_prefix(cache.header.as_slice()) {
            while let (Some(tag), Some(len)) = (take_u32(&mut rest), take_len(&mut rest)) {
                let Some(body) = take(&mut rest, len) else {
                    break;
                };
                match tag {
                    GRAPHS => cache.graphs.deserialize(body),
                    CODE => cache.code.deserialize(body),
                    _ => {}
                }
            }
        }
        cache
    }

    /// An empty cache with a made-up header (unit tests of other modules).
    #[cfg(test)]
    pub(crate) fn for_tests() -> Self {
        Self::with_header(vec![7; 32], &[])
    }

    /// A cache from `data` of [`Self::for_tests`]'s header.
    #[cfg(test)]
    pub(crate) fn for_tests_from(data: &[u8]) -> Self {
        Self::with_header(vec![7; 32], data)
    }

    /// `vkGetPipelineCacheData`: the data, or its longest valid prefix of at most `max` bytes
    /// (whole sections and entries; nothing when even the header does not fit), and whether
    /// that is all of it.
    pub fn data_within(&self, max: usize) -> (Vec<u8>, bool) {
        self.wait_for_pending();
        if max < self.header.len() {
            return (Vec::new(), false);
        }
        let mut data = self.header.clone();
        if !self.graphs.is_empty() {
            let mut with = data.clone();
            section(&mut with, GRAPHS, &self.graphs.serialize());
            if with.len() > max {
                return (data, false);
            }
            data = with;
        }
        let entries = self.code.sorted();
        if entries.is_empty() {
            return (data, true);
        }
        // As many whole entries as fit after the section's tag, length and count.
        let mut body = (0u32).to_le_bytes().to_vec();
        let mut count = 0u32;
        let mut complete = true;
        for (key, sealed) in &entries {
            let size = 32 + 8 + sealed.len();
            if data.len() + 12 + body.len() + size > max {
                complete = false;
                break;
            }
            body.extend_from_slice(key);
            body.extend_from_slice(&(sealed.len() as u64).to_le_bytes());
            body.extend_from_slice(sealed);
            count += 1;
        }
        if count > 0 {
            body[..4].copy_from_slice(&count.to_le_bytes());
            section(&mut data, CODE, &body);
        }
        (data, complete)
    }

    /// The whole data (`vkGetPipelineCacheData` with room for all of it).
    pub fn data(&self) -> Vec<u8> {
        self.data_within(usize::MAX).0
    }

    /// The data graph pipelines kept.
    pub fn graphs(&self) -> &GraphEntries {
        &self.graphs
    }

    /// The compiled shader code kept.
    pub fn code(&self) -> &CodeEntries {
        &self.code
    }

    /// Notes a compute pipeline's compile, so that the data waits for it.
    pub(crate) fn pending(&self, compiled: &Arc<Compiled>) {
        let mut pending = self.pending.lock();
        pending.retain(|p| p.strong_count() > 0);
        pending.push(Arc::downgrade(compiled));
    }

    /// Runs or waits for the compiles of the compute pipelines created with this cache.
    fn wait_for_pending(&self) {
        let pending = std::mem::take(&mut *self.pending.lock());
        for compiled in pending.iter().filter_map(Weak::upgrade) {
            compiled.wait_for_kernel();
        }
    }

    /// `vkMergePipelineCaches`: the destination may not be a source.
    ///
    /// # Errors
    /// `Validation` (VUID-vkMergePipelineCaches-dstCache-00770).
    pub fn merge(self: &Arc<Self>, sources: &[Arc<PipelineCache>]) -> Result<()> {
        ensure!(
            !sources.iter().any(|s| Arc::ptr_eq(s, self)),
            "VUID-vkMergePipelineCaches-dstCache-00770",
            "dstCache is also a source"
        );
        for s in sources {
            s.wait_for_pending();
            self.graphs.merge(&s.graphs);
            self.code.merge(&s.code);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_jit::cache::{open, seal};

    const HEADER: [u8; 32] = [7; 32];

    fn cache_with(entries: &[(u8, usize)]) -> PipelineCache {
        let cache = PipelineCache::with_header(HEADER.to_vec(), &[]);
        for &(key, len) in entries {
            cache
                .code()
                .put(&[key; 32], &seal(&[key; 32], &vec![key; len]));
        }
        cache
    }

    #[test]
    fn code_entries_round_trip_through_the_data() {
        let cache = cache_with(&[(1, 10), (2, 300), (3, 0)]);
        let data = cache.data();
        let again = PipelineCache::with_header(HEADER.to_vec(), &data);
        assert_eq!(again.code().len(), 3);
        for key in [1u8, 2, 3] {
            let sealed = again.code().get(&[key; 32]).unwrap();
            assert_eq!(cache.code().get(&[key; 32]).unwrap(), sealed);
            assert_eq!(
                open(&[key; 32], &sealed).unwrap(),
                vec![key; sealed.len() - 44]
            );
        }
        assert_eq!(again.data(), data, "the same data again");
        // Another header: ignored.
        let foreign = PipelineCache::with_header([8; 32].to_vec(), &data);
        assert!(foreign.code().is_empty());
    }

    #[test]
    fn every_prefix_is_valid_data_of_whole_entries() {
        let cache = cache_with(&[(1, 10), (2, 300), (3, 50)]);
        let (full, complete) = cache.data_within(usize::MAX);
        assert!(complete);
        let mut seen = Vec::new();
        for max in 0..=full.len() {
            let (data, complete) = cache.data_within(max);
            assert!(data.len() <= max);
            assert_eq!(complete, max == full.len(), "max {max}");
            if max < 32 {
                assert!(data.is_empty(), "no partial header");
                continue;
            }
            let back = PipelineCache::with_header(HEADER.to_vec(), &data);
            for (key, sealed) in back.code().sorted() {
                assert_eq!(cache.code().get(&key).as_deref(), Some(&sealed[..]));
            }
            seen.push(back.code().len());
        }
        assert!(seen.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!((seen[0], *seen.last().unwrap()), (0, 3));
    }

    #[test]
    fn damaged_data_never_panics_and_damaged_entries_do_not_open() {
        let cache = cache_with(&[(1, 40), (2, 40)]);
        let data = cache.data();
        for at in 32..data.len() {
            for bit in [0x01u8, 0x80] {
                let mut bad = data.clone();
                bad[at] ^= bit;
                let back = PipelineCache::with_header(HEADER.to_vec(), &bad);
                for (key, sealed) in back.code().sorted() {
                    let intact = cache.code().get(&key).is_some_and(|e| e[..] == sealed[..]);
                    assert!(intact || open(&key, &sealed).is_none(), "byte {at}");
                }
            }
            let back = PipelineCache::with_header(HEADER.to_vec(), &data[..at]);
            assert!(back.code().len() <= 2);
        }
    }
}
