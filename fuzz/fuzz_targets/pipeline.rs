//! cargo-fuzz target (nightly): `cargo +nightly fuzz run pipeline` from fuzz/ after adding
//! libfuzzer-sys. The input is split at the first NUL: XML before it, .bin bytes after.
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
