//! SPSA: the parameters of a run, the batch a lease carries, the current values.

use crate::domain::{SpsaBatch, SpsaParam, SpsaPoint, SpsaSettings, SpsaValue};
use crate::pb;

impl From<SpsaParam> for pb::SpsaParam {
    fn from(p: SpsaParam) -> pb::SpsaParam {
        pb::SpsaParam {
            name: p.name,
            start: p.start,
            min: p.min,
            max: p.max,
            c_end: p.c_end,
            r_end: p.r_end,
            integer: p.integer,
        }
    }
}

impl From<pb::SpsaParam> for SpsaParam {
    fn from(p: pb::SpsaParam) -> SpsaParam {
        SpsaParam {
            name: p.name,
            start: p.start,
            min: p.min,
            max: p.max,
            c_end: p.c_end,
            r_end: p.r_end,
            integer: p.integer,
        }
    }
}

impl From<SpsaSettings> for pb::SpsaRun {
    fn from(s: SpsaSettings) -> pb::SpsaRun {
        pb::SpsaRun { pairs: s.pairs, params: s.params.into_iter().map(Into::into).collect() }
    }
}

/// Checked with the rest of the spec (`RunSpec::validate`).
impl From<pb::SpsaRun> for SpsaSettings {
    fn from(s: pb::SpsaRun) -> SpsaSettings {
        SpsaSettings { pairs: s.pairs, params: s.params.into_iter().map(Into::into).collect() }
    }
}

impl From<SpsaBatch> for pb::SpsaBatch {
    fn from(b: SpsaBatch) -> pb::SpsaBatch {
        pb::SpsaBatch {
            iteration: b.iteration,
            points: b
                .points
                .into_iter()
                .map(|p| pb::SpsaPoint { name: p.name, plus: p.plus, minus: p.minus, integer: p.integer })
                .collect(),
        }
    }
}

impl From<pb::SpsaBatch> for SpsaBatch {
    fn from(b: pb::SpsaBatch) -> SpsaBatch {
        SpsaBatch {
            iteration: b.iteration,
            points: b
                .points
                .into_iter()
                .map(|p| SpsaPoint { name: p.name, plus: p.plus, minus: p.minus, integer: p.integer })
                .collect(),
        }
    }
}

impl From<SpsaValue> for pb::SpsaValue {
    fn from(v: SpsaValue) -> pb::SpsaValue {
        pb::SpsaValue { name: v.name, start: v.start, value: v.value, min: v.min, max: v.max, integer: v.integer }
    }
}

impl From<pb::SpsaValue> for SpsaValue {
    fn from(v: pb::SpsaValue) -> SpsaValue {
        SpsaValue { name: v.name, start: v.start, value: v.value, min: v.min, max: v.max, integer: v.integer }
    }
}
