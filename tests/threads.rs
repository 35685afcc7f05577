//! Answers independent of threads: the same random cases run on devices with 1, 2, 3, 16 and 64
//! threads and on the process-wide pool, and every output must equal the reference's byte for
//! byte (count, coordinates, matrices, and every byte the operator must not touch). Most cases
//! are large enough for the kernels' parallel paths (see tests/cases/mod.rs), so the split of
//! the work into tasks differs on every device.
//!
//! `every_simd_level` runs the cases again in child processes with `DMLS_SIMD=avx2`, `sse2` and
//! `portable` (the level is read once per process), so every instruction-set path the machine
//! has is compared too (the parent runs at the best level: AVX-512 where the CPU has it).
//!
//! The seed comes from DMLS_SEED (or the clock) and is printed on failure; `DMLS_THREADS_CASES`
//! changes the number of cases (default 24).

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod cases;
mod common;

use cases::Case;
use common::rust_device as device;
use rand::rngs::SmallRng;
use rand::SeedableRng;

#[test]
fn same_bytes_on_every_thread_count() {
    common::force_parallel_paths();
    // Rerun at a lower DMLS_SIMD (every_simd_level): at that level, not the best one.
    common::assert_simd_level_honoured();
    let seed = common::seed_from_env("DMLS_SEED");
    let cases: usize = common::env_or("DMLS_THREADS_CASES", 24);
    let result = std::panic::catch_unwind(|| {
        let mut rng = SmallRng::seed_from_u64(seed);
        let devices: Vec<(u32, _)> = [1, 2, 3, 16, 64, 0]
            .iter()
            .map(|&n| (n, device(n)))
            .collect();
        for i in 0..cases {
            // Two large cases (parallel paths) for every small one.
            let case = Case::random(&mut rng, i % 3 != 2);
            for (threads, dev) in &devices {
                let op = dev
                    .create_operator(&case.desc)
                    .unwrap_or_else(|e| panic!("case {i}: create: {e}: {}", case.what));
                let got = case
                    .execute(&op)
                    .unwrap_or_else(|e| panic!("case {i}: execute: {e}: {}", case.what));
                case.check(&got, &format!("case {i}, thread_count {threads}"));
            }
        }
    });
    if let Err(e) = result {
        eprintln!(
            "same_bytes_on_every_thread_count failed with seed {seed} (DMLS_SIMD={:?}); replay \
             with DMLS_SEED={seed}",
            std::env::var("DMLS_SIMD").ok()
        );
        std::panic::resume_unwind(e);
    }
}

/// The same cases at each lower SIMD level, in child processes.
#[test]
fn every_simd_level() {
    if std::env::var_os("DMLS_SIMD").is_some() || !cfg!(target_arch = "x86_64") {
        return;
    }
    let exe = std::env::current_exe().expect("test executable");
    let seed = common::seed_from_env("DMLS_SEED");
    for level in ["avx2", "sse2", "portable"] {
        let out = std::process::Command::new(&exe)
            .args(["--exact", "same_bytes_on_every_thread_count", "--nocapture"])
            .env("DMLS_SIMD", level)
            .env("DMLS_SEED", seed.to_string())
            .output()
            .expect("run the test again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "DMLS_SIMD={level} DMLS_SEED={seed}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The child must have run the test, not filtered it out.
        assert!(
            stdout.contains("test result: ok. 1 passed"),
            "DMLS_SIMD={level}: the child ran no test:\n{stdout}"
        );
    }
}
