-- The house's metadata policy (docs/colour.md, "Metadata"; docs/brand.md): what its develops and
-- packs' resized entries keep of their input's EXIF, IPTC and XMP. 'rights' (the default) keeps
-- creator, copyright, credit line and usage terms; 'all' keeps everything, orientation set
-- upright; 'none' keeps nothing.

ALTER TABLE brand_profiles ADD COLUMN metadata_output TEXT NOT NULL DEFAULT 'rights'
    CHECK (metadata_output IN ('rights', 'all', 'none'));
