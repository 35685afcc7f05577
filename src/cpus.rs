//! The CPUs of the process, as opposed to those of the thread that happens to call.
//!
//! On Linux a thread's CPU affinity is inherited by the threads it starts, and
//! `std::thread::available_parallelism` counts the calling thread's CPUs. Hosts that pin their
//! own worker threads to one CPU each (an inference runtime's intra-op thread affinities)
//! would then, through the first execution that one of those threads makes, give the
//! process-wide pool one thread, or give a pool all of its workers on that one CPU. So where
//! the calling thread may run on fewer CPUs than the process's main thread, the library counts
//! and starts its workers with the main thread's CPUs ([`with_process_cpus`]). A process
//! confined as a whole (`taskset`, `numactl`, a container's cpuset) confines its main thread
//! too, and its workers stay within it. (An OpenMP runtime that binds its threads binds the
//! main thread too, once that runs a parallel region; nothing here tells that from `taskset`.)
//!
//! It also says what caches a CPU has (Linux's sysfs, Windows' `GetLogicalProcessorInformationEx`,
//! read once), which set the sizes of work that should stay in one core's cache ([`l2_share`])
//! or that no longer fits in any ([`last_level_cache_bytes`]).

use crate::kept::{Kept, KeptOption};

/// The CPUs of a thread: its affinity mask.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
struct CpuSet(libc::cpu_set_t);

#[cfg(target_os = "linux")]
impl CpuSet {
    /// The affinity of thread `tid` (0: the calling thread), if the system says.
    fn of(tid: libc::pid_t) -> Option<CpuSet> {
        // SAFETY: an all-zero `cpu_set_t` is an empty set, a plain bit array.
        let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        // SAFETY: `set` is a writable `cpu_set_t` of the size passed.
        let r = unsafe { libc::sched_getaffinity(tid, core::mem::size_of_val(&set), &mut set) };
        (r == 0).then_some(CpuSet(set))
    }

    /// The process's main thread's affinity (its thread id is the process id).
    fn of_main() -> Option<CpuSet> {
        // SAFETY: getpid has no preconditions.
        CpuSet::of(unsafe { libc::getpid() })
    }

    /// The CPUs in the set.
    fn count(&self) -> usize {
        // SAFETY: counts the bits of a set that `sched_getaffinity` filled.
        usize::try_from(unsafe { libc::CPU_COUNT(&self.0) }).unwrap_or(0)
    }

    /// Makes this the calling thread's affinity; false if the system refused.
    fn apply(&self) -> bool {
        // SAFETY: passes a valid `cpu_set_t` of the size given; 0 is the calling thread.
        unsafe { libc::sched_setaffinity(0, core::mem::size_of_val(&self.0), &self.0) == 0 }
    }
}

/// The main thread's CPUs, where they are more than the calling thread's.
#[cfg(target_os = "linux")]
fn wider_than_caller() -> Option<CpuSet> {
    let own = CpuSet::of(0)?;
    let main = CpuSet::of_main()?;
    (main.count() > own.count()).then_some(main)
}

/// Runs `f`, on the calling thread, or, where that thread may run on fewer CPUs than the
/// process's main thread, on a thread started for it with the main thread's CPUs: the threads
/// that `f` starts inherit those, and what it counts (`available_parallelism`) counts them.
/// (If that thread cannot be started, on the calling thread; if the system refuses it the
/// main thread's CPUs, it runs `f` with the calling thread's, as without this.)
pub(crate) fn with_process_cpus<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[cfg(target_os = "linux")]
    if let Some(set) = wider_than_caller() {
        let f = std::sync::Mutex::new(Some(f));
        let on_wider = std::thread::scope(|s| {
            let started = std::thread::Builder::new()
                .name("directml_subset-start".into())
                .spawn_scoped(s, || {
                    set.apply();
                    let f = f.lock().unwrap_or_else(|e| e.into_inner()).take();
                    f.map(|f| f())
                });
            match started.map(|t| t.join()) {
                Ok(Ok(r)) => r,
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                Err(_) => None,
            }
        });
        if let Some(r) = on_wider {
            return r;
        }
        let f = f.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = f {
            return f();
        }
        unreachable!("the function ran on the thread started for it, which returned its value");
    }
    f()
}

/// The process's logical cores as `available_parallelism` counts them (its affinity, and a
/// container's CPU quota) with the process's CPUs ([`with_process_cpus`]). Computed once.
pub(crate) fn parallelism() -> usize {
    static CORES: Kept = Kept::new();
    CORES.get(|| {
        with_process_cpus(|| std::thread::available_parallelism().map_or(1, |n| n.get())) as u64
    }) as usize
}

/// The CPUs the process may run on (the wider of the calling thread's and the main thread's
/// affinity), where the system says.
pub(crate) fn affinity() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        let own = CpuSet::of(0).map(|s| s.count());
        let main = CpuSet::of_main().map(|s| s.count());
        own.max(main).filter(|&n| n > 0)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// One cache of CPU 0, as the system describes it (Linux's sysfs `cpu0/cache/index*`, Windows'
/// cache relationships).
#[cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code))]
struct Cache {
    level: u32,
    /// Data or unified (not an instruction cache).
    data: bool,
    bytes: u64,
    /// The CPUs that share it (at least 1).
    sharing: usize,
}

/// The caches of CPU 0 that the system describes (none outside Linux).
#[cfg(target_os = "linux")]
fn read_caches() -> Vec<Cache> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    (0..16)
        .filter_map(|i| {
            let index = dir.join(format!("index{i}"));
            let read = |name: &str| std::fs::read_to_string(index.join(name)).ok();
            Some(Cache {
                level: read("level")?.trim().parse().ok()?,
                data: read("type").is_none_or(|t| t.trim() != "Instruction"),
                bytes: cache_bytes(read("size")?.trim())?,
                sharing: read("shared_cpu_list")
                    .map_or(1, |l| cpu_list_len(&l))
                    .max(1),
            })
        })
        .collect()
}

/// The caches of the first CPU of processor group 0, from `GetLogicalProcessorInformationEx`'s
/// cache relationships (what Windows' own tools show).
#[cfg(windows)]
fn read_caches() -> Vec<Cache> {
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetLogicalProcessorInformationEx(
            relationship: u32,
            buffer: *mut u8,
            length: *mut u32,
        ) -> i32;
    }
    const RELATION_CACHE: u32 = 2;
    let mut length = 0u32;
    // SAFETY: a null buffer with a length of 0 only asks for the length needed (the call then
    // fails with ERROR_INSUFFICIENT_BUFFER and writes `length`).
    unsafe { GetLogicalProcessorInformationEx(RELATION_CACHE, core::ptr::null_mut(), &mut length) };
    if length == 0 || length > 1 << 20 {
        return Vec::new();
    }
    // u64s: the records hold pointer-sized masks, so the buffer is 8-aligned as Windows writes it.
    let mut buffer = vec![0u64; (length as usize).div_ceil(8)];
    let mut written = length;
    // SAFETY: `buffer` is writable for `written` bytes (at least `length`, rounded up to 8).
    let ok = unsafe {
        GetLogicalProcessorInformationEx(RELATION_CACHE, buffer.as_mut_ptr().cast(), &mut written)
    };
    if ok == 0 {
        return Vec::new();
    }
    let bytes: &[u8] = bytemuck::cast_slice(&buffer);
    parse_cache_relationships(&bytes[..(written as usize).min(bytes.len())])
}

/// The caches of CPU 0 (bit 0 of group 0) in a buffer of `SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX`
/// records of the cache relationship, read by their offsets: each record's `Relationship`
/// (u32, at 0) and `Size` (u32, at 4), then its `CACHE_RELATIONSHIP` at 8: `Level` (u8, at 8),
/// `CacheSize` (u32, at 12), `Type` (u32, at 16: 0 unified, 1 instruction, 2 data, 3 trace),
/// `GroupCount` (u16, at 38; 0 before Windows 11, meaning one), and then `GroupCount`
/// `GROUP_AFFINITY`s of 16 bytes from 40 (`Mask`, a pointer-sized integer, and `Group`, u16, at
/// 8 in each). Malformed records end the walk.
#[cfg_attr(not(windows), allow(dead_code))]
fn parse_cache_relationships(mut bytes: &[u8]) -> Vec<Cache> {
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let mut caches = Vec::new();
    while bytes.len() >= 8 {
        let size = u32_at(bytes, 4) as usize;
        if size < 8 || size > bytes.len() {
            break;
        }
        let record = &bytes[..size];
        bytes = &bytes[size..];
        if u32_at(record, 0) != 2 {
            continue; // another relationship's record (a core's is 48 bytes)
        }
        if size < 56 {
            break;
        }
        let groups = usize::from(u16_at(record, 38)).max(1);
        if 40 + 16 * groups > size {
            break;
        }
        let masks = (0..groups).map(|g| {
            let at = 40 + 16 * g;
            (u16_at(record, at + 8), u64_at(record, at))
        });
        let mut cpu0 = false;
        let mut sharing = 0usize;
        for (group, mask) in masks {
            cpu0 |= group == 0 && mask & 1 == 1;
            sharing += mask.count_ones() as usize;
        }
        let kind = u32_at(record, 16);
        if !cpu0 || kind == 1 || kind == 3 || u32_at(record, 12) == 0 {
            continue;
        }
        caches.push(Cache {
            level: u32::from(record[8]),
            data: true,
            bytes: u64::from(u32_at(record, 12)),
            sharing: sharing.max(1),
        });
    }
    caches
}

#[cfg(not(any(target_os = "linux", windows)))]
fn read_caches() -> Vec<Cache> {
    Vec::new()
}

/// The size of CPU 0's largest cache (its last level, shared by the cores that share it),
/// where the system says. Read once.
pub(crate) fn last_level_cache_bytes() -> Option<u64> {
    static BYTES: KeptOption = KeptOption::new();
    BYTES.get(|| read_caches().iter().map(|c| c.bytes).max())
}

/// The bytes of level-2 cache one of the process's CPUs has to itself: CPU 0's L2 (a unified
/// or data cache) divided among the CPUs that share it (hyperthreads of one core, a cluster of
/// small cores), where the system says. Read once.
pub(crate) fn l2_share() -> Option<u64> {
    static SHARE: KeptOption = KeptOption::new();
    SHARE.get(|| {
        read_caches()
            .iter()
            .find(|c| c.level == 2 && c.data)
            .map(|c| c.bytes / c.sharing as u64)
    })
}

/// A cache size as sysfs writes it ("32768K", "1M", "2G", or bytes), in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn cache_bytes(s: &str) -> Option<u64> {
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()?
        .checked_mul(unit)
        .filter(|&b| b > 0)
}

/// The CPUs in a list as sysfs writes it ("0", "0-1", "0,8", "0-3,8-11"); 0 where it does not
/// parse.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn cpu_list_len(list: &str) -> usize {
    let mut n = 0usize;
    for range in list.trim().split(',') {
        let mut ends = range.split('-').map(|e| e.trim().parse::<usize>());
        match (ends.next(), ends.next(), ends.next()) {
            (Some(Ok(_)), None, None) => n += 1,
            (Some(Ok(a)), Some(Ok(b)), None) if b >= a => n += b - a + 1,
            _ => return 0,
        }
    }
    n
}

/// The CPUs the calling thread may run on (for tests).
#[cfg(all(test, target_os = "linux"))]
pub(crate) fn thread_cpus() -> usize {
    CpuSet::of(0).map_or(0, |s| s.count())
}

/// True when the main thread may run on at least `cpus` CPUs (for tests).
#[cfg(all(test, target_os = "linux"))]
pub(crate) fn main_has(cpus: usize) -> bool {
    CpuSet::of_main().is_some_and(|s| s.count() >= cpus)
}

#[cfg(all(test, target_os = "linux"))]
/// Runs `f` on a thread pinned to the first CPU of this one's, with the CPU count this
/// thread had; `None` where this thread has only one CPU or cannot pin.
pub(crate) fn pinned<R: Send>(f: impl FnOnce() -> R + Send) -> Option<(usize, R)> {
    let own = CpuSet::of(0)?;
    let first = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `i` is below CPU_SETSIZE, the set's size in CPUs.
        .find(|&i| unsafe { libc::CPU_ISSET(i, &own.0) })?;
    if own.count() < 2 {
        return None;
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: an all-zero `cpu_set_t` is an empty set, a plain bit array.
            let mut one: libc::cpu_set_t = unsafe { core::mem::zeroed() };
            // SAFETY: sets bit `first` of the set, below CPU_SETSIZE.
            unsafe { libc::CPU_SET(first, &mut one) };
            CpuSet(one).apply().then(|| (own.count(), f()))
        })
        .join()
        .unwrap()
    })
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    #[test]
    fn cache_sizes_and_cpu_lists_parse_as_sysfs_writes_them() {
        assert_eq!(cache_bytes("32768K"), Some(32 << 20));
        assert_eq!(cache_bytes("1M"), Some(1 << 20));
        assert_eq!(cache_bytes("2G"), Some(2 << 30));
        assert_eq!(cache_bytes("512"), Some(512));
        for bad in ["", "K", "0K", "-1K", "12Q", "x", "99999999999999999999K"] {
            assert_eq!(cache_bytes(bad), None, "{bad:?}");
        }
        assert_eq!(cpu_list_len("0\n"), 1);
        assert_eq!(cpu_list_len("0-1"), 2);
        assert_eq!(cpu_list_len("0,8"), 2);
        assert_eq!(cpu_list_len("0-3,8-11"), 8);
        for bad in ["", "3-1", "0-", "a", "0-1-2"] {
            assert_eq!(cpu_list_len(bad), 0, "{bad:?}");
        }
    }

    /// A cache relationship record as Windows writes it (56 bytes with one group's mask,
    /// 16 more per further group); `group_count` 0 as before Windows 11.
    fn record(level: u8, kind: u32, bytes: u32, group_count: u16, masks: &[(u16, u64)]) -> Vec<u8> {
        let size = 40 + 16 * masks.len().max(1);
        let mut r = vec![0u8; size];
        r[0..4].copy_from_slice(&2u32.to_le_bytes());
        r[4..8].copy_from_slice(&(size as u32).to_le_bytes());
        r[8] = level;
        r[12..16].copy_from_slice(&bytes.to_le_bytes());
        r[16..20].copy_from_slice(&kind.to_le_bytes());
        r[38..40].copy_from_slice(&group_count.to_le_bytes());
        for (i, &(group, mask)) in masks.iter().enumerate() {
            r[40 + 16 * i..48 + 16 * i].copy_from_slice(&mask.to_le_bytes());
            r[48 + 16 * i..50 + 16 * i].copy_from_slice(&group.to_le_bytes());
        }
        r
    }

    #[test]
    fn windows_cache_records_give_cpu_0s_caches() {
        let mut buffer = Vec::new();
        buffer.extend(record(1, 2, 48 << 10, 1, &[(0, 0b11)])); // L1 data, one core of two CPUs
        buffer.extend(record(1, 1, 32 << 10, 1, &[(0, 0b11)])); // L1 instruction: not counted
        buffer.extend(record(2, 0, 2 << 20, 0, &[(0, 0b11)])); // L2 unified, GroupCount 0
        buffer.extend(record(2, 0, 2 << 20, 1, &[(0, 0b1100)])); // another core's L2
        buffer.extend(record(3, 0, 32 << 20, 2, &[(1, 0xF), (0, 0xFFFF)])); // L3 over two groups
        buffer.extend(record(4, 3, 1 << 10, 1, &[(0, 1)])); // a trace cache: not counted
        let caches = parse_cache_relationships(&buffer);
        let got: Vec<_> = caches
            .iter()
            .map(|c| (c.level, c.bytes, c.sharing, c.data))
            .collect();
        assert_eq!(
            got,
            [
                (1, 48 << 10, 2, true),
                (2, 2 << 20, 2, true),
                (3, 32 << 20, 20, true)
            ]
        );
        // Another relationship's record (a processor core, 0, of 48 bytes) is passed over by
        // its size.
        let mut other = record(1, 2, 1 << 10, 1, &[(0, 1)]);
        other.truncate(48);
        other[0..4].copy_from_slice(&0u32.to_le_bytes());
        other[4..8].copy_from_slice(&48u32.to_le_bytes());
        let mut buffer2 = other;
        buffer2.extend(record(2, 0, 1 << 20, 1, &[(0, 1)]));
        assert_eq!(parse_cache_relationships(&buffer2).len(), 1);
        // A record whose size runs past the buffer, or is too small, ends the walk.
        let mut bad = record(2, 0, 1 << 20, 1, &[(0, 1)]);
        bad[4..8].copy_from_slice(&1000u32.to_le_bytes());
        assert!(parse_cache_relationships(&bad).is_empty());
        bad[4..8].copy_from_slice(&48u32.to_le_bytes());
        assert!(parse_cache_relationships(&bad).is_empty());
        bad[4..8].copy_from_slice(&4u32.to_le_bytes());
        assert!(parse_cache_relationships(&bad).is_empty());
        // A GroupCount whose masks do not fit in the record ends it too.
        let mut many = record(2, 0, 1 << 20, 1, &[(0, 1)]);
        many[38..40].copy_from_slice(&3u16.to_le_bytes());
        assert!(parse_cache_relationships(&many).is_empty());
        assert!(parse_cache_relationships(&buffer[..55]).is_empty());
    }

    #[cfg(windows)]
    #[test]
    fn windows_reports_this_machines_caches() {
        let caches = read_caches();
        assert!(caches.iter().any(|c| c.level == 1), "no level-1 cache");
        assert!(caches.iter().all(|c| c.bytes > 0 && c.sharing >= 1));
        assert!(l2_share().is_some());
    }

    #[test]
    fn this_machines_l2_share_is_a_plausible_size_where_the_system_says() {
        if let Some(bytes) = l2_share() {
            assert!((1 << 10..=64 << 20).contains(&bytes), "{bytes} bytes");
            assert!(last_level_cache_bytes() >= Some(bytes));
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_starts_threads_with_the_process_cpus() {
        // The test harness's main thread is not pinned (unless the whole process is, and
        // then there is nothing to check).
        // What this (unpinned) thread counts, CPU quota included.
        let expected = std::thread::available_parallelism().unwrap().get();
        let Some((cpus, (own, counted, started))) = pinned(|| {
            let own = CpuSet::of(0).unwrap().count();
            let counted = with_process_cpus(|| std::thread::available_parallelism().unwrap());
            let started = with_process_cpus(|| {
                std::thread::spawn(|| CpuSet::of(0).unwrap().count())
                    .join()
                    .unwrap()
            });
            (own, counted.get(), started)
        }) else {
            return;
        };
        if CpuSet::of_main().unwrap().count() < cpus {
            return;
        }
        assert_eq!(own, 1, "the thread is pinned");
        assert_eq!(counted, expected, "counted with the process's {cpus} CPUs");
        assert_eq!(
            started, cpus,
            "a thread it starts has the main thread's CPUs"
        );
        // Without the wider set, a started thread inherits the pinned one's CPU.
        let inherited = pinned(|| {
            std::thread::spawn(|| CpuSet::of(0).unwrap().count())
                .join()
                .unwrap()
        });
        assert_eq!(inherited.map(|(_, n)| n), Some(1));
        // The process's CPUs, seen from the pinned thread.
        assert_eq!(pinned(affinity).map(|(_, n)| n), Some(Some(cpus)));
    }

    #[test]
    fn an_unpinned_thread_runs_the_function_itself() {
        let here = std::thread::current().id();
        if wider_than_caller().is_none() {
            assert_eq!(with_process_cpus(|| std::thread::current().id()), here);
        }
    }
}
