//! The executor: replays a [`Recording`] on a queue's worker thread, one `match` per command.
//!
//! Set `TESSERA_CMD_TRACE=1` to log every executed command at `info` level.
//!
//! Dispatches run under a watchdog, like a GPU's timeout detection: a dispatch that runs longer
//! than `TESSERA_DISPATCH_TIMEOUT` seconds (read when the device is created; default 60; `0`
//! turns it off), or that is still
//! running when its device is lost or destroyed, is stopped and the device is lost
//! (`VK_ERROR_DEVICE_LOST`). So a shader that never terminates cannot hang the application.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::cmd::{Command, DispatchState, Recording};
use crate::memory::{DeviceMemory, LiveMemory};
use crate::pipeline::{ResolvedResources, dispatch_threads};
use crate::sync::{SyncHub, WaitOutcome};
use crate::{Error, Result};

static TRACE: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("TESSERA_CMD_TRACE").is_some_and(|v| v != "0"));

/// The dispatch watchdog's limit from `TESSERA_DISPATCH_TIMEOUT` (see the module docs), read when
/// a queue starts; `None` = no limit.
pub(crate) fn dispatch_timeout() -> Option<Duration> {
    const DEFAULT: Duration = Duration::from_secs(60);
    let Some(v) = std::env::var_os("TESSERA_DISPATCH_TIMEOUT") else {
        return Some(DEFAULT);
    };
    match v.to_str().and_then(|v| v.trim().parse::<f64>().ok()) {
        Some(0.0) => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        _ => {
            tracing::warn!("TESSERA_DISPATCH_TIMEOUT={v:?} is not a number of seconds; using 60");
            Some(DEFAULT)
        }
    }
}

/// What the executor needs besides the commands.
#[derive(Debug)]
pub struct ExecContext<'a> {
    /// The device's wake-up point (event waits, query waits).
    pub hub: &'a SyncHub,
    /// The device's lost flag: running dispatches stop when it is set.
    pub lost: &'a AtomicBool,
    /// The device's live allocations, for `PhysicalStorageBuffer` addresses.
    pub live_memory: &'a LiveMemory,
    /// The dispatch watchdog's limit ([`dispatch_timeout`]).
    pub timeout: Option<Duration>,
}

/// Runs every command of `recording` in order.
///
/// # Errors
/// `DeviceLost` when the device is torn down during a wait, or when a memory range turns out to
/// be invalid at execution time.
pub fn execute(ctx: &ExecContext<'_>, recording: &Recording) -> Result<()> {
    for cmd in &recording.commands {
        if *TRACE {
            tracing::info!(command = cmd.name(), "execute {cmd:?}");
        }
        execute_one(ctx, cmd)?;
    }
    Ok(())
}

fn execute_one(ctx: &ExecContext<'_>, cmd: &Command) -> Result<()> {
    match cmd {
        Command::CopyBuffer { src, dst, regions } => {
            let (s, d) = (bound(src)?, bound(dst)?);
            for r in regions.iter() {
                DeviceMemory::copy(
                    &s.memory,
                    s.offset + r.src_offset,
                    &d.memory,
                    d.offset + r.dst_offset,
                    r.size,
                )?;
            }
        }
        Command::FillBuffer {
            dst,
            offset,
            size,
            data,
        } => {
            let d = bound(dst)?;
            d.memory.fill_u32(d.offset + offset, *size, *data)?;
        }
        Command::UpdateBuffer { dst, offset, data } => {
            let d = bound(dst)?;
            d.memory.write(d.offset + offset, data)?;
        }
        Command::SetEvent { event, set } => event.store(*set),
        Command::WaitEvents { events } => {
            wait(ctx, || events.iter().all(|e| e.is_set()))?;
        }
        Command::ResetQueries { pool, first, count } => pool.reset(*first, *count),
        Command::WriteTimestamp { pool, query } => pool.write_timestamp(*query),
        Command::CopyQueryResults {
            pool,
            first,
            count,
            dst,
            offset,
            stride,
            flags,
        } => {
            if flags.wait {
                wait(ctx, || {
                    (*first..first + count).all(|q| pool.is_available(q))
                })?;
            }
            let d = bound(dst)?;
            let word = if flags.wide { 8 } else { 4 };
            let span =
                stride * u64::from(count - 1) + word * (1 + u64::from(flags.with_availability));
            let mut bytes = vec![0u8; span as usize];
            // Read first so that results not written (unavailable, no PARTIAL) keep their contents.
            d.memory.read(d.offset + offset, &mut bytes)?;
            pool.write_results(*first, *count, *stride, *flags, &mut bytes)?;
            d.memory.write(d.offset + offset, &bytes)?;
        }
        Command::CopyTensor { src, dst, plan } => {
            let lost = || Error::DeviceLost("tensor lost its memory binding".into());
            let s = src.binding().ok_or_else(lost)?;
            let d = dst.binding().ok_or_else(lost)?;
            DeviceMemory::copy_strided(plan, &s.memory, s.offset, &d.memory, d.offset)?;
        }
        Command::Dispatch { state, base, count } => dispatch(ctx, state, *base, *count)?,
        Command::ConvertCooperativeVectorMatrix { conversions } => {
            crate::cooperative::run_device_conversions(&ctx.live_memory.snapshot(), conversions);
        }
        Command::DispatchDataGraph { session, sets } => match session.pipeline() {
            Some(pipeline) => pipeline.execute(sets, session.transient_memory())?,
            None => {
                return Err(Error::DeviceLost(
                    "a data graph session without its pipeline".into(),
                ));
            }
        },
        Command::DispatchIndirect {
            state,
            buffer,
            offset,
        } => {
            let b = bound(buffer)?;
            let mut words = [0u8; 12];
            b.memory.read(b.offset + offset, &mut words)?;
            let count: [u32; 3] = std::array::from_fn(|i| {
                u32::from_le_bytes([
                    words[4 * i],
                    words[4 * i + 1],
                    words[4 * i + 2],
                    words[4 * i + 3],
                ])
            });
            let max = crate::limits::MAX_COMPUTE_WORK_GROUP_COUNT;
            if count.iter().zip(max).any(|(c, m)| *c > m) {
                tracing::warn!(
                    "VUID-VkDispatchIndirectCommand-x-00417: indirect group count {count:?} exceeds maxComputeWorkGroupCount; dispatch skipped"
                );
            } else {
                dispatch(ctx, state, [0; 3], count)?;
            }
        }
        Command::ExecuteCommands { recordings } => {
            for rec in recordings.iter() {
                execute(ctx, rec)?;
            }
        }
    }
    Ok(())
}

fn dispatch(
    ctx: &ExecContext<'_>,
    state: &DispatchState,
    base: [u32; 3],
    count: [u32; 3],
) -> Result<()> {
    if count.contains(&0) {
        return Ok(());
    }
    let program = state.pipeline.program();
    let mut resources = ResolvedResources::resolve(program.resources(), &state.sets)?;
    if program.uses_physical_addresses() {
        // Held until the dispatch ends: an allocation freed meanwhile stays valid for it.
        resources.add_physical(ctx.live_memory.snapshot())?;
    }
    let started = Instant::now();
    let limit = ctx.timeout;
    let stop = || {
        if ctx.hub.is_shut_down() {
            Some("the device was destroyed while the dispatch ran".to_string())
        } else if ctx.lost.load(Ordering::Acquire) {
            Some("the device was lost while the dispatch ran".to_string())
        } else {
            limit.filter(|&l| started.elapsed() > l).map(|l| {
                format!(
                    "the dispatch ran longer than {:.1} s (TESSERA_DISPATCH_TIMEOUT) and was \
                     stopped; does the shader terminate?",
                    l.as_secs_f64()
                )
            })
        }
    };
    // SAFETY: every record in `resources` points into a live allocation (the bound sets hold the
    // buffers and tensors, which hold their memory; `resources` holds the allocations its
    // physical ranges cover) or into `resources`' own inline copies, and each was range-checked
    // by `DeviceMemory::raw_range`; other access to that memory follows
    // the Vulkan ordering rules the queue enforces.
    unsafe {
        let invocations = count
            .iter()
            .chain(&program.local_size())
            .fold(1u64, |n, &c| n.saturating_mul(u64::from(c)));
        match state.pipeline.kernel_for(invocations) {
            Some(kernel) => program.dispatch_kernel(
                kernel,
                &resources,
                &state.push,
                base,
                count,
                dispatch_threads(),
                &stop,
            ),
            None => {
                let on_interpreter = Instant::now();
                let result = program.dispatch_watched(
                    &resources,
                    &state.push,
                    base,
                    count,
                    dispatch_threads(),
                    &stop,
                );
                state.pipeline.note_interpreted(on_interpreter.elapsed());
                result
            }
        }
    }
    .map_err(|e| Error::DeviceLost(format!("dispatch failed: {e}")))
}

fn bound(buffer: &crate::buffer::Buffer) -> Result<&crate::buffer::Binding> {
    buffer
        .binding()
        .ok_or_else(|| Error::DeviceLost("buffer lost its memory binding".into()))
}

fn wait(ctx: &ExecContext<'_>, ready: impl FnMut() -> bool) -> Result<()> {
    match ctx.hub.wait_until(None, ready) {
        WaitOutcome::Ready => Ok(()),
        _ => Err(Error::DeviceLost(
            "device destroyed while a command was waiting".into(),
        )),
    }
}
