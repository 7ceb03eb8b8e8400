//! cargo-fuzz target: `cargo +nightly fuzz run pipeline --features libfuzzer` from fuzz/ (the
//! nightly toolchain adds libFuzzer's coverage instrumentation; `cargo build --features
//! libfuzzer --bin pipeline` builds it on stable, uninstrumented). The input is split at the
//! first NUL: XML before it, .bin bytes after.
#![no_main]
use libfuzzer_sys::fuzz_target;

include!("../src/lib_pipeline.rs");

fuzz_target!(|data: &[u8]| {
    match data.iter().position(|&b| b == 0) {
        Some(i) => {
            pipeline(&data[..i], Some(&data[i + 1..]));
        }
        None => {
            pipeline(data, None);
        }
    }
});
