//! The metadata policy (docs/colour.md, "Metadata"): an input's EXIF, IPTC and XMP are read once
//! when its develop's frame is filed (or a pack resizes it), and the JPEG written carries what the
//! house's `metadata.output` allows:
//!
//! - `rights` (the default): the rights and credit fields alone (creator, copyright, credit line,
//!   usage terms), written afresh as EXIF (`Artist`, `Copyright`) and XMP (`dc:creator`,
//!   `dc:rights`, `photoshop:Credit`, `xmpRights:UsageTerms`); location, device serials and
//!   everything else are left behind;
//! - `all`: the input's EXIF, XMP and IPTC segments as they were, with the orientation set to
//!   upright (the pixels were already turned);
//! - `none`: nothing but the colour profile.
//!
//! Inputs are JPEG (APP1 EXIF and XMP, APP13 IPTC), PNG (`eXIf`, `iTXt` XMP) and WebP (`EXIF`,
//! `XMP ` chunks). Only a JPEG output is written to; any other output is left as it is.

use exif::{Field, In, Tag, Value};

use crate::markup::{decode_references, escape};

pub(crate) use crate::api::MetadataOutput;

const EXIF_ID: &[u8] = b"Exif\0\0";
const XMP_ID: &[u8] = b"http://ns.adobe.com/xap/1.0/\0";
const PHOTOSHOP_ID: &[u8] = b"Photoshop 3.0\0";
/// The largest payload one JPEG segment holds (its length field counts itself).
const SEGMENT_MAX: usize = 65_533;

/// An image's metadata as found: the EXIF (TIFF bytes), the XMP packet and the IPTC block
/// (an APP13 payload, Photoshop's image resources).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) exif: Option<Vec<u8>>,
    pub(crate) xmp: Option<Vec<u8>>,
    pub(crate) iptc: Option<Vec<u8>>,
}

/// The rights and credit fields of an image, each the first found in XMP, then IPTC, then EXIF.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Rights {
    pub(crate) creator: Option<String>,
    pub(crate) copyright: Option<String>,
    pub(crate) credit: Option<String>,
    pub(crate) usage_terms: Option<String>,
}

impl Rights {
    fn is_empty(&self) -> bool {
        self.creator.is_none() && self.copyright.is_none() && self.credit.is_none() && self.usage_terms.is_none()
    }
}

/// Read the metadata of a JPEG, PNG or WebP; empty for anything else or anything malformed.
pub(crate) fn read(bytes: &[u8]) -> Found {
    if bytes.starts_with(&[0xFF, 0xD8]) {
        read_jpeg(bytes)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        read_png(bytes)
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        read_webp(bytes)
    } else {
        Found::default()
    }
}

/// `output` (a JPEG) with what `policy` keeps of `input`'s metadata; any other output, or an
/// input with nothing to carry, comes back as it was. Metadata the output already held in APP1
/// or APP13 is replaced. The runner calls it on every develop's frame; public (as
/// `studio_core::carry_metadata`) for embedders that run a provider themselves, and the bench.
pub fn carry(output: Vec<u8>, input: &[u8], policy: MetadataOutput) -> Vec<u8> {
    let Some(segments) = jpeg_segments(&output) else { return output };
    let mut extra: Vec<(u8, Vec<u8>)> = Vec::new();
    match policy {
        MetadataOutput::None => {}
        MetadataOutput::Rights => {
            let rights = read(input).rights();
            if !rights.is_empty() {
                if let Some(tiff) = rights_exif(&rights) {
                    extra.push((0xE1, [EXIF_ID, &tiff].concat()));
                }
                extra.push((0xE1, [XMP_ID, rights_xmp(&rights).as_bytes()].concat()));
            }
        }
        MetadataOutput::All => {
            let found = read(input);
            if let Some(mut tiff) = found.exif {
                set_upright(&mut tiff);
                extra.push((0xE1, [EXIF_ID, &tiff].concat()));
            }
            if let Some(xmp) = found.xmp {
                extra.push((0xE1, [XMP_ID, &upright_xmp(&xmp)].concat()));
            }
            if let Some(iptc) = found.iptc {
                extra.push((0xED, iptc));
            }
        }
    }
    extra.retain(|(_, payload)| payload.len() <= SEGMENT_MAX);
    if extra.is_empty() && !segments.iter().any(|(m, _)| matches!(m, 0xE1 | 0xED)) {
        return output;
    }
    // SOI, then the APP0 segments (JFIF), then ours, then the rest without its own APP1/APP13.
    let mut out = Vec::with_capacity(output.len() + extra.iter().map(|(_, p)| p.len() + 4).sum::<usize>());
    out.extend_from_slice(&[0xFF, 0xD8]);
    let mut placed = false;
    for (marker, range) in segments {
        if !placed && marker != 0xE0 {
            for (m, payload) in &extra {
                out.extend_from_slice(&[0xFF, *m]);
                out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
                out.extend_from_slice(payload);
            }
            placed = true;
        }
        if marker == 0xE1 || marker == 0xED {
            continue;
        }
        out.extend_from_slice(&output[range]);
    }
    out
}

impl Found {
    /// The rights and credit fields, from XMP first, then IPTC, then EXIF.
    pub(crate) fn rights(&self) -> Rights {
        let xmp = self.xmp.as_deref().map(String::from_utf8_lossy);
        let x = |name: &str| xmp.as_deref().and_then(|x| xmp_value(x, name));
        let iptc = self.iptc.as_deref().map(iptc_fields).unwrap_or_default();
        let i = |dataset: u8| iptc.iter().find(|(d, _)| *d == dataset).map(|(_, v)| v.clone());
        let exif = self.exif.clone().and_then(|t| exif::Reader::new().read_raw(t).ok());
        let e = |tag: Tag| {
            let field = exif.as_ref()?.get_field(tag, In::PRIMARY)?;
            match &field.value {
                Value::Ascii(parts) => parts.iter().map(|p| text(p)).find(|p| !p.is_empty()),
                _ => None,
            }
        };
        Rights {
            creator: x("dc:creator").or_else(|| i(80)).or_else(|| e(Tag::Artist)),
            copyright: x("dc:rights").or_else(|| i(116)).or_else(|| e(Tag::Copyright)),
            credit: x("photoshop:Credit").or_else(|| i(110)),
            usage_terms: x("xmpRights:UsageTerms"),
        }
    }
}

/// Trimmed text from bytes that may end in NULs.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim_matches(|c: char| c == '\0' || c.is_whitespace()).to_string()
}

/// A JPEG's segments before its scan, as (marker, byte range including the marker), then the
/// rest (the scan to the end) as one range under marker 0xDA. None when it is not a JPEG.
fn jpeg_segments(bytes: &[u8]) -> Option<Vec<(u8, std::ops::Range<usize>)>> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut segments = Vec::new();
    let mut at = 2;
    while at + 4 <= bytes.len() {
        if bytes[at] != 0xFF {
            return None;
        }
        let marker = bytes[at + 1];
        if marker == 0xDA {
            segments.push((marker, at..bytes.len()));
            return Some(segments);
        }
        let len = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
        let end = at + 2 + len;
        if len < 2 || end > bytes.len() {
            return None;
        }
        segments.push((marker, at..end));
        at = end;
    }
    None
}

fn read_jpeg(bytes: &[u8]) -> Found {
    let mut found = Found::default();
    for (marker, range) in jpeg_segments(bytes).unwrap_or_default() {
        let payload = &bytes[range.start + 4..range.end];
        match marker {
            0xE1 if payload.starts_with(EXIF_ID) && found.exif.is_none() => {
                found.exif = Some(payload[EXIF_ID.len()..].to_vec());
            }
            0xE1 if payload.starts_with(XMP_ID) && found.xmp.is_none() => {
                found.xmp = Some(payload[XMP_ID.len()..].to_vec());
            }
            0xED if payload.starts_with(PHOTOSHOP_ID) && found.iptc.is_none() => found.iptc = Some(payload.to_vec()),
            _ => {}
        }
    }
    found
}

fn read_png(bytes: &[u8]) -> Found {
    let mut found = Found::default();
    let mut at = 8;
    while at + 12 <= bytes.len() {
        let len = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        let kind = &bytes[at + 4..at + 8];
        let Some(data) = bytes.get(at + 8..at + 8 + len) else { break };
        match kind {
            b"eXIf" => found.exif = Some(data.to_vec()),
            // keyword, NUL, compression flag 0 (uncompressed only), method, language, NUL,
            // translated keyword, NUL, then the text.
            b"iTXt" if data.starts_with(b"XML:com.adobe.xmp\0\0") => {
                let rest = &data[19..];
                let mut parts = rest.splitn(3, |b| *b == 0);
                if let (Some(_), Some(_), Some(xmp)) = (parts.next(), parts.next(), parts.next()) {
                    found.xmp = Some(xmp.to_vec());
                }
            }
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    found
}

fn read_webp(bytes: &[u8]) -> Found {
    let mut found = Found::default();
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let kind = &bytes[at..at + 4];
        let len = u32::from_le_bytes([bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]]) as usize;
        let Some(data) = bytes.get(at + 8..at + 8 + len) else { break };
        match kind {
            b"EXIF" => found.exif = Some(data.strip_prefix(EXIF_ID).unwrap_or(data).to_vec()),
            b"XMP " => found.xmp = Some(data.to_vec()),
            _ => {}
        }
        at += 8 + len + (len & 1);
    }
    found
}

/// IPTC-IIM datasets of record 2 (dataset number, text) from an APP13 payload: Photoshop's image
/// resources, resource 0x0404.
fn iptc_fields(app13: &[u8]) -> Vec<(u8, String)> {
    let mut out = Vec::new();
    let mut at = PHOTOSHOP_ID.len();
    while at + 12 <= app13.len() && &app13[at..at + 4] == b"8BIM" {
        let id = u16::from_be_bytes([app13[at + 4], app13[at + 5]]);
        // A Pascal name padded to an even length, then the size, then the data padded likewise.
        let name_len = usize::from(app13[at + 6]);
        let name_end = at + 6 + ((name_len + 2) & !1);
        let Some(size) = app13.get(name_end..name_end + 4) else { break };
        let size = u32::from_be_bytes([size[0], size[1], size[2], size[3]]) as usize;
        let Some(data) = app13.get(name_end + 4..name_end + 4 + size) else { break };
        if id == 0x0404 {
            let mut i = 0;
            while i + 5 <= data.len() && data[i] == 0x1C {
                let (record, dataset) = (data[i + 1], data[i + 2]);
                let len = usize::from(u16::from_be_bytes([data[i + 3], data[i + 4]]));
                let Some(value) = data.get(i + 5..i + 5 + len) else { break };
                if record == 2 && !value.is_empty() {
                    out.push((dataset, text(value)));
                }
                i += 5 + len;
            }
        }
        at = name_end + 4 + ((size + 1) & !1);
    }
    out
}

/// The text of an XMP property: the first `rdf:li` of its element (a Seq, Bag or Alt), the
/// element's own text, or an attribute of that name. XML entities are unescaped.
fn xmp_value(xmp: &str, name: &str) -> Option<String> {
    let attribute = format!("{name}=\"");
    if let Some(start) = xmp.find(&attribute) {
        let rest = &xmp[start + attribute.len()..];
        return rest.find('"').map(|end| decode_references(&rest[..end])).filter(|v| !v.is_empty());
    }
    let open = format!("<{name}");
    // The element itself, not a longer name that starts the same way (dc:creatorTool).
    let after = xmp
        .match_indices(&open)
        .map(|(start, _)| &xmp[start + open.len()..])
        .find(|after| after.starts_with(['>', ' ', '\n', '\r', '\t']))?;
    let body_start = after.find('>')? + 1;
    let close = format!("</{name}>");
    let body = &after[body_start..after.find(&close)?];
    let value = match body.find("<rdf:li") {
        Some(li) => {
            let li = &body[li..];
            let text_start = li.find('>')? + 1;
            &li[text_start..text_start + li[text_start..].find("</rdf:li>")?]
        }
        None => body,
    };
    Some(decode_references(value.trim())).filter(|v| !v.is_empty())
}

/// EXIF (TIFF bytes) with `Artist` and `Copyright` alone; None when neither is known.
fn rights_exif(rights: &Rights) -> Option<Vec<u8>> {
    let field = |tag, value: &Option<String>| {
        value.as_ref().map(|v| Field { tag, ifd_num: In::PRIMARY, value: Value::Ascii(vec![v.as_bytes().to_vec()]) })
    };
    let fields: Vec<Field> =
        [field(Tag::Artist, &rights.creator), field(Tag::Copyright, &rights.copyright)].into_iter().flatten().collect();
    if fields.is_empty() {
        return None;
    }
    let mut writer = exif::experimental::Writer::new();
    for f in &fields {
        writer.push_field(f);
    }
    let mut out = std::io::Cursor::new(Vec::new());
    writer.write(&mut out, false).ok()?;
    Some(out.into_inner())
}

/// An XMP packet with the rights and credit fields.
fn rights_xmp(rights: &Rights) -> String {
    let mut body = String::new();
    if let Some(v) = &rights.creator {
        body += &format!("<dc:creator><rdf:Seq><rdf:li>{}</rdf:li></rdf:Seq></dc:creator>", escape(v));
    }
    if let Some(v) = &rights.copyright {
        body +=
            &format!("<dc:rights><rdf:Alt><rdf:li xml:lang=\"x-default\">{}</rdf:li></rdf:Alt></dc:rights>", escape(v));
    }
    if let Some(v) = &rights.credit {
        body += &format!("<photoshop:Credit>{}</photoshop:Credit>", escape(v));
    }
    if let Some(v) = &rights.usage_terms {
        body += &format!(
            "<xmpRights:UsageTerms><rdf:Alt><rdf:li xml:lang=\"x-default\">{}</rdf:li></rdf:Alt></xmpRights:UsageTerms>",
            escape(v)
        );
    }
    format!(
        "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\
         <x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\
         <rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" \
         xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" xmlns:xmpRights=\"http://ns.adobe.com/xap/1.0/rights/\">\
         {body}</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>"
    )
}

/// Set IFD0's `Orientation` (0x0112) to 1 in place, when the TIFF bytes carry one.
fn set_upright(tiff: &mut [u8]) {
    let little = tiff.starts_with(b"II");
    let u16_at = |t: &[u8], i: usize| {
        t.get(i..i + 2)
            .map(|b| if little { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) })
    };
    let Some(ifd) = tiff.get(4..8).map(|b| {
        let b = [b[0], b[1], b[2], b[3]];
        (if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) }) as usize
    }) else {
        return;
    };
    let Some(count) = u16_at(tiff, ifd) else { return };
    for n in 0..usize::from(count) {
        let entry = ifd + 2 + n * 12;
        if u16_at(tiff, entry) == Some(0x0112) && u16_at(tiff, entry + 2) == Some(3) {
            let one = if little { 1u16.to_le_bytes() } else { 1u16.to_be_bytes() };
            if let Some(value) = tiff.get_mut(entry + 8..entry + 10) {
                value.copy_from_slice(&one);
            }
            return;
        }
    }
}

/// An XMP packet with `tiff:Orientation` set to 1 (attribute or element form).
fn upright_xmp(xmp: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(xmp);
    let mut out = text.to_string();
    for (open, close) in [("tiff:Orientation=\"", "\""), ("<tiff:Orientation>", "</tiff:Orientation>")] {
        if let Some(start) = out.find(open) {
            let value = start + open.len();
            if let Some(end) = out[value..].find(close) {
                out.replace_range(value..value + end, "1");
            }
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests;
