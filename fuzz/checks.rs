//! The fuzz targets' bodies, shared by the cargo-fuzz targets in `fuzz_targets/` and the
//! stable smoke test `crates/data/tests/it/fuzz_smoke.rs` (both include this file by path).
// Each target uses one of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use data::{cache, extract_pgn_reader, read_epd, ExtractOptions, Format, LoadOptions};
use fsutil::Compression;

/// Makes the calling thread rayon's only worker (the fuzz targets call it once, from
/// libFuzzer's initialisation, on the thread that runs every input). The readers use rayon;
/// with the default pool each input went to another thread and back, and on a loaded machine
/// most of an execution's time was that hand-over (waking a thread at `nice 19`). With the
/// caller as the pool's worker the parallel code runs inline: the same code, the same checks.
/// (`GRADTUNE_FUZZ_DEFAULT_POOL=1` keeps rayon's default pool, to measure the difference.)
pub fn one_thread() {
    if std::env::var_os("GRADTUNE_FUZZ_DEFAULT_POOL").is_some() {
        return;
    }
    // An error means a global pool exists already: nothing to do.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global();
}

/// The file a check writes its input to (`load` reads caches from files): one a thread, in
/// memory (`/dev/shm`) when there is one, rewritten by each input (a fresh temporary file per
/// input cost more than the check).
fn scratch_file() -> PathBuf {
    thread_local! {
        static PATH: PathBuf = {
            let shm = Path::new("/dev/shm");
            let dir = if shm.is_dir() {
                shm.to_path_buf()
            } else {
                std::env::temp_dir()
            };
            static THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = THREADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            dir.join(format!("gradtune-fuzz-{}-{n}.gtc", std::process::id()))
        };
    }
    PATH.with(|p| p.clone())
}

/// Arbitrary bytes through the EPD reader (both result conventions) and the format
/// detection: errors are fine, panics are not; every kept sample unpacks and prints.
pub fn epd_reader(bytes: &[u8]) {
    let _ = Format::detect(bytes);
    for stm_results in [false, true] {
        let opts = LoadOptions {
            stm_results,
            ..LoadOptions::default()
        };
        if let Ok((samples, report)) = read_epd(bytes, Path::new("<fuzz>"), &opts) {
            assert_eq!(samples.len() as u64, report.kept);
            for s in &samples {
                let _ = s.position().expect("a kept sample unpacks");
                let _ = s.to_epd();
            }
        }
    }
}

/// Arbitrary bytes through the PGN extractor (check skipping, de-duplication and sampling
/// on): errors are fine, panics are not; every kept sample unpacks.
pub fn pgn_extractor(bytes: &[u8]) {
    let opts = ExtractOptions {
        skip_check: true,
        dedup: true,
        max_per_game: Some(5),
        ..ExtractOptions::default()
    };
    if let Ok((samples, report)) = extract_pgn_reader(bytes, Path::new("<fuzz>"), &opts) {
        assert_eq!(samples.len() as u64, report.kept);
        for s in &samples {
            let _ = s.position().expect("a kept sample unpacks");
        }
    }
}

/// Arbitrary bytes through the binary cache reader, strict and not: errors are fine, panics
/// are not. A cache read is consistent with its report, lenient reading keeps at least what
/// strict reading keeps, the batch reader `load` uses (`CacheReader`, from a file) agrees with
/// the whole-buffer decoder, and the samples kept write and read back the same. Compressed
/// input (zstd, gzip) goes through `read_cache_bytes` first, from a file as `load` reads it.
pub fn cache_reader(bytes: &[u8]) {
    let _ = Format::detect(bytes);
    if Compression::detect(bytes) != Compression::Plain {
        if let Ok(plain) = with_file(bytes, cache::read_cache_bytes) {
            cache_bytes(&plain);
        }
        return;
    }
    cache_bytes(bytes);
}

/// `f` on the thread's scratch file holding `bytes`.
fn with_file<T>(bytes: &[u8], f: impl FnOnce(&Path) -> T) -> T {
    let path = scratch_file();
    std::fs::write(&path, bytes).expect("the scratch file");
    f(&path)
}

fn cache_bytes(bytes: &[u8]) {
    let path = Path::new("<fuzz>");
    let lenient = cache::from_bytes(path, bytes, false);
    let strict = cache::from_bytes(path, bytes, true);
    // (Bytes that start like a compressed file would be decompressed again by the file reader.)
    let plain = Compression::detect(bytes) == Compression::Plain;
    for (whole, strict) in [(&lenient, false), (&strict, true)]
        .into_iter()
        .filter(|_| plain)
    {
        let batches = with_file(bytes, |p| {
            cache::CacheReader::open(p, strict).and_then(|r| r.read_all())
        });
        match (whole, batches) {
            (Ok((a, ra)), Ok((b, rb))) => {
                assert_eq!(
                    cache::to_bytes(a),
                    cache::to_bytes(&b),
                    "batch reader differs"
                );
                assert_eq!((ra.kept, ra.errors), (rb.kept, rb.errors));
            }
            (Err(_), Err(_)) => {}
            (a, b) => panic!("whole read {:?}, batch read {:?}", a.is_ok(), b.is_ok()),
        }
    }
    let Ok((samples, report)) = lenient else {
        assert!(
            strict.is_err(),
            "strict reading accepts what lenient reading refuses"
        );
        return;
    };
    assert_eq!(samples.len() as u64, report.kept);
    assert!(report.kept <= report.read);
    if let Ok((strict_samples, _)) = &strict {
        assert_eq!(strict_samples.len(), samples.len());
    }
    for s in &samples {
        s.board.check().expect("a kept record passes the check");
        let _ = s.position();
        let _ = s.to_epd();
    }
    // Written back, the samples read back strictly, and write the same bytes again.
    let again = cache::to_bytes(&samples);
    let (back, back_report) = cache::from_bytes(path, &again, true).expect("written cache reads");
    assert_eq!(back_report.kept, report.kept);
    assert_eq!(cache::to_bytes(&back), again);
}

/// Arbitrary text through the weights-JSON reader: errors are fine (and print), panics are
/// not. Weights read are one finite value within `MAX_WEIGHT` per parameter, and write and read
/// back exactly (same model, same bits).
pub fn weights_json(bytes: &[u8]) {
    // `load_weights` reads files as UTF-8 text; other bytes never reach the parser.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    match eval::weights_from_json(text) {
        Ok((model, w)) => {
            assert_eq!(w.len(), model.len());
            assert!(w
                .iter()
                .all(|v| v.is_finite() && v.abs() <= eval::MAX_WEIGHT));
            let again = eval::weights_to_json(&model, &w);
            let (model2, w2) = eval::weights_from_json(&again).expect("written weights read");
            assert_eq!(model2.kind(), model.kind());
            let bits = |w: &[f64]| w.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&w2), bits(&w));
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
