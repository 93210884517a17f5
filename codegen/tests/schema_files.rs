//! The vendored schemas must be byte-for-byte what `schema/README.md` records.

use std::path::Path;

/// Minimal SHA-256, so that this check needs no extra dependency.
fn sha256(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64) * 8;
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in chunk.chunks(4).enumerate().take(16) {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

#[test]
fn sha256_is_right() {
    assert_eq!(
        sha256(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn vendored_schemas_match_the_recorded_sha256() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let rows: Vec<(&str, &str)> = readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells.len() == 5 && cells[2].ends_with("schema.json")).then(|| (cells[2], cells[3]))
        })
        .collect();
    assert_eq!(
        rows.len(),
        5,
        "expected five schema rows in schema/README.md"
    );
    for (file, expected) in rows {
        let data = std::fs::read(root.join(file)).unwrap();
        assert_eq!(
            sha256(&data),
            expected,
            "{file} changed; vendored schemas must stay byte for byte"
        );
    }
}

#[test]
fn vendored_examples_match_their_manifest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    let manifest = std::fs::read_to_string(root.join("2026-07-28-examples.sha256")).unwrap();
    let mut listed = Vec::new();
    for line in manifest.lines() {
        let (expected, file) = line.split_once("  ").expect("sha256sum format");
        let data = std::fs::read(root.join(file)).unwrap();
        assert_eq!(
            sha256(&data),
            expected,
            "{file} changed; examples stay byte for byte"
        );
        listed.push(file.to_string());
    }
    // Every example on disk is in the manifest (none added or dropped unnoticed).
    let mut on_disk = Vec::new();
    let examples = root.join("2026-07-28/examples");
    for dir in std::fs::read_dir(&examples).unwrap() {
        let dir = dir.unwrap();
        for file in std::fs::read_dir(dir.path()).unwrap() {
            let file = file.unwrap();
            on_disk.push(format!(
                "2026-07-28/examples/{}/{}",
                dir.file_name().to_string_lossy(),
                file.file_name().to_string_lossy()
            ));
        }
    }
    listed.sort();
    on_disk.sort();
    assert_eq!(listed, on_disk);
    assert_eq!(listed.len(), 129);
}
