//! Whole image files told from ones cut short, as their bytes stream by and without decoding a
//! pixel: the file's own structure is followed to its end. JPEG: the marker segments, skipped by
//! their lengths (so the markers of an EXIF thumbnail do not count), and the entropy-coded data
//! of each scan, until the end-of-image marker. PNG: the chunks, by their lengths, until IEND
//! and its CRC. GIF: the blocks and sub-blocks until the trailer. WebP: the RIFF size. Bytes
//! after the end (a phone's motion-photo trailer, padding) do not matter. A file of another type
//! is not judged here.
//!
//! The image decoder reads JPEG leniently (a cut-short scan is filled in, not refused), so this
//! is what keeps a truncated photograph out of the library and out of a paid develop.

/// Where the walk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The first 12 bytes, to tell the format.
    Magic,
    /// JPEG: the 0xFF that starts a marker.
    JpegFf,
    /// JPEG: the marker's code (after any fill bytes).
    JpegCode,
    /// JPEG: a segment's two-byte length; the bool says whether it is a start of scan.
    JpegLength(bool),
    /// JPEG: entropy-coded data, up to the next 0xFF.
    JpegScan,
    /// JPEG: the byte after a 0xFF in entropy-coded data.
    JpegScanFf,
    /// PNG: a chunk's length and type.
    PngChunk,
    /// GIF: the logical screen descriptor.
    GifScreen,
    /// GIF: a block's introducer.
    GifBlock,
    /// GIF: an extension's label.
    GifLabel,
    /// GIF: an image descriptor (after its separator).
    GifImage,
    /// GIF: the LZW minimum code size before the image data.
    GifLzw,
    /// GIF: a sub-block's size (0 ends the run of sub-blocks).
    GifSub,
    /// The end was reached once the bytes still to skip have passed.
    End,
    /// The file's own structure is broken or its type is not judged here; no more bytes are read.
    Stop,
}

/// Follows one file's structure; feed it every byte in order, then ask [`Whole::is_whole`].
#[derive(Debug)]
pub(crate) struct Whole {
    step: Step,
    /// Bytes still to skip before `step` reads again.
    skip: u64,
    /// The bytes `step` has gathered so far.
    buf: Vec<u8>,
    /// Whether the end was reached (or the type is not judged).
    whole: bool,
}

impl Default for Whole {
    fn default() -> Self {
        Whole { step: Step::Magic, skip: 0, buf: Vec::with_capacity(12), whole: false }
    }
}

impl Whole {
    /// Follow a file held in memory.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        let mut whole = Whole::default();
        whole.feed(bytes);
        whole
    }

    /// True once the structure reached its end, or when the file is not one of the four image
    /// types (their refusal is the type check's). False for an image file cut short, and for a
    /// file too short to tell.
    pub(crate) fn is_whole(&self) -> bool {
        self.whole
    }

    /// How many bytes `step` reads at once.
    fn want(step: Step) -> usize {
        match step {
            Step::Magic => 12,
            Step::JpegLength(_) => 2,
            Step::PngChunk => 8,
            Step::GifScreen => 7,
            Step::GifImage => 9,
            _ => 1,
        }
    }

    /// The next bytes of the file.
    pub(crate) fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() && self.step != Step::Stop {
            if self.skip > 0 {
                let n = data.len().min(usize::try_from(self.skip).unwrap_or(usize::MAX));
                data = &data[n..];
                self.skip -= n as u64;
                continue;
            }
            if self.step == Step::End {
                self.finish(true);
                return;
            }
            if self.step == Step::JpegScan {
                match data.iter().position(|&b| b == 0xFF) {
                    Some(at) => {
                        data = &data[at + 1..];
                        self.step = Step::JpegScanFf;
                    }
                    None => data = &[],
                }
                continue;
            }
            let take = (Self::want(self.step) - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() == Self::want(self.step) {
                let read = std::mem::take(&mut self.buf);
                if let Some(rest) = self.advance(&read) {
                    self.feed(rest.as_slice());
                }
            }
        }
        if self.step == Step::End && self.skip == 0 {
            self.finish(true);
        }
    }

    fn finish(&mut self, whole: bool) {
        self.whole = whole;
        self.step = Step::Stop;
    }

    /// Act on the bytes `step` gathered. After the magic, answers the gathered bytes that
    /// belong to the format's own walk.
    fn advance(&mut self, read: &[u8]) -> Option<Vec<u8>> {
        match self.step {
            Step::Magic => {
                let (step, used) = if read.starts_with(&[0xFF, 0xD8, 0xFF]) {
                    (Step::JpegFf, 2)
                } else if read.starts_with(b"\x89PNG\r\n\x1a\n") {
                    (Step::PngChunk, 8)
                } else if read.starts_with(b"GIF87a") || read.starts_with(b"GIF89a") {
                    (Step::GifScreen, 6)
                } else if read.starts_with(b"RIFF") && &read[8..12] == b"WEBP" {
                    // The RIFF size counts everything after itself: "WEBP" and the chunks.
                    let size = u32::from_le_bytes([read[4], read[5], read[6], read[7]]);
                    self.skip = u64::from(size).saturating_sub(4);
                    (Step::End, 12)
                } else {
                    self.finish(true);
                    return None;
                };
                self.step = step;
                return Some(read[used..].to_vec());
            }
            Step::JpegFf => match read[0] {
                0xFF => self.step = Step::JpegCode,
                _ => self.finish(false),
            },
            Step::JpegCode | Step::JpegScanFf => self.jpeg_marker(read[0]),
            Step::JpegLength(scan) => {
                let length = u16::from_be_bytes([read[0], read[1]]);
                if length < 2 {
                    self.finish(false);
                } else {
                    self.skip = u64::from(length - 2);
                    self.step = if scan { Step::JpegScan } else { Step::JpegFf };
                }
            }
            Step::PngChunk => {
                let length = u32::from_be_bytes([read[0], read[1], read[2], read[3]]);
                if length > i32::MAX as u32 {
                    self.finish(false);
                } else {
                    // The chunk's data and its CRC.
                    self.skip = u64::from(length) + 4;
                    self.step = if &read[4..8] == b"IEND" { Step::End } else { Step::PngChunk };
                }
            }
            Step::GifScreen => {
                self.skip = gif_table(read[4]);
                self.step = Step::GifBlock;
            }
            Step::GifBlock => match read[0] {
                0x21 => self.step = Step::GifLabel,
                0x2C => self.step = Step::GifImage,
                0x3B => self.finish(true),
                _ => self.finish(false),
            },
            Step::GifLabel => self.step = Step::GifSub,
            Step::GifImage => {
                self.skip = gif_table(read[8]);
                self.step = Step::GifLzw;
            }
            Step::GifLzw => self.step = Step::GifSub,
            Step::GifSub => match read[0] {
                0 => self.step = Step::GifBlock,
                size => self.skip = u64::from(size),
            },
            Step::JpegScan | Step::End | Step::Stop => {}
        }
        None
    }

    /// A JPEG marker code: in entropy-coded data 0x00 is a stuffed 0xFF and RST0-7 restart
    /// the scan; elsewhere SOI, TEM and RST stand alone, EOI ends the file and every other
    /// marker opens a segment with a length.
    fn jpeg_marker(&mut self, code: u8) {
        let in_scan = self.step == Step::JpegScanFf;
        self.step = match code {
            0xFF => self.step,
            0x00 | 0xD0..=0xD7 if in_scan => Step::JpegScan,
            0xD9 => {
                self.finish(true);
                return;
            }
            0x01 | 0xD0..=0xD8 => Step::JpegFf,
            0x00 => {
                self.finish(false);
                return;
            }
            other => Step::JpegLength(other == 0xDA),
        };
    }
}

/// The size of a GIF colour table, from the packed field that announces it.
fn gif_table(packed: u8) -> u64 {
    if packed & 0x80 == 0 { 0 } else { 3 << ((packed & 0x07) + 1) }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn encode(format: image::ImageFormat) -> Vec<u8> {
        let img = image::RgbaImage::from_fn(48, 40, |x, y| image::Rgba([(x * 5) as u8, (y * 6) as u8, 90, 255]));
        let mut out = Vec::new();
        match format {
            image::ImageFormat::Jpeg => {
                image::DynamicImage::ImageRgba8(img).to_rgb8().write_to(&mut Cursor::new(&mut out), format)
            }
            _ => img.write_to(&mut Cursor::new(&mut out), format),
        }
        .expect("encode");
        out
    }

    /// Whole, fed in one piece and byte by byte; every cut-short prefix is not.
    fn assert_walks(bytes: &[u8], what: &str) {
        assert!(Whole::of(bytes).is_whole(), "{what} whole");
        let mut bytewise = Whole::default();
        bytes.chunks(1).for_each(|b| bytewise.feed(b));
        assert!(bytewise.is_whole(), "{what} whole, byte by byte");
        for cut in [0, 1, 11, 12, 20, bytes.len() / 3, bytes.len() / 2, bytes.len() - 2, bytes.len() - 1] {
            assert!(!Whole::of(&bytes[..cut]).is_whole(), "{what} cut to {cut} of {} bytes", bytes.len());
        }
    }

    #[test]
    fn the_four_types_are_followed_to_their_end() {
        for format in [image::ImageFormat::Jpeg, image::ImageFormat::Png, image::ImageFormat::Gif] {
            assert_walks(&encode(format), &format!("{format:?}"));
        }
        // A lossless WebP, as the image crate writes it.
        assert_walks(&encode(image::ImageFormat::WebP), "WebP");
    }

    #[test]
    fn thumbnails_and_trailers_do_not_fool_the_walk() {
        let jpeg = encode(image::ImageFormat::Jpeg);
        // An APP1 segment holding a whole JPEG (as an EXIF thumbnail does): its EOI is skipped
        // with the segment, so the main image cut short is still cut short.
        let mut with_thumbnail = vec![0xFF, 0xD8, 0xFF, 0xE1];
        with_thumbnail.extend_from_slice(&((jpeg.len() + 2) as u16).to_be_bytes());
        with_thumbnail.extend_from_slice(&jpeg);
        with_thumbnail.extend_from_slice(&jpeg[2..]);
        assert!(Whole::of(&with_thumbnail).is_whole());
        assert!(!Whole::of(&with_thumbnail[..with_thumbnail.len() - 100]).is_whole());
        // Bytes after the end (a motion-photo trailer, padding) are allowed.
        for mut whole in [jpeg, encode(image::ImageFormat::Png)] {
            whole.extend_from_slice(b"ftypmp42 and a video after the picture");
            assert!(Whole::of(&whole).is_whole());
        }
    }

    #[test]
    fn other_types_are_not_judged_and_broken_structures_are_not_whole() {
        assert!(Whole::of(b"these are words, not pixels at all").is_whole());
        assert!(!Whole::of(b"short").is_whole(), "too short to tell");
        let mut broken = encode(image::ImageFormat::Jpeg);
        broken[3] = 0x00; // FF 00 after SOI: not a marker where one must be
        assert!(!Whole::of(&broken).is_whole());
    }
}
