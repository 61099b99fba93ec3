//! One check of a develop's options per local tool, made before anything is held: each arm
//! calls the very function its tool reads its options with (`frame::reframe_options`,
//! `frame::packshot_options`, `tone::harmonize_strength`, `tone::target_colour`,
//! `retouch::iron_strength`, `lens::lens_options`, `compose::Settings::parse`), so the submit's
//! answer and the develop's cannot drift apart. A refusal names the option and the forms it
//! accepts. upscale and cleanup read no option.

use std::collections::BTreeMap;

use crate::api::Quality;

use super::ops::Result;
use super::{Params, compose, frame, lens, retouch, tone};

/// Check `tool`'s options `params` for a develop at `quality` whose inputs have the roles
/// `roles`. Options a tool does not read are ignored, as the tool ignores them.
pub(crate) fn check(tool: &str, params: &BTreeMap<String, String>, quality: Quality, roles: &[&str]) -> Result<()> {
    let params = Params(params);
    let long_edge = quality.long_edge();
    match tool {
        "reframe" => frame::reframe_options(&params, long_edge).map(drop),
        "packshot" => frame::packshot_options(&params, roles.contains(&"background")).map(drop),
        "harmonize" => tone::harmonize_strength(&params).map(drop),
        "color-change" => tone::target_colour(&params).map(drop),
        "iron" => retouch::iron_strength(&params).map(drop),
        "camera-lens" => lens::lens_options(&params).map(drop),
        "lookbook" => {
            let garments = roles.iter().filter(|r| **r == "garment").count();
            compose::Settings::parse(&params, garments, long_edge).map(drop)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::ProviderError;

    fn refusal(tool: &str, pairs: &[(&str, &str)], roles: &[&str]) -> String {
        let params: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        match check(tool, &params, Quality::K1, roles) {
            Err(ProviderError::Rejected(why)) => why,
            other => panic!("{tool} {pairs:?}: expected a refusal, got {other:?}"),
        }
    }

    fn accepted(tool: &str, pairs: &[(&str, &str)], roles: &[&str]) {
        let params: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        check(tool, &params, Quality::K1, roles).unwrap_or_else(|e| panic!("{tool} {pairs:?}: {e}"));
    }

    #[test]
    fn every_tool_refuses_what_it_cannot_read_and_names_the_forms() {
        let why = refusal("packshot", &[("ground", "bone")], &["image"]);
        assert!(why.contains("params.ground") && why.contains("#rrggbb") && why.contains("navy"), "{why}");
        assert!(why.contains("\"bone\""), "{why}");
        let why = refusal("packshot", &[("bg", "image")], &["image"]);
        assert!(why.contains("no background input"), "{why}");
        assert!(refusal("packshot", &[("margin", "2")], &["image"]).contains("from 0 to 0.4"));
        assert!(refusal("packshot", &[("aspect", "wide")], &["image"]).contains("W:H"));
        assert!(refusal("reframe", &[], &["image"]).contains("params.aspect"));
        assert!(refusal("reframe", &[("aspect", "1:1"), ("mode", "sideways")], &["image"]).contains("crop, extend"));
        assert!(refusal("harmonize", &[("strength", "lots")], &["image"]).contains("from 0 to 1"));
        assert!(refusal("color-change", &[], &["image"]).contains("#rrggbb"));
        assert!(refusal("color-change", &[("color", "sky")], &["image"]).contains("teal"));
        assert!(refusal("iron", &[("strength", "-1")], &["image"]).contains("params.strength"));
        assert!(refusal("camera-lens", &[("focus", "middle")], &["image"]).contains("x,y"));
        let why = refusal("lookbook", &[("itemRoles", "top"), ("ground", "beige")], &["model", "garment"]);
        assert!(why.contains("white, bone, dove, charcoal, black"), "{why}");
        let why = refusal("lookbook", &[("itemRoles", "top,shoes")], &["model", "garment"]);
        assert!(why.contains("2 roles but there are 1"), "{why}");
    }

    #[test]
    fn what_the_tools_read_is_accepted() {
        accepted("upscale", &[("anything", "goes")], &["image"]);
        accepted("cleanup", &[], &["image", "mask"]);
        accepted("packshot", &[("ground", "#F2EDE4"), ("margin", "0.1"), ("runId", "r1")], &["image"]);
        accepted("packshot", &[("bg", "image")], &["image", "background"]);
        accepted("packshot", &[("ground", "navy"), ("aspect", "4:5")], &["image"]);
        accepted("reframe", &[("aspect", "4:5"), ("mode", "crop")], &["image"]);
        accepted("reframe", &[("width", "300"), ("height", "500")], &["image"]);
        accepted("harmonize", &[("strength", "0.3")], &["image"]);
        accepted("color-change", &[("colour", "#a35")], &["image"]);
        accepted("iron", &[], &["image"]);
        accepted("camera-lens", &[("focus", "0.3,0.6"), ("aperture", "1")], &["image"]);
        accepted("lookbook", &[("itemRoles", "top,shoes"), ("ground", "bone")], &["model", "garment", "garment"]);
    }
}
