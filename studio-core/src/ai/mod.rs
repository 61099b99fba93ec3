//! Charged AI reads through the configured reader: read_model and read_build (reads.rs), and
//! classification on upload (classify.rs).
//! The coming utility lanes and text tools of `02-route-groups.md` §4.1–4.2 live here too,
//! each holding its token through the ledger's hold helpers before the reader is asked.

pub(crate) mod classify;
pub(crate) mod reads;
