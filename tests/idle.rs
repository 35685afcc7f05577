//! A process that executes on its workers and then idles uses no CPU once the workers' hot
//! window is over: the workers wait on the team for a bounded time (`DMLS_SPIN_US`, 100 µs by
//! default), then sleep. On Linux the test waits until every worker sleeps (within a bound) and
//! then measures the CPU time of every thread of this process (`/proc/self/task/*`), naming the
//! threads that used any; on Windows it waits 50 ms and reads `GetProcessTimes`. This test
//! runs alone in its own binary.

#![cfg(any(target_os = "linux", windows))]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use common::rust_device as device;
use directml_subset::{DataType, Input, OperatorDesc, TensorDesc};
use std::time::Duration;

/// Each thread of this process but the caller (its name and id) with the nanoseconds of CPU
/// time it has used so far and whether it is running or ready to run (state `R`; a thread that
/// waits for the next job with `pause`, or yields its core in rayon's idle rounds, is). (The
/// caller reads: it runs, and its CPU time is that of reading.)
#[cfg(target_os = "linux")]
fn threads() -> Vec<Thread> {
    // "/proc/thread-self" is "<process id>/task/<thread id>".
    let caller = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    let caller = caller.file_name().expect("a thread id");
    let mut threads = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let task = task.expect("a task").path();
        let id = task.file_name().expect("a thread id");
        if id == caller {
            continue;
        }
        let id = id.to_string_lossy().into_owned();
        // A thread may have ended since the directory was read.
        let (Ok(schedstat), Ok(stat)) = (
            std::fs::read_to_string(task.join("schedstat")),
            std::fs::read_to_string(task.join("stat")),
        ) else {
            continue;
        };
        let cpu_ns = schedstat
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        // "id (name) state ...": the name may hold spaces and parentheses.
        let (name, state) = match (stat.find('('), stat.rfind(')')) {
            (Some(open), Some(close)) => (&stat[open + 1..close], stat[close + 1..].trim_start()),
            _ => ("?", ""),
        };
        threads.push(Thread {
            id: format!("{name} {id}"),
            cpu_ns,
            runnable: state.starts_with('R'),
        });
    }
    threads
}

/// A thread, as [`threads`] reads it.
#[cfg(target_os = "linux")]
struct Thread {
    id: String,
    cpu_ns: u64,
    runnable: bool,
}

/// Waits until no thread of this process but the caller is running or ready to run, for at
/// most `limit`, and returns how long that took, or (`Err`) the threads still runnable then.
#[cfg(target_os = "linux")]
fn until_asleep(limit: Duration) -> Result<Duration, Vec<String>> {
    let start = std::time::Instant::now();
    loop {
        let runnable: Vec<String> = threads()
            .into_iter()
            .filter(|t| t.runnable)
            .map(|t| t.id)
            .collect();
        if runnable.is_empty() {
            return Ok(start.elapsed());
        }
        if start.elapsed() >= limit {
            return Err(runnable);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The CPU time each thread used between two readings of [`threads`] (all of it for a thread
/// that started in between), in nanoseconds, the busiest first; threads that used none are
/// left out.
#[cfg(target_os = "linux")]
fn cpu_used<'a>(before: &[Thread], after: &'a [Thread]) -> Vec<(u64, &'a str)> {
    let mut used: Vec<(u64, &str)> = after
        .iter()
        .map(|t| {
            let was = before.iter().find(|b| b.id == t.id).map_or(0, |b| b.cpu_ns);
            (t.cpu_ns.saturating_sub(was), t.id.as_str())
        })
        .filter(|(ns, _)| *ns > 0)
        .collect();
    used.sort_unstable_by(|a, b| b.cmp(a));
    used
}

/// [`cpu_used`] in words: how many threads used CPU time, and the busiest.
#[cfg(target_os = "linux")]
fn busiest(used: &[(u64, &str)]) -> String {
    let shown: Vec<String> = used
        .iter()
        .take(6)
        .map(|(ns, id)| format!("{id}: {} µs", ns / 1000))
        .collect();
    format!(
        "{} threads used CPU time ({})",
        used.len(),
        shown.join(", ")
    )
}

/// Nanoseconds of CPU time used by this process so far, on Windows: its kernel and user time
/// (in units of 100 ns, which Windows advances a clock tick at a time, about 15.6 ms).
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

/// The CPU time idle workers may use in 300 ms: on Linux, the threads other than the test's
/// (sleeping ones use none); on Windows, the process's, which counts CPU time by clock ticks of
/// about 15.6 ms, so a few ticks there.
const IDLE_CPU_NS: u64 = if cfg!(windows) {
    50_000_000
} else {
    15_000_000
};

/// The CPU time the workers of the process-wide pool may use between the last execution and
/// sleep: [`SETTLING_NS`], and [`SETTLING_NS_PER_WORKER`] for each: its window (0.1 ms) and
/// rayon's yields. One worker used 26 µs on a quiet 2-vCPU Zen 3, and 0.1-1.2 ms under
/// AddressSanitizer beside two busy loops.
const SETTLING_NS: u64 = 5_000_000;
/// See [`SETTLING_NS`].
const SETTLING_NS_PER_WORKER: u64 = 1_000_000;

/// How long after the last execution every worker must be asleep (Linux): the window is
/// 0.1 ms and rayon's idle rounds before it puts a worker to sleep are a few dozen yields of
/// the core, so on a quiet machine every worker sleeps within a few milliseconds (10-12 ms for
/// 80 workers on two cores). On a machine that other processes keep busy, each yield waits for
/// their time slices: beside two busy loops on two cores (under AddressSanitizer) they slept
/// after 45-160 ms, and in a test niced below a CI run after 450-650 ms. So the bound is the
/// suite's bound for what never happens: a worker that did not leave the team would never
/// sleep.
#[cfg(target_os = "linux")]
const ASLEEP_WITHIN: Duration = Duration::from_secs(10);

/// What [`idle_after`] measured, in nanoseconds of CPU time.
struct Idle {
    /// Used in 300 ms once every worker slept: by the threads other than the test's (on
    /// Windows, by the process).
    idle: u64,
    /// Used by the threads other than the test's from the end of the last execution until
    /// every worker slept (Linux).
    settling: Option<u64>,
    /// What it saw, in words.
    seen: String,
}

/// Runs a 2^20-element NonZero 20 times on each device, waits until every worker sleeps (at
/// most [`ASLEEP_WITHIN`]; 50 ms on Windows, where the window, 0.1 ms, and rayon's own short
/// idle spin are long over by then), and measures the CPU time used then and in the next
/// 300 ms.
fn idle_after(devices: &[directml_subset::Device]) -> Idle {
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
    #[cfg(target_os = "linux")]
    {
        let at_end = threads();
        let asleep = match until_asleep(ASLEEP_WITHIN) {
            Ok(after) => after,
            Err(runnable) => panic!(
                "{} threads still running or ready to run {} ms after the last execution \
                 on pools of {:?} threads: {runnable:?}",
                runnable.len(),
                ASLEEP_WITHIN.as_millis(),
                devices.iter().map(|d| d.threads()).collect::<Vec<_>>()
            ),
        };
        let before = threads();
        std::thread::sleep(Duration::from_millis(300));
        let after = threads();
        let settling: u64 = cpu_used(&at_end, &before).iter().map(|(ns, _)| ns).sum();
        let used = cpu_used(&before, &after);
        Idle {
            idle: used.iter().map(|(ns, _)| ns).sum(),
            settling: Some(settling),
            seen: format!(
                "every worker asleep {} ms after the last execution, having used {} µs since; \
                 then {}",
                asleep.as_millis(),
                settling / 1000,
                busiest(&used)
            ),
        }
    }
    #[cfg(windows)]
    {
        std::thread::sleep(Duration::from_millis(50));
        let before = cpu_ns();
        std::thread::sleep(Duration::from_millis(300));
        Idle {
            idle: cpu_ns() - before,
            settling: None,
            seen: "process times".to_string(),
        }
    }
}

#[test]
fn no_cpu_after_the_window() {
    common::force_parallel_paths();
    // The process-wide pool alone first (no other pool's threads exist yet): its workers are
    // not contended, so they wait out their whole window, and the CPU time they use until they
    // sleep (the window, 0.1 ms, and rayon's few dozen yields) shows the window's length. Then
    // pools of more threads than this machine has cores beside it, which load a small machine
    // so that its workers, descheduled, leave their windows early, and the process-wide pool's
    // share of that busy machine is cut.
    let alone: fn() -> Vec<directml_subset::Device> = || vec![device(0)];
    let large: fn() -> Vec<directml_subset::Device> = || vec![device(16), device(64), device(0)];
    for (i, make) in [alone, large].into_iter().enumerate() {
        let devices = make();
        let threads: Vec<usize> = devices.iter().map(|d| d.threads()).collect();
        let Idle {
            idle,
            settling,
            seen,
        } = idle_after(&devices);
        // (Shown with `--nocapture`.)
        eprintln!(
            "pools of {threads:?} threads: {} µs of CPU time in 300 ms of idling ({seen})",
            idle / 1000
        );
        // Workers still spinning would use up to 300 ms each; sleeping ones nothing.
        assert!(
            idle < IDLE_CPU_NS,
            "{} ms of CPU time used in 300 ms of idling, after pools of {threads:?} threads \
             ({seen})",
            idle / 1_000_000
        );
        // A window a thousand times too long (100 ms) fails here on a quiet machine: one worker
        // used 102 ms, or 17 ms where something took its core and cut its window short, as it
        // should. The process-wide pool alone only: the yields of 80 workers on a small busy
        // machine add up to tens of milliseconds.
        if let (0, Some(settling)) = (i, settling) {
            let workers = threads[0].saturating_sub(1) as u64;
            let bound = SETTLING_NS + SETTLING_NS_PER_WORKER * workers;
            assert!(
                settling < bound,
                "{} ms of CPU time used between the last execution and sleep (at most {} ms), \
                 by pools of {threads:?} threads ({seen})",
                settling / 1_000_000,
                bound / 1_000_000
            );
        }
    }
}
