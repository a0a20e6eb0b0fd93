//! A tuning kept for a resumed campaign: `iteration-N/tuning.json` holds the tuning and what it
//! was made from (the base parameter set, the data runs and the tuner's settings). A campaign
//! run again on the same directory reads it back instead of tuning again, but only when it
//! would tune the same base on the same runs with the same settings; otherwise it tunes afresh
//! and overwrites it.

use std::path::{Path, PathBuf};

use engine::ParamSet;
use proto::domain::RunId;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::tuner::Tuning;

/// The file's layout version.
const VERSION: u64 = 1;

fn path(dir: &Path) -> PathBuf {
    dir.join("tuning.json")
}

/// Writes the tuning made from `base` on `runs` under `settings` (to a temporary file first,
/// then renamed, so a kill leaves the old file or the new one, never half of one).
pub fn write(dir: &Path, base: &ParamSet, runs: &[RunId], settings: &str, tuning: &Tuning) -> Result<()> {
    let value = json!({
        "version": VERSION,
        "base": base.to_toml(),
        "settings": settings,
        "runs": runs.iter().map(|r| r.get()).collect::<Vec<_>>(),
        "params": tuning.params.to_toml(),
        "train_positions": tuning.train_positions,
        "validation_positions": tuning.validation_positions,
        "k": tuning.k,
        "start_loss": [tuning.start_loss.0, tuning.start_loss.1],
        "end_loss": [tuning.end_loss.0, tuning.end_loss.1],
        "summary": tuning.summary,
    });
    let path = path(dir);
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(&value).map_err(|e| Error::file(&path, e))?;
    std::fs::write(&tmp, text).map_err(|e| Error::file(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::file(&path, e))
}

/// The tuning `dir` holds, if it was made from `base` on `runs` under `settings`. A file that
/// does not read is an error naming it (delete it to tune again), never silently replaced.
pub fn read(dir: &Path, base: &ParamSet, runs: &[RunId], settings: &str) -> Result<Option<Tuning>> {
    let path = path(dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::file(&path, e)),
    };
    let bad = |reason: &str| Error::file(&path, format!("{reason} (delete the file to tune again)"));
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    if value["version"].as_u64() != Some(VERSION) {
        return Err(bad(&format!("version {} where {VERSION} is read", value["version"])));
    }
    let same_runs = value["runs"].as_array().is_some_and(|stored| {
        stored.len() == runs.len() && stored.iter().zip(runs).all(|(s, r)| s.as_u64() == Some(r.get()))
    });
    let same_settings = value["settings"].as_str() == Some(settings);
    if value["base"].as_str() != Some(base.to_toml().as_str()) || !same_runs || !same_settings {
        return Ok(None);
    }
    let text_of = |key: &str| value[key].as_str().ok_or_else(|| bad(&format!("no `{key}`")));
    let number = |key: &str| value[key].as_f64().ok_or_else(|| bad(&format!("no number `{key}`")));
    let count = |key: &str| {
        value[key].as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| bad(&format!("no count `{key}`")))
    };
    let pair = |key: &str| match (value[key][0].as_f64(), value[key][1].as_f64()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(bad(&format!("no pair of losses `{key}`"))),
    };
    let params =
        ParamSet::from_toml_str(text_of("params")?).map_err(|e| bad(&format!("its parameters do not read: {e}")))?;
    Ok(Some(Tuning {
        params,
        train_positions: count("train_positions")?,
        validation_positions: count("validation_positions")?,
        k: number("k")?,
        start_loss: pair("start_loss")?,
        end_loss: pair("end_loss")?,
        summary: text_of("summary")?.to_owned(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuning() -> Tuning {
        let mut params = ParamSet::default();
        params.set("search.lmr_div", 300).expect("a search parameter");
        Tuning {
            params,
            train_positions: 900,
            validation_positions: 100,
            k: 1.25,
            start_loss: (0.2, 0.21),
            end_loss: (0.1, 0.11),
            summary: "two\nlines\n".into(),
        }
    }

    #[test]
    fn a_tuning_reads_back_only_for_its_own_base_and_runs() {
        let dir = tempfile::tempdir().expect("a directory");
        let base = ParamSet::default();
        let runs = [RunId::new(1), RunId::new(3)];
        assert_eq!(read(dir.path(), &base, &runs, "lr 1").expect("no file is no tuning"), None);
        write(dir.path(), &base, &runs, "lr 1", &tuning()).expect("written");
        assert_eq!(read(dir.path(), &base, &runs, "lr 1").expect("reads"), Some(tuning()));
        assert_eq!(read(dir.path(), &base, &runs[..1], "lr 1").expect("other runs"), None);
        assert_eq!(read(dir.path(), &tuning().params, &runs, "lr 1").expect("another base"), None);
        assert_eq!(read(dir.path(), &base, &runs, "lr 2").expect("other settings"), None);
    }

    #[test]
    fn a_damaged_file_is_named_not_replaced() {
        let dir = tempfile::tempdir().expect("a directory");
        std::fs::write(dir.path().join("tuning.json"), "{\"version\": 1, \"base\": ").expect("written");
        let error = read(dir.path(), &ParamSet::default(), &[], "").expect_err("half a file");
        let text = error.to_string();
        assert!(text.contains("tuning.json") && text.contains("delete the file to tune again"), "{text}");
    }
}
