//! The committed header must be exactly what cbindgen generates from the library's source.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::path::Path;

#[test]
fn header_is_up_to_date() {
    // The library's crate: the parent of this crate's directory.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("header-check/ is inside the repository");
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = root.join("include/directml_subset.h");
    if std::env::var_os("DMLS_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write include/directml_subset.h");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    if committed != generated {
        panic!(
            "include/directml_subset.h differs from what cbindgen generates from the source.\n\
             Update it with:\n\n    DMLS_UPDATE_HEADER=1 cargo test -p directml_subset-header-check\n"
        );
    }
}
