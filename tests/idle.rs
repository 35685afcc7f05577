//! A process that executes on its workers and then idles uses no CPU once the workers' hot
//! window is over: the workers wait on the team for a bounded time (`DMLS_SPIN_US`, 100 µs by
//! default), then sleep. Measured from the CPU time of every thread of this process
//! (`/proc/self/task/*/schedstat` on Linux, `GetProcessTimes` on Windows), so this test runs
//! alone in its own binary.

#![cfg(any(target_os = "linux", windows))]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use common::rust_device as device;
use directml_subset::{DataType, Input, OperatorDesc, TensorDesc};
use std::time::Duration;

/// Nanoseconds of CPU time used by all threads of this process so far.
#[cfg(target_os = "linux")]
fn cpu_ns() -> u64 {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let path = task.expect("a task").path().join("schedstat");
        // A thread may have ended since the directory was read.
        if let Ok(s) = std::fs::read_to_string(path) {
            total += s
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    total
}

/// The same on Windows: the process's kernel and user time (in units of 100 ns, which Windows
/// advances a clock tick at a time, about 15.6 ms).
#[cfg(windows)]
fn cpu_ns() -> u64 {
    #[repr(C)]
    #[derive(Default)]
    struct FileTime {
        low: u32,
        high: u32,
    }
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetCurrentProcess() -> *mut core::ffi::c_void;
        fn GetProcessTimes(
            process: *mut core::ffi::c_void,
            creation: *mut FileTime,
            exit: *mut FileTime,
            kernel: *mut FileTime,
            user: *mut FileTime,
        ) -> i32;
    }
    let (mut creation, mut exit) = (FileTime::default(), FileTime::default());
    let (mut kernel, mut user) = (FileTime::default(), FileTime::default());
    // SAFETY: GetCurrentProcess returns a pseudo handle that needs no closing; the four
    // pointers are writable FILETIMEs (two u32 halves, as Windows declares it).
    let ok = unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut creation,
            &mut exit,
            &mut kernel,
            &mut user,
        )
    };
    assert!(ok != 0, "GetProcessTimes failed");
    let ticks = |t: &FileTime| (u64::from(t.high) << 32) | u64::from(t.low);
    (ticks(&kernel) + ticks(&user)) * 100
}

/// The CPU time idle workers may use in 300 ms: reading /proc costs this thread well under a
/// millisecond; Windows counts CPU time by clock ticks of about 15.6 ms, so a few ticks there.
const IDLE_CPU_NS: u64 = if cfg!(windows) {
    50_000_000
} else {
    15_000_000
};

/// Runs a 2^20-element NonZero 20 times on each device, waits 50 ms (the window, 0.1 ms,
/// and rayon's own short idle spin are long over by then), and returns the CPU time the
/// process used in the next 300 ms.
fn cpu_while_idle_after(devices: &[directml_subset::Device]) -> u64 {
    let input = TensorDesc::new(DataType::Float32, &[1 << 20]);
    let count = TensorDesc::new(DataType::UInt32, &[1]);
    let coords = TensorDesc::new(DataType::UInt32, &[1 << 20, 1]);
    let data: Vec<u8> = (0..1u32 << 20)
        .flat_map(|i| f32::from(u8::from(i % 3 == 0)).to_ne_bytes())
        .collect();
    let mut out_count = vec![0u8; 4];
    let mut out = vec![0u8; coords.total_size as usize];
    for dev in devices {
        let op = dev
            .create_operator(&OperatorDesc::NonZeroCoordinates {
                input,
                output_count: count,
                output_coordinates: coords,
            })
            .expect("create");
        for _ in 0..20 {
            op.execute(&[Input::Bytes(&data)], &mut [&mut out_count, &mut out])
                .expect("execute");
        }
        assert_eq!(
            u32::from_ne_bytes(out_count[..4].try_into().unwrap()),
            349_526
        );
    }
    std::thread::sleep(Duration::from_millis(50));
    let before = cpu_ns();
    std::thread::sleep(Duration::from_millis(300));
    cpu_ns() - before
}

#[test]
fn no_cpu_after_the_window() {
    common::force_parallel_paths();
    // The process-wide pool alone first: pools of more threads than this machine has cores
    // (below) load a small machine so that its workers, descheduled, leave their windows
    // early, and the process-wide pool's share of that busy machine is cut; alone, its
    // workers would still be waiting hot if the window were longer than it says.
    let alone = [device(0)];
    let large = [device(16), device(64), device(0)];
    for devices in [&alone[..], &large[..]] {
        let used = cpu_while_idle_after(devices);
        // Workers still spinning would use up to 300 ms each; sleeping ones nothing.
        assert!(
            used < IDLE_CPU_NS,
            "{} ms of CPU time used in 300 ms of idling, after pools of {:?} threads",
            used / 1_000_000,
            devices.iter().map(|d| d.threads()).collect::<Vec<_>>()
        );
    }
}
