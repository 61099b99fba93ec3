-- The house's colour policy (docs/colour.md, docs/brand.md): the space its develops and packs'
-- resized entries are written in. 'srgb' (the default) writes sRGB with its profile; 'keep'
-- writes an RGB input's own space and embeds its profile.

ALTER TABLE brand_profiles ADD COLUMN colour_output TEXT NOT NULL DEFAULT 'srgb'
    CHECK (colour_output IN ('srgb', 'keep'));
