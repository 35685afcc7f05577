//! Replays the committed corpus through the fuzz targets' checks, on stable Rust with a plain
//! `cargo test` (no libFuzzer, no instrumentation), and keeps the seed encoding honest.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::path::{Path, PathBuf};

use directml_subset::dml::S_OK;
use directml_subset_fuzz::{check, run_case, seeds::seeds, Case, Scope};

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target)
}

fn files(target: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir(target))
        .unwrap_or_else(|e| panic!("corpus/{target}: {e}"))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

fn replay(target: &str, scope: Scope) {
    let files = files(target);
    assert!(!files.is_empty(), "corpus/{target} is empty");
    for f in &files {
        let data = std::fs::read(f).expect("read corpus file");
        let r = std::panic::catch_unwind(|| check(&data, scope));
        if r.is_err() {
            panic!(
                "{} breaks a promise (replay it with `cargo fuzz run {target} {}`)",
                f.display(),
                f.display()
            );
        }
    }
    eprintln!("corpus/{target}: {} inputs replayed", files.len());
}

#[test]
fn api_corpus() {
    replay("api", Scope::Execute);
}

#[test]
fn create_corpus() {
    replay("create", Scope::Create);
}

#[test]
fn seeds_round_trip_and_are_committed() {
    for (name, case) in seeds() {
        let bytes = case.encode();
        assert_eq!(
            Case::decode(&bytes),
            case,
            "seed {name} does not decode to itself"
        );
        for target in ["api", "create"] {
            let path = corpus_dir(target).join(format!("seed-{name}"));
            let committed = std::fs::read(&path).unwrap_or_default();
            assert!(
                committed == bytes,
                "{} is missing or stale; regenerate with DMLS_WRITE_SEEDS=1 cargo test --test corpus",
                path.display()
            );
        }
    }
}

#[test]
fn seeds_run_as_intended() {
    // Seeds named bad-* must fail somewhere; every other seed must create and execute.
    for (name, case) in seeds() {
        let o = run_case(&case, Scope::Execute);
        let succeeded = o.device && o.create == Some(S_OK) && o.execute == Some(S_OK);
        if name.starts_with("bad-") {
            assert!(!succeeded, "seed {name} was meant to be invalid: {o:?}");
        } else {
            assert!(succeeded, "seed {name} was meant to run: {o:?}");
        }
    }
}

/// `DMLS_WRITE_SEEDS=1 cargo test --test corpus` rewrites corpus/*/seed-* from `seeds()`.
#[test]
fn write_seed_corpus() {
    if std::env::var_os("DMLS_WRITE_SEEDS").is_none() {
        return;
    }
    for target in ["api", "create"] {
        let dir = corpus_dir(target);
        std::fs::create_dir_all(&dir).expect("create corpus dir");
        for f in files(target) {
            if f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
            {
                std::fs::remove_file(f).expect("remove old seed");
            }
        }
        for (name, case) in seeds() {
            std::fs::write(dir.join(format!("seed-{name}")), case.encode()).expect("write seed");
        }
    }
}
