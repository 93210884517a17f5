//! Tiny but real media files for the image and audio fixtures.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// A 1x1 RGB PNG (one blue pixel): signature, IHDR, IDAT, IEND, valid CRCs.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xd0, 0xaa, 0xff, 0x0f,
    0x00, 0x02, 0x7f, 0x01, 0xa9, 0xb0, 0x85, 0x91, 0x3a, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Sample rate of the WAV fixture.
const SAMPLE_RATE: u32 = 8_000;
/// Samples in the WAV fixture: 10 ms.
const SAMPLES: u32 = 80;

/// The PNG fixture, base64-encoded.
pub fn tiny_png() -> String {
    STANDARD.encode(PNG)
}

/// A 10 ms, 8 kHz, mono, 16-bit PCM WAV file (a 400 Hz square wave),
/// base64-encoded.
pub fn tiny_wav() -> String {
    STANDARD.encode(wav_bytes())
}

fn wav_bytes() -> Vec<u8> {
    let data_len = SAMPLES * 2;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVE");
    wav.extend_from_slice(b"fmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&SAMPLE_RATE.to_le_bytes());
    wav.extend_from_slice(&(SAMPLE_RATE * 2).to_le_bytes()); // byte rate
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    for i in 0..SAMPLES {
        // 400 Hz at 8 kHz: 20 samples per period.
        let sample: i16 = if (i / 10) % 2 == 0 { 4_000 } else { -4_000 };
        wav.extend_from_slice(&sample.to_le_bytes());
    }
    wav
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn the_png_is_well_formed() {
        let png = STANDARD.decode(tiny_png()).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let kind_and_data = &png[at + 4..at + 8 + len];
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32(kind_and_data), "bad CRC");
            kinds.push(String::from_utf8(kind_and_data[..4].to_vec()).unwrap());
            at += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
        // 1x1 pixel.
        assert_eq!(&png[16..24], &[0, 0, 0, 1, 0, 0, 0, 1]);
    }

    #[test]
    fn the_wav_is_well_formed() {
        let wav = STANDARD.decode(tiny_wav()).unwrap();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        let riff_len = u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize;
        assert_eq!(riff_len + 8, wav.len());
        assert_eq!(&wav[36..40], b"data");
        let data_len = u32::from_le_bytes(wav[40..44].try_into().unwrap()) as usize;
        assert_eq!(data_len + 44, wav.len());
        assert_eq!(data_len, 160);
    }
}
