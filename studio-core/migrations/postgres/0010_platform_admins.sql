-- Platform admins are marked by an operator (`studio-server admin add EMAIL`), never by
-- signing up with an allowlisted address. `email_verified_at` is set when a person proves
-- their address; STUDIO_ADMIN_EMAILS grants admin only to a verified address.
ALTER TABLE users ADD COLUMN platform_admin BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN email_verified_at TIMESTAMPTZ;
