//! Writes the payload `bulky` carries: 18 MB of pseudo-random bytes (incompressible, and not
//! zeros, which a linker would leave out of the file).

fn main() {
    const SIZE: usize = 18 * 1024 * 1024;
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("payload.bin");
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes = Vec::with_capacity(SIZE);
    while bytes.len() < SIZE {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(SIZE);
    std::fs::write(out, bytes).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
