//! Packs: instant and queued archives checked by independent zip readers (Python's zipfile, and
//! unzip, 7z and bsdtar through `studio_tests::archives`),
//! safe and distinct entry names, renditions turned upright, byte ranges, limits and expiry.

use std::process::Command;
use std::time::Duration;

use studio_client::api::{PackRequest, PackSize};
use studio_client::{Client, UploadOptions};
use studio_tests::images::{padded_png, png, rotated_jpeg};
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(instant_pack_is_a_valid_zip, queued_pack_is_built_and_announced, pack_limits_and_expiry);

async fn upload_named(client: &Client, name: &str, bytes: Vec<u8>) -> String {
    let opts = UploadOptions { name: Some(name.to_string()), ..UploadOptions::default() };
    client.upload_bytes("frame.bin", bytes, &opts).await.expect("upload").asset.id
}

/// Python's zipfile: test every entry's CRC and list `name size` (and image sizes for JPEGs
/// are read back with our own decoder below).
fn python_zip_listing(path: &std::path::Path) -> Vec<(String, u64)> {
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nbad = z.testzip()\nassert bad is None, bad\nfor i in z.infolist():\n    assert i.compress_type == zipfile.ZIP_STORED, i.filename\n    print(f'{i.file_size}\\t{i.filename}')\n";
    let out = Command::new("python3").arg("-c").arg(script).arg(path).output().expect("python3 runs");
    assert!(out.status.success(), "zipfile refused the archive: {}", String::from_utf8_lossy(&out.stderr));
    studio_tests::archives::assert_tools_accept(path);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (size, name) = l.split_once('\t').unwrap();
            (name.to_string(), size.parse().unwrap())
        })
        .collect()
}

fn read_entry(path: &std::path::Path, name: &str) -> Vec<u8> {
    let script = "import sys, zipfile\nsys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))";
    let out = Command::new("python3").arg("-c").arg(script).arg(path).arg(name).output().expect("python3 runs");
    assert!(out.status.success());
    out.stdout
}

async fn instant_pack_is_a_valid_zip(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "pack").await.key;
    let a = upload_named(&house, "Look", png(40, 20)).await;
    let b = upload_named(&house, "look", png(20, 40)).await;
    let c = upload_named(&house, "../../etc/passwd", png(10, 10)).await;
    let d = upload_named(&house, "Portrait", rotated_jpeg(60, 20)).await;
    let req = PackRequest {
        asset_ids: vec![a.clone(), b.clone(), c.clone(), d.clone(), a.clone(), "ast_missing".into()],
        name: Some("SS27 / selects".into()),
        sizes: vec![PackSize { name: "web".into(), width: 30, height: 30 }],
    };
    let pack = house.create_pack(&req).await.expect("pack");
    assert_eq!((pack.mode.as_str(), pack.status.as_str(), pack.items, pack.seconds), ("instant", "ready", 8, 0));
    assert_eq!(pack.filename, "SS27 _ selects.zip");
    assert_eq!(pack.href, format!("/api/toolkit/packs/{}/file", pack.pack_id));
    assert_eq!(house.get_pack(&pack.pack_id).await.unwrap(), pack);

    let path = app.data_dir.join("pack.zip");
    let mut last = (0, None);
    let written = house.download_pack(&pack.pack_id, &path, |w, t| last = (w, t)).await.expect("download");
    assert_eq!((written, last), (pack.bytes as u64, (pack.bytes as u64, Some(pack.bytes as u64))));
    let listing = python_zip_listing(&path);
    let names: Vec<&str> = listing.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 8);
    let mut lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    lower.sort();
    lower.dedup();
    assert_eq!(lower.len(), 8, "no two entries alike: {names:?}");
    for n in &names {
        assert!(!n.starts_with('/') && !n.contains("..") && !n.contains('\\'), "unsafe entry {n}");
    }
    assert!(names.contains(&"Look.png") && names.contains(&"look (2).png"), "{names:?}");
    assert!(names.contains(&"Portrait.jpg") && names.contains(&"web/Portrait.jpg"), "{names:?}");
    let original = read_entry(&path, "Look.png");
    assert_eq!(original, house.asset_bytes(&a).await.unwrap().to_vec(), "originals are byte-exact");
    let web = image::load_from_memory(&read_entry(&path, "web/Look.jpg")).unwrap();
    assert_eq!((web.width(), web.height()), (30, 15), "fitted inside the box, proportions kept");
    let upright = image::load_from_memory(&read_entry(&path, "web/Portrait.jpg")).unwrap();
    assert_eq!((upright.width(), upright.height()), (10, 30), "EXIF orientation applied before resizing");

    // One byte range.
    let http = reqwest::Client::new();
    let res = http
        .get(format!("{}{}", app.base, pack.href))
        .header("authorization", format!("Bearer {}", house.api_key().unwrap()))
        .header("range", "bytes=10-29")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 206);
    assert_eq!(res.headers()["content-range"], format!("bytes 10-29/{}", pack.bytes));
    let whole = std::fs::read(&path).unwrap();
    assert_eq!(res.bytes().await.unwrap().as_ref(), &whole[10..30]);

    let other = House::new(&app, "other").await.key;
    assert_eq!(other.get_pack(&pack.pack_id).await.unwrap_err().status(), Some(404));
    let none = other.create_pack(&PackRequest { asset_ids: vec![a.clone()], ..Default::default() }).await.unwrap_err();
    assert_eq!((none.status(), none.code()), (Some(404), Some("NOT_FOUND")), "none owned");
    assert_eq!(house.balance().await.unwrap().balance, 100, "packing is free");
}

async fn queued_pack_is_built_and_announced(backend: Backend) {
    let app = spawn(backend, |c| c.packs.instant_frames = 2).await.expect("app");
    let house = House::new(&app, "queued").await.key;
    let mut events = app.studio.events().subscribe();
    let mut ids = Vec::new();
    for i in 0..3 {
        ids.push(upload_named(&house, &format!("frame {i}"), png(8 + i, 8)).await);
    }
    let pack = house.create_pack(&PackRequest { asset_ids: ids.clone(), ..Default::default() }).await.expect("queued");
    assert_eq!((pack.mode.as_str(), pack.status.as_str(), pack.items), ("pack", "queued", 3));
    assert!(pack.seconds >= 1);
    let early = house.get_pack(&pack.pack_id).await.unwrap();
    assert!(matches!(early.status.as_str(), "queued" | "building" | "ready"));

    let event = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let e = events.recv().await.expect("bus open");
            let message = e.message();
            if message["type"] == "pack.ready" && message["pack"]["packId"] == pack.pack_id.as_str() {
                return message;
            }
        }
    })
    .await
    .expect("pack.ready within 30 s");
    assert_eq!(event["pack"]["status"], "ready");
    let ready = house.wait_for_pack(&pack.pack_id, Duration::from_millis(50), Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (ready.status.as_str(), ready.href.as_str()),
        ("ready", pack.href.as_str()),
        "the same href before and after"
    );
    let path = app.data_dir.join("queued.zip");
    house.download_pack(&pack.pack_id, &path, |_, _| {}).await.unwrap();
    let names: Vec<String> = python_zip_listing(&path).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["frame 0.png", "frame 1.png", "frame 2.png"]);
}

async fn pack_limits_and_expiry(backend: Backend) {
    let app = spawn(backend, |c| {
        c.packs.max_frames = 3;
        c.packs.link_days = 0;
    })
    .await
    .expect("app");
    let house = House::new(&app, "limits").await.key;
    let mut ids = Vec::new();
    for i in 0..4 {
        ids.push(upload_named(&house, &format!("f{i}"), png(6, 6)).await);
    }
    let e = house.create_pack(&PackRequest { asset_ids: ids.clone(), ..Default::default() }).await.unwrap_err();
    assert_eq!(
        (e.status(), e.code(), e.extra_i64("frames"), e.extra_i64("max")),
        (Some(413), Some("PACK_TOO_LARGE"), Some(4), Some(3))
    );
    let e = house.create_pack(&PackRequest::default()).await.unwrap_err();
    assert_eq!(e.code(), Some("BAD_ASSET_IDS"));
    let bad = PackRequest {
        asset_ids: ids[..1].to_vec(),
        name: None,
        sizes: vec![PackSize { name: "huge".into(), width: 100_000, height: 10 }],
    };
    assert_eq!(house.create_pack(&bad).await.unwrap_err().code(), Some("BAD_SIZES"));

    // A zero-day link lapses at once: the sweep removes the archive and the link says so.
    let pack = house.create_pack(&PackRequest { asset_ids: ids[..2].to_vec(), ..Default::default() }).await.unwrap();
    assert_eq!(pack.status, "ready");
    assert!(app.studio.library().sweep_packs().await.unwrap() >= 1);
    let gone = house.download_pack(&pack.pack_id, &app.data_dir.join("gone.zip"), |_, _| {}).await.unwrap_err();
    assert_eq!((gone.status(), gone.code()), (Some(404), Some("PACK_EXPIRED")));
    assert_eq!(house.get_pack(&pack.pack_id).await.unwrap().status, "expired");
    let archive = app.data_dir.join("blobs").join(format!(
        "orgs/{}/packs/{}.zip",
        house.session().await.unwrap().organization.id,
        pack.pack_id
    ));
    assert!(!archive.exists(), "the archive was swept");
}

/// Long-running (`STUDIO_LONG_TESTS=1`; ~13 GB of disk at peak): a queued pack holding more than
/// 4 GiB of entries is a valid zip64 archive that an independent reader accepts entry by entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zip64_pack_over_4_gib() {
    if std::env::var("STUDIO_LONG_TESTS").as_deref() != Ok("1") {
        eprintln!("skipped: set STUDIO_LONG_TESTS=1");
        return;
    }
    const FRAMES: usize = 360;
    const FRAME_BYTES: usize = 12_000_000;
    const FOUR_GIB: u64 = 4 * 1024 * 1024 * 1024;
    let app = spawn(Backend::Sqlite, |c| c.packs.max_bytes = 6 * 1024 * 1024 * 1024).await.expect("app");
    let key = House::new(&app, "zip64").await.secret;
    let house = Client::builder(&app.base).api_key(key).timeout(Duration::from_secs(3600)).build().expect("client");
    let scratch = app.data_dir.join("zip64");
    std::fs::create_dir_all(&scratch).unwrap();

    // Each frame is written to disk, streamed up, and removed: memory and disk stay low.
    let started = std::time::Instant::now();
    let mut ids = Vec::with_capacity(FRAMES);
    for i in 0..FRAMES {
        let path = scratch.join(format!("frame-{i:03}.png"));
        std::fs::write(&path, padded_png(i, FRAME_BYTES)).unwrap();
        let opts = UploadOptions { name: Some(format!("frame {i:03}")), ..UploadOptions::default() };
        let up = house.upload_file(&path, &opts).await.unwrap_or_else(|e| panic!("upload {i}: {e}"));
        assert_eq!((up.asset.mime.as_str(), up.asset.bytes), ("image/png", FRAME_BYTES as i64));
        std::fs::remove_file(&path).unwrap();
        ids.push(up.asset.id);
    }
    eprintln!("zip64: uploaded {FRAMES} x {FRAME_BYTES} bytes in {:.0?}", started.elapsed());
    let started = std::time::Instant::now();
    let pack = house.create_pack(&PackRequest { asset_ids: ids, ..Default::default() }).await.expect("pack");
    assert_eq!((pack.mode.as_str(), pack.items), ("pack", FRAMES as i64), "over the instant limits: queued");
    let ready = house.wait_for_pack(&pack.pack_id, Duration::from_secs(1), Duration::from_secs(1800)).await.unwrap();
    assert_eq!(ready.status, "ready", "built: {:?}", ready.error);
    assert!(ready.bytes as u64 > FOUR_GIB, "archive of {} bytes", ready.bytes);

    eprintln!("zip64: pack of {} bytes ready in {:.0?}", ready.bytes, started.elapsed());
    let started = std::time::Instant::now();
    let path = scratch.join("pack.zip");
    let written = house.download_pack(&pack.pack_id, &path, |_, _| {}).await.expect("download");
    assert_eq!(written, ready.bytes as u64);
    // Every entry's CRC, all Stored, the count and total size, and the zip64 end records: the
    // locator just before the end of central directory points at a zip64 end record.
    let script = "import sys, zipfile, os\np = sys.argv[1]\nz = zipfile.ZipFile(p)\ninfos = z.infolist()\n\
                  assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)\nbad = z.testzip()\n\
                  assert bad is None, bad\nsize = os.path.getsize(p)\nf = open(p, 'rb')\nf.seek(size - 22 - 20)\n\
                  loc = f.read(20)\nassert loc[:4] == b'PK\\x06\\x07', loc[:4]\n\
                  f.seek(int.from_bytes(loc[8:16], 'little'))\nassert f.read(4) == b'PK\\x06\\x06'\n\
                  print(len(infos), sum(i.file_size for i in infos), max(i.header_offset for i in infos))\n";
    let out = Command::new("python3").arg("-c").arg(script).arg(&path).output().expect("python3 runs");
    assert!(out.status.success(), "zipfile refused the archive: {}", String::from_utf8_lossy(&out.stderr));
    studio_tests::archives::assert_tools_accept(&path);
    let stdout = String::from_utf8(out.stdout).unwrap();
    eprintln!(
        "zip64: downloaded and checked in {:.0?}; entries, their bytes, last local header offset: {}",
        started.elapsed(),
        stdout.trim()
    );
    let fields: Vec<u64> = stdout.split_whitespace().map(|n| n.parse().unwrap()).collect();
    assert_eq!(fields[..2], [FRAMES as u64, (FRAMES * FRAME_BYTES) as u64], "entries and their total size");
    assert!(fields[1] > FOUR_GIB && fields[2] > u64::from(u32::MAX), "entries lie past 4 GiB: {fields:?}");
    let last = format!("frame {:03}.png", FRAMES - 1);
    assert!(read_entry(&path, &last) == padded_png(FRAMES - 1, FRAME_BYTES), "the last entry is byte-exact");

    std::fs::remove_dir_all(&scratch).unwrap();
    drop(app); // removes the data directory: the uploads and the archive
}
