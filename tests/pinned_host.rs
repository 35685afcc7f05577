//! A host that pins its threads: a process whose first device is created (and whose first
//! executions run) on a thread pinned to one CPU, as OpenMP with `OMP_PROC_BIND` or an
//! inference runtime's intra-op pool pins its threads. The process-wide pool must still have
//! one thread per core of the process, not one. (Its own process: the pool's size is decided
//! once.)

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(target_os = "linux")]
#[test]
fn a_pinned_first_caller_gets_every_core() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 || std::env::var_os("RAYON_NUM_THREADS").is_some() {
        return; // nothing to pin away from, or the pool's size is set by hand
    }
    let threads = std::thread::spawn(|| {
        // SAFETY: an all-zero `cpu_set_t` is an empty set, a plain bit array.
        let mut own: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        // SAFETY: `own` is a writable `cpu_set_t` of the size passed; 0 is this thread.
        let r = unsafe { libc::sched_getaffinity(0, core::mem::size_of_val(&own), &mut own) };
        assert_eq!(r, 0);
        let first = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `i` is below CPU_SETSIZE, the set's size in CPUs.
            .find(|&i| unsafe { libc::CPU_ISSET(i, &own) })
            .expect("a CPU");
        // SAFETY: as above.
        let mut one: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        // SAFETY: sets bit `first` of the set, below CPU_SETSIZE.
        unsafe { libc::CPU_SET(first, &mut one) };
        // SAFETY: passes a valid `cpu_set_t` of the size given; 0 is this thread.
        let r = unsafe { libc::sched_setaffinity(0, core::mem::size_of_val(&one), &one) };
        assert_eq!(r, 0);
        assert_eq!(std::thread::available_parallelism().unwrap().get(), 1);
        let device = directml_subset::Device::new(&Default::default()).expect("a device");
        device.threads()
    })
    .join()
    .unwrap();
    assert_eq!(threads, cores);
}
