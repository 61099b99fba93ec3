//! Test images as file bytes: real PNGs and JPEGs of a given size or colour, garment shots for
//! pre-flight, frames padded to an exact length, and broken ones (headers that claim more
//! pixels than they hold, a real decompression bomb). Every builder is deterministic: the same
//! arguments give the same bytes.

use std::io::Cursor;

use image::{ImageFormat, Rgb, RgbImage};

/// `img` encoded as `format`.
pub fn encode(img: &RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), format).expect("encode a test image");
    out
}

/// A real `w` × `h` PNG: red follows x, green follows y, blue is 90.
pub fn png(w: u32, h: u32) -> Vec<u8> {
    encode(&RgbImage::from_fn(w, h, |x, y| Rgb([(x % 255) as u8, (y % 255) as u8, 90])), ImageFormat::Png)
}

/// A real `w` × `h` baseline JPEG with a colour gradient.
pub fn jpeg(w: u32, h: u32) -> Vec<u8> {
    encode(&RgbImage::from_fn(w, h, |x, y| Rgb([(x * 7 % 256) as u8, (y * 5 % 256) as u8, 120])), ImageFormat::Jpeg)
}

/// A `w` × `h` PNG of one colour.
pub fn solid_png(w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
    encode(&RgbImage::from_pixel(w, h, Rgb(rgb)), ImageFormat::Png)
}

/// A `w` × `h` JPEG of one colour.
pub fn solid_jpeg(w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
    encode(&RgbImage::from_pixel(w, h, Rgb(rgb)), ImageFormat::Jpeg)
}

/// The box, as fractions `[left, top, right, bottom]` of the frame, of a piece shot in the middle.
pub const CENTRED: [f32; 4] = [0.32, 0.2, 0.68, 0.8];

/// The grey of a well-lit studio ground.
pub const LIGHT_GROUND: u8 = 224;

/// A garment shot as PNG: a grey ground of `ground` (its blue 2 lower) and a dark piece over the
/// box `piece` (see [`CENTRED`]).
pub fn shot(w: u32, h: u32, ground: u8, piece: [f32; 4]) -> Vec<u8> {
    let img = RgbImage::from_fn(w, h, |x, y| {
        let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
        if (piece[0]..piece[2]).contains(&u) && (piece[1]..piece[3]).contains(&v) {
            Rgb([46, 42, 40])
        } else {
            Rgb([ground, ground, ground.saturating_sub(2)])
        }
    });
    encode(&img, ImageFormat::Png)
}

/// A garment shot on a light ground with the piece centred: `shot(w, h, LIGHT_GROUND, CENTRED)`.
pub fn garment_shot(w: u32, h: u32) -> Vec<u8> {
    shot(w, h, LIGHT_GROUND, CENTRED)
}

/// A valid upload of exactly `len` bytes: a real 8 × 8 PNG, then padding that differs per `index`
/// (xorshift), so every frame has its own bytes and hash.
pub fn padded_png(index: usize, len: usize) -> Vec<u8> {
    let img = RgbImage::from_fn(8, 8, |x, y| Rgb([index as u8, (x * 30) as u8, (y * 30) as u8]));
    let mut out = encode(&img, ImageFormat::Png);
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ (index as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    while out.len() < len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A JPEG of `w` × `h` in one red whose EXIF says "rotate 90° clockwise to display"
/// (orientation 6).
pub fn rotated_jpeg(w: u32, h: u32) -> Vec<u8> {
    let plain = solid_jpeg(w, h, [200, 30, 30]);
    // APP1 "Exif" with a big-endian TIFF header and one IFD entry: Orientation (0x0112) = 6.
    let tiff: Vec<u8> = [
        b"MM\0\x2a".as_slice(),
        &8u32.to_be_bytes(),
        &1u16.to_be_bytes(),
        &0x0112u16.to_be_bytes(),
        &3u16.to_be_bytes(),
        &1u32.to_be_bytes(),
        &6u16.to_be_bytes(),
        &[0, 0],
        &0u32.to_be_bytes(),
    ]
    .concat();
    let payload: Vec<u8> = [b"Exif\0\0".as_slice(), &tiff].concat();
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xE1];
    out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&payload);
    out.extend_from_slice(&plain[2..]);
    out
}

/// A real PNG whose IHDR announces `w` × `h` (its CRC fixed), with 1 × 1 of pixel data.
pub fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let mut out = png(1, 1);
    out[16..20].copy_from_slice(&w.to_be_bytes());
    out[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&out[12..29]);
    out[29..33].copy_from_slice(&crc.to_be_bytes());
    out
}

/// A real JPEG whose frame header (SOF0) announces `w` × `h`.
pub fn jpeg_claiming(w: u16, h: u16) -> Vec<u8> {
    let mut out = jpeg(16, 16);
    let sof = out.windows(2).position(|m| m == [0xFF, 0xC0]).expect("a baseline frame header");
    out[sof + 5..sof + 7].copy_from_slice(&h.to_be_bytes());
    out[sof + 7..sof + 9].copy_from_slice(&w.to_be_bytes());
    out
}

/// A real decompression bomb: a `side` × `side` grey PNG of zeros whose IDAT is one deflate
/// block of 258-byte back-references (fixed Huffman codes, 13 bits each), about 1/160 of the
/// pixels' size, so a decoder that believed the header would really fill `side`² bytes.
pub fn png_bomb(side: u32) -> Vec<u8> {
    let raw = u64::from(side) * (u64::from(side) + 1); // each row: a filter byte and `side` zeros
    let mut bits = Bits::default();
    bits.put(0b011, 3); // the final block, fixed Huffman codes
    bits.code(0x30, 8); // literal 0
    for _ in 0..(raw - 1) / 258 {
        bits.code(0xC5, 8); // length 258 (symbol 285)
        bits.code(0, 5); // distance 1
    }
    for _ in 0..(raw - 1) % 258 {
        bits.code(0x30, 8);
    }
    bits.code(0, 7); // end of block
    let adler = ((raw % 65_521) << 16) | 1; // Adler-32 of zeros: a stays 1, b counts the bytes
    let zlib = [[0x78, 0x01].as_slice(), &bits.finish(), &(adler as u32).to_be_bytes()].concat();
    grey_png(side, side, &zlib)
}

/// CRC-32 (IEEE), as PNG chunks carry it.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A PNG chunk: length, type, data, CRC.
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let typed = [kind.as_slice(), data].concat();
    [(data.len() as u32).to_be_bytes().as_slice(), &typed, &crc32(&typed).to_be_bytes()].concat()
}

/// A PNG of `width` × `height` 8-bit grey whose IDAT is `zlib`.
fn grey_png(width: u32, height: u32, zlib: &[u8]) -> Vec<u8> {
    let ihdr = [width.to_be_bytes().as_slice(), &height.to_be_bytes(), &[8, 0, 0, 0, 0]].concat();
    [b"\x89PNG\r\n\x1a\n".as_slice(), &chunk(b"IHDR", &ihdr), &chunk(b"IDAT", zlib), &chunk(b"IEND", &[])].concat()
}

/// Bits of a deflate stream, least significant first.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    len: u32,
}

impl Bits {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.len;
        self.len += bits;
        while self.len >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.len -= 8;
        }
    }

    /// A Huffman code, which deflate writes most significant bit first.
    fn code(&mut self, code: u64, bits: u32) {
        self.put(code.reverse_bits() >> (64 - bits), bits);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.len > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}
