//! Build script: gives the shared library its SONAME on ELF platforms, so that an installed
//! `libdirectml_subset.so.MAJOR.MINOR.PATCH` is found by programs linked against
//! `libdirectml_subset.so.MAJOR` (see `cmake --install`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // `directml_h` is never set: it marks layer 1 for cbindgen (see cbindgen.toml).
    println!("cargo::rustc-check-cfg=cfg(directml_h)");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let unix = var("CARGO_CFG_TARGET_FAMILY")
        .split(',')
        .any(|f| f == "unix");
    let elf = unix && var("CARGO_CFG_TARGET_VENDOR") != "apple";
    if elf {
        let major = var("CARGO_PKG_VERSION_MAJOR");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdirectml_subset.so.{major}");
    }
}
