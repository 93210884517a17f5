//! Data-driven: the specification's own examples and our 2025-11-25
//! fixtures, read by the generated types.
//!
//! Every example under `schema/2026-07-28/examples/<Type>/*.json` must decode
//! into `v2026_07_28::<Type>`, into the neutral type of that name and, for a
//! message, into the right variant of its union or result enum, and
//! re-encode to the same JSON. Broken copies derived from the schema (a
//! required field dropped, an unknown value for a closed string, the other
//! `resultType`) must be rejected. The fixtures of `roundtrip/` get the
//! same treatment through the `v2025_11_25` types.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

#[path = "examples/codec.rs"]
mod codec;
#[path = "examples/fixtures.rs"]
mod fixtures;
#[path = "examples/mutate.rs"]
mod mutate;
#[path = "examples/official.rs"]
mod official;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use codec::{Check, Outcome};
use mutate::{Kind, Mutant, Schema};

/// A value to read, with the checks that must accept it.
struct Sample<'a> {
    /// `folder/file.json` or `fixture.json::case`, for failure messages.
    name: String,
    /// The schema `$defs` entry the value is.
    def: String,
    value: Value,
    checks: &'a [Check],
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/2026-07-28/examples")
}

/// The example files of one folder, sorted.
fn example_files(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn official_samples(folders: &[official::Folder]) -> Vec<Sample<'_>> {
    let mut samples = Vec::new();
    for folder in folders {
        for path in example_files(folder.name) {
            let file = path.file_name().unwrap().to_string_lossy();
            samples.push(Sample {
                name: format!("{}/{file}", folder.name),
                def: folder.name.to_owned(),
                value: serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap(),
                checks: &folder.checks,
            });
        }
    }
    samples
}

/// Every check must read every sample back to the same JSON; returns the
/// number of (sample, check) pairs.
fn assert_round_trips(samples: &[Sample<'_>]) -> usize {
    let mut failures = Vec::new();
    let mut count = 0;
    for sample in samples {
        for check in sample.checks {
            count += 1;
            let expected = sample.value.pointer(check.at).unwrap();
            match check.read(&sample.value) {
                Outcome::Decoded(back) if &back == expected => {}
                Outcome::Decoded(back) => failures.push(format!(
                    "{} as {}: re-encodes differently\n  expected {expected}\n       got {back}",
                    sample.name, check.what
                )),
                Outcome::Rejected(e) => {
                    failures.push(format!("{} as {}: rejected: {e}", sample.name, check.what))
                }
                Outcome::Wrong(e) => {
                    failures.push(format!("{} as {}: {e}", sample.name, check.what))
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} reads failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    count
}

/// Whether a check must reject `mutant`: the neutral types require a field
/// only where every revision's schema does (`neutral_requires`).
fn judges(check: &Check, mutant: &Mutant, neutral_requires: &dyn Fn(&Mutant) -> bool) -> bool {
    if !check.judges || !mutant.pointer.starts_with(check.at) {
        return false;
    }
    !check.neutral || mutant.kind != Kind::DropRequired || neutral_requires(mutant)
}

/// Every broken copy of every sample must be rejected by every check that
/// judges it; returns the number of copies per kind, and of reads that
/// rejected one.
fn assert_rejections(
    schema: &Schema,
    samples: &[Sample<'_>],
    neutral_requires: &dyn Fn(&Mutant) -> bool,
) -> (BTreeMap<Kind, usize>, usize) {
    let mut failures = Vec::new();
    let mut counts = BTreeMap::new();
    let mut reads = 0;
    for sample in samples {
        for mutant in schema.mutants(&sample.def, &sample.value) {
            *counts.entry(mutant.kind).or_insert(0) += 1;
            for check in sample.checks {
                if !judges(check, &mutant, neutral_requires) {
                    continue;
                }
                reads += 1;
                match check.read(&mutant.value) {
                    Outcome::Rejected(_) => {}
                    Outcome::Decoded(back) => failures.push(format!(
                        "{} with {} ({:?}): {} accepts it, re-encoding {back}",
                        sample.name, mutant.what, mutant.kind, check.what
                    )),
                    Outcome::Wrong(e) => failures.push(format!(
                        "{} with {} ({:?}): {}: {e}",
                        sample.name, mutant.what, mutant.kind, check.what
                    )),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} broken copies were not rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (counts, reads)
}

#[test]
fn every_example_folder_is_known() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let folders = official::folders();
    let known: BTreeSet<String> = folders.iter().map(|f| f.name.to_owned()).collect();
    assert_eq!(known.len(), folders.len(), "a folder is listed twice");
    let unknown: Vec<_> = on_disk.difference(&known).collect();
    assert!(
        unknown.is_empty(),
        "example folders the test does not know (add them to examples/official.rs): {unknown:?}"
    );
    let gone: Vec<_> = known.difference(&on_disk).collect();
    assert!(
        gone.is_empty(),
        "listed folders that do not exist: {gone:?}"
    );
    for folder in &folders {
        assert!(
            !example_files(folder.name).is_empty(),
            "{}: no example",
            folder.name
        );
        assert!(
            Schema::get("2026-07-28").has_def(folder.name),
            "{}: not a `$defs` entry of the schema",
            folder.name
        );
    }
}

#[test]
fn official_examples_round_trip() {
    let folders = official::folders();
    let samples = official_samples(&folders);
    let reads = assert_round_trips(&samples);
    eprintln!(
        "{} examples in {} folders, {reads} reads",
        samples.len(),
        folders.len()
    );
}

#[test]
fn official_examples_reject_broken_copies() {
    let folders = official::folders();
    let samples = official_samples(&folders);
    let older = Schema::get("2025-11-25");
    let (counts, reads) = assert_rejections(Schema::get("2026-07-28"), &samples, &|m| {
        neutral_requires(older, m)
    });
    eprintln!("broken copies: {counts:?}, {reads} reads rejected them");
    for kind in [
        Kind::DropRequired,
        Kind::UnknownEnum,
        Kind::UnknownResultType,
        Kind::OtherResultType,
    ] {
        assert!(
            counts.get(&kind).copied().unwrap_or(0) > 0,
            "no {kind:?} copy"
        );
    }
}

/// Whether the neutral types require the field `mutant` dropped. They are
/// the revisions merged, a field required only where every revision that
/// has the def requires it: a def of the newer revision alone keeps its
/// required fields, one the older has too only those both require. A
/// `_meta` is an open object in the neutral types (the older revision's
/// form, the merge rule for open objects), so the newer revision's required
/// `_meta` keys are not required there.
fn neutral_requires(older: &Schema, mutant: &Mutant) -> bool {
    let Some(owner) = &mutant.owner else {
        return false;
    };
    if mutant.pointer.split('/').any(|segment| segment == "_meta") {
        return false;
    }
    let field = mutant.what.rsplit('/').next().unwrap();
    !older.has_def(owner)
        || older.def(owner)["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|f| f == field))
}

#[test]
fn fixtures_2025_round_trip_as_v2025_11_25() {
    let cases = fixtures::cases();
    let samples: Vec<Sample<'_>> = cases.iter().flat_map(fixtures::Case::samples).collect();
    let reads = assert_round_trips(&samples);
    eprintln!("{} fixture samples, {reads} reads", samples.len());
}

#[test]
fn fixtures_2025_reject_broken_copies() {
    let cases = fixtures::cases();
    let samples: Vec<Sample<'_>> = cases.iter().flat_map(fixtures::Case::samples).collect();
    let (counts, reads) = assert_rejections(Schema::get("2025-11-25"), &samples, &|_| true);
    eprintln!("broken copies: {counts:?}, {reads} reads rejected them");
    for kind in [Kind::DropRequired, Kind::UnknownEnum] {
        assert!(
            counts.get(&kind).copied().unwrap_or(0) > 0,
            "no {kind:?} copy"
        );
    }
}
