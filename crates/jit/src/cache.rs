//! The JIT's code cache: machine code kept from one compile to the next, in a directory on disk
//! ([`DiskCache`], like Mesa's shader disk cache) and in any other [`CodeStore`] (the runtime
//! keeps one in each `VkPipelineCache`).
//!
//! An entry is keyed by Cranelift's incremental-cache key ([`CodeKey`]): a SHA-256 of the
//! function as compiled (its CLIF, which holds every offset, constant and signature the code
//! depends on), of the target ISA with its CPU feature flags, and of Cranelift's version. The
//! same key therefore always means the same machine code; our own code generator's output is
//! part of the key, so a change to the driver that changes the code changes the key.
//!
//! Beside those, a store holds whole kernels (`saved`): the code with its relocations and the
//! code generator's account of it, under a key over the program and the driver's build, so
//! that a hit runs no code generator. Both kinds are sealed alike and kept by the same stores.
//!
//! At rest every entry is *sealed* ([`seal`]): a magic tag, the format version, a SHA-256 of
//! the key and the payload, and the payload (Cranelift's serialized compiled code). [`open`]
//! checks all of them against the key asked for, so a truncated, corrupt or foreign entry, or
//! one filed under another key, is a miss — the shader is compiled again and
//! the entry rewritten — and never code that runs. (Whoever can write the directory can still
//! put code there that checks out, as with any code cache; it is the user's own directory.)
//!
//! Invariants: [`DiskCache`] writes an entry to a temporary file and renames it into place, so
//! a reader never sees half an entry; it keeps the directory under its byte budget by removing
//! the least recently used entries (a hit refreshes an entry's modification time); every I/O
//! error is a miss or a skipped write, never a failure of the compile.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// A code-cache key: Cranelift's incremental-cache key hash (see the module docs).
pub type CodeKey = [u8; 32];

/// Where compiled code is kept between compiles. Entries are sealed ([`seal`]) by the caller
/// before `put` and checked ([`open`]) after `get`, so a store keeps bytes without looking at
/// them.
pub trait CodeStore: Send + Sync {
    /// The sealed entry kept for `key`, if any.
    fn get(&self, key: &CodeKey) -> Option<Vec<u8>>;
    /// Keeps the sealed entry `sealed` for `key`.
    fn put(&self, key: &CodeKey, sealed: &[u8]);
}

/// The first bytes of a sealed entry.
const MAGIC: &[u8; 8] = b"TSRCODE\0";
/// The layout of a sealed entry; a change makes old entries misses.
const FORMAT: u32 = 1;
/// Magic, format, digest.
const SEAL_HEADER: usize = 8 + 4 + 32;

fn digest(key: &CodeKey, payload: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(key);
    hasher.update(payload);
    hasher.finalize().into()
}

/// `payload`, the entry for `key`, sealed: magic, format, SHA-256 of key and payload, payload.
pub fn seal(key: &CodeKey, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SEAL_HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&digest(key, payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of `sealed`, when its magic, format and digest check out for `key`.
pub fn open<'a>(key: &CodeKey, sealed: &'a [u8]) -> Option<&'a [u8]> {
    let (header, payload) = sealed.split_at_checked(SEAL_HEADER)?;
    let (magic, rest) = header.split_at(8);
    let (format, sum) = rest.split_at(4);
    (magic == MAGIC && format == FORMAT.to_le_bytes() && digest(key, payload) == sum)
        .then_some(payload)
}

/// A [`CodeStore`] as Cranelift's incremental cache sees it: sealed entries opened on `get`,
/// payloads sealed on `insert`.
pub(crate) struct KvStore<'a>(pub(crate) &'a dyn CodeStore);

impl cranelift_codegen::incremental_cache::CacheKvStore for KvStore<'_> {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let key = CodeKey::try_from(key).ok()?;
        let sealed = self.0.get(&key)?;
        open(&key, &sealed).map(|payload| Cow::Owned(payload.to_vec()))
    }

    fn insert(&mut self, key: &[u8], val: Vec<u8>) {
        if let Ok(key) = CodeKey::try_from(key) {
            self.0.put(&key, &seal(&key, &val));
        }
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A code cache in a directory: one file per entry, `<dir>/<first two hex digits>/<the other
/// 62>`, kept under a byte budget (see the module docs).
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
    /// The bytes the directory's entries take, as last counted plus what this process wrote
    /// since (`u64::MAX` until first counted).
    used: AtomicU64,
}

impl DiskCache {
    /// A cache in `dir` (created when first written) of at most `max_bytes`.
    pub fn new(dir: impl Into<PathBuf>, max_bytes: u64) -> Self {
        DiskCache {
            dir: dir.into(),
            max_bytes,
            used: AtomicU64::new(u64::MAX),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &CodeKey) -> PathBuf {
        let name = hex(key);
        self.dir.join(&name[..2]).join(&name[2..])
    }

    /// Every entry file: (path, length, modification time).
    fn entries(&self) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
        let mut found = Vec::new();
        let Ok(subdirs) = std::fs::read_dir(&self.dir) else {
            return found;
        };
        for sub in subdirs.flatten() {
            let Ok(files) = std::fs::read_dir(sub.path()) else {
                continue;
            };
            for file in files.flatten() {
                let name = file.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue; // A temporary file being written.
                }
                if let Some(meta) = file.metadata().ok().filter(|m| m.is_file()) {
                    let modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                    found.push((file.path(), meta.len(), modified));
                }
            }
        }
        found
    }

    /// Removes the least recently used entries until the directory holds at most three
    /// quarters of the budget, when it holds more than the budget.
    fn evict(&self) {
        let mut entries = self.entries();
        let mut used: u64 = entries.iter().map(|e| e.1).sum();
        if used > self.max_bytes {
            entries.sort_by_key(|e| e.2);
            for (path, len, _) in entries {
                if used <= self.max_bytes / 4 * 3 {
                    break;
                }
                if std::fs::remove_file(&path).is_ok() {
                    used -= len;
                }
            }
        }
        self.used.store(used, Ordering::Relaxed);
    }
}

impl CodeStore for DiskCache {
    fn get(&self, key: &CodeKey) -> Option<Vec<u8>> {
        let path = self.path(key);
        let bytes = std::fs::read(&path).ok()?;
        // A hit is a use: the entry moves to the back of the eviction order.
        if let Ok(file) = std::fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
        Some(bytes)
    }

    fn put(&self, key: &CodeKey, sealed: &[u8]) {
        let path = self.path(key);
        let Some(parent) = path.parent() else {
            return;
        };
        if std::fs::create_dir_all(parent).is_err() {
            tracing::debug!(
                "shader cache: cannot create {}; entry not written",
                parent.display()
            );
            return;
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let temp = parent.join(format!(
            ".{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            hex(&key[..4])
        ));
        let written =
            std::fs::write(&temp, sealed).is_ok() && std::fs::rename(&temp, &path).is_ok();
        if !written {
            let _ = std::fs::remove_file(&temp);
            tracing::debug!("shader cache: cannot write {}", path.display());
            return;
        }
        let len = sealed.len() as u64;
        let used = self.used.load(Ordering::Relaxed);
        let now = used.saturating_add(len);
        if used == u64::MAX || now > self.max_bytes {
            self.evict();
        } else {
            self.used.store(now, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary directory.
    pub(crate) fn scratch_dir(tag: &str) -> PathBuf {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tessera-cache-{tag}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_sealed_entry_opens_to_its_payload() {
        let payload = b"compiled code".to_vec();
        assert_eq!(
            open(&[1; 32], &seal(&[1; 32], &payload)),
            Some(&payload[..])
        );
        assert_eq!(open(&[1; 32], &seal(&[1; 32], &[])), Some(&[][..]));
    }

    #[test]
    fn any_damage_to_a_sealed_entry_is_caught() {
        let key = [5; 32];
        let sealed = seal(&key, &(0..200u8).collect::<Vec<_>>());
        for at in 0..sealed.len() {
            let mut bad = sealed.clone();
            bad[at] ^= 0x10;
            assert_eq!(open(&key, &bad), None, "byte {at} flipped");
        }
        for len in 0..sealed.len() {
            assert_eq!(open(&key, &sealed[..len]), None, "cut to {len} bytes");
        }
        let mut longer = sealed.clone();
        longer.push(0);
        assert_eq!(open(&key, &longer), None, "a byte appended");
        let mut other = key;
        other[31] ^= 1;
        assert_eq!(open(&other, &sealed), None, "filed under another key");
    }

    #[test]
    fn the_disk_cache_keeps_entries_by_key() {
        let dir = scratch_dir("keys");
        let cache = DiskCache::new(&dir, 1 << 20);
        let (a, b) = ([1u8; 32], [2u8; 32]);
        assert_eq!(cache.get(&a), None, "empty at first");
        cache.put(&a, b"first");
        cache.put(&b, b"second");
        assert_eq!(cache.get(&a).as_deref(), Some(&b"first"[..]));
        assert_eq!(cache.get(&b).as_deref(), Some(&b"second"[..]));
        cache.put(&a, b"replaced");
        assert_eq!(cache.get(&a).as_deref(), Some(&b"replaced"[..]));
        assert!(dir.join("01").join(&hex(&a)[2..]).is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_disk_cache_evicts_the_least_recently_used() {
        let dir = scratch_dir("evict");
        let cache = DiskCache::new(&dir, 4000);
        let entry = vec![7u8; 1000];
        let keys: Vec<CodeKey> = (0..4u8).map(|i| [i; 32]).collect();
        for (i, k) in keys.iter().enumerate() {
            cache.put(k, &entry);
            // Distinct modification times, oldest first, then key 0 used again.
            let old = std::time::SystemTime::now() - std::time::Duration::from_secs(100 - i as u64);
            std::fs::File::options()
                .append(true)
                .open(cache.path(k))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        assert!(cache.get(&keys[0]).is_some(), "a hit refreshes key 0");
        cache.put(&[9; 32], &entry);
        // 5000 bytes > 4000: the oldest go until at most 3000 remain.
        let kept: Vec<bool> = keys.iter().map(|k| cache.get(k).is_some()).collect();
        assert_eq!(kept, [true, false, false, true]);
        assert!(cache.get(&[9; 32]).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_directory_is_a_miss_not_an_error() {
        let dir = scratch_dir("unwritable");
        std::fs::write(&dir, b"a file where the directory should be").unwrap();
        let cache = DiskCache::new(dir.join("cache"), 1 << 20);
        cache.put(&[3; 32], b"entry");
        assert_eq!(cache.get(&[3; 32]), None);
        let _ = std::fs::remove_file(&dir);
    }
}
