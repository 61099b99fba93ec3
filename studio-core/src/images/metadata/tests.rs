//! The metadata policy on made inputs: a JPEG whose EXIF has a creator, a copyright, GPS, a body
//! serial and a turned orientation, with XMP and IPTC beside it; a PNG with `eXIf` and XMP.

use super::*;

/// A small JPEG as the encoder writes it: JFIF APP0 (and an ICC APP2 when asked), no metadata.
fn plain_jpeg(icc: bool) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(16, 8, image::Rgb([200, 40, 40]));
    let mut out = Vec::new();
    let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90);
    if icc {
        use image::ImageEncoder;
        encoder.set_icc_profile(crate::images::colour::srgb_icc().to_vec()).expect("icc");
        encoder.write_image(img.as_raw(), 16, 8, image::ExtendedColorType::Rgb8).expect("encode");
    } else {
        encoder.encode_image(&img).expect("encode");
    }
    out
}

/// `jpeg` with `segments` placed after its APP0.
fn with_segments(jpeg: &[u8], segments: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let parts = jpeg_segments(jpeg).expect("a jpeg");
    let mut out = vec![0xFF, 0xD8];
    let mut placed = false;
    for (marker, range) in parts {
        if !placed && marker != 0xE0 {
            for (m, payload) in segments {
                out.extend_from_slice(&[0xFF, *m]);
                out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
                out.extend_from_slice(payload);
            }
            placed = true;
        }
        out.extend_from_slice(&jpeg[range]);
    }
    out
}

fn ascii(tag: Tag, v: &str) -> Field {
    Field { tag, ifd_num: In::PRIMARY, value: Value::Ascii(vec![v.as_bytes().to_vec()]) }
}

/// EXIF with a creator, a copyright, GPS (48.85 N), a body serial and orientation 6.
fn camera_exif() -> Vec<u8> {
    let r = |num, denom| exif::Rational { num, denom };
    let fields = [
        ascii(Tag::Artist, "Ines Calder"),
        ascii(Tag::Copyright, "(c) 2026 Maison Calder"),
        ascii(Tag::BodySerialNumber, "SN-0042-7781"),
        Field { tag: Tag::Orientation, ifd_num: In::PRIMARY, value: Value::Short(vec![6]) },
        ascii(Tag::GPSLatitudeRef, "N"),
        Field {
            tag: Tag::GPSLatitude,
            ifd_num: In::PRIMARY,
            value: Value::Rational(vec![r(48, 1), r(51, 1), r(0, 1)]),
        },
    ];
    let mut writer = exif::experimental::Writer::new();
    for f in &fields {
        writer.push_field(f);
    }
    let mut out = std::io::Cursor::new(Vec::new());
    writer.write(&mut out, true).expect("exif");
    out.into_inner()
}

fn camera_xmp() -> Vec<u8> {
    br#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
 xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/" photoshop:Credit="Maison Calder / Studio" tiff:Orientation="6">
<xmpRights:UsageTerms><rdf:Alt><rdf:li xml:lang="x-default">Editorial use &amp; lookbooks only</rdf:li></rdf:Alt></xmpRights:UsageTerms>
</rdf:Description></rdf:RDF></x:xmpmeta>"#
        .to_vec()
}

/// An APP13 payload whose IPTC names a by-line and a city.
fn camera_iptc(by_line: &str) -> Vec<u8> {
    let mut iim = Vec::new();
    for (dataset, value) in [(80u8, by_line), (90, "Paris")] {
        iim.extend_from_slice(&[0x1C, 2, dataset]);
        iim.extend_from_slice(&(value.len() as u16).to_be_bytes());
        iim.extend_from_slice(value.as_bytes());
    }
    let mut out = PHOTOSHOP_ID.to_vec();
    out.extend_from_slice(b"8BIM\x04\x04\0\0");
    out.extend_from_slice(&(iim.len() as u32).to_be_bytes());
    out.extend_from_slice(&iim);
    if iim.len() % 2 == 1 {
        out.push(0);
    }
    out
}

fn camera_jpeg() -> Vec<u8> {
    with_segments(
        &plain_jpeg(false),
        &[
            (0xE1, [EXIF_ID, &camera_exif()].concat()),
            (0xE1, [XMP_ID, &camera_xmp()].concat()),
            (0xED, camera_iptc("Ines Calder")),
        ],
    )
}

fn exif_of(jpeg: &[u8]) -> Option<exif::Exif> {
    read(jpeg).exif.and_then(|t| exif::Reader::new().read_raw(t).ok())
}

fn has(exif: &exif::Exif, tag: Tag) -> bool {
    exif.fields().any(|f| f.tag == tag)
}

#[test]
fn rights_keeps_creator_and_copyright_and_drops_location_and_serials() {
    let out = carry(plain_jpeg(true), &camera_jpeg(), MetadataOutput::Rights);
    assert!(image::load_from_memory(&out).is_ok(), "still a JPEG that decodes");
    let found = read(&out);
    assert!(found.iptc.is_none(), "the IPTC block (with its city) is not copied");
    let exif = exif_of(&out).expect("EXIF written");
    assert!(has(&exif, Tag::Artist) && has(&exif, Tag::Copyright));
    for gone in [Tag::GPSLatitude, Tag::GPSLatitudeRef, Tag::BodySerialNumber, Tag::Orientation] {
        assert!(!has(&exif, gone), "{gone} left behind");
    }
    let rights = found.rights();
    assert_eq!(rights.creator.as_deref(), Some("Ines Calder"));
    assert_eq!(rights.copyright.as_deref(), Some("(c) 2026 Maison Calder"));
    assert_eq!(rights.credit.as_deref(), Some("Maison Calder / Studio"));
    assert_eq!(rights.usage_terms.as_deref(), Some("Editorial use & lookbooks only"));
    let xmp = String::from_utf8(found.xmp.expect("XMP written")).expect("utf-8");
    assert!(!xmp.contains("Orientation") && !xmp.contains("Paris"));
    // The colour profile the encoder wrote stays.
    let decoder = image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(&out)).expect("jpeg");
    let mut decoder = decoder;
    use image::ImageDecoder;
    assert_eq!(decoder.icc_profile().expect("read").as_deref(), Some(crate::images::colour::srgb_icc()));
}

#[test]
fn all_keeps_every_field_but_turns_the_orientation_upright() {
    let out = carry(plain_jpeg(false), &camera_jpeg(), MetadataOutput::All);
    let exif = exif_of(&out).expect("EXIF kept");
    for kept in [Tag::Artist, Tag::Copyright, Tag::GPSLatitude, Tag::BodySerialNumber] {
        assert!(has(&exif, kept), "{kept} dropped");
    }
    let orientation = exif.get_field(Tag::Orientation, In::PRIMARY).and_then(|f| f.value.get_uint(0));
    assert_eq!(orientation, Some(1), "the pixels are already upright");
    let found = read(&out);
    assert_eq!(found.iptc, Some(camera_iptc("Ines Calder")));
    assert!(String::from_utf8_lossy(&found.xmp.expect("xmp")).contains("tiff:Orientation=\"1\""));
    let mut decoder = image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(&out)).expect("jpeg");
    use image::ImageDecoder;
    assert_eq!(decoder.orientation().expect("read"), image::metadata::Orientation::NoTransforms);
}

#[test]
fn none_keeps_nothing_but_the_profile() {
    let out = carry(plain_jpeg(true), &camera_jpeg(), MetadataOutput::None);
    assert_eq!(read(&out), Found::default());
    let mut decoder = image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(&out)).expect("jpeg");
    use image::ImageDecoder;
    assert!(decoder.icc_profile().expect("read").is_some());
    // Metadata an output already carried (a hosted model's) is replaced, not kept.
    let stamped = with_segments(&plain_jpeg(false), &[(0xE1, [EXIF_ID, &camera_exif()].concat())]);
    assert_eq!(read(&carry(stamped, b"not an image", MetadataOutput::Rights)), Found::default());
}

#[test]
fn iptc_and_exif_fill_in_where_xmp_is_silent() {
    let iptc_only = with_segments(&plain_jpeg(false), &[(0xED, camera_iptc("Atelier Nord"))]);
    assert_eq!(read(&iptc_only).rights().creator.as_deref(), Some("Atelier Nord"));
    let exif_only = with_segments(&plain_jpeg(false), &[(0xE1, [EXIF_ID, &camera_exif()].concat())]);
    let rights = read(&exif_only).rights();
    assert_eq!((rights.creator.as_deref(), rights.credit), (Some("Ines Calder"), None));
}

#[test]
fn a_png_carries_its_exif_and_xmp() {
    let mut png = Vec::new();
    image::RgbImage::new(4, 4).write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).expect("png");
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        c.extend_from_slice(&[0, 0, 0, 0]); // the CRC is not read
        c
    };
    let itxt = [b"XML:com.adobe.xmp\0\0\0\0\0".as_slice(), &camera_xmp()].concat();
    let at = png.len() - 12; // before IEND
    let extra = [chunk(b"eXIf", &camera_exif()), chunk(b"iTXt", &itxt)].concat();
    png.splice(at..at, extra);
    let rights = read(&png).rights();
    assert_eq!(rights.creator.as_deref(), Some("Ines Calder"));
    assert_eq!(rights.credit.as_deref(), Some("Maison Calder / Studio"));
}

#[test]
fn xmp_properties_are_read_in_each_form() {
    let xmp = r#"<rdf:Description dc:format="image/jpeg" photoshop:Credit="A &amp; B">
        <dc:creatorTool>Camera 1.0</dc:creatorTool>
        <dc:creator><rdf:Seq><rdf:li>Jo &#x00E9;</rdf:li><rdf:li>Second</rdf:li></rdf:Seq></dc:creator>
        <dc:rights>Plain text</dc:rights></rdf:Description>"#;
    assert_eq!(xmp_value(xmp, "photoshop:Credit").as_deref(), Some("A & B"));
    assert_eq!(xmp_value(xmp, "dc:creator").as_deref(), Some("Jo é"));
    assert_eq!(xmp_value(xmp, "dc:rights").as_deref(), Some("Plain text"));
    assert_eq!(xmp_value(xmp, "xmpRights:UsageTerms"), None);
    assert_eq!(MetadataOutput::parse("all"), Some(MetadataOutput::All));
    assert_eq!(MetadataOutput::parse("gps"), None);
    assert_eq!(MetadataOutput::default().as_str(), "rights");
}
