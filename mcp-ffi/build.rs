//! Gives `libmcp.so` the SONAME `libmcp.so.MAJOR` (Linux), so that programs
//! linked against it load `libmcp.so.MAJOR`, which `bindings/c/install.sh`
//! installs beside the versioned file. Not for the Python extension module
//! (feature `python`), which is loaded by path.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let python = std::env::var_os("CARGO_FEATURE_PYTHON").is_some();
    if linux && !python {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmcp.so.{major}");
    }
}
