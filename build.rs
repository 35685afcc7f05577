//! Build script. On ELF platforms, when `DIRECTML_SUBSET_SONAME` is set (the CMake build sets it
//! to `libdirectml_subset.so.0.MINOR` before 1.0, `.so.MAJOR` from 1.0 on), gives the shared
//! library that SONAME, so that an installed `libdirectml_subset.so.MAJOR.MINOR.PATCH` is found
//! by programs linked against it through the symlink of that name that `cmake --install` makes.
//! A plain `cargo build` sets no SONAME: a program linked with `-L target/release
//! -ldirectml_subset` then needs `libdirectml_subset.so`, the file cargo creates. On every ELF
//! platform the shared library is marked never to be unloaded (`-z nodelete`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DIRECTML_SUBSET_SONAME");
    // `directml_h` is never set: it marks layer 1 for cbindgen (see cbindgen.toml).
    println!("cargo::rustc-check-cfg=cfg(directml_h)");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let unix = var("CARGO_CFG_TARGET_FAMILY")
        .split(',')
        .any(|f| f == "unix");
    let elf = unix && var("CARGO_CFG_TARGET_VENDOR") != "apple";
    let soname = var("DIRECTML_SUBSET_SONAME");
    if elf && !soname.is_empty() {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    // Never unloaded: `dlclose` leaves the shared library mapped, so that worker threads it
    // started never run code that is gone (src/pool.rs, `stay_loaded`, pins the DLL on Windows).
    if elf {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    }
}
