//! The composer's vocabulary as plain data (`02-route-groups.md` §2.1, §2.2, §4.4): every name a
//! look, a standing preset or a factory line may use. The core checks requests against these
//! lists (`lookbook::vocabulary` in the engine) and the OpenAPI document shows them as enums;
//! studio-client sees them without the engine.

/// What a piece is in a look, in the order the composer layers them.
pub const ITEM_ROLES: [&str; 8] = ["dress", "bottom", "top", "outerwear", "shoes", "bag", "accessory", "jewelry"];

/// The most pieces one look holds.
pub const MAX_ITEMS_PER_LOOK: usize = 8;

/// The composer's presets: (key, what it does).
pub const AESTHETICS: [(&str, &str); 6] = [
    ("editorial", "Magazine light: soft key, deep shadow, a little grain"),
    ("minimal", "Flat even light on a clean ground; nothing competes with the clothes"),
    ("classic", "Warm studio light with a gentle falloff"),
    ("street", "Hard daylight and contrast"),
    ("romantic", "Low contrast, warm tones, lifted blacks"),
    ("noir", "Monochrome, high contrast"),
];

/// Variation keys: (key, name, what the frame holds).
pub const VARIATIONS: [(&str, &str, &str); 6] = [
    ("full-front", "Full length, front", "head to toe, facing the camera"),
    ("three-quarter", "Three-quarter", "from mid-thigh up, turned a quarter away"),
    ("back", "Back", "head to toe from behind, for the cut of the back"),
    ("detail", "Detail", "a close crop on the pieces: fabric, closures, hardware"),
    ("walking", "Walking", "full length in stride, the way runway pictures read"),
    ("seated", "Seated", "full length, seated, for drape and length when sitting"),
];

/// The most frames one variations request (or one factory look) may ask for.
pub const MAX_VARIATION_FRAMES: usize = 24;

/// Named output places: (key, width, height, what it is for). `custom` takes the caller's pixels.
pub const DESTINATIONS: [(&str, u32, u32, &str); 6] = [
    ("web-tile", 1200, 1500, "A 4:5 product tile for a web shop"),
    ("story", 1080, 1920, "A 9:16 vertical story"),
    ("square", 1080, 1080, "A 1:1 social post"),
    ("banner", 1920, 1080, "A 16:9 landscape banner"),
    ("a4-print", 2480, 3508, "A4 at 300 dpi, composed at 2:3 and trimmed (5.7 %)"),
    ("a3-print", 3508, 4961, "A3 at 300 dpi, composed at 2:3 and trimmed (5.7 %)"),
];

/// The key of a destination that carries the caller's own width and height.
pub const CUSTOM_DESTINATION: &str = "custom";

/// The built-in plain grounds: (id, name, tone, note).
pub const GROUNDS: [(&str, &str, &str, &str); 5] = [
    ("white", "White seamless", "#FFFFFF", "E-commerce packshots; the marketplace default."),
    ("bone", "Bone", "#F2EDE4", "Warm neutral for knitwear, leather and skin tones."),
    ("dove", "Dove grey", "#D9D9DC", "Soft contrast for white and pale pieces."),
    ("charcoal", "Charcoal", "#333333", "Evening wear, metallics and jewellery."),
    ("black", "Black", "#000000", "High-contrast editorial."),
];
