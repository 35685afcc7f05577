//! A process that executes on its workers and then idles uses no CPU once the workers' hot
//! window is over: the workers wait on the team for a bounded time (`DMLS_SPIN_US`, 100 µs by
//! default), then sleep. Measured from the CPU time of every thread of this process
//! (`/proc/self/task/*/schedstat`), so this test runs alone in its own binary.

#![cfg(target_os = "linux")]

mod common;

use common::rust_device as device;
use directml_subset::{DataType, Input, OperatorDesc, TensorDesc};
use std::time::Duration;

/// Nanoseconds of CPU time used by all threads of this process so far.
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

#[test]
fn no_cpu_after_the_window() {
    common::force_parallel_paths();
    // The process-wide pool and pools of more threads than this machine has cores.
    let devices = [device(0), device(16), device(64)];
    let input = TensorDesc::new(DataType::Float32, &[1 << 20]);
    let count = TensorDesc::new(DataType::UInt32, &[1]);
    let coords = TensorDesc::new(DataType::UInt32, &[1 << 20, 1]);
    let data: Vec<u8> = (0..1u32 << 20)
        .flat_map(|i| f32::from(u8::from(i % 3 == 0)).to_ne_bytes())
        .collect();
    let mut out_count = vec![0u8; 4];
    let mut out = vec![0u8; coords.total_size as usize];
    for dev in &devices {
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
    // The window (0.1 ms) and rayon's own short idle spin are long over after 50 ms.
    std::thread::sleep(Duration::from_millis(50));
    let before = cpu_ns();
    std::thread::sleep(Duration::from_millis(300));
    let used = cpu_ns() - before;
    // Workers still spinning would use up to 300 ms each; sleeping ones nothing. Reading
    // /proc costs this thread well under a millisecond.
    assert!(
        used < 15_000_000,
        "{} ms of CPU time used by {} threads in 300 ms of idling",
        used / 1_000_000,
        std::fs::read_dir("/proc/self/task").unwrap().count()
    );
}
