-- Each asset's content-credentials summary (docs/provenance.md): the API's AssetProvenance as
-- JSON, read when the asset is stored (an upload's own credentials, a develop's signed manifest).
-- NULL for rows stored before credentials were read; their provenance route fills it in.

ALTER TABLE assets ADD COLUMN provenance TEXT;
