//! The options an engine advertises in its handshake, and the check of every option the
//! arbiter is asked to set against them. Pure functions.
//!
//! UCI writes `option name Move Overhead type spin default 30 min 0 max 5000` (a name may hold
//! spaces); UCCI writes `option hashsize type spin min 1 max 65536 default 16` (one word; in
//! UCCI Fairy-Stockfish spells `Move Overhead` as `Move_Overhead`). Names compare without
//! case, as Stockfish compares them, and in UCCI an underscore matches a space.
//!
//! An option the engine did not advertise is refused, naming it; so is a value its type does
//! not admit (a spin outside its range, a check that is not `true`/`false`, a combo value it
//! does not list). The arbiter plays xiangqi only, so `UCI_Variant` may only be `xiangqi`.

use proto::domain::EngineProtocol;

/// What kind of value an advertised option takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer; bounds as advertised (an engine may leave them out).
    Spin {
        min: Option<i64>,
        max: Option<i64>,
    },
    Check,
    Combo {
        vars: Vec<String>,
    },
    Button,
    String,
}

impl OptionKind {
    fn as_str(&self) -> &'static str {
        match self {
            OptionKind::Spin { .. } => "spin",
            OptionKind::Check => "check",
            OptionKind::Combo { .. } => "combo",
            OptionKind::Button => "button",
            OptionKind::String => "string",
        }
    }
}

/// One `option` line of the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdvertisedOption {
    pub name: String,
    pub kind: OptionKind,
    pub default: Option<String>,
}

/// The range of a spin option, for tuning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpinRange {
    pub default: Option<i64>,
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// The option an `option ...` line advertises; `None` for any other line, or an `option`
/// line without a name or a known type.
pub fn parse_option_line(line: &str) -> Option<AdvertisedOption> {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let rest = words.strip_prefix(&["option"][..])?;
    let type_at = rest.iter().position(|w| *w == "type")?;
    let name_words = match rest.first() {
        Some(&"name") => &rest[1..type_at],
        _ => &rest[..type_at],
    };
    if name_words.is_empty() {
        return None;
    }
    let name = name_words.join(" ");
    let after = &rest[type_at + 1..];
    let (kind_word, fields) = after.split_first()?;
    // The values of `default`, `min`, `max` and each `var`, up to the next keyword.
    let mut default = None;
    let (mut min, mut max, mut vars) = (None, None, Vec::new());
    let mut i = 0;
    while i < fields.len() {
        let key = fields[i];
        let end = fields[i + 1..]
            .iter()
            .position(|w| matches!(*w, "default" | "min" | "max" | "var"))
            .map_or(fields.len(), |p| i + 1 + p);
        let value = fields[i + 1..end].join(" ");
        match key {
            "default" => default = Some(value),
            "min" => min = value.parse().ok(),
            "max" => max = value.parse().ok(),
            "var" => vars.push(value),
            _ => {}
        }
        i = end;
    }
    let kind = match *kind_word {
        "spin" => OptionKind::Spin { min, max },
        "check" => OptionKind::Check,
        "combo" => OptionKind::Combo { vars },
        "button" => OptionKind::Button,
        "string" => OptionKind::String,
        _ => return None,
    };
    Some(AdvertisedOption { name, kind, default })
}

fn same_name(advertised: &str, asked: &str, protocol: EngineProtocol) -> bool {
    let fold = |s: &str| {
        let lower = s.to_ascii_lowercase();
        if protocol == EngineProtocol::Ucci { lower.replace(' ', "_") } else { lower }
    };
    fold(advertised) == fold(asked)
}

/// The advertised option called `name`, if any.
pub fn find_option<'a>(
    advertised: &'a [AdvertisedOption],
    name: &str,
    protocol: EngineProtocol,
) -> Option<&'a AdvertisedOption> {
    advertised.iter().find(|o| same_name(&o.name, name, protocol))
}

/// Why setting `name` to `value` is refused, or the advertised option it sets (whose
/// spelling is the one to send).
pub fn check_setting<'a>(
    advertised: &'a [AdvertisedOption],
    name: &str,
    value: &str,
    protocol: EngineProtocol,
) -> Result<&'a AdvertisedOption, String> {
    let option = find_option(advertised, name, protocol).ok_or_else(|| not_advertised(advertised))?;
    match &option.kind {
        OptionKind::Spin { min, max } => {
            let n: i64 =
                value.trim().parse().map_err(|_| format!("`{value}` is not an integer (it is a spin option)"))?;
            if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                return Err(format!("{n} is outside its range {}", range_text(*min, *max)));
            }
        }
        OptionKind::Check if !matches!(value, "true" | "false") => {
            return Err(format!("`{value}` is neither `true` nor `false` (it is a check option)"));
        }
        OptionKind::Combo { vars } if !vars.iter().any(|v| v.eq_ignore_ascii_case(value)) => {
            return Err(format!("`{value}` is not one of its {} values", vars.len()));
        }
        OptionKind::Button if !value.is_empty() => {
            return Err(format!("it is a button and takes no value (given `{value}`)"));
        }
        _ => {}
    }
    if option.name.eq_ignore_ascii_case("UCI_Variant") && !value.eq_ignore_ascii_case("xiangqi") {
        return Err(format!("the arbiter plays xiangqi only (given `{value}`)"));
    }
    Ok(option)
}

/// The range of the spin option `name`; an option not advertised, or not a spin, is refused.
pub fn spin_range(advertised: &[AdvertisedOption], name: &str, protocol: EngineProtocol) -> Result<SpinRange, String> {
    let option = find_option(advertised, name, protocol).ok_or_else(|| not_advertised(advertised))?;
    match option.kind {
        OptionKind::Spin { min, max } => {
            Ok(SpinRange { default: option.default.as_deref().and_then(|d| d.parse().ok()), min, max })
        }
        ref other => Err(format!("it is a {} option, not a spin option", other.as_str())),
    }
}

fn range_text(min: Option<i64>, max: Option<i64>) -> String {
    let bound = |b: Option<i64>| b.map_or_else(String::new, |b| b.to_string());
    format!("{}..={}", bound(min), bound(max))
}

/// The refusal of an option the engine did not advertise, with the first few it did.
fn not_advertised(advertised: &[AdvertisedOption]) -> String {
    const SHOWN: usize = 12;
    if advertised.is_empty() {
        return "the engine advertised no options".to_owned();
    }
    let names: Vec<&str> = advertised.iter().take(SHOWN).map(|o| o.name.as_str()).collect();
    let more = advertised.len().saturating_sub(SHOWN);
    let mut text = format!("the engine did not advertise it (it advertises {}", names.join(", "));
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text.push(')');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const UCI: EngineProtocol = EngineProtocol::Uci;
    const UCCI: EngineProtocol = EngineProtocol::Ucci;

    fn parse(line: &str) -> AdvertisedOption {
        parse_option_line(line).unwrap_or_else(|| panic!("not an option: {line}"))
    }

    #[test]
    fn option_lines_of_both_protocols() {
        let hash = parse("option name Hash type spin default 16 min 1 max 131072");
        assert_eq!(hash.name, "Hash");
        assert_eq!(hash.kind, OptionKind::Spin { min: Some(1), max: Some(131_072) });
        assert_eq!(hash.default.as_deref(), Some("16"));
        assert_eq!(parse("option name Clear Hash type button").kind, OptionKind::Button);
        assert_eq!(parse("option name Move Overhead type spin default 30 min 0 max 5000").name, "Move Overhead");
        // UCCI: the name is one word, and the fields come in any order.
        let ucci = parse("option hashsize type spin min 1 max 65536 default 16");
        assert_eq!((ucci.name.as_str(), ucci.default.as_deref()), ("hashsize", Some("16")));
        assert_eq!(ucci.kind, OptionKind::Spin { min: Some(1), max: Some(65_536) });
        let combo = parse("option UCI_Variant type combo default xiangqi var 3check var xiangqi");
        assert_eq!(combo.kind, OptionKind::Combo { vars: vec!["3check".into(), "xiangqi".into()] });
        assert_eq!(parse("option name SyzygyPath type string default <empty>").kind, OptionKind::String);
        assert_eq!(parse("option name Debug Log File type string default ").default.as_deref(), Some(""));
        for not_one in ["id name x", "option", "option name type spin", "option name X type colour", "options x"] {
            assert_eq!(parse_option_line(not_one), None, "{not_one}");
        }
    }

    fn fairy_uci() -> Vec<AdvertisedOption> {
        [
            "option name Threads type spin default 1 min 1 max 512",
            "option name Hash type spin default 16 min 1 max 131072",
            "option name Clear Hash type button",
            "option name Ponder type check default false",
            "option name Move Overhead type spin default 30 min 0 max 5000",
            "option name UCI_Variant type combo default chess var chess var xiangqi",
        ]
        .into_iter()
        .map(parse)
        .collect()
    }

    #[test]
    fn settings_are_checked_against_what_was_advertised() {
        let opts = fairy_uci();
        assert_eq!(check_setting(&opts, "Hash", "16", UCI).map(|o| o.name.as_str()), Ok("Hash"));
        assert_eq!(check_setting(&opts, "threads", "1", UCI).map(|o| o.name.as_str()), Ok("Threads"));
        assert!(check_setting(&opts, "Clear Hash", "", UCI).is_ok());
        assert!(check_setting(&opts, "Ponder", "true", UCI).is_ok());
        assert!(check_setting(&opts, "UCI_Variant", "xiangqi", UCI).is_ok());
        for (name, value, why) in [
            ("Hashh", "16", "did not advertise it (it advertises Threads, Hash, Clear Hash"),
            ("Hash", "0", "0 is outside its range 1..=131072"),
            ("Hash", "big", "`big` is not an integer"),
            ("Ponder", "yes", "neither `true` nor `false`"),
            ("Clear Hash", "1", "takes no value"),
            ("UCI_Variant", "shogi", "not one of its 2 values"),
            ("UCI_Variant", "chess", "xiangqi only"),
            // In UCI an underscore is not a space.
            ("Move_Overhead", "10", "did not advertise it"),
        ] {
            let error = check_setting(&opts, name, value, UCI).expect_err(name);
            assert!(error.contains(why), "{name}={value}: {error}");
        }
        // In UCCI it is (Fairy-Stockfish advertises `Move_Overhead` there).
        assert!(check_setting(&opts, "Move_Overhead", "10", UCCI).is_ok());
        assert_eq!(check_setting(&[], "Hash", "1", UCI), Err("the engine advertised no options".to_owned()));
    }

    #[test]
    fn only_spin_options_have_a_range() {
        let opts = fairy_uci();
        assert_eq!(
            spin_range(&opts, "Move Overhead", UCI),
            Ok(SpinRange { default: Some(30), min: Some(0), max: Some(5000) })
        );
        assert_eq!(spin_range(&opts, "Ponder", UCI), Err("it is a check option, not a spin option".to_owned()));
        assert!(spin_range(&opts, "Contempt", UCI).expect_err("absent").contains("did not advertise"));
    }
}
