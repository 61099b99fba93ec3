//! Colour tests: known patches made in Adobe RGB, Display P3 and CMYK (with their profiles) keep
//! their colour, as CIE Lab within ΔE2000 ≤ 2, through decode, an upscale by the local provider and
//! a pack's resize; CIEDE2000 itself against Sharma's published pairs; `keep` writes the input's
//! profile. The reference colours come from each space's own published matrices and curves (and
//! the CMYK model), not from the engine under test.

use std::io::Cursor;

use image::{ImageDecoder, ImageEncoder, RgbImage};

use super::*;

/// CIEDE2000 colour difference (Sharma, Wu and Dalal 2005), kL = kC = kH = 1.
fn delta_e2000(lab1: [f64; 3], lab2: [f64; 3]) -> f64 {
    let [l1, a1, b1] = lab1;
    let [l2, a2, b2] = lab2;
    let c_bar = ((a1 * a1 + b1 * b1).sqrt() + (a2 * a2 + b2 * b2).sqrt()) / 2.0;
    let g = 0.5 * (1.0 - (c_bar.powi(7) / (c_bar.powi(7) + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = (a1 * (1.0 + g), a2 * (1.0 + g));
    let (c1p, c2p) = ((a1p * a1p + b1 * b1).sqrt(), (a2p * a2p + b2 * b2).sqrt());
    let hue = |b: f64, a: f64| {
        if a == 0.0 && b == 0.0 {
            0.0
        } else {
            let h = b.atan2(a).to_degrees();
            if h < 0.0 { h + 360.0 } else { h }
        }
    };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let d_h = 2.0 * (c1p * c2p).sqrt() * (dh / 2.0).to_radians().sin();
    let l_bar = (l1 + l2) / 2.0;
    let c_bar_p = (c1p + c2p) / 2.0;
    let h_bar = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let t = 1.0 - 0.17 * (h_bar - 30.0).to_radians().cos()
        + 0.24 * (2.0 * h_bar).to_radians().cos()
        + 0.32 * (3.0 * h_bar + 6.0).to_radians().cos()
        - 0.20 * (4.0 * h_bar - 63.0).to_radians().cos();
    let d_theta = 30.0 * (-((h_bar - 275.0) / 25.0).powi(2)).exp();
    let r_c = 2.0 * (c_bar_p.powi(7) / (c_bar_p.powi(7) + 25f64.powi(7))).sqrt();
    let s_l = 1.0 + 0.015 * (l_bar - 50.0).powi(2) / (20.0 + (l_bar - 50.0).powi(2)).sqrt();
    let s_c = 1.0 + 0.045 * c_bar_p;
    let s_h = 1.0 + 0.015 * c_bar_p * t;
    let r_t = -(2.0 * d_theta).to_radians().sin() * r_c;
    ((dl / s_l).powi(2) + (dc / s_c).powi(2) + (d_h / s_h).powi(2) + r_t * (dc / s_c) * (d_h / s_h)).sqrt()
}

#[test]
fn ciede2000_matches_sharmas_published_pairs() {
    // Sharma, Wu and Dalal, "The CIEDE2000 color-difference formula", Table 1 (all 34 pairs).
    let pairs: [([f64; 3], [f64; 3], f64); 34] = [
        ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
        ([50.0, 3.1571, -77.2803], [50.0, 0.0, -82.7485], 2.8615),
        ([50.0, 2.8361, -74.0200], [50.0, 0.0, -82.7485], 3.4412),
        ([50.0, -1.3802, -84.2814], [50.0, 0.0, -82.7485], 1.0000),
        ([50.0, -1.1848, -84.8006], [50.0, 0.0, -82.7485], 1.0000),
        ([50.0, -0.9009, -85.5211], [50.0, 0.0, -82.7485], 1.0000),
        ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
        ([50.0, -1.0, 2.0], [50.0, 0.0, 0.0], 2.3669),
        ([50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0009], 7.1792),
        ([50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0010], 7.1792),
        ([50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0011], 7.2195),
        ([50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0012], 7.2195),
        ([50.0, -0.0010, 2.4900], [50.0, 0.0009, -2.4900], 4.8045),
        ([50.0, -0.0010, 2.4900], [50.0, 0.0010, -2.4900], 4.8045),
        ([50.0, -0.0010, 2.4900], [50.0, 0.0011, -2.4900], 4.7461),
        ([50.0, 2.5, 0.0], [50.0, 0.0, -2.5], 4.3065),
        ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        ([50.0, 2.5, 0.0], [61.0, -5.0, 29.0], 22.8977),
        ([50.0, 2.5, 0.0], [56.0, -27.0, -3.0], 31.9030),
        ([50.0, 2.5, 0.0], [58.0, 24.0, 15.0], 19.4535),
        ([50.0, 2.5, 0.0], [50.0, 3.1736, 0.5854], 1.0000),
        ([50.0, 2.5, 0.0], [50.0, 3.2972, 0.0], 1.0000),
        ([50.0, 2.5, 0.0], [50.0, 1.8634, 0.5757], 1.0000),
        ([50.0, 2.5, 0.0], [50.0, 3.2592, 0.3350], 1.0000),
        ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644),
        ([63.0109, -31.0961, -5.8663], [62.8187, -29.7946, -4.0864], 1.2630),
        ([61.2901, 3.7196, -5.3901], [61.4292, 2.2480, -4.9620], 1.8731),
        ([35.0831, -44.1164, 3.7933], [35.0232, -40.0716, 1.5901], 1.8645),
        ([22.7233, 20.0904, -46.6940], [23.0331, 14.9730, -42.5619], 2.0373),
        ([36.4612, 47.8580, 18.3852], [36.2715, 50.5065, 21.2231], 1.4146),
        ([90.8027, -2.0831, 1.4410], [91.1528, -1.6435, 0.0447], 1.4441),
        ([90.9257, -0.5406, -0.9208], [88.6381, -0.8985, -0.7239], 1.5381),
        ([6.7747, -0.2908, -2.4247], [5.8714, -0.0985, -2.2286], 0.6377),
        ([2.0776, 0.0795, -1.1350], [0.9033, -0.0636, -0.5514], 0.9082),
    ];
    for (i, (a, b, want)) in pairs.iter().enumerate() {
        let got = delta_e2000(*a, *b);
        assert!((got - want).abs() < 1e-4, "pair {}: {got:.4} against {want}", i + 1);
        assert!((delta_e2000(*b, *a) - want).abs() < 1e-4, "pair {} is symmetric", i + 1);
    }
}

// ---- The reference spaces, from their published definitions (D50-adapted by Bradford). ----

type M3 = [[f64; 3]; 3];

/// sRGB (IEC 61966-2-1) to XYZ D50.
const SRGB_D50: M3 =
    [[0.4360747, 0.3850649, 0.1430804], [0.2225045, 0.7168786, 0.0606169], [0.0139322, 0.0971045, 0.7141733]];
/// Adobe RGB (1998) to XYZ D50.
const ADOBE_D50: M3 =
    [[0.6097559, 0.2052401, 0.1492240], [0.3111242, 0.6256560, 0.0632197], [0.0194811, 0.0608902, 0.7448387]];
/// Display P3 to XYZ D50.
const P3_D50: M3 =
    [[0.5151187, 0.2919778, 0.1571035], [0.2411892, 0.6922441, 0.0665668], [-0.0010505, 0.0418791, 0.7840713]];

fn srgb_decode(v: f64) -> f64 {
    if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

fn srgb_encode(v: f64) -> f64 {
    if v <= 0.0031308 { v * 12.92 } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 }
}

fn mul(m: &M3, v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
}

fn inverse(m: &M3) -> M3 {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    let c = |r0: usize, c0: usize, r1: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    [
        [c(1, 1, 2, 2) / det, -c(0, 1, 2, 2) / det, c(0, 1, 1, 2) / det],
        [-c(1, 0, 2, 2) / det, c(0, 0, 2, 2) / det, -c(0, 0, 1, 2) / det],
        [c(1, 0, 2, 1) / det, -c(0, 0, 2, 1) / det, c(0, 0, 1, 1) / det],
    ]
}

/// An RGB space for the tests: its matrix, its curve each way and its profile.
#[derive(Clone, Copy)]
struct Space {
    name: &'static str,
    to_xyz: M3,
    decode: fn(f64) -> f64,
    encode: fn(f64) -> f64,
    profile: fn() -> ColorProfile,
}

fn adobe_decode(v: f64) -> f64 {
    v.powf(563.0 / 256.0)
}
fn adobe_encode(v: f64) -> f64 {
    v.max(0.0).powf(256.0 / 563.0)
}

const ADOBE: Space = Space {
    name: "Adobe RGB",
    to_xyz: ADOBE_D50,
    decode: adobe_decode,
    encode: adobe_encode,
    profile: ColorProfile::new_adobe_rgb,
};
const P3: Space = Space {
    name: "Display P3",
    to_xyz: P3_D50,
    decode: srgb_decode,
    encode: srgb_encode,
    profile: ColorProfile::new_display_p3,
};
const SRGB: Space =
    Space { name: "sRGB", to_xyz: SRGB_D50, decode: srgb_decode, encode: srgb_encode, profile: ColorProfile::new_srgb };

impl Space {
    /// Lab (D50) of 8-bit device values in this space.
    fn lab(&self, rgb: [u8; 3]) -> [f64; 3] {
        let lin = rgb.map(|v| (self.decode)(f64::from(v) / 255.0));
        xyz_to_lab(mul(&self.to_xyz, lin).map(|v| v * 100.0))
    }

    /// 8-bit device values in this space of an sRGB colour.
    fn device_of(&self, rgb: [u8; 3]) -> [u8; 3] {
        let xyz = mul(&SRGB_D50, rgb.map(|v| srgb_decode(f64::from(v) / 255.0)));
        mul(&inverse(&self.to_xyz), xyz).map(|v| ((self.encode)(v.clamp(0.0, 1.0)) * 255.0).round() as u8)
    }
}

/// Garment colours, all inside sRGB (so a faithful conversion has somewhere to land): navy,
/// dress red, olive, camel, emerald, fuchsia, sky, mustard, mid grey, burgundy, teal, orange.
const PATCHES: [[u8; 3]; 12] = [
    [24, 40, 92],
    [190, 30, 45],
    [110, 120, 50],
    [193, 154, 107],
    [0, 140, 90],
    [200, 40, 140],
    [100, 170, 220],
    [220, 170, 30],
    [128, 128, 128],
    [110, 20, 40],
    [0, 120, 130],
    [240, 120, 30],
];

/// Patch side, and the grid: 4 across, 3 down.
const SIDE: u32 = 64;
const COLS: u32 = 4;
const ROWS: u32 = 3;

fn patch_image(colours: &[[u8; 3]]) -> RgbImage {
    RgbImage::from_fn(SIDE * COLS, SIDE * ROWS, |x, y| image::Rgb(colours[((y / SIDE) * COLS + x / SIDE) as usize]))
}

/// The mean colour of the middle of each patch of `img` (any size, the patch grid scaled).
fn read_patches(img: &RgbImage) -> Vec<[u8; 3]> {
    let (sx, sy) = (img.width() as f64 / f64::from(SIDE * COLS), img.height() as f64 / f64::from(SIDE * ROWS));
    (0..COLS * ROWS)
        .map(|i| {
            let (cx, cy) = (f64::from((i % COLS) * SIDE + SIDE / 2), f64::from((i / COLS) * SIDE + SIDE / 2));
            let r = f64::from(SIDE) * 0.25;
            let (x0, x1) = (((cx - r) * sx) as u32, ((cx + r) * sx) as u32);
            let (y0, y1) = (((cy - r) * sy) as u32, ((cy + r) * sy) as u32);
            let mut sum = [0u64; 3];
            let mut n = 0u64;
            for y in y0..y1 {
                for x in x0..x1 {
                    let p = img.get_pixel(x, y).0;
                    (0..3).for_each(|c| sum[c] += u64::from(p[c]));
                    n += 1;
                }
            }
            sum.map(|s| ((s as f64) / n as f64).round() as u8)
        })
        .collect()
}

fn png_with(img: &RgbImage, icc: Option<Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = image::codecs::png::PngEncoder::new(&mut out);
    if let Some(icc) = icc {
        enc.set_icc_profile(icc).expect("png icc");
    }
    enc.write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgb8).expect("png");
    out
}

fn jpeg_with(img: &RgbImage, icc: Option<Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 97);
    if let Some(icc) = icc {
        enc.set_icc_profile(icc).expect("jpeg icc");
    }
    enc.encode_image(img).expect("jpeg");
    out
}

/// The embedded profile of an encoded image.
fn icc_of(bytes: &[u8]) -> Option<Vec<u8>> {
    let reader = image::ImageReader::new(Cursor::new(bytes)).with_guessed_format().expect("format");
    reader.into_decoder().expect("decoder").icc_profile().expect("icc")
}

/// Worst ΔE2000 between `want` (Lab) and `got` (sRGB pixels).
fn worst(want: &[[f64; 3]], got: &[[u8; 3]]) -> f64 {
    want.iter().zip(got).map(|(w, g)| delta_e2000(*w, SRGB.lab(*g))).fold(0.0, f64::max)
}

/// A picture in `space`: the patches' device values there, their true Lab, the file.
struct Sample {
    want: Vec<[f64; 3]>,
    stored: Vec<[u8; 3]>,
    bytes: Vec<u8>,
}

fn rgb_sample(space: Space, jpeg: bool) -> Sample {
    let stored: Vec<[u8; 3]> = PATCHES.iter().map(|p| space.device_of(*p)).collect();
    let want = stored.iter().map(|d| space.lab(*d)).collect();
    let icc = Some((space.profile)().encode().expect("profile encodes"));
    let img = patch_image(&stored);
    let bytes = if jpeg { jpeg_with(&img, icc) } else { png_with(&img, icc) };
    Sample { want, stored, bytes }
}

/// Upscale through the local provider (a real develop), decoded as a reader would.
fn upscaled(bytes: &[u8]) -> (RgbImage, Option<Vec<u8>>) {
    use crate::providers::{DevelopInput, DevelopRequest, local::LocalProvider};
    let request = DevelopRequest {
        job_id: "job_colour".into(),
        tool: "upscale".into(),
        quality: crate::api::Quality::K1,
        inputs: vec![DevelopInput { role: "image".into(), bytes: bytes.to_vec().into(), mime: "image/png".into() }],
        params: Default::default(),
    };
    let out = LocalProvider.develop_blocking(&request).expect("upscale");
    let icc = icc_of(&out.bytes);
    (decode(&out.bytes).expect("output decodes").image.into_rgb8(), icc)
}

/// A pack's resize of `bytes` (the function packs call), decoded as a reader would.
fn pack_resized(bytes: &[u8], space: OutputSpace) -> (RgbImage, Option<Vec<u8>>) {
    let out = crate::images::rendition_jpeg_in(bytes, 200, 200, space, Default::default()).expect("resize");
    let icc = icc_of(&out);
    (decode(&out).expect("resize decodes").image.into_rgb8(), icc)
}

/// The figures for one sample: today's (profile ignored), after decode, after an upscale, after a
/// pack resize. Asserts each managed figure is within ΔE2000 2.
fn figures(name: &str, sample: &Sample, naive: &[[u8; 3]]) -> [f64; 4] {
    let decoded = decode(&sample.bytes).expect("decodes").image.into_rgb8();
    let (up, up_icc) = upscaled(&sample.bytes);
    let (small, small_icc) = pack_resized(&sample.bytes, OutputSpace::Srgb);
    assert_eq!(up_icc.as_deref(), Some(srgb_icc()), "{name}: the upscale embeds sRGB");
    assert_eq!(small_icc.as_deref(), Some(srgb_icc()), "{name}: the resize embeds sRGB");
    let f = [
        worst(&sample.want, naive),
        worst(&sample.want, &read_patches(&decoded)),
        worst(&sample.want, &read_patches(&up)),
        worst(&sample.want, &read_patches(&small)),
    ];
    println!(
        "{name}: ΔE2000 worst patch — profile ignored {:.2}; decode {:.2}; upscale {:.2}; pack resize {:.2}",
        f[0], f[1], f[2], f[3]
    );
    for (what, v) in ["decode", "upscale", "pack resize"].iter().zip(&f[1..]) {
        assert!(*v <= 2.0, "{name}: after {what} the worst patch is ΔE2000 {v:.2}");
    }
    f
}

/// What the decode before colour management gave: the `image` crate's pixels as they are.
fn naive_patches(bytes: &[u8]) -> Vec<[u8; 3]> {
    read_patches(&image::load_from_memory(bytes).expect("naive decode").into_rgb8())
}

#[test]
fn the_references_agree_with_each_other() {
    // The sRGB reference round-trips, and the spaces' device values land on the same Lab.
    for p in PATCHES {
        assert_eq!(SRGB.device_of(p), p);
        for space in [ADOBE, P3] {
            let d = delta_e2000(SRGB.lab(p), space.lab(space.device_of(p)));
            assert!(d < 0.6, "{}: {p:?} quantised off by {d:.2}", space.name);
        }
    }
}

#[test]
fn adobe_rgb_png_keeps_its_colour() {
    let sample = rgb_sample(ADOBE, false);
    let f = figures("Adobe RGB (PNG iCCP)", &sample, &naive_patches(&sample.bytes));
    assert!(f[0] > 3.0, "ignoring the profile was visibly wrong ({:.2})", f[0]);
}

#[test]
fn display_p3_jpeg_keeps_its_colour() {
    let sample = rgb_sample(P3, true);
    let f = figures("Display P3 (JPEG APP2)", &sample, &naive_patches(&sample.bytes));
    assert!(f[0] > 3.0, "ignoring the profile was visibly wrong ({:.2})", f[0]);
}

#[test]
fn an_srgb_profile_or_none_leaves_pixels_alone() {
    let img = patch_image(&PATCHES);
    for icc in [None, Some(srgb_icc().to_vec())] {
        let bytes = png_with(&img, icc.clone());
        let got = decode(&bytes).expect("decodes");
        assert!(matches!(got.source, Source::Srgb), "{icc:?} is sRGB");
        assert_eq!(got.image.into_rgb8().as_raw(), img.as_raw(), "untouched");
    }
    assert!(ColorProfile::new_from_slice(srgb_icc()).is_ok(), "the embedded sRGB profile parses");
    // The same bytes on every run: the profile carries no creation time of its own.
    assert_eq!(srgb_icc(), encode_fixed(&ColorProfile::new_srgb()).as_slice());
    assert_eq!(&srgb_icc()[24..36], &[0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]);
    assert!(srgb_icc().len() > 128);
}

#[test]
fn keep_writes_the_inputs_profile_and_space() {
    let sample = rgb_sample(ADOBE, false);
    let (small, icc) = pack_resized(&sample.bytes, OutputSpace::Keep);
    assert_eq!(icc, icc_of(&sample.bytes), "keep carries the input's profile");
    assert!(icc.is_some());
    // Read back through that profile, the colours are still the source's.
    let d = worst(&sample.want, &read_patches(&small));
    println!("Adobe RGB kept: ΔE2000 worst patch {d:.2}");
    assert!(d <= 2.0, "kept output is ΔE2000 {d:.2} off");
    // The stored values are Adobe RGB ones, not sRGB ones.
    let out = crate::images::rendition_jpeg_in(&sample.bytes, 200, 200, OutputSpace::Keep, Default::default())
        .expect("resize");
    let raw = read_patches(&image::load_from_memory(&out).expect("jpeg").into_rgb8());
    let off = sample.stored.iter().zip(&raw).map(|(a, b)| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0)).max();
    assert!(off.unwrap_or(255) <= 4, "kept pixels are the input's device values (off by {off:?})");
    // A CMYK or unprofiled input under keep is written as sRGB.
    assert!(matches!(Target::of(OutputSpace::Keep, &Source::Cmyk).icc().as_slice(), i if i == srgb_icc()));
    assert_eq!(OutputSpace::from_policy("keep"), OutputSpace::Keep);
    assert_eq!(OutputSpace::from_policy("srgb"), OutputSpace::Srgb);
    assert_eq!(OutputSpace::default(), OutputSpace::Srgb);
}

#[test]
fn a_develop_under_keep_carries_the_inputs_profile() {
    use crate::providers::{DevelopInput, DevelopRequest, local::LocalProvider};
    let sample = rgb_sample(P3, true);
    let develop = |policy: Option<&str>| {
        let request = DevelopRequest {
            job_id: "job_keep".into(),
            tool: "upscale".into(),
            quality: crate::api::Quality::K1,
            inputs: vec![DevelopInput {
                role: "image".into(),
                bytes: sample.bytes.clone().into(),
                mime: "image/jpeg".into(),
            }],
            params: policy.map(|p| ("colourOutput".to_string(), p.to_string())).into_iter().collect(),
        };
        LocalProvider.develop_blocking(&request).expect("develop").bytes
    };
    let kept = develop(Some("keep"));
    assert_eq!(icc_of(&kept), icc_of(&sample.bytes), "keep carries Display P3");
    let d = worst(&sample.want, &read_patches(&decode(&kept).expect("decodes").image.into_rgb8()));
    assert!(d <= 2.0, "the kept develop is ΔE2000 {d:.2} off");
    for policy in [None, Some("srgb")] {
        assert_eq!(icc_of(&develop(policy)).as_deref(), Some(srgb_icc()), "{policy:?} is sRGB");
    }
    assert!(matches!(source_of(&sample.bytes), Source::Rgb(_)));
    assert!(matches!(source_of(&png_with(&patch_image(&PATCHES), None)), Source::Srgb));
    assert!(matches!(source_of(&cmyk_jpeg(&INKS, None, false)), Source::Cmyk));
}

// ---- CMYK ----

/// Inks (0..255) of garment colours a print file might carry.
const INKS: [[u8; 4]; 8] = [
    [20, 200, 170, 20], // red
    [230, 160, 30, 60], // navy
    [70, 100, 180, 20], // camel
    [0, 0, 0, 128],     // grey
    [150, 20, 220, 30], // green
    [40, 40, 40, 0],    // light neutral
    [200, 60, 120, 40], // teal
    [10, 170, 20, 10],  // pink
];

/// A CMYK press unlike the default (a cheaper, duller stock): each solid a third of the way to a
/// darker, warmer paper.
fn other_press() -> [[f64; 3]; 16] {
    let paper = [80.0, 82.0, 66.0];
    FOGRA39_SOLIDS.map(|s| [0, 1, 2].map(|c| s[c] * 0.66 + paper[c] * 0.34 * s[1] / 87.62))
}

fn cmyk_jpeg(inks: &[[u8; 4]], icc: Option<&[u8]>, ycck: bool) -> Vec<u8> {
    let (w, h) = (SIDE * COLS, SIDE * 2);
    let mut data = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            data.extend_from_slice(&inks[((y / SIDE) * COLS + x / SIDE) as usize]);
        }
    }
    let mut out = Vec::new();
    let mut enc = jpeg_encoder::Encoder::new(&mut out, 97);
    if let Some(icc) = icc {
        enc.add_icc_profile(icc).expect("icc");
    }
    let kind = if ycck { jpeg_encoder::ColorType::CmykAsYcck } else { jpeg_encoder::ColorType::Cmyk };
    enc.encode(&data, w as u16, h as u16, kind).expect("cmyk jpeg");
    out
}

/// Mean colours of the 8 patches of a 4 × 2 CMYK test frame.
fn read_cmyk_patches(img: &RgbImage) -> Vec<[u8; 3]> {
    // The frame is 4 × 2 patches; read it as the top two rows of the 4 × 3 grid.
    let scaled = RgbImage::from_fn(SIDE * COLS, SIDE * ROWS, |x, y| {
        let sy = (y * img.height()) / (SIDE * 2);
        if sy < img.height() { *img.get_pixel((x * img.width()) / (SIDE * COLS), sy) } else { image::Rgb([0, 0, 0]) }
    });
    read_patches(&scaled)[..8].to_vec()
}

fn cmyk_figures(name: &str, bytes: &[u8], want: &[[f64; 3]]) -> [f64; 4] {
    let decoded = decode(bytes).expect("cmyk decodes").image.into_rgb8();
    let naive = image::load_from_memory(bytes).expect("naive cmyk").into_rgb8();
    let (up, _) = upscaled(bytes);
    let (small, _) = pack_resized(bytes, OutputSpace::Srgb);
    let f = [
        worst(want, &read_cmyk_patches(&naive)),
        worst(want, &read_cmyk_patches(&decoded)),
        worst(want, &read_cmyk_patches(&up)),
        worst(want, &read_cmyk_patches(&small)),
    ];
    println!(
        "{name}: ΔE2000 worst patch — profile ignored {:.2}; decode {:.2}; upscale {:.2}; pack resize {:.2}",
        f[0], f[1], f[2], f[3]
    );
    for (what, v) in ["decode", "upscale", "pack resize"].iter().zip(&f[1..]) {
        assert!(*v <= 2.0, "{name}: after {what} the worst patch is ΔE2000 {v:.2}");
    }
    f
}

fn lab_of_inks(solids: &[[f64; 3]; 16], inks: &[[u8; 4]]) -> Vec<[f64; 3]> {
    inks.iter().map(|i| neugebauer_lab(solids, 2.0, i.map(|v| f64::from(v) / 255.0))).collect()
}

#[test]
fn cmyk_with_its_profile_is_read_through_it() {
    let press = other_press();
    let icc = neugebauer_profile(&press, 2.0, 9).encode().expect("the CMYK profile encodes");
    let want = lab_of_inks(&press, &INKS);
    let f = cmyk_figures("CMYK, embedded profile", &cmyk_jpeg(&INKS, Some(&icc), false), &want);
    assert!(f[0] > 3.0, "the naive conversion was visibly wrong ({:.2})", f[0]);
    // Read through the default instead, the colours would be off: the embedded one was used.
    let default_want = lab_of_inks(&FOGRA39_SOLIDS, &INKS);
    let apart = want.iter().zip(&default_want).map(|(a, b)| delta_e2000(*a, *b)).fold(0.0, f64::max);
    assert!(apart > 4.0, "the two presses differ enough to tell ({apart:.2})");
}

#[test]
fn cmyk_without_a_profile_is_read_as_fogra39() {
    let want = lab_of_inks(&FOGRA39_SOLIDS, &INKS);
    cmyk_figures("CMYK, no profile (default FOGRA39)", &cmyk_jpeg(&INKS, None, false), &want);
}

#[test]
fn ycck_is_read_through_its_profile() {
    let press = other_press();
    let icc = neugebauer_profile(&press, 2.0, 9).encode().expect("encodes");
    let want = lab_of_inks(&press, &INKS);
    cmyk_figures("YCCK, embedded profile", &cmyk_jpeg(&INKS, Some(&icc), true), &want);
}

#[test]
fn the_default_press_model_is_close_to_fogra39s_own_table() {
    // A few of FOGRA39L.ti3's measured patches (CMYK %, Lab) against the model.
    let measured: [([f64; 4], [f64; 3]); 4] = [
        ([0.0, 0.0, 0.0, 0.0], [95.00, 0.00, -2.00]),
        ([0.0, 100.0, 0.0, 0.0], [48.00, 74.00, -3.00]),
        ([0.0, 40.0, 0.0, 0.0], [76.42, 25.78, -6.91]),
        ([10.0, 20.0, 0.0, 0.0], [82.84, 8.51, -9.42]),
    ];
    let paper = xyz_to_lab(FOGRA39_SOLIDS[0]);
    for (cmyk, lab) in measured {
        // The model is media-relative; the table is absolute: compare relative to paper.
        let model = neugebauer_lab(&FOGRA39_SOLIDS, 2.0, cmyk.map(|v| v / 100.0));
        let rel = [model[0] - 100.0 + paper[0], model[1] + paper[1], model[2] + paper[2]];
        let d = delta_e2000(rel, lab);
        assert!(d < 3.0, "{cmyk:?}: model {rel:?} against measured {lab:?} (ΔE2000 {d:.2})");
    }
}

#[test]
fn a_profile_is_embedded_in_assembled_jpegs() {
    let jpeg = jpeg_with(&patch_image(&PATCHES), None);
    let with = embed_in_jpeg(jpeg.clone(), srgb_icc());
    assert_eq!(icc_of(&with).as_deref(), Some(srgb_icc()));
    assert_eq!(embed_in_jpeg(with.clone(), b"other"), with, "a second profile is not added");
    let a = image::load_from_memory(&jpeg).expect("plain").into_rgb8();
    let b = image::load_from_memory(&with).expect("with icc").into_rgb8();
    assert_eq!(a.as_raw(), b.as_raw(), "the pixels are the same");
}

#[test]
fn decoding_keeps_the_bomb_limits() {
    // A PNG header announcing 60000 × 60000 is refused as a limit, before any pixel buffer.
    let mut bomb = png_with(&RgbImage::new(1, 1), None);
    bomb[16..20].copy_from_slice(&60_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&60_000u32.to_be_bytes());
    assert!(matches!(decode(&bomb), Err(ImageError::Limits(_)) | Err(ImageError::Decoding(_))));
}

/// The cost on a 2k frame (2048 × 1365, Adobe RGB JPEG): decode with and without the conversion.
/// Run with `cargo test -p studio-core --lib colour::tests::cost -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, not a check"]
fn cost_on_a_2k_frame() {
    let img =
        RgbImage::from_fn(2048, 1365, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8]));
    let bytes = jpeg_with(&img, Some(ColorProfile::new_adobe_rgb().encode().expect("icc")));
    let time = |f: &dyn Fn()| {
        let start = std::time::Instant::now();
        for _ in 0..5 {
            f();
        }
        start.elapsed().as_secs_f64() * 1000.0 / 5.0
    };
    let plain = time(&|| {
        image::load_from_memory(&bytes).expect("plain");
    });
    let managed = time(&|| {
        decode(&bytes).expect("managed");
    });
    println!("2k decode: plain {plain:.1} ms, colour-managed {managed:.1} ms (+{:.1} ms)", managed - plain);
    // A whole 2k develop (the local upscale to the 2,048 px tier): the same pixels without a
    // profile (no conversion) and with the Adobe RGB profile (converted on decode).
    let untagged = jpeg_with(&img, None);
    let develop = |bytes: &[u8]| {
        use crate::providers::{DevelopInput, DevelopRequest, local::LocalProvider};
        let request = DevelopRequest {
            job_id: "job_cost".into(),
            tool: "upscale".into(),
            quality: crate::api::Quality::K2,
            inputs: vec![DevelopInput {
                role: "image".into(),
                bytes: bytes.to_vec().into(),
                mime: "image/jpeg".into(),
            }],
            params: Default::default(),
        };
        LocalProvider.develop_blocking(&request).expect("develop");
    };
    let without = time(&|| develop(&untagged));
    let with = time(&|| develop(&bytes));
    println!(
        "2k develop (upscale, K2): no profile {without:.1} ms, Adobe RGB converted {with:.1} ms (+{:.1} %)",
        (with - without) / without * 100.0
    );
}

#[test]
fn an_upscale_kept_in_its_space_never_leaves_it() {
    use crate::providers::{DevelopInput, DevelopRequest, local::LocalProvider};
    // Adobe RGB's pure green lies outside sRGB: a round trip through sRGB clips it, and it
    // comes back as another green (red and blue well above 0).
    let stored = [[0, 255, 0], [12, 200, 40], [250, 20, 10], [128, 128, 128]];
    let colours: Vec<[u8; 3]> = (0..COLS * ROWS).map(|i| stored[i as usize % stored.len()]).collect();
    let icc = ColorProfile::new_adobe_rgb().encode().expect("profile encodes");
    let bytes = png_with(&patch_image(&colours), Some(icc.clone()));
    let request = DevelopRequest {
        job_id: "job_native".into(),
        tool: "upscale".into(),
        quality: crate::api::Quality::K1,
        inputs: vec![DevelopInput { role: "image".into(), bytes: bytes.into(), mime: "image/png".into() }],
        params: [("colourOutput".to_string(), "keep".to_string())].into_iter().collect(),
    };
    let out = LocalProvider.develop_blocking(&request).expect("upscale").bytes;
    assert_eq!(icc_of(&out), Some(icc), "written in Adobe RGB");
    // Read back as stored (no conversion): the device values are the input's, JPEG aside.
    let raw = image::load_from_memory(&out).expect("decodes").into_rgb8();
    for (got, want) in read_patches(&raw).iter().zip(&colours) {
        let off = (0..3).map(|c| (i32::from(got[c]) - i32::from(want[c])).abs()).max().unwrap_or(0);
        assert!(off <= 4, "{want:?} came back as {got:?}");
    }
}
