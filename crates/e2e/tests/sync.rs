//! Queues and synchronisation: asynchronous in-order submission (Submit and
//! Submit2), fences, host-set events, binary semaphores between queues,
//! timeline semaphores, idle waits, and device destruction with pending work.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use tessera_e2e::*;
use vulkanalia::prelude::v1_3::*;

const SETTLE: Duration = Duration::from_millis(50);

/// Records a command buffer that waits for a host-set `event`, then runs `then`.
fn record_wait_for_host_event(
    ctx: &Ctx,
    event: vk::Event,
    then: impl FnOnce(&Device, vk::CommandBuffer),
) -> vk::CommandBuffer {
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: recording state; the event is set from the host, so the source
    // stage is HOST (outside any render pass).
    unsafe {
        ctx.device.cmd_wait_events(
            cb,
            &[event],
            vk::PipelineStageFlags::HOST,
            vk::PipelineStageFlags::TRANSFER,
            &[vk::MemoryBarrier::builder()
                .src_access_mask(vk::AccessFlags::HOST_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)],
            &[] as &[vk::BufferMemoryBarrier],
            &[] as &[vk::ImageMemoryBarrier],
        )
    };
    then(&ctx.device, cb);
    ctx.end(cb);
    cb
}

fn fence_status(ctx: &Ctx, fence: vk::Fence) -> VkResult<vk::SuccessCode> {
    // SAFETY: live fence of this device.
    unsafe { ctx.device.get_fence_status(fence) }
}

fn copy(device: &Device, cb: vk::CommandBuffer, src: vk::Buffer, dst: vk::Buffer, size: u64) {
    // SAFETY: recording state; both buffers hold at least `size` bytes.
    unsafe { device.cmd_copy_buffer(cb, src, dst, &[vk::BufferCopy::builder().size(size)]) };
}

#[test]
fn fence_status_reset_and_timeouts() {
    let ctx = Ctx::new();
    let signaled = ctx.fence(true);
    let unsignaled = ctx.fence(false);
    // SAFETY: live fences with no pending work.
    unsafe {
        assert_eq!(fence_status(&ctx, signaled), Ok(vk::SuccessCode::SUCCESS));
        assert_eq!(
            fence_status(&ctx, unsignaled),
            Ok(vk::SuccessCode::NOT_READY)
        );
        assert_eq!(
            ctx.device.wait_for_fences(&[unsignaled], true, 0),
            Ok(vk::SuccessCode::TIMEOUT),
            "timeout 0 on an unsignalled fence"
        );
        assert_eq!(
            ctx.device.wait_for_fences(&[unsignaled], true, 1_000_000),
            Ok(vk::SuccessCode::TIMEOUT),
            "1 ms timeout on an unsignalled fence"
        );
        assert_eq!(
            ctx.device.wait_for_fences(&[signaled], true, 0),
            Ok(vk::SuccessCode::SUCCESS)
        );
        assert_eq!(
            ctx.device
                .wait_for_fences(&[signaled, unsignaled], false, 0),
            Ok(vk::SuccessCode::SUCCESS),
            "wait-any with one signalled fence"
        );
        assert_eq!(
            ctx.device.wait_for_fences(&[signaled, unsignaled], true, 0),
            Ok(vk::SuccessCode::TIMEOUT),
            "wait-all with one unsignalled fence"
        );
        ctx.device.reset_fences(&[signaled]).expect("vkResetFences");
        assert_eq!(fence_status(&ctx, signaled), Ok(vk::SuccessCode::NOT_READY));

        // An empty submission signals its fence once earlier work is done.
        ctx.device
            .queue_submit(ctx.queue(), &[] as &[vk::SubmitInfo], unsignaled)
            .expect("empty vkQueueSubmit with a fence");
        ctx.device
            .queue_submit2(ctx.queue(), &[] as &[vk::SubmitInfo2], signaled)
            .expect("empty vkQueueSubmit2 with a fence");
    }
    ctx.wait(unsignaled);
    ctx.wait(signaled);
    // SAFETY: both fences signalled.
    let r = unsafe { ctx.device.wait_for_fences(&[signaled, unsignaled], true, 0) };
    assert_eq!(r, Ok(vk::SuccessCode::SUCCESS));
}

#[test]
fn submissions_execute_in_order() {
    let ctx = Ctx::new();
    let x = ctx.host_buffer(64);
    let y = ctx.host_buffer(64);
    x.fill(0);
    y.fill(0);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cbs = ctx.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 4);
    let record = |cb: vk::CommandBuffer, f: &dyn Fn(vk::CommandBuffer)| {
        ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        f(cb);
        ctx.end(cb);
    };
    let fill = |cb: vk::CommandBuffer, value: u32| {
        // SAFETY: recording state; the fill is in range.
        unsafe { ctx.device.cmd_fill_buffer(cb, x.buffer, 0, 64, value) }
    };
    record(cbs[0], &|cb| fill(cb, 1));
    record(cbs[1], &|cb| copy(&ctx.device, cb, x.buffer, y.buffer, 64));
    record(cbs[2], &|cb| fill(cb, 2));
    record(cbs[3], &|cb| copy(&ctx.device, cb, x.buffer, y.buffer, 32));

    let fence = ctx.fence(false);
    // Separate vkQueueSubmit / vkQueueSubmit2 calls, only the last with a fence.
    ctx.submit(ctx.queue(), &cbs[0..1], vk::Fence::null())
        .expect("submit 0");
    let cb_info = [vk::CommandBufferSubmitInfo::builder().command_buffer(cbs[1])];
    let submit2 = vk::SubmitInfo2::builder().command_buffer_infos(&cb_info);
    // SAFETY: executable command buffer.
    unsafe {
        ctx.device
            .queue_submit2(ctx.queue(), &[submit2], vk::Fence::null())
    }
    .expect("submit2 1");
    ctx.submit(ctx.queue(), &cbs[2..3], vk::Fence::null())
        .expect("submit 2");
    ctx.submit(ctx.queue(), &cbs[3..4], fence)
        .expect("submit 3");
    ctx.wait(fence);
    let words = y.read_u32s();
    assert!(words[..8].iter().all(|&w| w == 2), "{words:?}");
    assert!(words[8..].iter().all(|&w| w == 1), "{words:?}");
    assert!(x.read_u32s().iter().all(|&w| w == 2));
}

#[test]
fn host_set_event_releases_a_waiting_command_buffer() {
    let ctx = Ctx::new();
    let event = ctx.event();
    let buf = ctx.host_buffer(16);
    buf.fill(0);
    let cb = record_wait_for_host_event(&ctx, event, |device, cb| {
        // SAFETY: recording state.
        unsafe { device.cmd_fill_buffer(cb, buf.buffer, 0, 16, 77) };
    });
    let fence = ctx.fence(false);
    ctx.submit(ctx.queue(), &[cb], fence).expect("submit");
    thread::sleep(SETTLE);
    assert_eq!(
        fence_status(&ctx, fence),
        Ok(vk::SuccessCode::NOT_READY),
        "the command buffer must block on the unset event"
    );
    assert_eq!(buf.read_u32s(), [0; 4], "nothing ran past the wait");
    // SAFETY: host signal of a live event.
    unsafe { ctx.device.set_event(event) }.expect("vkSetEvent");
    ctx.wait(fence);
    assert_eq!(buf.read_u32s(), [77; 4]);
}

#[test]
fn binary_semaphore_orders_two_queues() {
    let ctx = Ctx::with_queues(2);
    let (q0, q1) = (ctx.queues[0], ctx.queues[1]);
    let a = ctx.host_buffer(256);
    let b = ctx.host_buffer(256);
    let c = ctx.host_buffer(256);
    a.write_u32s(&(0..64).map(|i| i * 3 + 1).collect::<Vec<_>>());
    b.fill(0);
    c.fill(0);
    let semaphore = ctx.semaphore();
    let event = ctx.event();

    // Queue 0: wait for the host, copy A -> B, signal the semaphore.
    let cb0 = record_wait_for_host_event(&ctx, event, |device, cb| {
        copy(device, cb, a.buffer, b.buffer, 256)
    });
    // Queue 1: wait for the semaphore, copy B -> C.
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb1 = ctx.command_buffer(pool);
    ctx.begin(cb1, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    copy(&ctx.device, cb1, b.buffer, c.buffer, 256);
    ctx.end(cb1);

    let fence0 = ctx.fence(false);
    let fence1 = ctx.fence(false);
    let cbs0 = [cb0];
    let cbs1 = [cb1];
    let sems = [semaphore];
    let stages = [vk::PipelineStageFlags::TRANSFER];
    let submit0 = vk::SubmitInfo::builder()
        .command_buffers(&cbs0)
        .signal_semaphores(&sems);
    let submit1 = vk::SubmitInfo::builder()
        .wait_semaphores(&sems)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&cbs1);
    // SAFETY: executable command buffers; the signal is submitted before the wait.
    unsafe {
        ctx.device
            .queue_submit(q0, &[submit0], fence0)
            .expect("submit q0");
        ctx.device
            .queue_submit(q1, &[submit1], fence1)
            .expect("submit q1");
    }
    thread::sleep(SETTLE);
    assert_eq!(
        fence_status(&ctx, fence1),
        Ok(vk::SuccessCode::NOT_READY),
        "queue 1 must wait for queue 0's semaphore"
    );
    assert_eq!(c.read_u32s(), [0; 64], "queue 1 ran before its wait");
    // SAFETY: host signal of a live event.
    unsafe { ctx.device.set_event(event) }.expect("vkSetEvent");
    ctx.wait(fence0);
    ctx.wait(fence1);
    assert_eq!(b.read_u32s(), a.read_u32s());
    assert_eq!(c.read_u32s(), a.read_u32s(), "B -> C saw queue 0's copy");
}

#[test]
fn timeline_host_signal_unblocks_queued_wait() {
    let ctx = Ctx::new();
    assert!(ctx.features.timeline_semaphore, "timelineSemaphore");
    let timeline = ctx.timeline_semaphore(0);
    let buf = ctx.host_buffer(16);
    buf.fill(0);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cb = ctx.command_buffer(pool);
    ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: recording state.
    unsafe { ctx.device.cmd_fill_buffer(cb, buf.buffer, 0, 16, 9) };
    ctx.end(cb);

    let sems = [timeline];
    let stages = [vk::PipelineStageFlags::TRANSFER];
    let cbs = [cb];
    let wait_values = [5u64];
    let signal_values = [6u64];
    let mut values = vk::TimelineSemaphoreSubmitInfo::builder()
        .wait_semaphore_values(&wait_values)
        .signal_semaphore_values(&signal_values);
    let submit = vk::SubmitInfo::builder()
        .wait_semaphores(&sems)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&cbs)
        .signal_semaphores(&sems)
        .push_next(&mut values);
    let fence = ctx.fence(false);
    // SAFETY: valid submission; the wait value is signalled from the host below.
    unsafe { ctx.device.queue_submit(ctx.queue(), &[submit], fence) }.expect("submit");
    thread::sleep(SETTLE);
    assert_eq!(fence_status(&ctx, fence), Ok(vk::SuccessCode::NOT_READY));
    // SAFETY: live timeline semaphore.
    unsafe {
        assert_eq!(ctx.device.get_semaphore_counter_value(timeline), Ok(0));
        let signal = vk::SemaphoreSignalInfo::builder()
            .semaphore(timeline)
            .value(5);
        ctx.device
            .signal_semaphore(&signal)
            .expect("vkSignalSemaphore");
        let wait = vk::SemaphoreWaitInfo::builder()
            .semaphores(&sems)
            .values(&signal_values);
        assert_eq!(
            ctx.device.wait_semaphores(&wait, WAIT_TIMEOUT_NS),
            Ok(vk::SuccessCode::SUCCESS),
            "the queue signals 6 after the host signalled 5"
        );
        assert!(
            ctx.device
                .get_semaphore_counter_value(timeline)
                .expect("counter")
                >= 6
        );
    }
    ctx.wait(fence);
    assert_eq!(buf.read_u32s(), [9; 4]);
}

#[test]
fn timeline_wait_semaphores_any_all_and_timeout() {
    let ctx = Ctx::new();
    let a = ctx.timeline_semaphore(0);
    let b = ctx.timeline_semaphore(10);
    let sems = [a, b];
    let targets = [1u64, 12];
    let all = vk::SemaphoreWaitInfo::builder()
        .semaphores(&sems)
        .values(&targets);
    let any = vk::SemaphoreWaitInfo::builder()
        .flags(vk::SemaphoreWaitFlags::ANY)
        .semaphores(&sems)
        .values(&targets);
    // SAFETY: live timeline semaphores, monotonic host signals.
    unsafe {
        assert_eq!(
            ctx.device.get_semaphore_counter_value(b),
            Ok(10),
            "initial value"
        );
        assert_eq!(
            ctx.device.wait_semaphores(&all, 0),
            Ok(vk::SuccessCode::TIMEOUT)
        );
        assert_eq!(
            ctx.device.wait_semaphores(&any, 0),
            Ok(vk::SuccessCode::TIMEOUT)
        );
        assert_eq!(
            ctx.device.wait_semaphores(&any, 2_000_000),
            Ok(vk::SuccessCode::TIMEOUT),
            "2 ms timeout"
        );
        let signal_a = vk::SemaphoreSignalInfo::builder().semaphore(a).value(1);
        ctx.device.signal_semaphore(&signal_a).expect("signal a");
        assert_eq!(
            ctx.device.wait_semaphores(&any, 0),
            Ok(vk::SuccessCode::SUCCESS)
        );
        assert_eq!(
            ctx.device.wait_semaphores(&all, 1_000_000),
            Ok(vk::SuccessCode::TIMEOUT)
        );
        let signal_b = vk::SemaphoreSignalInfo::builder().semaphore(b).value(13);
        ctx.device.signal_semaphore(&signal_b).expect("signal b");
        assert_eq!(
            ctx.device.wait_semaphores(&all, WAIT_TIMEOUT_NS),
            Ok(vk::SuccessCode::SUCCESS)
        );
        assert_eq!(ctx.device.get_semaphore_counter_value(a), Ok(1));
        assert_eq!(ctx.device.get_semaphore_counter_value(b), Ok(13));
    }
}

#[test]
fn timeline_wait_from_another_thread_is_woken() {
    let ctx = Ctx::new();
    let timeline = ctx.timeline_semaphore(0);
    let (tx, rx) = mpsc::channel();
    thread::scope(|s| {
        s.spawn(|| {
            let sems = [timeline];
            let values = [3u64];
            let wait = vk::SemaphoreWaitInfo::builder()
                .semaphores(&sems)
                .values(&values);
            // SAFETY: live semaphore; the main thread signals it.
            let r = unsafe { ctx.device.wait_semaphores(&wait, WAIT_TIMEOUT_NS) };
            tx.send(r).expect("send");
        });
        thread::sleep(SETTLE);
        assert!(
            rx.try_recv().is_err(),
            "the waiter returned before the signal"
        );
        let signal = vk::SemaphoreSignalInfo::builder()
            .semaphore(timeline)
            .value(3);
        // SAFETY: live semaphore, increasing value.
        unsafe { ctx.device.signal_semaphore(&signal) }.expect("signal");
        let r = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("waiter woke");
        assert_eq!(r, Ok(vk::SuccessCode::SUCCESS));
    });
}

#[test]
fn timeline_values_through_submit2() {
    let ctx = Ctx::with_queues(2);
    let timeline = ctx.timeline_semaphore(0);
    let buf = ctx.host_buffer(16);
    let out = ctx.host_buffer(16);
    buf.fill(0);
    out.fill(0);
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cbs = ctx.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 2);
    ctx.begin(cbs[0], vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: recording state.
    unsafe { ctx.device.cmd_fill_buffer(cbs[0], buf.buffer, 0, 16, 0xAB) };
    ctx.end(cbs[0]);
    ctx.begin(cbs[1], vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    copy(&ctx.device, cbs[1], buf.buffer, out.buffer, 16);
    ctx.end(cbs[1]);

    // Queue 1 waits for 7 (signalled by queue 0's Submit2) and signals 8.
    let wait7 = [vk::SemaphoreSubmitInfo::builder()
        .semaphore(timeline)
        .value(7)
        .stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)];
    let signal8 = [vk::SemaphoreSubmitInfo::builder()
        .semaphore(timeline)
        .value(8)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let signal7 = [vk::SemaphoreSubmitInfo::builder()
        .semaphore(timeline)
        .value(7)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let cb1 = [vk::CommandBufferSubmitInfo::builder().command_buffer(cbs[1])];
    let cb0 = [vk::CommandBufferSubmitInfo::builder().command_buffer(cbs[0])];
    let consumer = vk::SubmitInfo2::builder()
        .wait_semaphore_infos(&wait7)
        .command_buffer_infos(&cb1)
        .signal_semaphore_infos(&signal8);
    let producer = vk::SubmitInfo2::builder()
        .command_buffer_infos(&cb0)
        .signal_semaphore_infos(&signal7);
    // SAFETY: valid submissions; timeline waits may precede their signals.
    unsafe {
        ctx.device
            .queue_submit2(ctx.queues[1], &[consumer], vk::Fence::null())
            .expect("submit2 consumer");
        thread::sleep(SETTLE);
        assert_eq!(ctx.device.get_semaphore_counter_value(timeline), Ok(0));
        ctx.device
            .queue_submit2(ctx.queues[0], &[producer], vk::Fence::null())
            .expect("submit2 producer");
        let sems = [timeline];
        let values = [8u64];
        let wait = vk::SemaphoreWaitInfo::builder()
            .semaphores(&sems)
            .values(&values);
        assert_eq!(
            ctx.device.wait_semaphores(&wait, WAIT_TIMEOUT_NS),
            Ok(vk::SuccessCode::SUCCESS)
        );
        assert_eq!(ctx.device.get_semaphore_counter_value(timeline), Ok(8));
    }
    assert_eq!(out.read_u32s(), [0xAB; 4]);
}

#[test]
fn queue_wait_idle_and_device_wait_idle() {
    let ctx = Ctx::with_queues(2);
    let bufs = [ctx.host_buffer(1 << 20), ctx.host_buffer(1 << 20)];
    let pool = ctx.command_pool(vk::CommandPoolCreateFlags::empty());
    let cbs = ctx.command_buffers(pool, vk::CommandBufferLevel::PRIMARY, 2);
    for (i, (&cb, buf)) in cbs.iter().zip(&bufs).enumerate() {
        buf.fill(0);
        ctx.begin(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: recording state.
        unsafe {
            ctx.device
                .cmd_fill_buffer(cb, buf.buffer, 0, vk::WHOLE_SIZE, i as u32 + 1)
        };
        ctx.end(cb);
    }
    ctx.submit(ctx.queues[0], &cbs[..1], vk::Fence::null())
        .expect("submit 0");
    // SAFETY: live queue.
    unsafe { ctx.device.queue_wait_idle(ctx.queues[0]) }.expect("vkQueueWaitIdle");
    assert!(bufs[0].read_u32s().iter().all(|&w| w == 1));
    ctx.submit(ctx.queues[1], &cbs[1..], vk::Fence::null())
        .expect("submit 1");
    // SAFETY: live device.
    unsafe { ctx.device.device_wait_idle() }.expect("vkDeviceWaitIdle");
    assert!(bufs[1].read_u32s().iter().all(|&w| w == 2));
}

#[test]
fn destroying_a_device_with_pending_work_neither_crashes_nor_hangs() {
    let ctx = Ctx::new();
    let event = ctx.event();
    let buf = ctx.host_buffer(16);
    let cb = record_wait_for_host_event(&ctx, event, |device, cb| {
        // SAFETY: recording state.
        unsafe { device.cmd_fill_buffer(cb, buf.buffer, 0, 16, 1) };
    });
    let fence = ctx.fence(false);
    ctx.submit(ctx.queue(), &[cb], fence).expect("submit");
    thread::sleep(Duration::from_millis(10));
    assert_eq!(fence_status(&ctx, fence), Ok(vk::SuccessCode::NOT_READY));

    let (tx, rx) = mpsc::channel();
    // Move the context to a thread so a hang shows up as a timeout here.
    let teardown = thread::spawn(move || {
        ctx.destroy_without_waiting();
        tx.send(()).expect("send");
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("vkDestroyDevice with pending work hung for 20 s");
    teardown.join().expect("teardown thread panicked");
}
