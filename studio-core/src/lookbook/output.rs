//! Output destinations of lookbook develops (§2.2): a named place carries its own pixels,
//! `custom` the caller's. The frame is composed for the destination's shape and developed at
//! the tier's pixels on the long edge (1k = 1,024, 2k = 2,048, 4k = 4,096); it is never
//! resampled to width × height. The A-series prints are composed at 2:3 and trimmed to their
//! shape (5.7 % of the frame). When the trimmed frame has fewer pixels than the place needs,
//! only the 4k tier can sell it, with a priced restoration pass up to the pixels needed (at most
//! [`MAX_OUTPUT_EDGE`] on the long edge); a lower tier is refused with a plain-language detail.

use crate::api::{OutputRequest, Quality};
use crate::error::{Error, Result};
use crate::lookbook::vocabulary::{CUSTOM_DESTINATION, DESTINATIONS};

/// The longest side an output may have, destination or restored frame.
pub(crate) const MAX_OUTPUT_EDGE: u32 = 8192;
/// The destination of a request without an output: the frame itself, a 4:5 portrait at the
/// tier's pixels (nothing to trim, nothing to restore).
pub(crate) const FRAME_DESTINATION: &str = "frame";
/// The destinations composed at 2:3 and trimmed.
const A_SERIES: [&str; 2] = ["a4-print", "a3-print"];

/// A resolved destination: its pixels and the aspect its frame is composed at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Destination {
    /// The place's key.
    pub(crate) key: String,
    /// Its pixels.
    pub(crate) width: u32,
    /// Its pixels.
    pub(crate) height: u32,
    /// The composition aspect, reduced (`(2, 3)` for the A-series).
    pub(crate) composed: (u32, u32),
}

/// How a frame is developed for a destination at a tier.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Framing {
    /// The frame's pixels as delivered (after any restoration pass).
    pub(crate) frame_width: u32,
    /// The frame's pixels as delivered.
    pub(crate) frame_height: u32,
    /// The share of the frame trimmed to the destination's shape, in percent (one decimal).
    pub(crate) trim_percent: f64,
    /// The long edge a restoration pass brings the frame to, when the tier's pixels fall short.
    pub(crate) restore_edge: Option<u32>,
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn places() -> Vec<String> {
    DESTINATIONS.iter().map(|d| d.0.to_string()).chain([CUSTOM_DESTINATION.to_string()]).collect()
}

/// The frame's pixels for an aspect `w:h` at a long edge (rounded, at least 1).
pub(crate) fn frame_size((w, h): (u32, u32), long_edge: u32) -> (u32, u32) {
    let l = f64::from(long_edge);
    let ratio = f64::from(w) / f64::from(h);
    if ratio >= 1.0 {
        (long_edge, ((l / ratio).round() as u32).clamp(1, long_edge))
    } else {
        (((l * ratio).round() as u32).clamp(1, long_edge), long_edge)
    }
}

/// Resolve an output object at a tier: 400 `UNKNOWN_DESTINATION` (with the legal
/// `destinations`), `BAD_DIMENSIONS`, `OUTPUT_TOO_LARGE` (with `max`). No output (or no
/// destination and no pixels) is the frame itself at the tier's pixels.
pub(crate) fn destination(raw: Option<&OutputRequest>, quality: Quality) -> Result<Destination> {
    let key = raw.and_then(|o| o.destination.as_deref()).map(str::trim).unwrap_or_default();
    let (w, h) = (raw.and_then(|o| o.width), raw.and_then(|o| o.height));
    if key.is_empty() && w.is_none() && h.is_none() {
        let (width, height) = frame_size((4, 5), quality.long_edge());
        return Ok(Destination { key: FRAME_DESTINATION.to_string(), width, height, composed: (4, 5) });
    }
    if key.is_empty() {
        return Err(Error::invalid(
            "UNKNOWN_DESTINATION",
            "Name the output's destination (custom for your own pixels).",
        )
        .with("destinations", places()));
    }
    let too_large = |w: i64, h: i64| {
        Error::invalid(
            "OUTPUT_TOO_LARGE",
            format!("{w} × {h} px is larger than this studio develops: at most {MAX_OUTPUT_EDGE} px a side."),
        )
        .with("max", MAX_OUTPUT_EDGE)
    };
    let (width, height) = if key == CUSTOM_DESTINATION {
        let (Some(w), Some(h)) = (w, h) else {
            return Err(Error::invalid("BAD_DIMENSIONS", "A custom output needs width and height in pixels."));
        };
        if w < 1 || h < 1 {
            return Err(Error::invalid("BAD_DIMENSIONS", "Width and height are whole numbers of pixels, at least 1."));
        }
        if w > i64::from(MAX_OUTPUT_EDGE) || h > i64::from(MAX_OUTPUT_EDGE) {
            return Err(too_large(w, h));
        }
        let ratio = w as f64 / h as f64;
        if !(0.1..=10.0).contains(&ratio) {
            return Err(Error::invalid(
                "BAD_DIMENSIONS",
                format!("{w} × {h} is narrower than 1:10; a frame is composed between 1:10 and 10:1."),
            ));
        }
        (w as u32, h as u32)
    } else {
        let Some(place) = DESTINATIONS.iter().find(|d| d.0 == key) else {
            return Err(Error::invalid("UNKNOWN_DESTINATION", format!("{key:?} is not an output destination."))
                .with("destinations", places()));
        };
        let own = (i64::from(place.1), i64::from(place.2));
        if w.is_some_and(|w| w != own.0) || h.is_some_and(|h| h != own.1) {
            return Err(Error::invalid(
                "BAD_DIMENSIONS",
                format!("{key} is {} × {} px; use custom for other pixels.", own.0, own.1),
            ));
        }
        (place.1, place.2)
    };
    let composed = if A_SERIES.contains(&key) {
        (2, 3)
    } else {
        let g = gcd(width, height);
        (width / g, height / g)
    };
    Ok(Destination { key: key.to_string(), width, height, composed })
}

/// The trimmed frame at a long edge and how much of it the place needs: (trimmed width,
/// trimmed height, trim percent, scale the place needs over the trimmed frame).
fn fit(dest: &Destination, long_edge: u32) -> (f64, f64, f64, f64) {
    let (fw, fh) = frame_size(dest.composed, long_edge);
    let (fw, fh) = (f64::from(fw), f64::from(fh));
    let d = f64::from(dest.width) / f64::from(dest.height);
    let uw = fw.min(fh * d);
    let uh = uw / d;
    let trim = ((1.0 - (uw * uh) / (fw * fh)) * 1000.0).round() / 10.0;
    let scale = f64::from(dest.width) / uw;
    (uw, uh, trim.max(0.0), scale)
}

/// How a frame for `dest` is developed at `quality`: 400 `QUALITY_TOO_LOW_FOR_OUTPUT` (with the
/// pixels needed and given) when a lower tier falls short, `OUTPUT_TOO_LARGE` when even a 4k
/// restoration could not reach the place's pixels.
pub(crate) fn framing(dest: &Destination, quality: Quality) -> Result<Framing> {
    let (_, _, trim, scale4) = fit(dest, Quality::K4.long_edge());
    let restore4 = (f64::from(Quality::K4.long_edge()) * scale4 - 1e-6).ceil() as u32;
    if scale4 > 1.0 + 1e-9 && restore4 > MAX_OUTPUT_EDGE {
        return Err(Error::invalid(
            "OUTPUT_TOO_LARGE",
            format!(
                "{} needs {} × {} px, more than a 4k frame restored to {MAX_OUTPUT_EDGE} px can give.",
                dest.key, dest.width, dest.height
            ),
        )
        .with("max", MAX_OUTPUT_EDGE));
    }
    let long_edge = quality.long_edge();
    let (uw, uh, _, scale) = fit(dest, long_edge);
    let restore_edge = if scale <= 1.0 + 1e-9 {
        None
    } else if quality == Quality::K4 {
        Some(restore4)
    } else {
        // The lowest tier that reaches the place's pixels without restoration, else 4k (which
        // restores): what to choose instead.
        let lowest = [Quality::K1, Quality::K2]
            .into_iter()
            .find(|q| fit(dest, q.long_edge()).3 <= 1.0 + 1e-9)
            .unwrap_or(Quality::K4);
        let restores = lowest == Quality::K4 && scale4 > 1.0 + 1e-9;
        return Err(Error::invalid(
            "QUALITY_TOO_LOW_FOR_OUTPUT",
            format!(
                "{} needs {} × {} px, but a {} frame gives {} × {} px once trimmed to its shape. Choose {}: \
                 it develops at {} px{}.",
                dest.key,
                dest.width,
                dest.height,
                quality.as_str(),
                uw.floor(),
                uh.floor(),
                lowest.as_str(),
                lowest.long_edge(),
                if restores { " and adds a priced restoration pass" } else { "" }
            ),
        )
        .with("lowest", lowest.as_str())
        .with("need", serde_json::json!({"width": dest.width, "height": dest.height}))
        .with("gives", serde_json::json!({"width": uw.floor() as u32, "height": uh.floor() as u32}))
        .with("quality", "4k"));
    };
    let (frame_width, frame_height) = frame_size(dest.composed, restore_edge.unwrap_or(long_edge));
    Ok(Framing { frame_width, frame_height, trim_percent: trim, restore_edge })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(destination: &str, w: Option<i64>, h: Option<i64>) -> Option<OutputRequest> {
        Some(OutputRequest { destination: Some(destination.into()), width: w, height: h })
    }

    #[test]
    fn named_places_carry_their_pixels_and_shape() {
        let d = destination(None, Quality::K1).unwrap();
        assert_eq!((d.key.as_str(), d.width, d.height, d.composed), ("frame", 819, 1024, (4, 5)));
        assert_eq!(framing(&d, Quality::K1).unwrap().restore_edge, None);
        let d = destination(out("web-tile", None, None).as_ref(), Quality::K1).unwrap();
        assert_eq!((d.width, d.height, d.composed), (1200, 1500, (4, 5)));
        let e = framing(&d, Quality::K1).unwrap_err();
        assert_eq!(e.code, "QUALITY_TOO_LOW_FOR_OUTPUT");
        assert_eq!(e.extra["lowest"], "2k", "2k reaches a web tile: the refusal names it, not 4k");
        assert!(e.message.contains("Choose 2k: it develops at 2048 px."), "{}", e.message);
        assert!(framing(&d, Quality::K2).is_ok(), "and 2k does work");
        let d = destination(out("story", None, None).as_ref(), Quality::K2).unwrap();
        assert_eq!(d.composed, (9, 16));
        let f = framing(&d, Quality::K2).unwrap();
        assert_eq!((f.frame_width, f.frame_height, f.restore_edge), (1152, 2048, None));
        assert_eq!(f.trim_percent, 0.0);
        let e = destination(out("poster", None, None).as_ref(), Quality::K4).unwrap_err();
        assert_eq!(e.code, "UNKNOWN_DESTINATION");
        assert_eq!(e.extra["destinations"].as_array().map(Vec::len), Some(DESTINATIONS.len() + 1));
        assert_eq!(
            destination(out("story", Some(100), None).as_ref(), Quality::K4).unwrap_err().code,
            "BAD_DIMENSIONS"
        );
        assert!(destination(out("story", Some(1080), Some(1920)).as_ref(), Quality::K4).is_ok());
    }

    #[test]
    fn a_series_prints_are_composed_at_two_to_three_with_the_trim() {
        let a4 = destination(out("a4-print", None, None).as_ref(), Quality::K4).unwrap();
        assert_eq!(a4.composed, (2, 3));
        let e = framing(&a4, Quality::K2).unwrap_err();
        assert_eq!(e.code, "QUALITY_TOO_LOW_FOR_OUTPUT");
        assert!(e.message.contains("Choose 4k"), "{}", e.message);
        assert_eq!(e.extra["lowest"], "4k");
        let f = framing(&a4, Quality::K4).unwrap();
        assert_eq!((f.frame_width, f.frame_height, f.restore_edge), (2731, 4096, None));
        assert_eq!(f.trim_percent, 5.7);
        let a3 = destination(out("a3-print", None, None).as_ref(), Quality::K4).unwrap();
        let f = framing(&a3, Quality::K4).unwrap();
        let edge = f.restore_edge.expect("a3 needs restoration");
        assert_eq!(f.frame_height, edge);
        // Restored and trimmed, the frame covers the place's pixels.
        assert!(f64::from(f.frame_width) >= 3508.0 && f64::from(f.frame_height) * (1.0 - 0.057) >= 4961.0 - 1.0);
        assert_eq!(framing(&a3, Quality::K1).unwrap_err().code, "QUALITY_TOO_LOW_FOR_OUTPUT");
    }

    #[test]
    fn custom_pixels_are_checked() {
        let d = destination(out("custom", Some(800), Some(800)).as_ref(), Quality::K4).unwrap();
        assert_eq!(d.composed, (1, 1));
        let f = framing(&d, Quality::K1).unwrap();
        assert_eq!((f.frame_width, f.frame_height, f.restore_edge), (1024, 1024, None));
        assert_eq!(
            destination(out("custom", Some(800), None).as_ref(), Quality::K4).unwrap_err().code,
            "BAD_DIMENSIONS"
        );
        assert_eq!(
            destination(out("custom", Some(0), Some(5)).as_ref(), Quality::K4).unwrap_err().code,
            "BAD_DIMENSIONS"
        );
        assert_eq!(
            destination(out("custom", Some(4000), Some(100)).as_ref(), Quality::K4).unwrap_err().code,
            "BAD_DIMENSIONS"
        );
        assert_eq!(
            destination(out("custom", Some(9000), Some(9000)).as_ref(), Quality::K4).unwrap_err().code,
            "OUTPUT_TOO_LARGE"
        );
        let big = destination(out("custom", Some(8000), Some(8000)).as_ref(), Quality::K4).unwrap();
        let f = framing(&big, Quality::K4).unwrap();
        assert_eq!(f.restore_edge, Some(8000));
        assert_eq!(framing(&big, Quality::K2).unwrap_err().code, "QUALITY_TOO_LOW_FOR_OUTPUT");
        // A wide place whose restoration would pass the cap is too large at any tier.
        let wide = destination(out("custom", Some(8192), Some(1000)).as_ref(), Quality::K4).unwrap();
        assert!(framing(&wide, Quality::K4).is_ok());
        let odd = destination(out("custom", Some(8191), Some(8191)).as_ref(), Quality::K4).unwrap();
        assert_eq!(framing(&odd, Quality::K4).unwrap().restore_edge, Some(8191));
    }
}
