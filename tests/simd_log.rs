//! `note_simd_support` logs once per process through `log` (feature `log`),
//! and building a crowd is what calls it first in a game.
#![cfg(feature = "log")]

use std::sync::Mutex;

static RECORDS: Mutex<Vec<(log::Level, String)>> = Mutex::new(Vec::new());

struct Capture;
impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, r: &log::Record) {
        RECORDS
            .lock()
            .unwrap()
            .push((r.level(), r.args().to_string()));
    }
    fn flush(&self) {}
}

#[test]
fn logs_once_naming_the_path() {
    log::set_logger(&Capture).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    // Two crowds built: the first logs (a warning in a slow build), the
    // second and the explicit calls after it do not.
    let library = kineform::crowd::ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    let cfg = kineform::crowd::CrowdConfig {
        characters: 8,
        ..Default::default()
    };
    for _ in 0..2 {
        kineform::crowd::Crowd::new(&library, cfg.clone()).unwrap();
    }
    assert_eq!(
        RECORDS.lock().unwrap().len(),
        1,
        "logged when the crowd was built"
    );
    let a = kineform::note_simd_support();
    let b = kineform::note_simd_support();
    assert_eq!(a, b);
    let records = RECORDS.lock().unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    let (level, text) = &records[0];
    if a.faster_available() {
        assert_eq!(*level, log::Level::Warn);
        assert!(text.contains(a.compiled) && text.contains(a.cpu), "{text}");
    } else {
        assert_eq!(*level, log::Level::Debug);
        assert!(text.contains(a.compiled), "{text}");
    }
}
