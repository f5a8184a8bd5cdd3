//! `VkCommandBuffer`: the lifecycle state machine and the sticky recording error.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::Mutex;

use vulkan_headers::vulkan::vulkan_core::*;

use super::{Command, ComputeState, Recorder};
use crate::physical_device::PhysicalDevice;
use crate::vk::structs as vk;
use crate::{Error, Result, ensure};

/// Primary or secondary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `VK_COMMAND_BUFFER_LEVEL_PRIMARY`.
    Primary,
    /// `VK_COMMAND_BUFFER_LEVEL_SECONDARY`.
    Secondary,
}

/// The lifecycle states of the spec (pending is tracked separately, as a count of submissions in
/// flight, because a simultaneous-use buffer can be pending several times).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Allocated or reset.
    Initial,
    /// Between begin and end.
    Recording,
    /// Ended without error.
    Executable,
    /// Ended with an error, or a one-time-submit buffer after its submission.
    Invalid,
}

/// `VkCommandBufferUsageFlags` as the runtime needs them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageFlags {
    /// `VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT`.
    pub one_time_submit: bool,
    /// `VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT`.
    pub simultaneous_use: bool,
}

/// An ended command list, shared by every submission of it.
#[derive(Debug)]
pub struct Recording {
    /// The commands in recording order.
    pub commands: Vec<Command>,
}

#[derive(Debug)]
struct Inner {
    state: State,
    usage: UsageFlags,
    commands: Vec<Command>,
    error: Option<Error>,
    recording: Option<Arc<Recording>>,
    compute: ComputeState,
}

/// A command buffer.
#[derive(Debug)]
pub struct CommandBuffer {
    level: Level,
    resettable: bool,
    physical: Arc<PhysicalDevice>,
    inner: Mutex<Inner>,
    pending: AtomicU32,
}

impl CommandBuffer {
    /// A command buffer in the initial state. `resettable` is the pool's
    /// `VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT`; `physical` gives the limits commands
    /// are checked against.
    pub fn new(level: Level, resettable: bool, physical: Arc<PhysicalDevice>) -> Self {
        CommandBuffer {
            level,
            resettable,
            physical,
            inner: Mutex::new(Inner {
                state: State::Initial,
                usage: UsageFlags::default(),
                commands: Vec::new(),
                error: None,
                recording: None,
                compute: ComputeState::default(),
            }),
            pending: AtomicU32::new(0),
        }
    }

    /// Primary or secondary.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The lifecycle state.
    pub fn state(&self) -> State {
        self.inner.lock().state
    }

    /// Whether a submission of it has not finished.
    pub fn is_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire) > 0
    }

    /// `vkBeginCommandBuffer`.
    ///
    /// # Errors
    /// `Validation` when recording or pending, or when an implicit reset is not allowed.
    pub fn begin(&self, usage: UsageFlags) -> Result<()> {
        let mut inner = self.inner.lock();
        ensure!(
            inner.state != State::Recording && !self.is_pending(),
            "VUID-vkBeginCommandBuffer-commandBuffer-00049",
            "command buffer is in the recording or pending state"
        );
        ensure!(
            inner.state == State::Initial || self.resettable,
            "VUID-vkBeginCommandBuffer-commandBuffer-00050",
            "implicit reset of a command buffer whose pool lacks VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT"
        );
        inner.commands.clear();
        inner.error = None;
        inner.recording = None;
        inner.usage = usage;
        inner.compute = ComputeState::default();
        inner.state = State::Recording;
        Ok(())
    }

    /// `vkBeginCommandBuffer`.
    ///
    /// # Errors
    /// As [`Self::begin`], and `Validation` for a secondary buffer without inheritance info or
    /// one that continues a render pass.
    pub fn begin_with(&self, info: &vk::CommandBufferBeginInfo) -> Result<()> {
        if self.level == Level::Secondary {
            ensure!(
                info.flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT == 0,
                "VUID-VkCommandBufferBeginInfo-flags-09123",
                "RENDER_PASS_CONTINUE needs a graphics queue"
            );
            ensure!(
                info.inheritance_info,
                "VUID-vkBeginCommandBuffer-commandBuffer-00051",
                "a secondary command buffer needs pInheritanceInfo"
            );
        }
        self.begin(UsageFlags {
            one_time_submit: info.flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT != 0,
            simultaneous_use: info.flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT != 0,
        })
    }

    /// `vkEndCommandBuffer`: returns the sticky recording error, if any.
    ///
    /// # Errors
    /// `Validation` when not recording; the first recording error otherwise.
    pub fn end(&self) -> Result<()> {
        let mut inner = self.inner.lock();
        ensure!(
            inner.state == State::Recording,
            "VUID-vkEndCommandBuffer-commandBuffer-00059",
            "command buffer is not in the recording state"
        );
        if let Some(err) = inner.error.take() {
            inner.state = State::Invalid;
            inner.commands.clear();
            return Err(err);
        }
        let commands = std::mem::take(&mut inner.commands);
        inner.recording = Some(Arc::new(Recording { commands }));
        inner.state = State::Executable;
        Ok(())
    }

    /// `vkResetCommandBuffer`. `from_pool` skips the per-buffer reset flag check
    /// (`vkResetCommandPool`).
    ///
    /// # Errors
    /// `Validation` when pending, or when the pool does not allow resetting single buffers.
    pub fn reset(&self, from_pool: bool) -> Result<()> {
        ensure!(
            !self.is_pending(),
            "VUID-vkResetCommandBuffer-commandBuffer-00045",
            "command buffer is pending"
        );
        ensure!(
            from_pool || self.resettable,
            "VUID-vkResetCommandBuffer-commandBuffer-00046",
            "pool lacks VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT"
        );
        let mut inner = self.inner.lock();
        inner.commands = Vec::new();
        inner.error = None;
        inner.recording = None;
        inner.state = State::Initial;
        Ok(())
    }

    /// Records one `vkCmd*`: `f` checks its rules through the [`Recorder`] and appends what it
    /// needs. A command recorded outside the recording state is dropped (and logged), and so is
    /// every command after an error; the first error becomes sticky (`vkEndCommandBuffer`
    /// returns it).
    pub fn record(&self, name: &'static str, f: impl FnOnce(&mut Recorder<'_>) -> Result<()>) {
        let mut inner = self.inner.lock();
        if inner.state != State::Recording {
            tracing::warn!(
                command = name,
                "VUID-{name}-commandBuffer-recording: command buffer is not in the recording state; command ignored"
            );
            return;
        }
        if inner.error.is_some() {
            return;
        }
        let inner = &mut *inner;
        let mut recorder = Recorder {
            level: self.level,
            physical: &self.physical,
            commands: &mut inner.commands,
            compute: &mut inner.compute,
        };
        if let Err(err) = f(&mut recorder) {
            tracing::warn!(command = name, "{err} (vkEndCommandBuffer will return it)");
            inner.error = Some(err);
        }
    }

    /// `vkCmdExecuteCommands` side: the executable recording of a secondary buffer.
    ///
    /// # Errors
    /// `Validation` when this is not a secondary buffer in the executable (or pending) state.
    pub fn secondary_recording(&self) -> Result<Arc<Recording>> {
        ensure!(
            self.level == Level::Secondary,
            "VUID-vkCmdExecuteCommands-pCommandBuffers-00088",
            "pCommandBuffers holds a primary command buffer"
        );
        let inner = self.inner.lock();
        inner
            .recording
            .clone()
            .filter(|_| inner.state == State::Executable)
            .ok_or_else(|| {
                Error::invalid(
                    "VUID-vkCmdExecuteCommands-pCommandBuffers-00089",
                    "secondary command buffer is not in the executable state",
                )
            })
    }

    /// Marks a submission of this buffer as pending and returns what to execute.
    ///
    /// # Errors
    /// `Validation` when it is secondary, not executable, or already pending without
    /// simultaneous use.
    pub fn begin_submit(&self) -> Result<Arc<Recording>> {
        ensure!(
            self.level == Level::Primary,
            "VUID-VkSubmitInfo-pCommandBuffers-00075",
            "a secondary command buffer was submitted"
        );
        let inner = self.inner.lock();
        let recording = inner
            .recording
            .clone()
            .filter(|_| inner.state == State::Executable);
        let Some(recording) = recording else {
            return Err(Error::invalid(
                "VUID-VkSubmitInfo-pCommandBuffers-00072",
                format!(
                    "command buffer is in the {:?} state, not executable",
                    inner.state
                ),
            ));
        };
        ensure!(
            inner.usage.simultaneous_use || !self.is_pending(),
            "VUID-vkQueueSubmit-pCommandBuffers-00071",
            "command buffer is already pending and lacks VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT"
        );
        self.pending.fetch_add(1, Ordering::AcqRel);
        Ok(recording)
    }

    /// Ends one pending submission (`executed`: it ran, so one-time-submit buffers become invalid).
    pub fn end_submit(&self, executed: bool) {
        if executed {
            let mut inner = self.inner.lock();
            if inner.usage.one_time_submit && inner.state == State::Executable {
                inner.state = State::Invalid;
            }
        }
        self.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifecycle() {
        let cb = CommandBuffer::new(Level::Primary, false, Default::default());
        assert!(cb.end().is_err());
        assert!(cb.begin_submit().is_err());
        cb.begin(UsageFlags::default()).unwrap();
        assert!(cb.begin(UsageFlags::default()).is_err());
        cb.end().unwrap();
        assert_eq!(cb.state(), State::Executable);
        assert!(
            cb.begin(UsageFlags::default()).is_err(),
            "implicit reset needs the pool flag"
        );
        let rec = cb.begin_submit().unwrap();
        assert!(rec.commands.is_empty());
        assert!(
            cb.begin_submit().is_err(),
            "pending without simultaneous use"
        );
        assert!(cb.reset(true).is_err(), "pending");
        cb.end_submit(true);
        cb.reset(true).unwrap();
        assert_eq!(cb.state(), State::Initial);
    }

    #[test]
    fn sticky_error_and_one_time_submit() {
        let cb = CommandBuffer::new(Level::Primary, true, Default::default());
        cb.begin(UsageFlags {
            one_time_submit: true,
            ..Default::default()
        })
        .unwrap();
        cb.record("vkCmdDraw", |_| Err(Error::invalid("VUID-x", "graphics")));
        cb.record("vkCmdDraw", |_| Err(Error::invalid("VUID-y", "second")));
        assert_eq!(cb.end(), Err(Error::invalid("VUID-x", "graphics")));
        assert_eq!(cb.state(), State::Invalid);
        cb.begin(UsageFlags {
            one_time_submit: true,
            ..Default::default()
        })
        .unwrap();
        cb.end().unwrap();
        cb.begin_submit().unwrap();
        cb.end_submit(true);
        assert_eq!(cb.state(), State::Invalid);
    }

    #[test]
    fn secondary_rules() {
        let sec = CommandBuffer::new(Level::Secondary, true, Default::default());
        assert!(sec.secondary_recording().is_err());
        sec.begin(UsageFlags::default()).unwrap();
        sec.end().unwrap();
        assert!(sec.secondary_recording().is_ok());
        assert!(sec.begin_submit().is_err());
        let prim = CommandBuffer::new(Level::Primary, true, Default::default());
        prim.begin(UsageFlags::default()).unwrap();
        prim.end().unwrap();
        assert!(prim.secondary_recording().is_err());
    }
}
