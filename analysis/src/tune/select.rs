//! Which parameters the tuner may move: all, or only some evaluation groups
//! (`--only material,mobility`), minus frozen ones (`--freeze relations`).

use engine::eval::{Group, NUM_PARAMS, Params, TERMS};

use crate::error::{Error, Result};

/// The evaluation groups, in the order their first term is declared.
pub fn groups() -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for term in TERMS {
        if !groups.contains(&term.group) {
            groups.push(term.group);
        }
    }
    groups
}

/// Reads a comma-separated list of group names (`material,mobility`; case-insensitive, spaces
/// allowed), refusing an unknown name.
pub fn parse_groups(text: &str) -> Result<Vec<Group>> {
    let known = groups();
    let mut chosen = Vec::new();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let group =
            known.iter().copied().find(|g| g.name().eq_ignore_ascii_case(name)).ok_or_else(|| Error::UnknownGroup {
                name: name.to_owned(),
                expected: known.iter().map(|g| g.name()).collect::<Vec<_>>().join(", "),
            })?;
        if !chosen.contains(&group) {
            chosen.push(group);
        }
    }
    Ok(chosen)
}

/// A trainable flag per parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    trainable: Vec<bool>,
}

impl Default for Selection {
    fn default() -> Selection {
        Selection::all()
    }
}

impl Selection {
    /// Every parameter moves.
    pub fn all() -> Selection {
        Selection { trainable: vec![true; NUM_PARAMS] }
    }

    /// Only the parameters of these groups move.
    pub fn only(groups: &[Group]) -> Selection {
        Selection {
            trainable: (0..NUM_PARAMS).map(|i| Params::group_of(i).is_some_and(|g| groups.contains(&g))).collect(),
        }
    }

    /// The same selection with the parameters of these groups frozen.
    pub fn freeze(mut self, groups: &[Group]) -> Selection {
        for (i, t) in self.trainable.iter_mut().enumerate() {
            if Params::group_of(i).is_some_and(|g| groups.contains(&g)) {
                *t = false;
            }
        }
        self
    }

    /// The same selection with single parameters frozen (by index).
    pub fn freeze_params(mut self, indices: impl IntoIterator<Item = usize>) -> Selection {
        for i in indices {
            if let Some(t) = self.trainable.get_mut(i) {
                *t = false;
            }
        }
        self
    }

    /// Whether parameter `i` moves (`false` beyond the parameters).
    pub fn is_trainable(&self, i: usize) -> bool {
        self.trainable.get(i).copied().unwrap_or(false)
    }

    /// How many parameters move.
    pub fn count(&self) -> usize {
        self.trainable.iter().filter(|&&t| t).count()
    }

    pub(crate) fn flags(&self) -> &[bool] {
        &self.trainable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_lists_parse_and_select() -> Result<()> {
        assert_eq!(parse_groups("material, Mobility,material")?, vec![Group::Material, Group::Mobility]);
        let err = parse_groups("material,king").expect_err("unknown group").to_string();
        assert!(err.contains("`king`") && err.contains("relations"), "{err}");
        assert_eq!(groups().len(), 5);

        let only = Selection::only(&[Group::Material]);
        assert_eq!(only.count(), 12, "six pieces, mg and eg");
        let rook_mg = Params::index_of("material.rook.mg").expect("declared");
        assert!(only.is_trainable(rook_mg) && !only.is_trainable(rook_mg + 100) && !only.is_trainable(NUM_PARAMS));
        let frozen = Selection::all().freeze(&[Group::Material]).freeze_params([NUM_PARAMS - 1]);
        assert_eq!(frozen.count(), NUM_PARAMS - 13);
        Ok(())
    }
}
