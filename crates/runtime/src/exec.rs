//! The executor: replays a [`Recording`] on a queue's worker thread, one `match` per command.
//!
//! Set `TESSERA_CMD_TRACE=1` to log every executed command at `info` level.

use std::sync::LazyLock;

use crate::cmd::{Command, Recording};
use crate::memory::DeviceMemory;
use crate::sync::{SyncHub, WaitOutcome};
use crate::{Error, Result};

static TRACE: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("TESSERA_CMD_TRACE").is_some_and(|v| v != "0"));

/// What the executor needs besides the commands.
#[derive(Debug)]
pub struct ExecContext<'a> {
    /// The device's wake-up point (event waits, query waits).
    pub hub: &'a SyncHub,
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
        Command::ExecuteCommands { recordings } => {
            for rec in recordings.iter() {
                execute(ctx, rec)?;
            }
        }
    }
    Ok(())
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
