//! The timestamps of the parallel paths (cargo feature `trace`, for the kernel benchmark's
//! `trace` mode): one parallel execution records its job's publication and its end on the
//! caller's thread, each of its parts' start and end once, and each of NONZERO_COORDINATES'
//! parts counted, given its first row and written once, in that order, inside a part of the
//! job on the same thread, all between a program's own `Enter` and `Leave`; in slots of parts
//! per thread and in parts claimed in order. Built
//! only with the
//! feature, in a target directory of its own (built with the feature, the library would replace
//! the usual one): `cargo test --release --features trace --target-dir target/trace --test
//! trace` (run by `./dev check`).
#![cfg(feature = "trace")]

use std::collections::BTreeMap;

use directml_subset::trace::{record, take, Event, Step};
use directml_subset::{DataType, Device, DeviceOptions, Input, OperatorDesc, TensorDesc};

/// The events of `step`, by their argument: how many times each was recorded.
fn by_arg(events: &[Event], step: Step) -> BTreeMap<u32, usize> {
    let mut m = BTreeMap::new();
    for e in events.iter().filter(|e| e.step == step) {
        *m.entry(e.arg).or_default() += 1;
    }
    m
}

/// The one event of `step` (fails where there is none, or more than one).
fn only(events: &[Event], step: Step) -> &Event {
    let mut found = events.iter().filter(|e| e.step == step);
    let e = found.next().unwrap_or_else(|| panic!("no {step:?}"));
    assert!(found.next().is_none(), "more than one {step:?}");
    e
}

/// Runs one NONZERO_COORDINATES of 2^18 FLOAT32 elements on a device of four threads, with the
/// parallel path forced, and checks the events it recorded; returns the job's part count and
/// the input parts counted.
fn one_execution(dev: &Device) -> (u32, usize) {
    let n = 1usize << 18;
    let op = dev
        .create_operator(&OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(DataType::Float32, &[512, 512]),
            output_count: TensorDesc::new(DataType::UInt32, &[1]),
            output_coordinates: TensorDesc::new(DataType::UInt32, &[n as u32, 2]),
        })
        .expect("create");
    let input: Vec<f32> = (0..n).map(|i| (i % 3) as f32).collect();
    let mut count = [0u8; 4];
    let mut coords = vec![0u8; n * 8];
    take();
    record(Step::Enter, 0);
    op.execute(
        &[Input::Bytes(bytemuck::cast_slice(&input))],
        &mut [&mut count[..], &mut coords[..]],
    )
    .expect("execute");
    record(Step::Leave, 0);
    let mut events = take();
    // The program's own steps, around the library's: on the caller's thread, the first and
    // the last.
    let leave = events.pop().expect("events");
    assert_eq!(leave.step, Step::Leave);
    let enter = events.remove(0);
    assert_eq!(enter.step, Step::Enter);
    let rows = u32::from_ne_bytes(count) as usize;
    assert_eq!(rows, (0..n).filter(|i| i % 3 != 0).count());

    let publish = only(&events, Step::Publish);
    let done = only(&events, Step::Done);
    assert_eq!(
        publish.thread, done.thread,
        "published and seen done by the caller"
    );
    assert!(publish.ns <= done.ns);
    assert_eq!(
        (enter.thread, leave.thread),
        (publish.thread, publish.thread)
    );
    assert!(enter.ns <= publish.ns && done.ns <= leave.ns);
    let parts = publish.arg;
    assert!(parts > 1, "a parallel job has parts: {parts}");
    let every_part: BTreeMap<u32, usize> = (0..parts).map(|p| (p, 1)).collect();
    assert_eq!(by_arg(&events, Step::PartStart), every_part);
    assert_eq!(by_arg(&events, Step::PartEnd), every_part);
    for e in &events {
        assert!(
            (publish.ns..=done.ns).contains(&e.ns),
            "{e:?} outside the job"
        );
    }
    // Each part of the job starts and ends on one thread; every step of NonZero happens inside
    // a part on its own thread.
    let mut open: BTreeMap<u32, u32> = BTreeMap::new();
    for e in &events {
        match e.step {
            Step::PartStart => {
                assert!(
                    open.insert(e.thread, e.arg).is_none(),
                    "{e:?} inside a part"
                );
            }
            Step::PartEnd => assert_eq!(open.remove(&e.thread), Some(e.arg), "{e:?}"),
            Step::Counted | Step::Prefixed | Step::Written => {
                assert!(open.contains_key(&e.thread), "{e:?} outside a part")
            }
            Step::Publish | Step::Done => {}
            Step::Enter | Step::Leave => panic!("{e:?} recorded by the library"),
        }
    }
    assert!(open.is_empty(), "parts left open: {open:?}");
    // Each input part: counted, then its first row known, then written, once each.
    let counted = by_arg(&events, Step::Counted);
    assert!(!counted.is_empty(), "NonZero's parts are counted");
    assert!(counted.values().all(|&c| c == 1), "{counted:?}");
    assert_eq!(by_arg(&events, Step::Prefixed), counted);
    assert_eq!(by_arg(&events, Step::Written), counted);
    let at = |step: Step, p: u32| {
        events
            .iter()
            .find(|e| e.step == step && e.arg == p)
            .map(|e| e.ns)
    };
    for &p in counted.keys() {
        assert!(at(Step::Counted, p) <= at(Step::Prefixed, p), "part {p}");
        assert!(at(Step::Prefixed, p) <= at(Step::Written, p), "part {p}");
    }
    // Nothing is recorded between executions, and `take` empties the buffers.
    assert!(take().is_empty());
    (parts, counted.len())
}

#[test]
fn a_parallel_execution_records_each_step_once_in_order() {
    directml_subset::force_parallel_paths();
    let dev = Device::new(&DeviceOptions {
        thread_count: 4,
        ..Default::default()
    })
    .expect("device");
    // In slots: a part of the job per thread, several input parts in each.
    let (slots, counted) = one_execution(&dev);
    assert!(
        slots < counted as u32,
        "{slots} slots, {counted} input parts"
    );
    // Claimed in order: a part of the job per input part.
    directml_subset::force_slots_max(64);
    let (parts, counted) = one_execution(&dev);
    assert_eq!(parts, counted as u32, "in order");
}
